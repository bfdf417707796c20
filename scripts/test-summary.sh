#!/usr/bin/env bash
# Prints the closing line of a `swift test` log as "tests: N passed, N failed, N skipped" from the test
# runners' own lines, and fails when a test failed or none ran; under CI=true a skipped test fails the run
# too (CI has the evaluation data, so a skip there means something broke), naming every skipped test.
#
# Swift Testing prints, per test: "✘ Test name() failed after ...", "➜ Test name() skipped: "reason"",
# and last: "Test run with N tests in M suites passed|failed after ..." (N counts the skipped ones).
# XCTest prints: "Executed N tests, with F failures (0 unexpected) in ...".
set -euo pipefail
log="$1"
passed=0; failed=0; skipped=0
# One line per `swift test` run (make test runs the service's suites apart): their counts add up.
if grep -qaE "Test run with [0-9]+ tests? " "$log"; then
  total=0
  while read -r line; do
    total=$((total + $(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<<"$line")))
  done < <(grep -aE "Test run with [0-9]+ tests? " "$log")
  # A failed test's own line ends its name with "()" or "(args:)": never the run's closing line.
  failed=$({ grep -aE '^✘ Test .*\) failed after' "$log" || true; } | sort -u | wc -l)
  skipped=$({ grep -aE '^➜ Test .*\) skipped' "$log" || true; } | sort -u | wc -l)
  if grep -aE "Test run with [0-9]+ tests? .*failed after" "$log" >/dev/null && [ "$failed" -eq 0 ]; then
    # A run failed without naming a test (an issue outside any test): count it as one failure.
    failed=1
  fi
  passed=$((total - failed - skipped))
fi
if line=$(grep -aE "Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -1); then
  total=$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$line")
  bad=$(sed -E 's/.*with ([0-9]+) failures?.*/\1/' <<<"$line")
  passed=$((passed + total - bad)); failed=$((failed + bad))
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
if [ "$skipped" -gt 0 ]; then
  echo "skipped:"
  grep -aE '^➜ Test .*\) skipped' "$log" | sed -E 's/^➜ Test (.*\)) skipped(: (.*))?$/  \1 \3/' | sort -u
  # MIEN_SKIPS_FAIL (default: $CI) lets a public CI without the evaluation data report its skips instead.
  if [ "${MIEN_SKIPS_FAIL:-${CI:-}}" = "true" ]; then
    echo "CI=true: a skipped test fails the run (the evaluation data belongs beside the clone in CI; MIEN_SKIPS_FAIL=false reports them instead)"
    exit 1
  fi
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
