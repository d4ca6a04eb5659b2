# SPDX-License-Identifier: GPL-2.0
# Soft-RoCE on a real NIC is no RDMA device that DMAs: the rails topology's
# NIC under GPU0's switch carries an rxe device, and an nvme-rdma
# connection through it is refused direct, as one over a veth is:
#
#   switch 0 --+-- ivshmem "GPU0" (provider)
#              '-- NIC (virtio-net) 10.97.0.1 + rxenic --- nvmet rdma :4430 -- null_blk
#
# The NIC's PCI function is P2P-reachable from the GPU, so a route check
# that looked only at the net device's PCI parent would say direct; the
# data would be copied by the CPU (rxe maps nothing) and on 6.1 a
# retransmission could send another buffer's bytes.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
g0=$(gpu_bdf 0) || fail "no GPU0"
nic=$(switch_nic "$g0" | head -1) || fail "no NIC under GPU0's switch"
ndev=$(ls /sys/bus/pci/devices/"$nic"/virtio*/net/ 2>/dev/null | head -1)
[ -n "$ndev" ] || ndev=$(ls /sys/bus/pci/devices/"$nic"/net/ | head -1)
[ -n "$ndev" ] || fail "no net device on $nic"
prov=$(bind_bar "$g0") || fail "provider"
cleanup() {
	nvme disconnect -n $NQN >/dev/null 2>&1
	rm -f $CFG/ports/5/subsystems/$NQN
	rmdir $CFG/ports/5 2>/dev/null
	subsys_del $NQN
	rdma link delete rxenic 2>/dev/null
	$IP addr del 10.97.0.1/24 dev "$ndev" 2>/dev/null
	unbind_bar "$g0"
	for m in nvme_rdma nvmet_rdma nvmet rdma_rxe null_blk; do
		! [ -d /sys/module/$m ] || rmmod $m
	done
}
trap cleanup EXIT
modprobe null_blk nr_devices=1 gb=1 memory_backed=1 || fail "null_blk"
modprobe -a nvmet nvmet-rdma nvme-rdma rdma_rxe || fail "modules"
$PATTERN gen $MiB 707 | dd of=/dev/nullb0 bs=$MiB oflag=direct 2>/dev/null || fail "pattern"
$IP addr add 10.97.0.1/24 dev "$ndev" && $IP link set "$ndev" up || fail "address on $ndev"
rdma link add rxenic type rxe netdev "$ndev" || fail "rxe on $ndev"
nvmet_subsys $NQN /dev/nullb0 device_uuid=$UUID || fail "subsystem"
nvmet_port 5 rdma 10.97.0.1 4430 || fail "rdma port on $ndev"
nvme connect -t rdma -a 10.97.0.1 -s 4430 -n $NQN >/dev/null || fail "connect"
wait_for 20 ctrl_ns subsysnqn $NQN || fail "no namespace"
ns=/dev/$(ctrl_ns subsysnqn $NQN)
note "nvme-rdma through rxenic on $ndev ($nic): $ns"
expect_io 3 'mode=none reason=virtual-dma' -p direct read "$prov" "$ns" 0 $MiB 707
expect_io 0 'mode=bounce reason=virtual-dma' -p auto read "$prov" "$ns" 0 $MiB 707
check_dmesg
