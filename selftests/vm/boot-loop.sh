#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel again and again and count the boots that oopsed: the check
# of the TCG text-patching hazard (run-vm.sh). Each boot loads gpupath,
# binds the BAR and exercises the tracepoints and the random number
# generator, as the tests do early on, then powers off.
#
#   boot-loop.sh SERIES N [run-vm.sh options, e.g. --smp 2]
#
# SERIES: 6.1 or 6.12 (the test kernel, built or cached) or 7.3 (Debian's
# stock kernel, the module built by DKMS). Prints one line per boot and
# "N boots, N oopsed"; exits 1 if any did.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: boot-loop.sh SERIES N [run-vm.sh options]" >&2; exit 2; }
export KERNEL_SERIES=$1
n=$2
shift 2
. "$top/selftests/vm/lib.sh"

work=$top/selftests/build/boot-loop-$KERNEL_SERIES
rm -rf "$work"
mkdir -p "$work"
case $KERNEL_SERIES in
6.*)
	kdir=$("$top/selftests/vm/build-kernel.sh") || die "test kernel"
	kimage=$kdir/bzImage kmodroot=$kdir/modroot
	"$top/selftests/vm/build-module.sh" "$kdir/build" "$work/kmod" >/dev/null || die "module"
	cp "$work/kmod/gpupath.ko" "$work/" ;;
*)
	kdir=$("$top/selftests/vm/stock-kernel.sh") || die "stock kernel"
	kimage=$kdir/vmlinuz kmodroot=$kdir/modroot
	stock_module "$work/dkms" "$(cat "$kdir/release")" "$work/gpupath.ko" >/dev/null ||
		die "dkms build" ;;
esac
make -C "$top" --no-print-directory userspace test-bins >/dev/null || die "user space"

cmd='. /src/selftests/vm/guest-lib.sh; load_module && prov=$(bind_bar) &&
	echo 1 >/sys/kernel/tracing/events/gpupath/enable &&
	head -c 4096 /dev/urandom >/dev/null && $GP show >/dev/null &&
	echo 0 >/sys/kernel/tracing/events/gpupath/enable && unbind_bar && unload_module'
bad=0
for i in $(seq 1 "$n"); do
	start=$(date +%s)
	"$top/selftests/vm/run-vm.sh" --kernel "$kimage" --modroot "$kmodroot" --workdir "$work" \
		--append "nvme_core.multipath=N" --timeout 300 "$@" -- "$cmd" >"$work/vm.log" 2>&1
	rc=$?
	if grep -aqE 'Oops|BUG:|int3|Kernel panic' "$work/console.log" || [ $rc -gt 1 ]; then
		bad=$((bad + 1))
		cp "$work/console.log" "$work/console-$i.log"
		echo "boot $i: oopsed (exit $rc, $(grep -aE -m1 'Oops|BUG:|int3|panic' "$work/console.log"))"
	else
		echo "boot $i: clean (exit $rc, $(( $(date +%s) - start )) s)"
	fi
done
echo "$n boots, $bad oopsed"
[ $bad = 0 ]
