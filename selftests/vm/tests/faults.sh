# SPDX-License-Identifier: GPL-2.0
# Failed allocations: gp-faults (selftests/vm/faults.c) fails, in turn, each
# allocation the kernel makes for one operation (/proc/self/fail-nth, with
# failslab and fail_page_alloc counting GFP_KERNEL allocations of order 0
# and up), for QoS classes, portals, reports, a volume and its path,
# /dev/gpupath's open, device memory, host memory, an I/O and a batch.
# Each must end in a clean error or a full success, the state as the
# result says. Then failed bios under direct I/O (fail_make_request).
# Afterwards the module unloads, the BAR is free again and kmemleak is
# empty.
. /src/selftests/vm/guest-lib.sh

FI=/sys/kernel/debug
[ -e /proc/self/fail-nth ] && [ -d $FI/failslab ] ||
	skip "this kernel has no fault injection (CONFIG_FAULT_INJECTION, FAILSLAB)"
unload_module
mark_dmesg
kmemleak_clear
modprobe null_blk nr_devices=1 gb=1 || fail "null_blk"
load_module
fi_set() {
	for a in failslab fail_page_alloc; do echo "$1" >$FI/$a/ignore-gfp-wait; done
	echo "$2" >$FI/fail_page_alloc/min-order
}
cleanup() {
	fi_set Y 1
	[ -z "${ns:-}" ] || fmr_off "$ns"
	unbind_bar
	[ ! -d /sys/module/gpupath ] || rmmod gpupath
	rmmod null_blk 2>/dev/null
}
trap cleanup EXIT
# Count every GFP_KERNEL allocation; fail none unless fail-nth says so.
for a in failslab fail_page_alloc; do
	echo 0 >$FI/$a/probability
	echo 0 >$FI/$a/verbose
done
fi_set N 0
bar=$(pci_dev 0x1af4 0x1110) || fail "no ivshmem device"
ns=$(ls /sys/block | grep '^nvme' | head -n 1)
[ -n "$ns" ] || fail "no NVMe namespace"
/usr/libexec/gpupath/gp-faults "${bar##*/}" /dev/nullb0 "/dev/$ns" >/tmp/faults.out 2>&1
rc=$?
fi_set Y 1
cat /tmp/faults.out
[ $rc = 0 ] || fail "gp-faults: exit $rc"
total=$(sed -n 's/.*: \([0-9]*\) fault sites failed in turn.*/\1/p' /tmp/faults.out |
	awk '{ s += $1 } END { print s + 0 }')
[ "$total" -gt 0 ] || fail "no fault was injected"
note "$total injected allocation failures over $(grep -c 'fault sites' /tmp/faults.out) operations"

# Failed bios under direct I/O into device memory: fail_make_request fails
# what is sent to the NVMe namespace (where a lower driver's DMA mapping
# failure shows too). The I/O ends in EIO, the buffer goes with it; once
# the failures stop, the same I/O reads the right bytes.
MiB=1048576
prov=$(bind_bar) || fail "bind the BAR"
$PATTERN gen $((220 * MiB)) 703 |
	dd of="/dev/$ns" bs=$MiB seek=216 skip=216 iflag=fullblock oflag=direct 2>/dev/null ||
	fail "pattern onto /dev/$ns"
fmr_fail "$ns" 2
$GPIO -b 4 -p direct read "$prov" "/dev/$ns" $((216 * MiB)) $((4 * MiB)) 703 >/tmp/io.fail
rc=$?
fmr_off "$ns"
note "direct I/O with its bios failing: $(cat /tmp/io.fail) (exit $rc)"
[ $rc = 3 ] && grep -q "error=Input/output error" /tmp/io.fail ||
	fail "a failed bio did not end in EIO"
$GPIO -b 4 -p direct read "$prov" "/dev/$ns" $((216 * MiB)) $((4 * MiB)) 703 >/tmp/io.ok ||
	fail "the same I/O after the failures: $(cat /tmp/io.ok)"
note "the same I/O afterwards: $(cat /tmp/io.ok)"

# Afterwards: nothing in use, the BAR free for another driver, the module
# gone, nothing leaked.
$GP provider show -j | jq -e '([.providers[].allocated] | add // 0) == 0' >/dev/null ||
	fail "device memory still allocated: $($GP provider show)"
[ "$($GP volume show -j | jq '.volumes | length')" = 0 ] || fail "a volume was left behind"
unbind_bar
[ ! -e "$bar/driver" ] || fail "the BAR is still bound to $(readlink "$bar/driver")"
rmmod gpupath || fail "the module does not unload after the faults"
if kmemleak_check "the faults"; then
	note "kmemleak: clean"
fi
check_dmesg
