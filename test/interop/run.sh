#!/usr/bin/env bash
# Runs the interoperability tests (test/interop, pytest) against the real API:
#   1. sets up the Python venv outside git (scripts/python-env.sh; quick when already there),
#   2. runs pytest with a JUnit XML report (extra arguments go to pytest),
#   3. prints the stac-api-validator report and ends with one line
#      "N passed, N failed, N skipped",
#   4. writes {"passed":N,"failed":N,"skipped":N} to $INTEROP_SUMMARY_FILE when it is set, like
#      test/support/summary-reporter.cjs does for mocha, so scripts/test-all.sh can add it up.
# Exits non-zero when a test failed or the run could not start.
#
#   bash test/interop/run.sh            # everything
#   bash test/interop/run.sh -k filter  # a subset
set -uo pipefail
cd "$(dirname "$0")/../.."

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

finish() {
  local passed=$1 failed=$2 skipped=$3
  if [[ -n "${INTEROP_SUMMARY_FILE:-}" ]]; then
    printf '{"passed":%d,"failed":%d,"skipped":%d}\n' "$passed" "$failed" "$skipped" \
      >"$INTEROP_SUMMARY_FILE"
  fi
  echo
  echo "$passed passed, $failed failed, $skipped skipped"
  [[ $failed -eq 0 ]]
  exit
}

if ! venv=$(bash scripts/python-env.sh); then
  echo "interop: could not set up the Python environment"
  finish 0 1 0
fi

PYTHONDONTWRITEBYTECODE=1 CAIRN_VALIDATOR_REPORT="$out/validator.txt" \
  "$venv/bin/python" -m pytest test/interop \
  -p no:cacheprovider -q -rs --junitxml "$out/junit.xml" "$@"
status=$?

if [[ -s "$out/validator.txt" ]]; then
  echo
  echo "=== stac-api-validator report"
  grep -v '^INFO:' "$out/validator.txt"
fi

if [[ ! -s "$out/junit.xml" ]]; then
  echo "interop: pytest produced no report (exit $status)"
  finish 0 1 0
fi

read -r passed failed skipped < <("$venv/bin/python" - "$out/junit.xml" <<'EOF'
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
total = failed = skipped = 0
for suite in suites:
    total += int(suite.get("tests", 0))
    failed += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
    skipped += int(suite.get("skipped", 0))
print(total - failed - skipped, failed, skipped)
EOF
)
# pytest failing with no failed test (an internal error, a usage error, exit 5: no test
# collected) still counts as a failure.
if [[ $status -ne 0 && $failed -eq 0 ]]; then failed=1; fi
finish "$passed" "$failed" "$skipped"
