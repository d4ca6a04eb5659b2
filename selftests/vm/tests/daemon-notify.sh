# SPDX-License-Identifier: GPL-2.0
# gpupathd under a service manager (Type=notify, WatchdogSec), without
# systemd: a listener on NOTIFY_SOCKET (notify-listen.py) checks what it
# is told and when. READY=1 once the first pass is done; WATCHDOG=1 pings
# from the loop (sd-event's) at once, then at least every three quarters
# of WATCHDOG_USEC; RELOADING=1 (with MONOTONIC_USEC) and READY=1 around
# each SIGHUP, a file with mistakes included; the watchdog fires while the
# loop is stalled (SIGSTOP), and the pings come back with it; STOPPING=1
# last, on SIGTERM.
. /src/selftests/vm/guest-lib.sh

CONF=/tmp/notify.conf
SOCK=/tmp/notify.sock
load_module
cleanup() {
	[ -z "${gpd:-}" ] || { kill -CONT "$gpd"; kill "$gpd"; } 2>/dev/null
	[ -z "${lis:-}" ] || kill "$lis" 2>/dev/null
	rm -f "$SOCK"
}
trap cleanup EXIT
printf '[daemon]\ninterval = 3600\n' >$CONF
rm -f "$SOCK"
python3 /src/selftests/vm/notify-listen.py "$SOCK" 2 >/tmp/notify.log &
lis=$!
wait_for 10 test -S "$SOCK" || fail "no listener"
NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=2000000 $GPD --foreground --verbose -c $CONF \
	>/tmp/gpupathd.log 2>&1 &
gpd=$!
msgs() { cut -d' ' -f2- /tmp/notify.log; }
count() { msgs | grep -c "^$1\$"; }
wait_for 20 grep -q " READY=1$" /tmp/notify.log || fail "no READY=1: $(cat /tmp/gpupathd.log)"
grep -q "watchdog: a ping at least every 1500 ms" /tmp/gpupathd.log || fail "watchdog not armed"
sleep 3.5
[ "$(count WATCHDOG=1)" -ge 3 ] || fail "watchdog pings: $(cat /tmp/notify.log)"
! grep -q "watchdog fired" /tmp/notify.log || fail "the watchdog fired: $(cat /tmp/notify.log)"
note "READY=1 after the first pass; $(count WATCHDOG=1) pings in 3.5 s (WATCHDOG_USEC 2 s)"

# Reloads: a good file, then one with mistakes (kept out): RELOADING=1 and
# READY=1 around each.
for conf in 'interval = 60' 'interval = sixty'; do
	printf '[daemon]\n%s\n' "$conf" >$CONF
	r=$(count 'RELOADING=1;MONOTONIC_USEC=[0-9]*') n=$(count READY=1)
	kill -HUP "$gpd"
	wait_for 10 sh -c "[ \$(cut -d' ' -f2- /tmp/notify.log | grep -c '^READY=1\$') -gt $n ]" ||
		fail "no READY=1 after SIGHUP ($conf): $(cat /tmp/notify.log)"
	[ "$(count 'RELOADING=1;MONOTONIC_USEC=[0-9]*')" = $((r + 1)) ] ||
		fail "no RELOADING=1 before READY=1 ($conf): $(cat /tmp/notify.log)"
	# RELOADING=1, then READY=1 (pings may come between).
	msgs | grep -v '^WATCHDOG=1$' | tail -2 | tr '\n' ' ' |
		grep -q '^RELOADING=1;MONOTONIC_USEC=[0-9]* READY=1 $' ||
		fail "reload sequence ($conf): $(cat /tmp/notify.log)"
done
grep -q "keeping the configuration in place" /tmp/gpupathd.log || fail "mistakes not kept out"
note "SIGHUP, a good file and one with mistakes: RELOADING=1 then READY=1 each time"

# The loop stalled on purpose: no pings, the watchdog fires; then back.
kill -STOP "$gpd"
wait_for 10 grep -q "watchdog fired" /tmp/notify.log || fail "the watchdog did not fire"
kill -CONT "$gpd"
p=$(count WATCHDOG=1)
wait_for 5 sh -c "[ \$(cut -d' ' -f2- /tmp/notify.log | grep -c '^WATCHDOG=1\$') -gt $p ]" ||
	fail "no ping after the stall"
note "loop stalled (SIGSTOP): the watchdog fired; pings again after SIGCONT"

kill "$gpd"
wait "$gpd" || fail "gpupathd exit status $?"
gpd=
wait_for 5 sh -c "! kill -0 $lis" || fail "the listener saw no STOPPING=1"
[ "$(msgs | tail -1)" = STOPPING=1 ] || fail "STOPPING=1 not last: $(tail -3 /tmp/notify.log)"
note "SIGTERM: STOPPING=1 last; $(wc -l </tmp/notify.log) messages in all"
