# SPDX-License-Identifier: GPL-2.0
# A DMA mapping error at I/O time. On the flat root bus P2P is refused, and
# the module's fail_p2p_route knob (debugfs) makes the route check let device
# memory go direct anyway: the NVMe driver's dma_map_sgtable() then refuses
# the mapping for real (-EREMOTEIO, a target error on the bio). direct must
# fail with dma-map-failed and EXDEV; auto must bounce, single and batched,
# and land the bytes in the BAR and on the namespace (checked on the host);
# with the knob off the route check refuses again; the module unloads and
# kmemleak is empty.
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
MiB=1048576
KNOB=/sys/kernel/debug/gpupath/fail_p2p_route
kmemleak_clear
load_module
[ -d $KNOB ] || skip "this kernel has no fault injection (CONFIG_FAULT_INJECTION_DEBUG_FS): no $KNOB"
prov=$(bind_bar) || fail "no provider"
$PATTERN gen $((4 * MiB)) 411 | dd of=$NS bs=$MiB conv=fsync 2>/dev/null

echo 0 >$KNOB/verbose
echo 100 >$KNOB/probability
echo -1 >$KNOB/times
expect_io 3 'mode=none reason=dma-map-failed .*error=Invalid cross-device link' \
	-p direct read "$prov" $NS 0 $MiB 411
dmesg | grep -q 'critical target error, dev nvme0n1' ||
	fail "the NVMe driver did not fail the mapping: $(dmesg | tail -5)"
expect_io 0 'mode=bounce reason=dma-map-failed' -p auto -o $((16 * MiB)) read "$prov" $NS $MiB \
	$((2 * MiB)) 411
host_expect bar.img "$(bar_offset)" $((2 * MiB)) 411 $MiB
expect_io 0 'mode=bounce reason=dma-map-failed' -b 4 -p auto -o $((24 * MiB)) read "$prov" $NS \
	0 $MiB 411
host_expect bar.img "$(bar_offset)" $MiB 411 0
expect_io 0 'mode=bounce reason=dma-map-failed' -p auto write "$prov" $NS $((12 * MiB)) $MiB 412
host_expect nvme.img $((12 * MiB)) $MiB 412 $((12 * MiB))
$GP stats -j | jq -e --argjson id "$prov" '.providers[] | select(.id == $id) |
	.stats.direct_ios == 0 and .stats.errors == 0 and
	.stats.refused["dma-map-failed"].ios == 7' >/dev/null ||
	fail "counters: $($GP stats -j | jq -c '.providers')"

echo 0 >$KNOB/probability
expect_io 3 'mode=none reason=no-p2p-route' -p direct read "$prov" $NS 0 $MiB 411
unbind_bar
unload_module
[ ! -e /sys/kernel/debug/gpupath ] || fail "debugfs directory left after unload"
kmemleak_check || fail "kmemleak"
