# SPDX-License-Identifier: GPL-2.0
# NVMe-oF inside the guest: one nvmet subsystem exported over soft-RoCE and
# over TCP, connected with nvme-cli, data checked both ways.
#
#   null_blk /dev/nullb0 (memory backed)
#        |
#   nvmet subsystem NQN, namespace 1
#        |- port 1: rdma 10.99.0.1:4420 --- rxe0 on veth0
#        '- port 2: tcp  10.99.0.1:4421
#                     veth0 10.99.0.1/24 <===> veth1 10.99.0.2/24
#   host: nvme connect -t rdma|tcp -a 10.99.0.1  ->  /dev/nvmeXnY
#
# Every address lives inside the guest, which has no network card.
set -e
. /src/selftests/vm/guest-lib.sh

trap fabric_teardown EXIT
fabric_setup

# The target's backing store holds a known pattern.
MiB=1048576
$PATTERN gen $((4 * MiB)) 11 >/tmp/pat11
dd if=/tmp/pat11 of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null

check_transport() {
	tr=$1 port=$2 seed=$3
	nvme connect -t "$tr" -a 10.99.0.1 -s "$port" -n $NQN
	wait_for 20 ns_dev || fail "$tr: no namespace device appeared"
	dev=$(ns_dev)
	ctrl=$(grep -l "^$tr\$" /sys/class/nvme/nvme*/transport | head -n 1)
	[ -n "$ctrl" ] || fail "$tr: no controller with that transport"
	note "$tr: /dev/$dev via ${ctrl%/transport}"
	# Read: the target's pattern through the fabric.
	echo 3 >/proc/sys/vm/drop_caches
	dd if=/dev/"$dev" bs=$MiB count=4 2>/dev/null | cmp - /tmp/pat11 ||
		fail "$tr: read through /dev/$dev differs from the backing store"
	# Write: a new pattern through the fabric, checked in the backing store.
	$PATTERN gen $MiB "$seed" >/tmp/pat$seed
	dd if=/tmp/pat$seed of=/dev/"$dev" bs=$MiB seek=8 conv=fsync 2>/dev/null
	echo 3 >/proc/sys/vm/drop_caches
	dd if=/dev/nullb0 bs=$MiB skip=8 count=1 2>/dev/null | cmp - /tmp/pat$seed ||
		fail "$tr: write through /dev/$dev did not reach the backing store"
	nvme disconnect -n $NQN >/dev/null
	wait_for 10 sh -c "! grep -qs '^$tr\$' /sys/class/nvme/nvme*/transport" ||
		fail "$tr: controller still there after disconnect"
	note "$tr: 4 MiB read and 1 MiB written, both verified"
}
check_transport rdma 4420 21
check_transport tcp 4421 22

fabric_teardown
trap - EXIT
# Nothing created here may be left behind.
for m in nvmet nvmet_rdma nvmet_tcp nvme_rdma nvme_tcp rdma_rxe null_blk; do
	[ ! -d /sys/module/$m ] || fail "module $m still loaded: something still holds it"
done
! $IP link show veth0 >/dev/null 2>&1 || fail "veth0 left behind"
[ -z "$(rdma link show 2>/dev/null)" ] || fail "rdma link left behind"
