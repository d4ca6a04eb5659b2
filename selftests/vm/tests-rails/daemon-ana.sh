# SPDX-License-Identifier: GPL-2.0
# ANA: nvmet reports the namespace's ANA group per port; gpupathd reads
# each controller's ANA log page and the module's path choice follows it.
# Under fio verify (0 errors): a non-optimized path takes no I/O while an
# optimized one is usable, and all of it when it is the only usable one;
# inaccessible and persistent-loss paths take none; with every path in
# change or inaccessible, I/O waits (ANATT, longer than the volume's queue
# timeout of 0) instead of failing, and goes on when a group is optimized
# again. How long from the change on the target to the module's path state
# is measured, and that I/O moves within 1 s of it.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
cleanup() {
	daemon_cleanup rail1 tcp
	rails_teardown
}
trap cleanup EXIT
rails_targets
$PATTERN gen $((16 * MiB)) 613 | dd of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null

# ana PORT STATE: the namespace's group (1) as nvmet's port PORT reports it.
ana() { echo "$2" >"$CFG/ports/$1/ana_groups/1/ana_state" || fail "ana state $2 on port $1"; }
uptime_ms() { local u; read -r u _ </proc/uptime; echo $((${u%.*} * 1000 + 10#${u#*.} * 10)); }

gpd_start /tmp/gpupathd.log
$GP portal add rail1 transport rdma traddr 10.99.1.1 nqn $NQN rails 1:rail1 >/dev/null ||
	fail "portal rail1"
$GP portal add tcp transport tcp traddr 10.99.0.1 trsvcid 4421 nqn $NQN rails 2:@10.99.0.2 \
	>/dev/null || fail "portal tcp"
wait_for 30 two_paths || fail "no volume with two paths: $($GP volume show)"
$GP volume show -j >/tmp/v.json
VOL=/dev/$(jq -r ".volumes[] | select(.wwid == \"uuid.$UUID\") | .name" /tmp/v.json)
vid=$(jq -r ".volumes[] | select(.wwid == \"uuid.$UUID\") | .id" /tmp/v.json)
# The path of each portal, by its controller.
path_of() {
	local ctrl
	ctrl=$($GP portal show "$1" -j | jq -r '.connections[0].controller')
	$GP path show volume "$vid" -j | jq -r ".paths[] | select(.controller == \"$ctrl\") | .id"
}
P1=$(path_of rail1)
P0=$(path_of tcp)
[ -n "$P1" ] && [ -n "$P0" ] || fail "paths of the portals: '$P1' '$P0'"
pana() { $GP path show "$1" -j | jq -r '.ana'; }
pios() { $GP path show "$1" -j | jq -r '.stats.ios'; }
wait_for 10 sh -c "[ \"\$($GP path show $P1 -j | jq -r '.ana')\" = optimized ]" ||
	fail "path $P1 has no ANA state: $($GP path show $P1)"
[ "$(pana $P0)" = optimized ] || fail "path $P0 is $(pana $P0)"
$GP path show "$P1" -j | jq -e '.ana_group == 1 and .ana_tt > 0' >/dev/null ||
	fail "path $P1: no ANA group or ANATT: $($GP path show $P1 -j)"
anatt=$($GP path show "$P1" -j | jq -r '.ana_tt')
$GP path show "$P1" | grep -q "ana optimized group 1" || fail "path show has no ANA state"
$GP stats --prometheus | grep -q "gpupath_path_info{.*ana=\"optimized\"" ||
	fail "no ANA state in the metrics"
note "both paths optimized (group 1, ANATT $anatt s), shown by path show and the metrics"

fio_loop_start
sleep 2

# flip PORT STATE PATH: set the state on the target, wait for the path to
# show it; prints how long from the target's change to the module's (ms, by
# the monotonic time gpupathd logs when it set the state).
flip() {
	local t0 at
	t0=$(uptime_ms)
	ana "$1" "$2"
	wait_for 5 sh -c "[ \"\$($GP path show $3 -j | jq -r '.ana')\" = $2 ]" ||
		fail "path $3 is not $2 after 5 s: $($GP path show $3)"
	at=$(sed -n "s/.*path $3 (.*): ANA $2 (group .*) at \([0-9]*\)\.\([0-9]*\) s$/\1\2/p" \
		/tmp/gpupathd.log | tail -1)
	[ -n "$at" ] || fail "no 'ANA $2' of path $3 in the daemon's log"
	echo $((10#$at - t0))
}
# The I/O counters are compared over windows of 1 s. fio starting its next
# run can leave a window with no I/O at all, so a window where the busy path
# did nothing is tried again, up to 3 times.
# busy PATH: the path does I/O.
busy() {
	local a b i
	for i in 1 2 3; do
		a=$(pios "$1")
		sleep 1
		b=$(pios "$1")
		[ "$b" -le "$a" ] || return 0
	done
	echo "path $1 did no I/O"
	return 1
}
# idle PATH OTHER: PATH takes no new I/O (once its in-flight I/O is done)
# while OTHER takes I/O, in the same window.
idle() {
	local a b oa ob i
	sleep 0.3
	for i in 1 2 3; do
		a=$(pios "$1")
		oa=$(pios "$2")
		sleep 1
		b=$(pios "$1")
		ob=$(pios "$2")
		[ "$a" = "$b" ] || { echo "path $1 did $((b - a)) I/Os"; return 1; }
		[ "$ob" -le "$oa" ] || return 0
	done
	echo "path $2 did no I/O"
	return 1
}

busy "$P1" && busy "$P0" || fail "round-robin: not both paths in use"
ms=$(flip 11 non-optimized "$P1")
idle "$P1" "$P0" || fail "non-optimized path $P1 still used beside optimized $P0, or $P0 idle"
note "rail1 non-optimized: seen in $ms ms, then no I/O on it, all on tcp"
d1=$ms

ms=$(flip 2 inaccessible "$P0")
idle "$P0" "$P1" ||
	fail "inaccessible path $P0 used, or non-optimized $P1 not used when it is the only usable path"
note "tcp inaccessible: seen in $ms ms; the non-optimized rail1 takes the I/O"
d2=$ms

# Every path out of use: I/O waits (queue timeout 0, ANATT $anatt s) and goes on.
$GP volume set "$vid" queue-timeout 0 >/dev/null || fail "queue-timeout 0"
ms=$(flip 11 change "$P1")
sleep 2
fio_loop_ok || fail "I/O failed during an ANA change"
q=$($GP volume show "$vid" -j | jq -r '.stats.queued')
[ "$q" -gt 0 ] || fail "no I/O waited during the change ($q queued)"
ms2=$(flip 11 optimized "$P1")
busy "$P1" || fail "I/O did not go on once rail1 is optimized"
note "rail1 in change with tcp inaccessible: $q I/Os waited (queue timeout 0, ANATT" \
	"$anatt s), none failed; optimized again (seen in $ms2 ms), I/O goes on"
$GP volume set "$vid" queue-timeout 30000 >/dev/null || fail "queue-timeout back"

ms=$(flip 2 persistent-loss "$P0")
idle "$P0" "$P1" || fail "persistent-loss path $P0 used, or $P1 idle"
ms=$(flip 2 optimized "$P0")
busy "$P0" && busy "$P1" || fail "not both paths in use once both are optimized"
note "tcp persistent-loss: no I/O; both optimized again: round-robin on both"

fio_loop_stop "ANA changes"
runs=$fio_runs
grep -q "ANA non-optimized (group 1" /tmp/gpupathd.log || fail "no ANA change in the daemon's log"
note "fio verify: $runs runs, 0 errors; ANA changes seen by the module in $d1 and $d2 ms" \
	"(polled every 500 ms)"
