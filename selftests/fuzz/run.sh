#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the libFuzzer harnesses built by `make fuzz-bins`, each for a bounded
# time from a fixed seed, on a copy of its committed corpus (which stays as
# it is), with its dictionary:
#
#   selftests/fuzz/run.sh [-t SECONDS] [-s SEED] [HARNESS]...
#
# HARNESS is conf, decode, kw or daemon (default: all). Prints one TAP line per
# harness: the number of inputs run, or the file that crashed it. Replay a
# file with selftests/build/fuzz/fuzz_HARNESS FILE. Work directories (the
# grown corpus, the log, any crash) are in selftests/build/fuzz/work/.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

secs=60
seed=1
while getopts t:s: opt; do
	case $opt in
	t) secs=$OPTARG ;;
	s) seed=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(conf decode kw daemon)

bin=selftests/build/fuzz
failed=0
for h in "${harnesses[@]}"; do
	work=$bin/work/$h
	rm -rf "$work"
	mkdir -p "$work/corpus" "$work/crash"
	cp selftests/fuzz/corpus/"$h"/* "$work/corpus/"
	dict=()
	[ -f "selftests/fuzz/$h.dict" ] && dict=(-dict="selftests/fuzz/$h.dict")
	"$bin/fuzz_$h" -seed="$seed" -max_total_time="$secs" -timeout=10 \
		-artifact_prefix="$work/crash/" "${dict[@]}" "$work/corpus" >"$work/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$work/log")
	crash=$(find "$work/crash" -type f | head -n 1)
	if [ $rc -eq 0 ] && [ -z "$crash" ] && [ -n "$runs" ]; then
		echo "ok - fuzz: $h: $runs runs in $secs s (seed $seed), no crash"
		continue
	fi
	failed=1
	grep -E -m 1 -A 16 '^==[0-9]+==|runtime error|deadly signal' "$work/log" | sed 's/^/# /'
	if [ -n "$crash" ]; then
		echo "not ok - fuzz: $h: crash, replay with: $bin/fuzz_$h $crash"
	else
		echo "not ok - fuzz: $h: exit $rc (log: $work/log)"
	fi
done
exit $failed
