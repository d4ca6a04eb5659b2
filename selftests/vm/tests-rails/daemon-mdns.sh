# SPDX-License-Identifier: GPL-2.0
# mDNS discovery (NVMe TP8009) through Avahi: avahi-daemon (on a D-Bus
# system bus of the test's own) announces "_nvme-disc._tcp" services on the
# rails' interfaces, and a portal with "discover mdns" finds the target's
# discovery controller on each rail and connects the subsystem from both
# rails (one volume, two paths). Checked too:
#   - records that are not discovery controllers (another NQN, an unknown
#     transport) are left out with their reason; one pointing at a port
#     nothing listens on fails and backs off; the others go on;
#   - a service on the other rail's subnet is not used from this rail;
#   - a withdrawn service gives up what it listed; announced again, it is
#     connected again;
#   - the portal's bad settings (a traddr with discover mdns, no rails) are
#     refused with a message.
. /src/selftests/vm/guest-lib.sh

load_module
cleanup() {
	daemon_cleanup mdns
	[ -z "${avahi:-}" ] || kill "$avahi" 2>/dev/null
	grep -a "collision\|failure" /tmp/avahi.log 2>/dev/null | sed 's/^/avahi-daemon: /'
	[ -z "${dbus:-}" ] || kill "$dbus" 2>/dev/null
	rm -rf /etc/avahi /run/avahi-daemon /run/dbus
	rails_teardown
}
trap cleanup EXIT
rails_targets

# A system bus of the test's own, open to root.
mkdir -p /run/dbus
cat >/tmp/dbus.conf <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
dbus-daemon --config-file=/tmp/dbus.conf --nofork --nopidfile >/tmp/dbus.log 2>&1 &
dbus=$!
wait_for 10 test -S /run/dbus/system_bus_socket || fail "dbus-daemon: $(cat /tmp/dbus.log)"

# service FILE PORT HOST TXT...: a static Avahi service.
service() {
	local f=$1 port=$2 host=$3 t
	shift 3
	{
		echo '<?xml version="1.0" standalone="no"?>'
		echo "<service-group><name>$f</name><service>"
		echo "<type>_nvme-disc._tcp</type><port>$port</port><host-name>$host</host-name>"
		for t; do echo "<txt-record>$t</txt-record>"; done
		echo "</service></service-group>"
	} >/etc/avahi/services/$f.service
}
mkdir -p /etc/avahi/services /run/avahi-daemon
cat >/etc/avahi/avahi-daemon.conf <<'EOF'
[server]
host-name=gpupath-guest
use-ipv4=yes
use-ipv6=no
allow-interfaces=rail1,rail2
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
# The guest's own addresses include the targets' (10.99.N.1): published, their
# reverse records would collide with the static hosts below.
publish-addresses=no
EOF
printf '10.99.1.1 target-rail1.local\n10.99.2.1 target-rail2.local\n' >/etc/avahi/hosts
D=nqn=nqn.2014-08.org.nvmexpress.discovery
service disc-rail1 4420 target-rail1.local $D p=roce
service disc-rail2 4420 target-rail2.local $D p=roce
service io-not-disc 4420 target-rail1.local nqn=$NQN p=roce
service fc-disc 4420 target-rail1.local $D p=fc
service nobody-home 4999 target-rail1.local $D p=roce
avahi-daemon --no-drop-root --no-chroot --no-rlimits --debug >/tmp/avahi.log 2>&1 &
avahi=$!
wait_for 20 test -S /run/avahi-daemon/socket || fail "avahi-daemon did not start: $(cat /tmp/avahi.log)"

# Bad settings, refused.
bad() {
	local want=$1
	shift
	out=$($GP portal add x "$@" 2>&1) && fail "portal add $* was taken"
	echo "$out" | grep -q "$want" || fail "portal add $*: '$out' (wanted '$want')"
}
bad "no traddr, trsvcid or nqn" transport rdma discover mdns traddr 10.99.1.1 rails 1:rail1
bad "no traddr, trsvcid or nqn" transport rdma discover mdns nqn $NQN rails 1:rail1
bad "needs rails" transport rdma discover mdns
bad "unknown discover 'bonjour' (one of: address mdns)" transport rdma discover bonjour rails 1:rail1
note "bad mDNS portals refused with their reasons"

gpd_start /tmp/gpupathd.log
$GP portal add mdns transport rdma discover mdns rails 1:rail1,2:rail2 reconnect-delay 1 \
	>/dev/null || fail "portal mdns"
$GP portal show mdns | grep -q "discovery by mdns" || fail "portal show: $($GP portal show mdns)"
[ "$($GP portal show mdns -j | jq -r .discover)" = mdns ] || fail "portal show -j"
wait_for 60 two_paths || fail "no volume with two paths: $($GP volume show; $GP portal show mdns)"
for r in 1 2; do
	grep -q "mDNS: disc-rail$r on rail$r: rdma discovery controller at 10.99.$r.1:4420" \
		/tmp/gpupathd.log || fail "disc-rail$r not found on rail$r"
done
grep -q "mDNS: io-not-disc on rail1 .*not a discovery controller (nqn=$NQN); left out" \
	/tmp/gpupathd.log || fail "io-not-disc not refused"
grep -q "mDNS: fc-disc on rail1 .*unknown transport (p=fc; tcp or roce); left out" \
	/tmp/gpupathd.log || fail "fc-disc not refused"
wait_for 30 grep -q "discovery controller 10.99.1.1:4999" /tmp/gpupathd.log ||
	fail "nobody-home not tried"
# Each rail's controllers go to its own subnet's target only.
$GP portal show mdns -j | jq -e '[.connections[] | select(.rail == 1 and
	(.traddr | startswith("10.99.2.")))] | length == 0' >/dev/null ||
	fail "rail 1 connected to rail 2's target: $($GP portal show mdns)"
$GP portal show mdns -j | jq -e '[.connections[] | select(.state == "live")] | length == 2' \
	>/dev/null || fail "connections: $($GP portal show mdns)"
kill -0 "$gpd" || fail "gpupathd died"
note "mDNS: a discovery controller on each rail; $NQN connected from both (one volume," \
	"two paths); a non-discovery and an fc record left out, a dead port backed off"

# Withdrawn: rail 1's service goes, and what it listed with it.
rm /etc/avahi/services/disc-rail1.service
avahi-daemon --reload || fail "avahi-daemon --reload"
one_path() {
	[ "$($GP volume show -j | jq "[.volumes[] | select(.wwid == \"uuid.$UUID\") | .usable] | .[0]")" = 1 ]
}
wait_for 30 one_path || fail "rail 1's path stayed: $($GP portal show mdns)"
grep -q "mDNS: disc-rail1 on rail1 withdrawn" /tmp/gpupathd.log || fail "withdrawal not logged"
# ... and back.
service disc-rail1 4420 target-rail1.local $D p=roce
avahi-daemon --reload || fail "avahi-daemon --reload"
wait_for 60 two_paths || fail "rail 1 not back: $($GP portal show mdns)"
note "disc-rail1 withdrawn: rail 1's path given up; announced again: two paths"
