#!/usr/bin/env bash
# Prints the closing line of a `swift test` log as "tests: N passed, N failed" and fails when a test
# failed or none ran. Swift Testing and XCTest each print their own totals; this adds them up.
set -euo pipefail
log="$1"
passed=0; failed=0
# Swift Testing: "✔ Test run with 53 tests in 11 suites passed after ..." or
#                "✘ Test run with 53 tests in 11 suites failed after ... with 2 issues."
if line=$(grep -aE "Test run with [0-9]+ tests? " "$log" | tail -1); then
  total=$(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<<"$line")
  if grep -q "passed after" <<<"$line"; then passed=$((passed + total))
  else
    bad=$(grep -acE "^✘ Test [^r]" "$log" || true)
    failed=$((failed + bad)); passed=$((passed + total - bad))
  fi
fi
# XCTest: "Executed 3 tests, with 1 failure (0 unexpected) in ..."
if line=$(grep -aE "Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -1); then
  total=$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$line")
  bad=$(sed -E 's/.*with ([0-9]+) failures?.*/\1/' <<<"$line")
  passed=$((passed + total - bad)); failed=$((failed + bad))
fi
skipped=$(grep -ac "^SKIPPED" "$log" || true)
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
