# SPDX-License-Identifier: GPL-2.0
# What a path must be: the whole of a namespace no other volume serves
# (nvme-rdma and nvme-tcp to one nvmet namespace; nvme_core.multipath=N):
#
#   volume 1 --- path rdma (nvme-rdma over rxe0) ---.
#   volume 2 ..x path tcp  (nvme-tcp)         ------+-- nvmet -- null_blk
#
# - a partition is refused (two partitions of one namespace would be two
#   "paths" to different blocks), with a message;
# - a second volume is refused the namespace of the first, whether by its
#   first path or by the wwid it is created with;
# - nothing refused is left claimed: the devices open exclusively after.
. /src/selftests/vm/guest-lib.sh

load_module
cleanup() {
	volumes_del_all
	fabric_teardown
}
trap cleanup EXIT
fabric_paths 4 606
printf 'label: gpt\n,16MiB\n,16MiB\n' | sfdisk -q "$RDMA" >/dev/null || fail "partition $RDMA"
wait_for 10 test -b "${RDMA}p2" || fail "no ${RDMA}p2"

refused() {
	want=$1
	shift
	out=$($GP "$@" 2>&1) && fail "gpupath $* was accepted"
	echo "gpupath $* -> $out"
	echo "$out" | grep -q "$want" || fail "gpupath $*: expected '$want'"
}
volume_new
v1=$vol
refused "a partition cannot be a path" path add "$v1" "${RDMA}p1"
refused "a partition cannot be a path" path add "$v1" "${RDMA}p2"
$GP volume show "$v1" -j | jq -e '.paths == 0' >/dev/null || fail "a partition became a path"
$GP path add "$v1" "$RDMA" >/dev/null || fail "path add the whole namespace"
note "partitions refused as paths, the whole namespace taken"

volume_new
v2=$vol
refused "another volume serves the device's wwid" path add "$v2" "$TCP"
wwid=$(cat /sys/block/${TCP#/dev/}/wwid)
refused "another volume serves this wwid" volume add wwid "$wwid"
$GP volume show -j | jq -e '[.volumes[] | select(.wwid == "'"$wwid"'")] | length == 1' \
	>/dev/null || fail "two volumes of one wwid"
# Refused, so not claimed: the device opens exclusively (O_EXCL) again.
python3 -c "import os; os.close(os.open('$TCP', os.O_RDONLY | os.O_EXCL))" ||
	fail "$TCP left claimed by a refused path add"
$GP volume del "$v2" || fail "volume del"
# Once the first volume is gone, the namespace is anyone's.
$GP volume del "$v1" || fail "volume del"
volume_new
$GP path add "$vol" "$TCP" >/dev/null || fail "the namespace of a deleted volume"
note "a second volume refused the namespace of the first"
$GP volume del "$vol" || fail "volume del"
check_dmesg
