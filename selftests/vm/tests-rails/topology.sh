# SPDX-License-Identifier: GPL-2.0
# gpupath topology on the rails topology (run-vm.sh --topology rails):
#
#   root port --- switch 0 --+-- GPU0 (ivshmem)
#                            |-- NVMe controller 0
#                            '-- NIC 0 (virtio-net), soft-RoCE rxet0 on it
#   root port --- switch 1 --+-- GPU1 (ivshmem)
#                            |-- NVMe controller 1
#                            '-- NIC 1 (virtio-net)
#
# An ivshmem device is no GPU by its PCI ids: without the module there are
# no rails (and the command still works). With both registered as providers
# they are the GPUs: rail 0 is GPU0 with NIC 0 and rail 1 GPU1 with NIC 1,
# via their switch, and each GPU's closest NVMe is the controller in its
# switch, also via the switch. Expected values come from sysfs, found with
# the guest-lib.sh helpers, not from gpupath.
set -e
. /src/selftests/vm/guest-lib.sh

g0=$(gpu_bdf 0) && g1=$(gpu_bdf 1) || fail "two ivshmem GPUs expected"
for i in 0 1; do
	eval g=\$g$i
	nic=$(switch_nic "$g") || fail "no NIC under GPU$i's switch"
	[ "$(echo "$nic" | wc -l)" = 1 ] || fail "several NICs under GPU$i's switch: $nic"
	ns=$(switch_nvme "$g") || fail "no NVMe under GPU$i's switch"
	nvme=$(readlink -f "/sys/block/$ns/device/device")
	eth=$(ls "/sys/bus/pci/devices/$nic"/virtio*/net)
	note "GPU$i $g: NIC $nic ($eth), NVMe ${nvme##*/} ($ns)"
	eval "nic$i=\$nic nvme$i=\${nvme##*/} eth$i=\$eth"
done

cleanup() {
	! [ -e /sys/class/infiniband/rxet0 ] || rdma link delete rxet0 || true
	! [ -d /sys/module/rdma_rxe ] || rmmod rdma_rxe || true
	unbind_bar "$g0"
	unbind_bar "$g1"
}
trap cleanup EXIT

# Without the module: a tree, no GPU, exit 0.
unload_module
$GP topology >/tmp/topo.txt || fail "topology without the module failed"
cat /tmp/topo.txt
grep -q '^no GPU found:.*module is not loaded' /tmp/topo.txt ||
	fail "without the module, ivshmem is no GPU: expected 'no GPU found'"
$GP topology -j >/tmp/topo.json || fail "topology -j without the module failed"
[ "$(jq '.rails | length' /tmp/topo.json)" = 0 ] || fail "rails without GPUs"
[ "$(jq -r '[.devices[] | select(.kind == "nic") | .pci_dev] | join(" ")' /tmp/topo.json)" = \
	"$nic0 $nic1" ] || fail "NICs: $(jq -c '[.devices[] | select(.kind == "nic")]' /tmp/topo.json)"

# The GPUs as providers, and a soft-RoCE device on NIC 0's interface.
load_module
bind_bar "$g0" >/dev/null && bind_bar "$g1" >/dev/null || fail "providers"
modprobe rdma_rxe || fail "rdma_rxe"
rdma link add rxet0 type rxe netdev "$eth0" || fail "rxet0 on $eth0"
$GP topology >/tmp/topo.txt || fail "topology failed"
cat /tmp/topo.txt
$GP topology -j >/tmp/topo.json || fail "topology -j failed"
jq -c '.rails[]' /tmp/topo.json

[ "$(jq '.rails | length' /tmp/topo.json)" = 2 ] || fail "expected two rails"
for i in 0 1; do
	eval "g=\$g$i nic=\$nic$i nvme=\$nvme$i eth=\$eth$i"
	rdma=
	[ $i = 0 ] && rdma=rxet0
	want="$g $nic $eth $rdma switch $nvme switch"
	got=$(jq -r --argjson i $i '.rails[$i] | [.gpu, .nic, (.netdevs | join(",")),
		(.rdma | join(",")), .nic_relation, (.nvme | map(.pci_dev) | join(",")),
		.nvme_relation] | join(" ")' /tmp/topo.json)
	[ "$got" = "$want" ] || fail "rail $i: '$got', expected '$want'"
	note "rail $i: $got"
	grep -q "^rail $i: GPU $g <-> NIC $nic ($eth${rdma:+, rdma $rdma}) via switch\$" \
		/tmp/topo.txt || fail "rail $i: text line missing"
	prov=$($GP provider show -j | jq --arg d "$g" '.providers[] | select(.pci_dev == $d) | .id')
	got=$(jq -r --arg d "$g" '.devices[] | select(.pci_dev == $d) |
		"\(.kind) \(.provider) \(.switch)"' /tmp/topo.json)
	want="gpu $prov $(pci_switch "$g")"
	[ "$got" = "$want" ] || fail "GPU$i: '$got', expected '$want' (kind, provider, switch)"
done

cleanup
trap - EXIT
unload_module
[ ! -e /sys/class/infiniband/rxet0 ] || fail "rxet0 left behind"
