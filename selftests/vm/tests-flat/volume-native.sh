# SPDX-License-Identifier: GPL-2.0
# A volume in native mode (this VM boots with nvme_core.multipath=Y): its one
# path is the nvme head device over an RDMA and a TCP controller. The kernel's
# NVMe multipath picks the controller, so the volume reports mode native and
# transport multipath, refuses device memory direct with multipath-head (auto
# bounces it), and fio's verification survives a controller deleted under
# it. Topology: fabric_setup in guest-lib.sh.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
prov=$(bind_bar) || fail "no provider"
cleanup() {
	volumes_del_all
	fabric_teardown
	unbind_bar
}
trap cleanup EXIT
fabric_setup
$PATTERN gen $((2 * MiB)) 611 | dd of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null
nvme connect -t rdma -a 10.99.0.1 -s 4420 -n $NQN >/dev/null || fail "connect rdma"
nvme connect -t tcp -a 10.99.0.1 -s 4421 -n $NQN >/dev/null || fail "connect tcp"
wait_for 20 ns_dev || fail "no namespace"
head=/dev/$(ns_dev)

volume_new
$GP path add "$vol" "$head" -j >/tmp/p.json || fail "path add $head"
$GP volume show "$vol" -j >/tmp/v.json
jq -e '.mode == "native" and .path_list[0].transport == "multipath" and
	.path_list[0].reason == "multipath-head"' /tmp/v.json >/dev/null ||
	fail "native volume attributes: $(cat /tmp/v.json)"
$GP volume show "$vol"

expect_io 3 'mode=none reason=multipath-head' -p direct read "$prov" "$VOL" 0 $MiB 611
expect_io 0 'mode=bounce reason=multipath-head' -p auto read "$prov" "$VOL" 0 $((2 * MiB)) 611

fio --name=native --filename="$VOL" --offset=$((64 * MiB)) --size=16M --rw=randwrite --bs=16k \
	--direct=1 --ioengine=libaio --iodepth=16 --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --verify_state_save=0 --output=/tmp/native.fio &
fpid=$!
sleep 2
for c in /sys/class/nvme/nvme*; do
	[ "$(cat "$c/transport")" = tcp ] && echo 1 >"$c/delete_controller"
done
wait $fpid || { cat /tmp/native.fio; fail "fio verify failed across a controller deletion"; }
$GP volume show "$vol" -j | jq -e '.stats.errors == 0 and .usable == 1' >/dev/null ||
	fail "native volume saw errors or lost its path"
note "native mode: fio verified across a controller deletion below the head"
