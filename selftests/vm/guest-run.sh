#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM: each argument is a test script; prints TAP. A test
# exits 0 (pass), 4 (skip, last line says why) or anything else (fail). A
# part of a test that this kernel cannot run (skip_part in guest-lib.sh) is
# a test point of its own, skipped, after the test's. The plan comes last
# (the number of points is known then); "# tests: N" first says how many
# scripts are to report, so that a guest that died in one is told.
#
# QEMU 7.2's emulated NVMe controller sometimes stops completing I/O under
# load (Documentation/testing.md). A test that failed while nvme-pci timed
# out on it (", aborting", ", reset controller"... after "QID N timeout":
# nvme-pci's words, not the fabrics drivers') runs once more, its first
# try kept as comments. When nvme-pci gave up on the controller ("timeout,
# disable controller": a reset did not bring it back), every later test
# would fail for it alone: the run stops there, says so in a
# "# nvme-wedged:" line and exits 3, and the host boots the guest once more
# (run_guest in selftests/run.sh). The same when a reset brings the
# controller back only to stall again: a second "timeout, reset controller"
# within one test stops the run at once (the test would wait on its I/O
# until the guest's time is up).
#
# Each test has a time limit: TEST_LIMIT seconds (600), or what the test
# names in a "# time-limit: N" line. A test still running then is reported
# with what each of its processes waits on (and the kernel stack of any
# task stuck in the kernel), stopped with SIGTERM (guest-lib.sh makes that
# run the test's EXIT trap, its cleanup), SIGKILL two minutes later, and
# fails; the run goes on with the next test. A test whose processes do not
# end even then leaves the guest in no state to go on: the run stops there
# (exit 2), and the tests after it give no result.
echo "TAP version 13"
echo "# tests: $#"
n=0
failed=0
# nvme_stall SINCE: nvme-pci's first I/O timeout logged after uptime SINCE.
nvme_stall() {
	dmesg | awk -v t="$1" '/QID [0-9]+ timeout, (aborting|reset controller|disable controller|completion polled)/ {
		s = $0; sub(/^\[ */, "", s); if (s + 0 >= t) { sub(/^[^]]*] /, ""); print; exit } }'
}
# nvme_resets SINCE: how many times nvme-pci reset a controller for an I/O
# timeout since uptime SINCE.
nvme_resets() {
	dmesg | awk -v t="$1" '/QID [0-9]+ timeout, reset controller/ {
		s = $0; sub(/^\[ */, "", s); if (s + 0 >= t) n++ } END { print n + 0 }'
}
uptime_s() { local up; read -r up _ </proc/uptime; echo "${up%.*}"; }
# waits_on PGID: each process of process group PGID, and each task in
# uninterruptible sleep anywhere: PID, state, what it waits on, command;
# the kernel stack of those stuck in the kernel.
waits_on() {
	local p st pid state pgrp wchan cmd
	for p in /proc/[0-9]*; do
		read -r st <"$p/stat" 2>/dev/null || continue
		pid=${st%% *}
		st=${st##*) }
		state=${st%% *}
		st=${st#* }
		st=${st#* }
		pgrp=${st%% *}
		[ "$pgrp" = "$1" ] || [ "$state" = D ] || continue
		read -r wchan <"$p/wchan" 2>/dev/null
		cmd=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)
		echo "  $pid $state ${wchan:--} ${cmd:-[kernel task]}"
		[ "$state" = D ] && sed 's/^/      /' "$p/stack" 2>/dev/null
	done
}
# overtime PID LIMIT: test PID (the leader of its own session) ran past
# LIMIT seconds. 98 once it is stopped, 97 when its processes would not end.
overtime() {
	local t
	echo "TIME LIMIT: still running after $2 s; its processes (PID, state, wait, command):"
	waits_on "$1"
	echo "TIME LIMIT: stopped (SIGTERM; its cleanup follows)"
	kill -TERM -"$1" 2>/dev/null
	t=$(($(uptime_s) + 120))
	while kill -0 -"$1" 2>/dev/null && [ "$(uptime_s)" -lt $t ]; do
		sleep 1
	done
	kill -0 -"$1" 2>/dev/null || { wait "$1"; return 98; }
	echo "TIME LIMIT: still running 120 s after SIGTERM; SIGKILL:"
	waits_on "$1"
	kill -KILL -"$1" 2>/dev/null
	sleep 10
	kill -0 -"$1" 2>/dev/null || { wait "$1"; return 98; }
	echo "TIME LIMIT: processes left after SIGKILL:"
	waits_on "$1"
	return 97
}
# run_test SCRIPT NAME SINCE: the test, its output into /tmp/NAME.log; its
# exit status, 99 when nvme-pci reset the controller a second time, 98 when
# it ran past its time limit and was stopped, 97 when it would not stop.
run_test() {
	local pid limit end
	limit=$(sed -n 's/^# time-limit: \([0-9][0-9]*\)$/\1/p' "$1" | head -n 1)
	end=$(($(uptime_s) + ${limit:-${TEST_LIMIT:-600}}))
	# (a session of its own: its process group is the test's processes)
	# (appended to, as overtime's report is)
	: >"/tmp/$2.log"
	setsid sh "$1" >>"/tmp/$2.log" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		sleep 2
		[ "$(nvme_resets "$3")" -lt 2 ] || return 99
		[ "$(uptime_s)" -lt $end ] ||
			{ overtime $pid "${limit:-${TEST_LIMIT:-600}}" >>"/tmp/$2.log" 2>&1; return; }
	done
	wait $pid
}
# Every test starts from the same state: no daemon left running, the BAR
# device unbound from gpupath's stub, the module unloaded.
reset_state() {
	killall -q gpupathd 2>/dev/null && sleep 1
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/driver_override" 2>/dev/null)" = gpupath ] || continue
		[ -e "$d/driver" ] && echo "${d##*/}" >"$d/driver/unbind"
		echo >"$d/driver_override"
	done
	[ -d /sys/module/gpupath ] && rmmod gpupath
}
for t in "$@"; do
	n=$((n + 1))
	name=$(basename "$t" .sh)
	start=$(date +%s)
	echo "# run $name"
	t0=$(cut -d ' ' -f 1 /proc/uptime)
	run_test "$t" "$name" "$t0"
	rc=$?
	stall=
	[ $rc = 0 ] || [ $rc = 4 ] || [ $rc = 99 ] || [ $rc = 97 ] || stall=$(nvme_stall "$t0")
	if [ -n "$stall" ]; then
		sed 's/^/# first try: /' "/tmp/$name.log"
		echo "# $name failed while QEMU's NVMe controller stopped completing I/O ($stall): it runs again"
		reset_state
		t0=$(cut -d ' ' -f 1 /proc/uptime)
		run_test "$t" "$name" "$t0"
		rc=$?
	fi
	if [ $rc = 99 ]; then
		sed 's/^/# /' "/tmp/$name.log"
		echo "# nvme-wedged: in $name: QEMU's NVMe controller stalled again after a reset" \
			"($(nvme_stall "$t0"))"
		echo "1..$n"
		exit 3
	fi
	sed 's/^/# /' "/tmp/$name.log"
	took=$(( $(date +%s) - start ))
	if [ $rc = 97 ]; then
		echo "not ok $n $name # time limit: its processes would not end"
		echo "1..$n"
		exit 2
	fi
	case $rc in
	0) echo "ok $n $name # ${took}s" ;;
	98) echo "not ok $n $name # time limit: stopped after ${took}s"; failed=1 ;;
	4) echo "ok $n $name # SKIP $(tail -n 1 "/tmp/$name.log" | sed 's/^SKIP: //')" ;;
	*) echo "not ok $n $name # exit $rc"; failed=1 ;;
	esac
	sed -n 's/^SKIP-PART: \(.*\) # \(.*\)/\1\t\2/p' "/tmp/$name.log" | while IFS='	' read -r what why; do
		n=$((n + 1))
		echo "ok $n $name: $what # SKIP $why"
	done
	n=$((n + $(grep -c '^SKIP-PART: ' "/tmp/$name.log")))
	reset_state
	wedged=$(dmesg | grep -m 1 -E 'nvme nvme[0-9]+: I/O .*QID [0-9]+ timeout, disable controller')
	if [ -n "$wedged" ]; then
		echo "# nvme-wedged: after $name: ${wedged#*] }"
		echo "1..$n"
		exit 3
	fi
done
echo "1..$n"
exit $failed
