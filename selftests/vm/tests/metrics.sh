# SPDX-License-Identifier: GPL-2.0
# Metrics: every sample of `gpupath stats --prometheus` equals what `gpupath
# stats -j` says, with a provider that has served direct and refused I/O and
# a volume over an RDMA and a TCP path that has served I/O. The output is
# left for the host, where `promtool check metrics` must pass it. gpupathd's
# endpoint (--metrics-port, on 127.0.0.1 only) serves the same text, and
# hostile clients on it (one that sends a byte every 1.5 s, others that send
# nothing) hold up neither the daemon's loop (its watchdog pings, a netlink
# notification, SIGTERM) nor a normal scrape.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
NS=/dev/nvme0n1
SOCK=/tmp/notify.sock
load_module
prov=$(bind_bar) || fail "no provider"
cleanup() {
	[ -z "${daemon:-}" ] || kill "$daemon" 2>/dev/null
	[ -z "${lis:-}" ] || kill "$lis" 2>/dev/null
	for p in ${hostile:-}; do kill "$p" 2>/dev/null; done
	rm -f "$SOCK"
	volumes_del_all
	fabric_teardown
	unbind_bar
}
trap cleanup EXIT
fabric_setup
fabric_connect rdma 4420
fabric_connect tcp 4421
volume_new
$GP path add "$vol" "$(fabric_ns rdma)" rail 1 >/dev/null || fail "path add rdma"
$GP path add "$vol" "$(fabric_ns tcp)" rail 2 >/dev/null || fail "path add tcp"

# Direct from the PCIe namespace (232 MiB of it is this test's), bounced
# from the volume (soft-RoCE: virtual-dma), and host memory through it.
$PATTERN fill $NS $((232 * MiB)) $MiB 951 || fail "pattern onto $NS"
$PATTERN gen $((2 * MiB)) 952 | dd of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null
expect_io 0 'mode=direct reason=none' -p direct read "$prov" $NS $((232 * MiB)) $MiB 951
expect_io 0 'mode=bounce reason=virtual-dma' -p auto read "$prov" "$VOL" 0 $MiB 952
expect_io 0 'mode=host reason=none' -p auto read host "$VOL" $MiB $MiB 952

prom_check metrics
P=/out/metrics.prom
grep -Eq "^gpupath_provider_direct_ios_total\\{provider=\"$prov\",.*\\} [1-9]" $P ||
	fail "no direct I/O counted for provider $prov"
grep -Eq "^gpupath_provider_refused_ios_total\\{provider=\"$prov\",.*reason=\"virtual-dma\"\\} [1-9]" $P ||
	fail "no refused I/O counted for provider $prov"
grep -Eq '^gpupath_volume_bytes_total\{volume="gpupath[0-9]+"\} [1-9]' $P ||
	fail "no volume bytes counted"
[ "$(grep -c '^gpupath_path_info{' $P)" = 2 ] || fail "not two paths in the metrics"
$GP stats -j --prometheus >/dev/null 2>&1 && fail "-j and --prometheus together were accepted"
note "$(grep -vc '^#' $P) samples, $(grep -c '^# TYPE' $P) metrics"

# The daemon's endpoint: the same samples; nothing but GET /metrics. The
# daemon runs as under systemd with WatchdogSec=2: a ping each second from
# its loop, to a listener (notify-listen.py) that says when 3 s pass
# without one.
rm -f "$SOCK"
python3 /src/selftests/vm/notify-listen.py "$SOCK" 3 >/tmp/notify.log &
lis=$!
wait_for 10 test -S "$SOCK" || fail "no notify listener"
NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=2000000 gpupathd -f -v --metrics-port 9464 \
	>/tmp/gpupathd.log 2>&1 &
daemon=$!
wait_for 10 grep -q "metrics on http://127.0.0.1:9464/metrics" /tmp/gpupathd.log ||
	fail "gpupathd: $(cat /tmp/gpupathd.log)"
# Its ANA poller gives the paths their states (nvmet reports ANA) in a
# thread of its own: the two are compared once it has.
ana_known() { [ "$($GP path show -j | jq '[.paths[] | select(.ana == "unknown")] | length')" = 0 ]; }
wait_for 10 ana_known || fail "no ANA state from gpupathd: $($GP path show)"
wget -q -O /tmp/served.prom http://127.0.0.1:9464/metrics || fail "GET /metrics"
$GP stats --prometheus >/tmp/cli.prom
grep -v '^#' /tmp/served.prom | sed 's/ [^ ]*$//' >/tmp/served.names
grep -v '^#' /tmp/cli.prom | sed 's/ [^ ]*$//' >/tmp/cli.names
cmp -s /tmp/served.names /tmp/cli.names ||
	fail "the endpoint and the CLI differ: $(diff /tmp/served.names /tmp/cli.names | head)"
cp /tmp/served.prom /out/metrics-endpoint.prom
wget -q -O /dev/null http://127.0.0.1:9464/ 2>/dev/null && fail "GET / was served"
gpupathd -f --metrics-port 0 >/tmp/bad.log 2>&1 && fail "metrics port 0 accepted"
grep -q "invalid metrics port '0'" /tmp/bad.log || fail "port 0: $(cat /tmp/bad.log)"
note "gpupathd serves $(grep -vc '^#' /tmp/served.prom) samples at 127.0.0.1:9464/metrics"

# Hostile clients, for 21 s: one sends a request a byte every 1.5 s (again
# on a new connection each time the daemon drops it), 8 connect and send
# nothing (again each time they are dropped). Meanwhile the daemon's loop
# goes on as usual (no 3 s without a watchdog ping; a volume changed with
# the CLI is in its log within 2 s), each normal scrape is answered within
# 2 s, the slow request is cut at its 5 s limit and the idle connections at
# their 3 s one.
cat >/tmp/hostile.py <<'EOF'
import select, socket, sys, time

mode, port = sys.argv[1], int(sys.argv[2])


def conn():
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def eof(s):
    """The server has closed (or reset) s; what it sent first is read."""
    try:
        return s.recv(65536) == b""
    except OSError:
        return True


if mode == "get":
    # One scrape: "STATUS SECONDS BYTES", or "timeout SECONDS".
    t0 = time.monotonic()
    data = b""
    try:
        s = conn()
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        while True:
            got = s.recv(65536)
            if not got:
                break
            data += got
    except OSError:
        print("timeout %.2f" % (time.monotonic() - t0))
        sys.exit(0)
    status = data.split(b" ", 2)[1].decode() if data else "none"
    print("%s %.2f %d" % (status, time.monotonic() - t0, len(data)))
elif mode == "slow":
    # A byte every 1.5 s for SECONDS; per connection, "cut SECONDS BYTES"
    # when the server closed it, "open SECONDS BYTES" when time ran out.
    end = time.monotonic() + float(sys.argv[3])
    req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100000
    while time.monotonic() < end:
        s, t0, n, how = conn(), time.monotonic(), 0, "open"
        while time.monotonic() < end:
            if select.select([s], [], [], 1.5)[0]:
                if eof(s):
                    how = "cut"
                    break
                continue
            try:
                s.send(req[n:n + 1])
                n += 1
            except OSError:
                how = "cut"
                break
        print("%s %.1f %d" % (how, time.monotonic() - t0, n), flush=True)
        s.close()
        time.sleep(0.1)
elif mode == "idle":
    # N connections that send nothing, each opened again when the server
    # closes it, for SECONDS: "closed COUNT longest SECONDS".
    count, end = int(sys.argv[3]), time.monotonic() + float(sys.argv[4])
    held = {conn(): time.monotonic() for _ in range(count)}
    closed, longest = 0, 0.0
    while time.monotonic() < end:
        for s in select.select(list(held), [], [], 0.5)[0]:
            if eof(s):
                closed += 1
                longest = max(longest, time.monotonic() - held.pop(s))
                s.close()
                time.sleep(0.1)
                held[conn()] = time.monotonic()
    for t in held.values():
        longest = max(longest, time.monotonic() - t)
    print("closed %d longest %.1f" % (closed, longest))
EOF
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
over() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
bad=
python3 /tmp/hostile.py slow 9464 21 >/tmp/slow.out 2>&1 &
hostile=$!
python3 /tmp/hostile.py idle 9464 8 21 >/tmp/idle.out 2>&1 &
hostile="$hostile $!"
sleep 3
# A notification the loop must take at once (a volume changed is announced
# as volume-new, as rtnetlink's RTM_NEWLINK).
n=$(grep -c 'notification on .*: volume-new$' /tmp/gpupathd.log)
t0=$(now)
$GP volume set "$vol" policy round-robin || fail "volume set"
wait_for 10 sh -c "[ \$(grep -c 'notification on .*: volume-new\$' /tmp/gpupathd.log) -gt $n ]"
ev=$(since "$t0")
worst=0
for i in 1 2 3 4 5; do
	r=$(python3 /tmp/hostile.py get 9464)
	set -- $r
	[ "$1" = 200 ] || bad="$bad; scrape $i: $r"
	over "$2" "$worst" && worst=$2
	sleep 2
done
over "$worst" 2 && bad="$bad; a scrape took $worst s"
over "$ev" 2 && bad="$bad; the volume's notification logged after $ev s"
wait $hostile
hostile=
slow_n=$(grep -c '^cut' /tmp/slow.out)
slow_max=$(awk 'm < $2 { m = $2 } END { print m + 0 }' /tmp/slow.out)
read -r _ idle_n _ idle_max _ </tmp/idle.out
idle_n=${idle_n:-0} idle_max=${idle_max:-99}
[ "$slow_n" -ge 2 ] && ! over "$slow_max" 9 ||
	bad="$bad; the slow request was not cut at its limit: $(tr '\n' ' ' </tmp/slow.out)"
[ "$idle_n" -ge 8 ] && ! over "$idle_max" 6 ||
	bad="$bad; idle connections not dropped: $(cat /tmp/idle.out)"
fired=$(grep -c "watchdog fired" /tmp/notify.log)
[ "$fired" = 0 ] || bad="$bad; the watchdog fired $fired times"
note "hostile clients for 21 s: scrapes answered within $worst s, a notification" \
	"logged after $ev s, the watchdog fired $fired times; the slow request cut" \
	"$slow_n times (longest $slow_max s), idle connections $idle_n times (longest $idle_max s)"

# SIGTERM while a slow client is connected: the loop takes it at once
# (STOPPING=1 within 1 s), the endpoint stops within 0.5 s, and the daemon
# ends within 3 s (its whole teardown, other threads' included, is slower
# under emulation).
python3 /tmp/hostile.py slow 9464 15 >/tmp/slow2.out 2>&1 &
hostile=$!
python3 /tmp/hostile.py idle 9464 4 15 >/dev/null 2>&1 &
hostile="$hostile $!"
sleep 4
t0=$(now)
kill "$daemon"
wait_for 20 gone "$daemon"
stop=$(since "$t0")
wait "$daemon" || bad="$bad; gpupathd exit status $?"
daemon=
wait_for 5 sh -c "! kill -0 $lis" || bad="$bad; the listener saw no STOPPING=1"
lis=
# notify-listen.py's times are CLOCK_MONOTONIC's, as /proc/uptime's here
# (nothing suspends the guest).
took=$(awk -v t0="$t0" '$2 == "STOPPING=1" { printf "%.2f", $1 - t0 }' /tmp/notify.log)
ms=$(sed -n 's/.*metrics: stopped in \([0-9]*\) ms$/\1/p' /tmp/gpupathd.log)
note "SIGTERM with a slow client connected: STOPPING=1 after ${took:-?} s, the endpoint" \
	"stopped in ${ms:-?} ms, gpupathd ended after $stop s"
over "${took:-99}" 1 && bad="$bad; STOPPING=1 came ${took:-never} s after SIGTERM"
[ -n "$ms" ] && [ "$ms" -le 500 ] || bad="$bad; the endpoint stopped in ${ms:-?} ms"
over "$stop" 3 && bad="$bad; SIGTERM took $stop s"
[ -z "$bad" ] || fail "${bad#; }"
