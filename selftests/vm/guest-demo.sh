#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The demo, inside the VM: an NVMe-oF target over soft-RoCE, the host
# connected to it, gpupath loaded, its daemon running, and what the CLI
# reports. (Topology: see fabric_setup in guest-lib.sh.)
. /src/selftests/vm/guest-lib.sh

step() { printf '\n==> %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

trap 'kill $gpd 2>/dev/null; wait $gpd 2>/dev/null; fabric_teardown; unbind_bar; unload_module' EXIT

step "NVMe-oF target over soft-RoCE (rxe0 on veth0) and TCP, backed by null_blk"
fabric_setup
run rdma link show
step "connect the host over RDMA"
run nvme connect -t rdma -a 10.99.0.1 -s 4420 -n $NQN
wait_for 20 ns_dev || fail "no namespace appeared"
run nvme list
echo "namespace $UUID is /dev/$(ns_dev)"

step "load gpupath and start its daemon"
run insmod "$KO"
gpupathd --foreground >/tmp/gpupathd.log 2>&1 &
gpd=$!
wait_for 10 grep -q 'features:' /tmp/gpupathd.log
sed 's/^/gpupathd: /' /tmp/gpupathd.log

step "what the module reports"
run gpupath version
run gpupath show
run gpupath show -j

step "device memory: bind the ivshmem BAR (the stand-in GPU) to gpupath's stub driver"
bar=$(pci_dev 0x1af4 0x1110)
run sh -c "echo gpupath > $bar/driver_override; echo ${bar##*/} > /sys/bus/pci/drivers_probe"
run gpupath provider show
prov=$(gpupath provider show -j | jq '.providers[0].id')

step "local NVMe behind the same PCIe switch as the BAR: the NVMe controller DMAs into it"
run gpupath-bench -d /dev/nvme0n1 -p "$prov" -m direct,compat,host -s 1M -D 2 -S 32M -v

step "NVMe-oF over soft-RoCE: no PCI DMA engine in the VM: direct is refused, and says why"
run gpupath-bench -d "/dev/$(ns_dev)" -p "$prov" -m direct,compat,host -s 1M -D 2 -S 32M -v

step "how every byte went"
run gpupath stats
