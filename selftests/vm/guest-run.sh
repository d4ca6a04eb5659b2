#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM: each argument is a test script; prints TAP. A test
# exits 0 (pass), 4 (skip, last line says why) or anything else (fail).
echo "TAP version 13"
echo "1..$#"
n=0
failed=0
for t in "$@"; do
	n=$((n + 1))
	name=$(basename "$t" .sh)
	start=$(date +%s)
	echo "# run $name"
	sh "$t" >"/tmp/$name.log" 2>&1
	rc=$?
	sed 's/^/# /' "/tmp/$name.log"
	took=$(( $(date +%s) - start ))
	case $rc in
	0) echo "ok $n $name # ${took}s" ;;
	4) echo "ok $n $name # SKIP $(tail -n 1 "/tmp/$name.log" | sed 's/^SKIP: //')" ;;
	*) echo "not ok $n $name # exit $rc"; failed=1 ;;
	esac
	# Every test starts from the same state: no daemon left running, the
	# BAR device unbound from gpupath's stub, the module unloaded.
	killall -q gpupathd 2>/dev/null && sleep 1
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/driver_override" 2>/dev/null)" = gpupath ] || continue
		[ -e "$d/driver" ] && echo "${d##*/}" >"$d/driver/unbind"
		echo >"$d/driver_override"
	done
	[ -d /sys/module/gpupath ] && rmmod gpupath
done
exit $failed
