# SPDX-License-Identifier: GPL-2.0
# gpupathd beside nvme-cli's autoconnect, as Debian installs it: udevd runs
# nvme-cli's 70-nvmf-autoconnect.rules and gpupath's 69-gpupath.rules, and
# "systemctl start nvmf-connect@....service" runs that unit's command (a
# stand-in for systemd, logged). Checked:
#   - autoconnect is live: a discovery-log change of a persistent discovery
#     controller made by hand connects the new subsystem (nvme connect-all);
#   - gpupathd's discovery portal on the same rail adopts that discovery
#     controller and what autoconnect connected (no new controller), and
#     marks the discovery controller as its own;
#   - from then on, a discovery AEN and a rail flap (the controllers lost
#     and reconnected, the discovery controller's rediscover event) are
#     gpupathd's alone: the unit never runs, every controller exists once;
#   - the portal deleted, the mark goes and autoconnect acts again.
. /src/selftests/vm/guest-lib.sh

load_module
cleanup() {
	[ -z "${gpd:-}" ] || kill "$gpd" 2>/dev/null
	[ -z "${gpd:-}" ] || grep -v "notification on\|uevent: " /tmp/gpupathd.log | tail -30 |
		sed 's/^/gpupathd: /'
	[ ! -s /tmp/autoconnect.log ] || sed 's/^/autoconnect: /' /tmp/autoconnect.log
	$GP portal del disc >/dev/null 2>&1
	[ -z "${mon:-}" ] || kill "$mon" 2>/dev/null
	udevadm control --exit 2>/dev/null
	rm -rf /run/udev /etc/udev/rules.d/69-gpupath.rules /usr/bin/systemctl /run/gpupath/discovery
	$IP link set rail1p up 2>/dev/null
	subsys_extra_del
}
trap cleanup EXIT
rails_targets
subsys_extra

# systemctl, as far as the autoconnect rule needs it: "start
# nvmf-connect@ARGS.service" runs the unit's ExecStart with CONNECT_ARGS
# set to the instance (the unit's Environment=CONNECT_ARGS=%i), detached.
cat >/usr/bin/systemctl <<'EOF'
#!/bin/sh
for a; do
	case $a in nvmf-connect@*.service) i=${a#nvmf-connect@}; i=${i%.service} ;; esac
done
[ -n "${i:-}" ] || exit 0
echo "$(cut -d' ' -f1 /proc/uptime) start nvmf-connect@$i" >>/tmp/autoconnect.log
cmd=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/nvmf-connect@.service)
CONNECT_ARGS=$i setsid sh -c "eval \"\$0\" >>/tmp/autoconnect.out 2>&1" "$cmd" &
EOF
chmod 755 /usr/bin/systemctl
rm -f /tmp/autoconnect.log /tmp/autoconnect.out
mkdir -p /etc/udev/rules.d
cp /src/daemon/69-gpupath.rules /etc/udev/rules.d/ || fail "69-gpupath.rules"
/lib/systemd/systemd-udevd --daemon || fail "udevd"
wait_for 10 test -S /run/udev/control || fail "udevd has no control socket"
starts() { cat /tmp/autoconnect.log 2>/dev/null | wc -l; }

# ctrls NQN: the host's controllers of NQN on rail 1 (10.99.1.1), by name.
ctrls() {
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		case $(cat "$c/address") in *traddr=10.99.1.1,*) echo "${c##*/}" ;; esac
	done
}
live_once() {
	c=$(ctrls "$1") && [ -n "$c" ] && [ "$(echo "$c" | wc -l)" = 1 ] &&
		[ "$(cat /sys/class/nvme/$c/state)" = live ]
}
# once: every controller on the host is the only one of its subsystem and
# target address (no subsystem connected twice on a rail).
once() {
	local d
	d=$(for c in /sys/class/nvme/nvme*; do
		echo "$(cat "$c/subsysnqn") $(cut -d, -f1-2 "$c/address")"
	done | sort | uniq -d)
	[ -z "$d" ] || { echo "connected twice: $d"; return 1; }
}

# 1. Autoconnect is live: a persistent discovery controller made by hand on
# rail 1, a subsystem added to its port.
nvme discover -t rdma -a 10.99.1.1 -s 4420 -w 10.99.1.2 -p >/dev/null ||
	fail "nvme discover --persistent"
dc=$(ctrls $DISC)
[ -n "$dc" ] || fail "no persistent discovery controller"
ln -s $CFG/subsystems/$NQN2 $CFG/ports/11/subsystems/$NQN2 || fail "link two"
wait_for 30 live_once $NQN2 ||
	fail "autoconnect did not connect $NQN2: $(cat /tmp/autoconnect.log /tmp/autoconnect.out)"
wait_for 30 live_once $NQN || fail "autoconnect did not connect $NQN"
n=$(starts)
[ "$n" -ge 1 ] || fail "the unit never ran"
grep -q "nvmf-connect@--device=$dc" /tmp/autoconnect.log || fail "not started for $dc"
note "autoconnect: $dc's discovery AEN started nvmf-connect $n time(s); $NQN and $NQN2 connected"
sleep 2
once || fail "autoconnect alone"
ls /sys/class/nvme | sort >/tmp/ctrls.before

# 2. gpupathd's discovery portal on the same rail takes over.
gpd_start /tmp/gpupathd.log
$GP portal add disc transport rdma traddr 10.99.1.1 trsvcid 4420 rails 1:rail1 \
	reconnect-delay 1 >/dev/null || fail "portal disc"
adopted() { [ "$($GP portal show disc -j | jq '[.connections[] | select(.state == "adopted" or .state == "live")] | length')" = 2 ]; }
wait_for 30 adopted || fail "portal disc: $($GP portal show disc)"
grep -q "discovery controller $dc adopted" /tmp/gpupathd.log || fail "$dc not adopted"
[ -e /run/gpupath/discovery/$dc ] || fail "$dc not marked as gpupathd's"
ls /sys/class/nvme | sort | diff /tmp/ctrls.before - ||
	fail "gpupathd connected again: $(for c in /sys/class/nvme/nvme*; do
		echo "${c##*/} $(cat $c/subsysnqn) $(cat $c/address)"; done)"
note "gpupathd adopted $dc and autoconnect's controllers of $NQN and $NQN2; $dc marked"
n0=$(starts)

# 3. A discovery AEN: gpupathd connects the new subsystem; the unit does not run.
ln -s $CFG/subsystems/$NQN3 $CFG/ports/11/subsystems/$NQN3 || fail "link three"
wait_for 30 live_once $NQN3 || fail "$NQN3 not connected: $(tail -5 /tmp/gpupathd.log)"
grep -q "$dc: discovery log changed" /tmp/gpupathd.log ||
	fail "gpupathd did not see the AEN (GPUPATH_AEN)"
sleep 3
[ "$(starts)" = "$n0" ] || fail "autoconnect ran on gpupathd's AEN: $(tail -3 /tmp/autoconnect.log)"
once || fail "after the AEN"
note "discovery AEN: $NQN3 connected by gpupathd alone"

# 4. A rail flap: the link goes down (gpupathd marks the paths), the host
# resets rail 1's controllers, as after a keep-alive timeout (rxe loops
# traffic between two addresses of one interface back: the link alone
# breaks nothing), and the link comes back. The discovery controller's
# rediscover event reaches udev's listeners renamed, and gpupathd alone
# reads the log.
udevadm monitor --udev --property --subsystem-match=nvme >/tmp/udev.mon 2>&1 &
mon=$!
sleep 1
$IP link set rail1p down || fail "rail1p down"
for c in $(ctrls $NQN) $(ctrls $NQN2) $(ctrls $NQN3) $dc; do
	echo 1 >/sys/class/nvme/$c/reset_controller || fail "reset $c"
done
$IP link set rail1p up || fail "rail1p up"
all_live() {
	for q in $NQN $NQN2 $NQN3 $DISC; do live_once $q || return 1; done
}
wait_for 120 all_live ||
	fail "after the flap: $(for c in /sys/class/nvme/nvme*; do echo "${c##*/} $(cat $c/subsysnqn) $(cat $c/state)"; done)"
sleep 3
kill "$mon" 2>/dev/null
grep -q "GPUPATH_EVENT=rediscover" /tmp/udev.mon || fail "no renamed rediscover event: $(grep -c . /tmp/udev.mon) lines"
! grep -q "NVME_EVENT=rediscover" /tmp/udev.mon || fail "a rediscover event left for autoconnect"
grep -q "$dc: reconnected" /tmp/gpupathd.log || fail "gpupathd did not read the log again"
[ "$(starts)" = "$n0" ] || fail "autoconnect ran in the flap: $(tail -3 /tmp/autoconnect.log)"
once || fail "after the flap"
note "rail flap: every controller reset and live again, $dc's rediscover renamed" \
	"(GPUPATH_EVENT), the unit never ran, each controller once"

# A subsystem removed: gpupathd gives up what it connected; the unit does not run.
c3=$(ctrls $NQN3)
rm $CFG/ports/11/subsystems/$NQN3 || fail "unlink three"
wait_for 30 sh -c "! [ -e /sys/class/nvme/$c3 ]" || fail "$c3 still there"
[ "$(starts)" = "$n0" ] || fail "autoconnect ran: $(tail -3 /tmp/autoconnect.log)"

# 5. The portal deleted: the mark goes, autoconnect has the controller again.
$GP portal del disc || fail "portal del"
wait_for 10 sh -c "! [ -e /run/gpupath/discovery/$dc ]" || fail "$dc still marked"
[ -e /sys/class/nvme/$dc ] || fail "$dc (made by hand) disconnected with the portal"
ln -s $CFG/subsystems/$NQN3 $CFG/ports/11/subsystems/$NQN3 || fail "link three again"
wait_for 30 live_once $NQN3 || fail "autoconnect did not connect $NQN3 after the portal went"
[ "$(starts)" -gt "$n0" ] || fail "the unit did not run"
once || fail "at the end"
note "portal deleted: $dc unmarked; autoconnect connected $NQN3 on its AEN"
