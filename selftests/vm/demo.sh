#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: build what is missing (test kernel, module, user space), boot
# the VM and run guest-demo.sh in it, showing its output as it happens.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"
cd "$top"

kdir=$(selftests/vm/build-kernel.sh)
make --no-print-directory userspace test-bins >/dev/null
work=$top/selftests/build/demo
rm -rf "$work"
mkdir -p "$work"
selftests/vm/build-module.sh "$kdir/build" "$top/selftests/build/kmod-demo" >/dev/null
cp selftests/build/kmod-demo/gpupath.ko "$work/"
msg VM "booting $(basename "$kdir") under QEMU (TCG); this takes a minute"
selftests/vm/run-vm.sh --workdir "$work" --kernel "$kdir/bzImage" \
	--modroot "$kdir/modroot" --append nvme_core.multipath=N --timeout 600 -- \
	sh /src/selftests/vm/guest-demo.sh \
	>"$work/vm.log" 2>&1 &
vm=$!
# Show the guest's output while it runs.
until [ -f "$work/tap.log" ] || ! kill -0 $vm 2>/dev/null; do sleep 0.2; done
tail -n +1 -f "$work/tap.log" --pid=$vm | grep --line-buffered -v '^GPUPATH_EXIT='
if wait $vm; then
	msg DONE "demo finished; logs in ${work#"$top"/}"
else
	cat "$work/vm.log" >&2
	die "demo failed; console log: $work/console.log"
fi
