# SPDX-License-Identifier: GPL-2.0
# A target port gone for 30 s and back, with gpupathd keeping the portals:
# the rails and the TCP path connected from portals as in daemon-portal.sh,
# fio write+verify runs in a loop on the volume throughout, and rail 1's
# nvmet port is removed (its controller on the target goes with it) for 30
# seconds, then restored. The path fails and its I/O fails over, the host
# driver reconnects by itself once the port is back (ctrl-loss-tmo forever),
# the path fails back, and no fio run sees an error. Printed: when the path
# went down and when it was back.
. /src/selftests/vm/guest-lib.sh

load_module
cleanup() {
	touch /tmp/fio.stop
	[ -z "${loop:-}" ] || wait "$loop" 2>/dev/null
	[ -z "${gpd:-}" ] || kill "$gpd" 2>/dev/null
	for p in rail1 rail2 tcp; do $GP portal del $p >/dev/null 2>&1; done
	volumes_del_all
	rails_teardown
}
trap cleanup EXIT
rails_targets
gpd_start /tmp/gpupathd.log
$GP portal add rail1 transport rdma traddr 10.99.1.1 nqn $NQN rails 1:rail1@10.99.1.2 \
	reconnect-delay 2 >/dev/null || fail "portal rail1"
$GP portal add rail2 transport rdma traddr 10.99.2.1 nqn $NQN rails 2:rail2@10.99.2.2 \
	>/dev/null || fail "portal rail2"
$GP portal add tcp transport tcp traddr 10.99.0.1 trsvcid 4421 nqn $NQN rails 3:@10.99.0.2 \
	>/dev/null || fail "portal tcp"
three_paths() {
	[ "$($GP volume show -j |
	     jq "[.volumes[] | select(.wwid == \"uuid.$UUID\") | .usable] | .[0]")" = 3 ]
}
wait_for 90 three_paths || { cat /tmp/gpupathd.log; fail "no volume with three paths"; }
$GP volume show -j >/tmp/v.json
vol=$(jq ".volumes[] | select(.wwid == \"uuid.$UUID\") | .id" /tmp/v.json)
VOL=/dev/$(jq -r ".volumes[] | select(.id == $vol) | .name" /tmp/v.json)
p1=$($GP volume show "$vol" -j | jq ".path_list[] | select(.rail == 1) | .id")
c1=$($GP path show "$p1" -j | jq -r .controller)

rm -f /tmp/fio.stop /tmp/fio.fail
: >/tmp/fio.runs
(
	while ! [ -e /tmp/fio.stop ]; do
		fio --name=v --filename="$VOL" --rw=randwrite --bs=64k --size=16M \
			--verify=crc32c --verify_state_save=0 --direct=1 --ioengine=libaio \
			--iodepth=8 >/tmp/fio.out 2>&1 && grep -q "err= 0" /tmp/fio.out ||
			{ cp /tmp/fio.out /tmp/fio.fail; break; }
		echo run >>/tmp/fio.runs
	done
) &
loop=$!
sleep 2

health() { $GP path show "$p1" -j | jq -r .health; }
t0=$(cut -d' ' -f1 /proc/uptime)
rm "$CFG/ports/$(rail_port 1)/subsystems/$NQN" || fail "cannot remove rail 1's port"
wait_for 30 sh -c "[ \"\$($GP path show $p1 -j | jq -r .health)\" = failed ]" ||
	fail "path $p1 still $(health) with the port gone"
t1=$(cut -d' ' -f1 /proc/uptime)
note "port removed: path $p1 failed after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s," \
	"controller $c1 $(cat /sys/class/nvme/$c1/state 2>/dev/null || echo gone)"
while [ "$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { print (b - a < 30) }')" = 1 ]; do
	sleep 1
done
[ -e /tmp/fio.fail ] && { cat /tmp/fio.fail; fail "fio failed while the port was gone"; }
$GP portal show rail1
nvmet_link "$(rail_port 1)" || fail "cannot restore rail 1's port"
t2=$(cut -d' ' -f1 /proc/uptime)
back() {
	[ "$($GP path show "$p1" -j | jq -r '.health + " " + .link')" = "live up" ] &&
	[ "$($GP portal show rail1 -j | jq -r '.connections[0].state')" = live ]
}
wait_for 90 back || { $GP portal show rail1; $GP path show "$p1"; fail "path $p1 not back"; }
t3=$(cut -d' ' -f1 /proc/uptime)
note "port restored after $(awk -v a="$t0" -v b="$t2" 'BEGIN { printf "%.1f", b - a }') s:" \
	"path $p1 live again $(awk -v a="$t2" -v b="$t3" 'BEGIN { printf "%.1f", b - a }') s later" \
	"(controller $(cat /sys/class/nvme/$c1/state 2>/dev/null || echo "$c1 gone, a new one"))"
# Some I/O on the path after its return.
sleep 3
touch /tmp/fio.stop
wait "$loop"
loop=
[ -e /tmp/fio.fail ] && { cat /tmp/fio.fail; fail "fio failed"; }
runs=$(wc -l </tmp/fio.runs)
[ "$runs" -ge 2 ] || fail "only $runs fio runs"
$GP volume show "$vol" -j | jq -e '.stats.errors == 0 and .stats.failovers >= 1' >/dev/null ||
	fail "volume: $($GP volume show "$vol")"
note "fio write+verify: $runs runs, all verified; volume: $($GP volume show "$vol" -j |
	jq -c '{errors: .stats.errors, retries: .stats.retries, failovers: .stats.failovers}')"
grep "rail1\|path $p1" /tmp/gpupathd.log | sed 's/^/gpupathd: /' | tail -12
