// Mocha reporter: the spec reporter's output, plus the run's counts and the failed tests (title
// and the first lines of the error) written as JSON to the file named by MOCHA_SUMMARY_FILE, so
// scripts/test-all.sh can add suites up and repeat every failure at the end of its output.
'use strict';
const fs = require('node:fs');
const Mocha = require('mocha');

const MESSAGE_CHARS = 600;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failures = [];
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test, err) => {
      const message = String((err && (err.message || err)) || '').slice(0, MESSAGE_CHARS);
      failures.push({ title: test.fullTitle(), file: test.file || null, message });
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.MOCHA_SUMMARY_FILE;
      if (!file) return;
      const { passes, pending } = runner.stats;
      fs.writeFileSync(
        file,
        JSON.stringify({
          passed: passes,
          failed: runner.stats.failures,
          skipped: pending,
          failures,
        }),
      );
    });
  }
}

module.exports = SummaryReporter;
