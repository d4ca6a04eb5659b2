# SPDX-License-Identifier: GPL-2.0
# The gpupath_io tracepoint: one event per I/O, with how it was served.
# Needs a kernel with event tracing (Debian's stock kernel has it).
. /src/selftests/vm/guest-lib.sh

EV=/sys/kernel/tracing/events/gpupath/gpupath_io
load_module
[ -d /sys/kernel/tracing/events ] || skip "no event tracing in this kernel (CONFIG_EVENT_TRACING)"
[ -d $EV ] || fail "the module's tracepoint is missing"
NS=/dev/nvme0n1
modprobe -q nvme	# built in on the test kernel, a module on Debian's
wait_for 10 test -b $NS || fail "no $NS"
echo >/sys/kernel/tracing/trace
# No task names: recording them hooks sched_switch, and the kernel then
# patches a static branch in __schedule() while the other CPU runs it,
# which under QEMU's TCG once left that CPU on the patch's int3 (an oops,
# 6.12). The events need no task name.
echo 0 >/sys/kernel/tracing/options/record-cmd || fail "record-cmd off"
echo 1 >$EV/enable
$PATTERN gen 65536 501 | dd of=$NS bs=65536 conv=fsync 2>/dev/null
expect_io 0 'mode=host' read host $NS 0 65536 501
expect_io 3 'error=Invalid argument' -p direct read host $NS 1 4096 501
echo 0 >$EV/enable
echo 1 >/sys/kernel/tracing/options/record-cmd
cat /sys/kernel/tracing/trace | grep gpupath_io
grep -Eq "gpupath_io: provider=0 dev=[0-9]+:[0-9]+ ino=0 op=read offset=0 len=65536 mode=host reason=0 ret=0" \
	/sys/kernel/tracing/trace || fail "no event for the read"
grep -Eq "gpupath_io: .* offset=1 len=4096 mode=none reason=0 ret=-22" /sys/kernel/tracing/trace ||
	fail "no event for the refused read"
