// Mocha reporter: the spec reporter's output, plus the run's counts written as JSON to the
// file named by MOCHA_SUMMARY_FILE, so scripts/test-all.sh can add suites up.
'use strict';
const fs = require('node:fs');
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.MOCHA_SUMMARY_FILE;
      if (!file) return;
      const { passes, failures, pending } = runner.stats;
      fs.writeFileSync(
        file,
        JSON.stringify({ passed: passes, failed: failures, skipped: pending }),
      );
    });
  }
}

module.exports = SummaryReporter;
