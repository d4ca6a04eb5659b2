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
# run_test SCRIPT NAME SINCE: the test, its output into /tmp/NAME.log; its
# exit status, or 99 when nvme-pci reset the controller a second time.
run_test() {
	local pid
	sh "$1" >"/tmp/$2.log" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		sleep 2
		[ "$(nvme_resets "$3")" -lt 2 ] || return 99
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
	[ $rc = 0 ] || [ $rc = 4 ] || [ $rc = 99 ] || stall=$(nvme_stall "$t0")
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
	case $rc in
	0) echo "ok $n $name # ${took}s" ;;
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
