# SPDX-License-Identifier: GPL-2.0
# Volumes: one namespace over two paths (nvme-rdma and nvme-tcp to the same
# nvmet namespace, nvme_core.multipath=N) as /dev/gpupathN. Checked: bad
# paths refused with the reason, data through the volume (fio verify), the
# round-robin and weighted distributions, administrative path states, path
# removal under I/O, a controller deleted under I/O (failover), I/O waiting
# for a path and timing out, device memory through the volume (refused
# direct with the path's reason, bounced into the BAR, checked on the host),
# and removal refused while the volume is open, module unload included.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
prov=$(bind_bar) || fail "no provider"
# Every notification of the test, checked near the end.
$GP monitor -j >/tmp/mon.json &
mon=$!
cleanup() {
	kill $mon 2>/dev/null
	exec 3<&- 2>/dev/null
	volumes_del_all
	fabric_teardown
	unbind_bar
}
trap cleanup EXIT
fabric_paths 16 301

t() { want=$1; shift; out=$("$@" 2>&1); echo "$* -> $out"
	echo "$out" | grep -q "$want" || fail "expected '$want'"; }

volume_new
[ -b "$VOL" ] || fail "$VOL did not appear"
t "no volume with this id" $GP path add 4242 "$RDMA"
t "not an NVMe namespace" $GP path add "$vol" /dev/nullb0
t "cannot open" $GP path add "$vol" /dev/does-not-exist
$GP path add "$vol" "$RDMA" rail 1 -j >/tmp/p1.json || fail "path add rdma"
p1=$(jq .id /tmp/p1.json)
# The emulated NVMe's namespace is another namespace.
t "wwid differs" $GP path add "$vol" /dev/nvme0n1
$GP path add "$vol" "$TCP" rail 2 -j >/tmp/p2.json || fail "path add tcp"
p2=$(jq .id /tmp/p2.json)
t "already is a path" $GP path add "$vol" "$TCP"
t "a volume cannot be a path" $GP path add "$vol" "$VOL"
t "weight" $GP path set "$p1" weight 0
$GP volume show "$vol" -j | tee /tmp/v.json
jq -e '.size == 1073741824 and .block_size == 512 and .mode == "managed" and
	.paths == 2 and .usable == 2 and (.wwid | startswith("uuid."))' /tmp/v.json >/dev/null ||
	fail "volume attributes wrong"
jq -e '[.path_list[].transport] | sort == ["rdma", "tcp"]' /tmp/v.json >/dev/null ||
	fail "path transports wrong"
$GP volume show

# The namespace's bytes, read through the volume.
dd if="$VOL" of=/tmp/vol.read bs=$MiB count=16 iflag=direct 2>/dev/null &&
	$PATTERN check /tmp/vol.read 0 $((16 * MiB)) 301 ||
	fail "volume does not read the namespace's data"

# path_ios ID: I/Os the path completed.
path_ios() { $GP path show "$1" -j | jq .stats.ios; }
# spread N: N 4 KiB reads; prints how many went to p1 and to p2.
spread() {
	a=$(path_ios "$p1") b=$(path_ios "$p2")
	fio --name=spread --filename="$VOL" --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --number_ios="$1" --size=16M --output=/dev/null ||
		fail "fio spread"
	echo $(($(path_ios "$p1") - a)) $(($(path_ios "$p2") - b))
}
within() {	# within GOT WANT PERCENT
	[ $(($1 * 100)) -ge $(($2 * (100 - $3))) ] && [ $(($1 * 100)) -le $(($2 * (100 + $3))) ]
}
set -- $(spread 400)
note "round-robin: $1 / $2 of 400"
within "$1" 200 10 && within "$2" 200 10 || fail "round-robin not even: $1 / $2"
$GP volume set "$vol" policy weighted || fail "policy weighted"
$GP path set "$p1" weight 3 || fail "weight"
set -- $(spread 400)
note "weighted 3:1: $1 / $2 of 400"
within "$1" 300 10 && within "$2" 100 10 || fail "weighted not 3:1: $1 / $2"
$GP path set "$p1" state down || fail "state down"
set -- $(spread 100)
note "p1 down: $1 / $2 of 100"
[ "$1" = 0 ] && [ "$2" = 100 ] || fail "a down path got I/O"
$GP path set "$p1" state up weight 1 || fail "state up"
$GP volume set "$vol" policy queue-depth || fail "policy queue-depth"
t "cannot be its own fallback" $GP volume set "$vol" fallback gpu-affinity

# fio with verification while a path goes (drained) and comes back, and
# while a controller is deleted under it (path errors: failover).
fio_verify() {	# fio_verify NAME OFFSET
	fio --name="$1" --filename="$VOL" --offset="$2" --size=32M --rw=randwrite --bs=16k \
		--direct=1 --ioengine=libaio --iodepth=16 --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --verify_state_save=0 --output=/tmp/$1.fio
}
fio_verify drain $((64 * MiB)) &
fpid=$!
sleep 2
$GP path del "$p2" || fail "path del under I/O"
wait $fpid || { cat /tmp/drain.fio; fail "fio verify failed across a path removal"; }
note "fio verify across a path removal: ok"
$GP path add "$vol" "$TCP" -j >/tmp/p2.json || fail "path add tcp again"
p2=$(jq .id /tmp/p2.json)

# A controller reset under I/O: the path fails (its I/O fails over), and
# comes back once the controller is live again (failback).
fio_verify reset $((192 * MiB)) &
fpid=$!
sleep 2
echo 1 >"/sys/block/${RDMA#/dev/}/device/reset_controller" || fail "reset"
wait $fpid || { cat /tmp/reset.fio; fail "fio verify failed across a controller reset"; }
wait_for 15 sh -c "$GP path show $p1 -j | jq -e '.health == \"live\"'" ||
	fail "path $p1 did not come back after the reset"
note "controller reset under I/O: verified, path $p1 live again"

$GP volume show "$vol" -j >/tmp/v0.json || fail "volume show"
fio_verify failover $((128 * MiB)) &
fpid=$!
sleep 2
nvme disconnect -d "$(basename "$(readlink -f /sys/block/${TCP#/dev/}/device)")" >/dev/null ||
	fail "disconnect tcp"
wait $fpid || { cat /tmp/failover.fio; fail "fio verify failed across a failover"; }
# The volume's probe (once a second while a path has failed) finds the
# deleted disk: the path is gone within a few seconds of the disconnect.
gone() {
	$GP volume show "$vol" -j >/tmp/v.json &&
		jq -e --argjson p "$p2" '.path_list[] | select(.id == $p) | .health == "gone"' \
			/tmp/v.json
}
wait_for 5 gone || fail "deleted controller's path is not gone: $(cat /tmp/v.json)"
note "fio verify across a controller deletion: ok, $(jq -c '.stats | {retries, failovers,
	failover_last_ns}' /tmp/v.json)"
jq -e '.stats.errors == 0' /tmp/v.json >/dev/null || fail "I/O errors reached the caller"
# An I/O that failed on the deleted path went on the other: a failover,
# timed (failover_due in guest-lib.sh).
delta() { echo $(($(jq ".stats.$1" /tmp/v.json) - $(jq ".stats.$1" /tmp/v0.json))); }
if failover_due /tmp/v0.json /tmp/v.json; then
	[ "$(delta failovers)" -gt 0 ] && jq -e '.stats.failover_last_ns > 0' /tmp/v.json >/dev/null ||
		fail "$(delta retries) I/Os retried on the other path, no failover counted"
	want_failover=1
else
	note "the path was out of use before any I/O failed on it: $failover_why"
	want_failover=0
fi
$GP path del "$p2" || fail "del gone path"

# A controller deleted while its path is idle: the kernel says so at once
# (path-removal, 6.8 on), or the path's next I/O finds it (6.1).
fabric_connect tcp 4421
TCP=$(fabric_ns tcp)
$GP path add "$vol" "$TCP" -j >/tmp/p2.json || fail "path add tcp after reconnect"
p2=$(jq .id /tmp/p2.json)
$GP path set "$p1" state down || fail "state down before idle removal"
nvme disconnect -d "$(basename "$(readlink -f /sys/block/${TCP#/dev/}/device)")" >/dev/null ||
	fail "disconnect idle tcp"
if $GP show -j | jq -e '.module.features | index("path-removal")' >/dev/null; then
	wait_for 3 gone || fail "idle deleted path is not gone without I/O: $(cat /tmp/v.json)"
	note "idle controller deletion: path gone without I/O"
else
	# The read fails on the dead path and waits for one that is up.
	dd if="$VOL" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &
	dpid=$!
	wait_for 5 gone || fail "idle deleted path is not gone after an I/O: $(cat /tmp/v.json)"
	$GP path set "$p1" state up || fail "state up after idle removal"
	wait $dpid || fail "the read that found the dead path failed"
	note "idle controller deletion: path gone after one I/O"
fi
$GP path set "$p1" state up || fail "state up after idle removal"
$GP path del "$p2" || fail "del idle gone path"

# No path: I/O waits, then fails after the queue timeout; or a path comes.
$GP volume set "$vol" queue-timeout 1500 || fail "queue-timeout"
$GP path set "$p1" state down || fail "state down"
start=$(date +%s)
dd if="$VOL" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null && fail "I/O without a path succeeded"
took=$(($(date +%s) - start))
note "no path: failed after ~${took}s"
[ $took -ge 1 ] && [ $took -le 5 ] || fail "queue timeout not honoured (${took}s)"
$GP volume set "$vol" queue-timeout forever || fail "queue-timeout forever"
dd if="$VOL" of=/tmp/wait.out bs=4k count=1 iflag=direct 2>/dev/null &
dpid=$!
sleep 1
kill -0 $dpid || fail "I/O did not wait for a path"
$GP path set "$p1" state up || fail "state up"
wait $dpid || fail "waiting I/O failed once a path came back"
$PATTERN check /tmp/wait.out 0 4096 301 || fail "waiting I/O read wrong data"
note "no path: I/O waited and completed when a path came back"

# Device memory: soft-RoCE cannot DMA into the BAR: refused with its reason,
# and bounced by auto; the bytes land at 62 MiB of the BAR (host-checked).
expect_io 3 "mode=none reason=virtual-dma" -p direct read "$prov" "$VOL" 0 $MiB 301
expect_io 0 "mode=bounce reason=virtual-dma" -p auto -o $((62 * MiB)) read "$prov" "$VOL" \
	$MiB $MiB 301
host_expect bar.img "$(bar_offset)" $MiB 301 $MiB

# The events group saw the failures, the recovery and the errors, and the
# config group every volume and path change.
sleep 1
kill $mon
wait $mon 2>/dev/null
ev() { jq -c --arg t "$1" 'select(.volume_event.type == $t) | .volume_event' /tmp/mon.json; }
want="no-path io-error"
[ "$want_failover" = 0 ] || want="failover $want"
for t in $want; do
	[ -n "$(ev $t)" ] || fail "no $t event: $(cat /tmp/mon.json)"
	note "event $t: $(ev $t | head -1)"
done
if [ -n "$(ev path-failed | jq "select(.path == $p1)")" ]; then
	[ -n "$(ev failback | jq "select(.path == $p1)")" ] || fail "path $p1 failed, no failback"
fi
[ "$want_failover" = 0 ] || [ "$(ev failover | head -1 | jq .nsec)" -gt 0 ] ||
	fail "failover event without its duration"
for c in volume-new path-new path-del; do
	grep -q "\"cmd\":\"$c\"" /tmp/mon.json || fail "no $c notification"
done

# Removal refused while open; module unload refused while open.
exec 3<"$VOL"
t "open" $GP volume del "$vol"
rmmod gpupath 2>/dev/null && fail "module unloaded with a volume open"
exec 3<&-
$GP volume del "$vol" || fail "volume del"
[ ! -e "$VOL" ] || fail "$VOL still there"
# A volume left at unload goes with the module.
$GP volume add -j >/tmp/vol.json || fail "volume add"
$GP path add "$(jq .id /tmp/vol.json)" "$RDMA" >/dev/null || fail "path add"
unbind_bar
rmmod gpupath || fail "rmmod with a volume (closed)"
[ ! -e "/dev/$(jq -r .name /tmp/vol.json)" ] || fail "volume survived the module"
