# SPDX-License-Identifier: GPL-2.0
# Faults under I/O, and stress, each for a bounded time (STRESS_SECONDS,
# default 20; `make stress` runs longer on the debug kernel):
#  1. A path dying under I/O: fail_make_request fails every bio sent to the
#     volume's RDMA path for a while, under fio verify on the volume. The
#     volume fails over to the TCP path, fio verifies, no error reaches it,
#     and the path comes back by itself once the failures stop.
#  2. Stress: processes doing batched I/O through the volume (host memory)
#     and from the emulated NVMe straight into the BAR (device memory),
#     each checking its bytes, while QoS classes and portals are made and
#     deleted in a loop and the module is asked to unload. It is refused
#     while a file of it is open; when it goes (between two I/Os), it is
#     loaded again with its provider and volume, and the I/O that met the
#     gap fails cleanly. No I/O may ever return wrong bytes.
#  3. The BAR's device removed from the PCI bus with I/O into it in flight,
#     twice: through sysfs, and unplugged by QEMU (device_del, PCIe native
#     hot-plug in the guest). Each I/O completes or fails cleanly (a buffer
#     touched after the removal took its memory back gets SIGBUS, which
#     gp-io reports as an error), the removal finishes once the I/O in
#     flight is done, and a rescan (device_add) brings the device back as a
#     provider that direct I/O works into again.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
SECS=${STRESS_SECONDS:-20}
[ -d $FMR ] || skip "this kernel has no fail_make_request"
load_module
prov=$(bind_bar) || fail "no provider"
bar=$(pci_dev 0x1af4 0x1110)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -z "${RDMA:-}" ] || fmr_off "${RDMA#/dev/}" 2>/dev/null
	volumes_del_all
	fabric_teardown
	unbind_bar
}
trap cleanup EXIT
fabric_paths 16 701
volume_new
$GP path add "$vol" "$RDMA" rail 1 >/dev/null || fail "path add rdma"
$GP path add "$vol" "$TCP" rail 2 >/dev/null || fail "path add tcp"
NVME=$(ls /sys/block | grep '^nvme[0-9]*n1$' | while read -r d; do
	[ "$(cat "/sys/block/$d/device/transport")" = pcie ] && echo "/dev/$d"; done | head -n 1)
[ -b "$NVME" ] || fail "no PCIe NVMe namespace"
# Pattern 702 laid at 192 MiB of it, positions as its offsets (other tests
# leave theirs lower down, for the host to check).
$PATTERN gen $((208 * MiB)) 702 |
	dd of="$NVME" bs=$MiB seek=192 skip=192 iflag=fullblock oflag=direct 2>/dev/null ||
	fail "pattern onto $NVME"

# 1. The RDMA path's bios fail for a while, under fio verify.
fio_start 3
sleep 1
fmr_fail "${RDMA#/dev/}" 20
wait_for 30 sh -c "[ \$(cat $FMR/times) -le 0 ]" ||
	note "fail_make_request: $(cat $FMR/times) failures not used"
fmr_off "${RDMA#/dev/}"
fio_check "a path failing under I/O"
$GP volume show "$vol" -j >/tmp/v.json
jq -e '.stats.errors == 0 and .stats.failovers > 0' /tmp/v.json >/dev/null ||
	fail "volume after the path failures: $(jq -c .stats /tmp/v.json)"
wait_for 20 sh -c "$GP volume show $vol -j | jq -e '.usable == 2' >/dev/null" ||
	fail "the RDMA path did not come back: $($GP volume show "$vol")"
note "path failures under fio: $(jq -c '{failovers: .stats.failovers, retries: .stats.retries,
	errors: .stats.errors}' /tmp/v.json), fio verified, the path back"

# 2. Stress: I/O processes, configuration churn, unload attempts.
end=$(( $(cut -d. -f1 /proc/uptime) + SECS ))
io_loop() {	# NAME gp-io ARGS...: until the end; wrong bytes (exit 1) fail
	name=$1
	shift
	n=0 failed=0
	while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
		$GPIO "$@" >/tmp/io.$name 2>&1
		case $? in
		0) n=$((n + 1)) ;;
		1) echo "FAIL $name: wrong data: $(cat /tmp/io.$name)"; exit 1 ;;
		*) failed=$((failed + 1)) ;;	# the module was away
		esac
	done
	echo "$name: $n $failed"
}
# reload: the module back after an unload, with its provider and volume.
reload() {
	insmod "$KO" || fail "insmod after an unload"
	prov=$(bind_bar) || fail "provider after a reload"
	volume_new
	$GP path add "$vol" "$RDMA" rail 1 >/dev/null || fail "path add rdma after a reload"
	$GP path add "$vol" "$TCP" rail 2 >/dev/null || fail "path add tcp after a reload"
}
for i in 1 2 3; do
	io_loop vol$i -b 4 -p auto read host "$VOL" $((i * 2 * MiB)) $((2 * MiB)) 701 \
		>/tmp/loop.vol$i &
	pids="$pids $!"
done
for i in 1 2; do
	io_loop bar$i -b 4 -p direct -o $((i * 4 * MiB)) read "$prov" "$NVME" \
		$((192 * MiB + i * 2 * MiB)) $((2 * MiB)) 702 >/tmp/loop.bar$i &
	pids="$pids $!"
done
churn=0 refused=0 reloads=0
while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
	$GP qos add s$churn dscp $((churn % 64)) >/dev/null || fail "qos add under stress"
	$GP portal add s$churn transport tcp traddr 10.99.0.1 trsvcid $((5000 + churn % 1000)) \
		nqn $NQN qos s$churn >/dev/null || fail "portal add under stress"
	$GP portal del s$churn >/dev/null || fail "portal del under stress"
	$GP qos del s$churn >/dev/null || fail "qos del under stress"
	if rmmod gpupath 2>/dev/null; then
		reloads=$((reloads + 1))
		reload
	else
		refused=$((refused + 1))
	fi
	churn=$((churn + 1))
done
for p in $pids; do wait "$p" || { cat /tmp/loop.*; fail "an I/O process got wrong data"; }; done
pids=
runs=$(cat /tmp/loop.* | awk '{ s += $2 } END { print s + 0 }')
gaps=$(cat /tmp/loop.* | awk '{ s += $3 } END { print s + 0 }')
note "stress, $SECS s: $runs gp-io runs with their bytes checked (3 through the volume, 2" \
	"into the BAR), $gaps failed cleanly across $reloads unloads; $churn rounds of QoS" \
	"class and portal add/del; $refused unload attempts refused (busy)"
[ "$runs" -gt 0 ] || fail "no I/O got through"

# 3. The BAR's device removed with I/O into it in flight, and brought back:
#    unplug_under_io HOW REMOVE ADD (commands that remove the device and
#    bring it back).
unplug_under_io() {
	how=$1 remove=$2 add=$3
	( while $GPIO -b 4 -p direct read "$prov" "$NVME" $((192 * MiB)) $((4 * MiB)) 702 \
		>/tmp/io.unplug 2>&1; do :; done; cat /tmp/io.unplug ) >/tmp/unplug.out &
	io=$!
	pids=$io
	sleep 1
	t0=$(cut -d' ' -f1 /proc/uptime)
	$remove >/tmp/remove.out || fail "$how: $(cat /tmp/remove.out)"
	wait_for 60 sh -c "[ ! -e $bar ]" || fail "$how: ${bar##*/} is still there"
	t1=$(cut -d' ' -f1 /proc/uptime)
	wait $io
	pids=
	note "$how: ${bar##*/} gone under I/O in $(awk -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%.2f", b - a }') s; the I/O loop ended with: $(cat /tmp/unplug.out)"
	grep -q "error=" /tmp/unplug.out || fail "$how: the I/O after the removal did not fail cleanly"
	[ "$($GP provider show -j | jq '.providers | length')" = 0 ] || fail "$how: the provider stayed"
	$add >/tmp/add.out || fail "$how: $(cat /tmp/add.out)"
	wait_for 60 test -e "$bar/resource2" || fail "$how: ${bar##*/} did not come back"
	prov=$(bind_bar) || fail "$how: no provider after the device came back"
	# Into 54 MiB of the BAR (free of other tests' buffers), checked on the host.
	$GPIO -p direct -o $((54 * MiB)) read "$prov" "$NVME" $((196 * MiB)) $((2 * MiB)) 702 \
		>/tmp/io.after || fail "$how: direct I/O after the device came back: $(cat /tmp/io.after)"
	grep -q "mode=direct" /tmp/io.after || fail "$how: not direct: $(cat /tmp/io.after)"
	io_out=$(cat /tmp/io.after)
	host_expect bar.img "$(bar_offset)" $((2 * MiB)) 702 $((196 * MiB))
	note "$how: back as provider $prov, direct I/O into it checked"
}
sysfs_remove() { echo 1 >"$bar/remove"; }
sysfs_rescan() { echo 1 >/sys/bus/pci/rescan; }
# QEMU unplugs through pciehp: an attention-button press, five seconds for
# the guest to change its mind, then the slot is powered off and the device
# removed; plugged again, the slot reports presence and the guest enumerates.
qemu_del() { qmp '{"execute": "device_del", "arguments": {"id": "gpu0"}}'; }
qemu_add() {
	# QEMU lets the id go once the slot is powered off.
	wait_for 30 grep -q '"DEVICE_DELETED".*"gpu0"' /out/qmp-events.log ||
		fail "QEMU did not report gpu0 deleted: $(cat /out/qmp-events.log 2>&1)"
	# A new backend on the same file: QEMU 7.2 cannot realize a device again
	# on a RAM block that has been named once.
	qmp '{"execute": "object-add", "arguments": {"qom-type": "memory-backend-file",
		"id": "bar0p", "mem-path": "@WORKDIR@/bar.img", "share": true,
		"size": 67108864}}' &&
	qmp '{"execute": "device_add", "arguments": {"driver": "ivshmem-plain", "id": "gpu0",
		"memdev": "bar0p", "bus": "dn1"}}'
}
unplug_under_io "sysfs remove" sysfs_remove sysfs_rescan
unplug_under_io "QEMU device_del" qemu_del qemu_add
volumes_del_all
unbind_bar
rmmod gpupath || fail "the module does not unload after the stress"
check_dmesg
