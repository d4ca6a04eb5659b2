# SPDX-License-Identifier: GPL-2.0
# Failover that loses nothing: one namespace over two soft-RoCE rails and a
# TCP path (rails_setup in guest-lib.sh) as a gpupath volume, written and
# verified by fio (crc32c) without pause while the RDMA rails are taken down
# and brought back 20 times in turn (controller deleted, nvmet port removed,
# links down; then the reverse and the new namespace device added as a
# path). No I/O error may reach fio, every verification must pass, and the
# failover time of each flap is printed. An I/O retried on the other rail
# must count a failover; on a kernel that tells the volume of a deletion
# first (7.x), a flap may need none (failover_due in guest-lib.sh).
. /src/selftests/vm/guest-lib.sh

FLAPS=${FLAPS:-20}
load_module
cleanup() {
	touch /tmp/stop
	wait
	volumes_del_all
	rails_teardown
}
trap cleanup EXIT
rails_setup

volume_new
for n in $RAILS; do
	$GP path add "$vol" "/dev/$(rail_ns "$n")" rail "$n" >/dev/null || fail "path add rail $n"
done
$GP volume show "$vol"
$GP volume show "$vol" -j >/tmp/v0.json

rm -f /tmp/stop /tmp/fio.failed
(
	i=0
	while [ ! -e /tmp/stop ]; do
		i=$((i + 1))
		fio --name=flap --filename="$VOL" --size=16M --rw=randwrite --bs=16k \
			--direct=1 --ioengine=libaio --iodepth=16 --verify=crc32c \
			--verify_fatal=1 --do_verify=1 --verify_state_save=0 --output=/tmp/fio.$i >/dev/null 2>&1 ||
			{ echo "$i" >/tmp/fio.failed; break; }
	done
	echo "$i" >/tmp/fio.runs
) &
loop=$!
sleep 2

now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
last=0
i=1
while [ $i -le "$FLAPS" ]; do
	r=$(( (i % 2) + 1 ))
	old=$(path_of $r) || fail "flap $i: no path on rail $r"
	t0=$(now_ms)
	rail_down $r || fail "flap $i: rail $r down: $rail_err"
	t1=$(now_ms)
	$GP path del "$old" || fail "flap $i: path del"
	rail_up $r || fail "flap $i: rail $r up: $rail_err"
	$GP path add "$vol" "/dev/$(rail_ns $r)" rail $r >/dev/null || fail "flap $i: path add"
	t2=$(now_ms)
	fo=$($GP volume show "$vol" -j | jq '.stats.failover_last_ns')
	[ -e /tmp/fio.failed ] && break
	if [ "$fo" != "$last" ]; then
		msg="failover $((fo / 1000)) us"
	else
		msg="no I/O needed to fail over"
	fi
	last=$fo
	note "flap $i: rail $r down in $((t1 - t0)) ms, back in $((t2 - t1)) ms; $msg"
	i=$((i + 1))
done
touch /tmp/stop
wait $loop
if [ -e /tmp/fio.failed ]; then
	cat "/tmp/fio.$(cat /tmp/fio.failed)"
	fail "fio run $(cat /tmp/fio.failed) failed (above)"
fi
$GP volume show "$vol" -j >/tmp/v.json
$GP volume show "$vol"
note "fio: $(cat /tmp/fio.runs) write+verify runs across $FLAPS flaps, all verified"
jq -e '.stats.errors == 0' /tmp/v.json >/dev/null || fail "I/O errors reached the caller"
if failover_due /tmp/v0.json /tmp/v.json; then
	jq -e '.stats.failovers > 0' /tmp/v.json >/dev/null ||
		fail "$(jq .stats.retries /tmp/v.json) I/Os retried on another path, no failover measured"
else
	note "no failover in $FLAPS flaps: $failover_why"
fi
note "failovers $(jq .stats.failovers /tmp/v.json), retried I/Os $(jq .stats.retries /tmp/v.json)," \
	"max failover $(( $(jq .stats.failover_max_ns /tmp/v.json) / 1000 )) us"
