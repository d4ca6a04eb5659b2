# SPDX-License-Identifier: GPL-2.0
# A connect that takes long holds up nothing else: gpupathd connects in
# child processes, so a portal whose target accepts the TCP connection and
# never answers (the host's connect waits for the answer to its ICReq) does
# not stop another portal from being connected meanwhile, nor the daemon's
# loop. Checked on the daemon's own log: the other portal's controller is
# connected between the slow attempt's start and its end; the slow attempt
# then ends with its error and backs off. A portal deleted while its connect
# is under way leaves no controller.
. /src/selftests/vm/guest-lib.sh

load_module
cleanup() {
	[ -z "${lis:-}" ] || kill "$lis" 2>/dev/null
	daemon_cleanup fast slow silent
	rails_teardown
}
trap cleanup EXIT
rails_targets

# Listens, accepts nothing, answers nothing.
python3 -c '
import socket, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.99.1.1", 4431))
s.listen(16)
open("/tmp/listening", "w").close()
time.sleep(3600)' &
lis=$!
wait_for 30 test -e /tmp/listening || fail "the silent listener did not start"

gpd_start /tmp/gpupathd.log
$GP portal add slow transport tcp traddr 10.99.1.1 trsvcid 4431 nqn $NQN reconnect-delay 1 \
	>/dev/null || fail "portal slow"
slow_state() { $GP portal show slow -j | jq -r '.connections[0].state'; }
wait_for 30 grep -q "portal slow rail 0: connecting $NQN 10.99.1.1:4431 (attempt 1)" \
	/tmp/gpupathd.log || fail "slow portal not tried: $($GP portal show slow)"
[ "$(slow_state)" = connecting ] || fail "slow portal: $($GP portal show slow)"
# A discovery portal whose discovery controller never answers: gpupathd
# connects it in a child as well, so it holds up nothing either.
$GP portal add silent transport tcp traddr 10.99.1.1 trsvcid 4431 reconnect-delay 1 \
	>/dev/null || fail "portal silent"
$GP portal add fast transport rdma traddr 10.99.1.1 nqn $NQN rails 1:rail1 >/dev/null ||
	fail "portal fast"
fast_live() { $GP portal show fast -j | jq -e '.connections[0].state == "live"'; }
wait_for 60 fast_live || fail "fast portal not live: $($GP portal show fast)"
n1=$(grep -n "portal slow rail 0: connecting .*(attempt 1)" /tmp/gpupathd.log | cut -d: -f1 | head -1)
n2=$(grep -n "portal fast rail 1: connecting $NQN .*(attempt 1)" /tmp/gpupathd.log |
	cut -d: -f1 | head -1)
n3=$(grep -n "portal slow rail 0: connecting .* failed (attempt 1)" /tmp/gpupathd.log |
	cut -d: -f1 | head -1)
[ -n "$n2" ] && [ "$n1" -lt "$n2" ] && { [ -z "$n3" ] || [ "$n2" -lt "$n3" ]; } ||
	fail "fast portal waited for the slow one (log lines $n1, $n2, ${n3:-none})"
note "fast portal's connect started while the slow portal's first attempt was under way" \
	"(log lines $n1 < $n2 < ${n3:-not yet ended})"
# ... and while the silent discovery controller's connect was under way.
n4=$(grep -n "portal silent rail 0: discovery controller 10.99.1.1:4431: " /tmp/gpupathd.log |
	cut -d: -f1 | head -1)
[ -z "$n4" ] || [ "$n2" -lt "$n4" ] ||
	fail "fast portal waited for the silent discovery controller (log lines $n2, $n4)"
note "and while the silent discovery controller's connect was (line ${n4:-not yet ended})"
# The slow attempt ends (the host gives up waiting) and is backed off.
wait_for 60 grep -q "portal slow rail 0: connecting .* failed (attempt 1)" /tmp/gpupathd.log ||
	fail "the slow attempt did not end: $($GP portal show slow)"
grep "portal slow rail 0: connecting .* failed (attempt 1)" /tmp/gpupathd.log | head -1 |
	sed 's/^/gpupathd: /'
kill -0 "$gpd" || fail "gpupathd died"

# A portal deleted while its connect is under way leaves no controller.
on_rail2() {
	local c a
	for c in /sys/class/nvme/nvme*; do
		read -r a <"$c/address" 2>/dev/null || continue
		case $a in *traddr=10.99.2.1,*) echo "${c##*/}" ;; esac
	done
}
$GP portal add gone transport rdma traddr 10.99.2.1 nqn $NQN rails 2:rail2 >/dev/null ||
	fail "portal gone"
wait_for 30 grep -q "portal gone rail 2: connecting $NQN" /tmp/gpupathd.log ||
	fail "portal gone not tried"
$GP portal del gone >/dev/null || fail "portal del gone"
wait_for 30 sh -c "grep -q 'portal gone rail 2: connected\|no longer wanted' /tmp/gpupathd.log" ||
	fail "the deleted portal's connect did not end"
none_on_rail2() { [ -z "$(on_rail2)" ]; }
wait_for 30 none_on_rail2 || fail "a controller of the deleted portal stayed: $(on_rail2)"
sleep 2
none_on_rail2 || fail "a controller of the deleted portal came back: $(on_rail2)"
how="before its connect ended"
grep -q "no longer wanted: disconnecting" /tmp/gpupathd.log && how="$how; disconnected once made"
note "portal deleted while connecting ($how): no controller left"

$GP portal del silent >/dev/null || fail "portal del silent"

# children PID: its child processes (the guest's busybox has no pgrep).
children() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(cut -d' ' -f4 "$p/stat" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
	done
}

# A restart during a slow connect: a connect child keeps none of the
# daemon's descriptors, so it holds neither the metrics port (the new
# daemon binds it at once) nor the module's or udev's sockets.
gpd_stop
gpd_start /tmp/gpupathd.log --metrics-port 9469
wait_for 30 grep -q "portal slow rail 0: connecting .*(attempt" /tmp/gpupathd.log ||
	fail "slow portal not tried after the restart"
child=$(children "$gpd" | head -1)
[ -n "$child" ] || fail "no connect child of gpupathd"
# (beside its result pipe and the wake-up eventfd, only what the connect
# itself opened: /dev/nvme-fabrics)
kept=$(ls -l /proc/$child/fd | awk 'NR > 1 && $9 > 2 { print $9 " " $11 }')
[ "$(echo "$kept" | grep -vc ' pipe:\| anon_inode:\[eventfd\]\| /dev/nvme-fabrics$')" = 0 ] &&
	[ "$(echo "$kept" | grep -c ' pipe:\| anon_inode:\[eventfd\]')" = 2 ] ||
	fail "the connect child keeps $(echo "$kept" | tr '\n' ';')"
# A connect child that dies is noticed at once (SIGCHLD), not at the next
# periodic pass: its attempt fails and is backed off.
nfail() { grep -c "portal slow rail 0: connecting .* failed" /tmp/gpupathd.log; }
# (A child in the kernel's connect dies only once the connect returns:
# the 5 s count from its death.)
f0=$(nfail)
kill -9 "$child"
wait_for 90 gone "$child" || fail "the connect child $child did not die"
more_fails() { [ "$(nfail)" -gt "$f0" ]; }
wait_for 5 more_fails ||
	fail "a connect child killed was not noticed within 5 s: $(tail -3 /tmp/gpupathd.log)"
note "a connect child killed: its attempt failed within 5 s ($(grep "portal slow rail 0: connecting .* failed" /tmp/gpupathd.log | tail -1 | sed 's/.*failed/failed/'))"
has_child() { [ -n "$(children "$gpd")" ]; }
wait_for 30 has_child || fail "no new connect child after the killed one"
child=$(children "$gpd" | head -1)
gpd_stop
kill -0 "$child" 2>/dev/null && left="still connecting" || left="done"
gpd_start /tmp/gpupathd.log --metrics-port 9469
wait_for 30 grep -q "metrics on http://127.0.0.1:9469/metrics" /tmp/gpupathd.log ||
	fail "the restarted daemon has no metrics port: $(grep -i metrics /tmp/gpupathd.log)"
kill -0 "$gpd" || fail "the restarted daemon died"
note "restarted during a slow connect (the old child $left, keeping only" \
	"$(echo "$kept" | awk '{ print $2 }' | tr '\n' ' ')): the new daemon bound the metrics port"
