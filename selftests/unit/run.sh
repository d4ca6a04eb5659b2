#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The unit tests of the user-space code, selftests/unit/*_test.c, as make
# unit-tests builds them into selftests/build/:
#
#   selftests/unit/run.sh [--tap] [NAME]...
#
# runs them all, or those named (ledger, ledger_test or its path). Each
# prints TAP; a test that dies (UBSan, a signal) prints no "not ok" for the
# tests it did not reach, so fewer results than its plan is a failure of
# its own. Prints the TAP of all, then "N passed, N failed" (not with
# --tap, for a runner that counts); exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."

summary=1
[ "${1:-}" != --tap ] || { summary=; shift; }
tests=()
if [ $# -eq 0 ]; then
	tests=(selftests/build/*_test)
	[ -e "${tests[0]}" ] || { echo "error: no unit test built (make unit-tests)" >&2; exit 2; }
fi
for n in "$@"; do
	n=${n##*/}
	n=${n%.c}
	n=${n%_test}
	[ -x "selftests/build/${n}_test" ] || {
		echo "error: no unit test '$n' (selftests/unit/*_test.c: $(cd selftests/unit &&
			ls -- *_test.c | sed 's/_test\.c//' | paste -sd ' '))" >&2
		exit 2
	}
	tests+=("selftests/build/${n}_test")
done

pass=0 fail=0
for t in "${tests[@]}"; do
	out=$("$t" 2>&1)
	grep -v '^TAP version\|^1\.\.' <<<"$out"
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$out")
	ok=$(grep -c '^ok ' <<<"$out")
	bad=$(grep -c '^not ok ' <<<"$out")
	pass=$((pass + ok))
	fail=$((fail + bad))
	if [ "$((ok + bad))" != "${plan:-none}" ]; then
		echo "not ok - host: ${t##*/} ended after $((ok + bad)) of ${plan:-its} tests"
		fail=$((fail + 1))
	fi
done
[ -z "$summary" ] || echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
