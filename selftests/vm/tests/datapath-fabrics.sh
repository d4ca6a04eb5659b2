# SPDX-License-Identifier: GPL-2.0
# NVMe-oF into device memory. In the guest neither transport can DMA into
# the BAR: nvme-tcp copies from sockets with the CPU, and soft-RoCE is a
# virtual-DMA device. gpupath must say so (direct: refused with the reason),
# and auto must still land the right bytes in the BAR by bouncing (checked
# on the host in bar.img). Topology: fabric_setup in guest-lib.sh.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
prov=$(bind_bar) || fail "no provider"
trap 'fabric_teardown; unbind_bar' EXIT
fabric_setup
$PATTERN gen $((8 * MiB)) 201 >/tmp/pat
dd if=/tmp/pat of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null

# transport port reason buffer-offset
check() {
	nvme connect -t "$1" -a 10.99.0.1 -s "$2" -n $NQN || fail "$1: connect"
	wait_for 20 ns_dev || fail "$1: no namespace"
	ns=/dev/$(ns_dev)
	expect_io 3 "mode=none reason=$3 .*error=Invalid cross-device link" \
		-p direct read "$prov" "$ns" 0 $MiB 201
	expect_io 0 "mode=bounce reason=$3" -p auto -o "$4" read "$prov" "$ns" $MiB $((2 * MiB)) 201
	host_expect bar.img "$(bar_offset)" $((2 * MiB)) 201 $MiB
	expect_io 0 "mode=bounce reason=none" -p compat read "$prov" "$ns" 0 $MiB 201
	expect_io 0 "mode=bounce reason=$3 ios=4" -b 4 -p auto read "$prov" "$ns" $MiB $MiB 201
	nvme disconnect -n $NQN >/dev/null
}
# Host-checked data at 52 and 56 MiB of the BAR (see datapath.sh).
check tcp 4421 cpu-copy $((52 * MiB))
check rdma 4420 virtual-dma $((56 * MiB))

$GP stats -j >/tmp/stats.json
jq -e --argjson id "$prov" '.providers[] | select(.id == $id) | .stats.direct_ios == 0 and
	.stats.refused["cpu-copy"].ios == 6 and .stats.refused["virtual-dma"].ios == 6 and
	.stats.refused["cpu-copy"].bytes == 4194304' /tmp/stats.json >/dev/null ||
	fail "counters wrong: $(cat /tmp/stats.json)"
$GP stats
