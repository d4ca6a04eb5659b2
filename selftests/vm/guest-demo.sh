#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The demo, inside the VM: an NVMe-oF target over soft-RoCE, the host
# connected to it, gpupath loaded, its daemon running, and what the CLI
# reports. (Topology: see fabric_setup in guest-lib.sh.)
. /src/selftests/vm/guest-lib.sh

step() { printf '\n==> %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

trap 'kill $gpd 2>/dev/null; wait $gpd 2>/dev/null; fabric_teardown; unload_module' EXIT

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
echo
echo "Direct NVMe(-oF) -> device-memory reads arrive in the next milestone;"
echo "this VM already has the device memory they will land in:"
bar=$(pci_dev 0x1af4 0x1110) && echo "  ivshmem BAR2 at ${bar##*/} (64 MiB, the stand-in GPU memory)"
nvme=$(pci_dev 0x1b36 0x0010) && [ -d "$nvme/p2pmem" ] &&
	echo "  NVMe CMB at ${nvme##*/}: $(($(cat "$nvme/p2pmem/size") >> 20)) MiB of P2P memory"
