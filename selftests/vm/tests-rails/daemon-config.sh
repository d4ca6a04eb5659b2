# SPDX-License-Identifier: GPL-2.0
# gpupathd from nothing but gpupath.conf: the target side of the rails is up
# and nothing is connected; the file names a QoS class and three portals
# (two soft-RoCE rails and the TCP path). The daemon applies it, connects,
# and the volume reads right. Its periodic check is an hour away: all it
# does here it does on notifications, link changes and uevents. A second
# namespace added to the subsystem becomes a volume of its own on the nvme
# uevents. Then, under fio verify:
#  - SIGHUP with settings changed and a class added: the changes applied,
#    the controllers untouched (no reconnect), fio verified;
#  - SIGHUP with a file with mistakes: every mistake logged with its line,
#    nothing changed;
#  - SIGHUP with a file the module refuses in part: what the pass changed
#    is undone, nothing changed;
#  - kill -9 and restart with the same file: no change, no reconnect;
#  - a portal dropped from the file: deleted, its controller disconnected;
#    a portal made with the CLI is left alone.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
# Not in /tmp: the unit gives the daemon a /tmp of its own.
CONF=/etc/gpupath/gpupath-test.conf
NS2=$CFG/subsystems/$NQN/namespaces/2
UUID2=5e1f7e57-6a70-4c1d-9c2e-0123456789ac
load_module
cleanup() {
	[ -z "${fio_pid:-}" ] || { kill "$fio_pid"; wait "$fio_pid"; } 2>/dev/null
	[ -z "${gpd:-}" ] || kill "$gpd" 2>/dev/null
	[ -z "${gpd:-}" ] || grep -v "notification on" /tmp/gpupathd.log | tail -25 |
		sed 's/^/gpupathd: /' 
	for p in rail1 rail2 tcp cli; do $GP portal del $p >/dev/null 2>&1; done
	for q in roce bulk; do $GP qos del $q >/dev/null 2>&1; done
	rm -f /run/gpupath/config-objects $CONF
	volumes_del_all
	if [ -d $NS2 ]; then
		echo 0 >$NS2/enable
		rmdir $NS2
	fi
	rails_teardown
}
trap cleanup EXIT
rails_targets
$PATTERN gen $((16 * MiB)) 511 | dd of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null
[ -z "$(ls /sys/class/nvme-fabrics/ctl 2>/dev/null | grep nvme)" ] ||
	fail "controllers connected before the daemon: $(ls /sys/class/nvme-fabrics/ctl)"

# write_conf DELAY2 [EXTRA]: the file, rail 2's reconnect-delay varied.
mkdir -p /etc/gpupath
write_conf() {
	cat >$CONF <<EOF
# the selftest's fabric
[daemon]
interval = 3600

[qos roce]
dscp = 26
priority = 3

[portal rail1]
transport = rdma
traddr = 10.99.1.1
nqn = $NQN
rails = 1:rail1@10.99.1.2
qos = roce

[portal rail2]
transport = rdma
traddr = 10.99.2.1
nqn = $NQN
rails = 2:rail2@10.99.2.2
reconnect-delay = $1
qos = roce

[portal tcp]
transport = tcp
traddr = 10.99.0.1
trsvcid = 4421
nqn = $NQN
rails = 3:@10.99.0.2
ctrl-loss-tmo = 30
${2:-}
EOF
}
write_conf 1
$GPD --check-config -c $CONF || fail "the test's file has mistakes"

gpd_start /tmp/gpupathd.log -c $CONF
three_paths() {
	[ "$($GP volume show -j |
	     jq "[.volumes[] | select(.wwid == \"uuid.$UUID\") | .usable] | .[0]")" = 3 ]
}
wait_for 90 three_paths || {
	sed 's/^/gpupathd: /' /tmp/gpupathd.log; $GP portal show; $GP volume show
	fail "no volume with three usable paths from the file"
}
grep -q "$CONF: applied, 3 portals and 1 QoS class, 4 changes" /tmp/gpupathd.log ||
	fail "first pass not logged: $(grep "$CONF" /tmp/gpupathd.log)"
$GP volume show -j >/tmp/v.json
vol=$(jq ".volumes[] | select(.wwid == \"uuid.$UUID\") | .id" /tmp/v.json)
VOL=/dev/$(jq -r ".volumes[] | select(.id == $vol) | .name" /tmp/v.json)
dd if="$VOL" of=/tmp/vol.read bs=64k count=256 iflag=direct 2>/dev/null || fail "read $VOL"
$PATTERN check /tmp/vol.read 0 $((16 * MiB)) 511 || fail "$VOL read wrong data"
note "from the file alone: 3 portals connected, $VOL with 3 paths reads right"

# A namespace appears on the connected controllers (nvmet's AEN, the host's
# rescan): the block devices' uevents get it assembled, three paths.
truncate -s $((64 * MiB)) /tmp/ns2.img
mkdir $NS2 && echo -n /tmp/ns2.img >$NS2/device_path && echo 1 >$NS2/buffered_io &&
	echo $UUID2 >$NS2/device_uuid || fail "namespace 2"
t0=$(cut -d' ' -f1 /proc/uptime)
echo 1 >$NS2/enable || fail "namespace 2 enable"
ns2_volume() {
	[ "$($GP volume show -j |
	     jq "[.volumes[] | select(.wwid == \"uuid.$UUID2\") | .usable] | .[0]")" = 3 ]
}
# A controller whose rescan failed on the target's side (seen on 7.3 with
# nvme-tcp: "Identify Descriptors failed (nsid=2, status=0x2300)") gets no
# second event: rescan it by hand, as an operator would, and go on.
if ! wait_for 20 ns2_volume; then
	note "namespace 2: $(dmesg | grep -c 'Identify Descriptors failed (nsid=2') identify" \
		"failures on the host; every controller rescanned by hand"
	for c in /sys/class/nvme/nvme*; do echo 1 >"$c/rescan_controller"; done 2>/dev/null
	wait_for 40 ns2_volume || fail "no volume for namespace 2: $($GP volume show)"
fi
t1=$(cut -d' ' -f1 /proc/uptime)
grep -q "uevent: add@.*/nvme[0-9]*n2 nvme[0-9]*n2" /tmp/gpupathd.log ||
	fail "no namespace uevent logged"
note "namespace 2 added on the target: its volume had 3 paths" \
	"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s later (periodic check: 3600 s)"
$GP portal add cli transport tcp traddr 10.99.0.1 trsvcid 4421 nqn ${NQN}x >/dev/null ||
	fail "portal cli"

# The module's portals and classes, without the connections' changing state.
settings() {
	$GP portal show -j | jq -cS '[.portals[] | del(.connections, .id)]'
	$GP qos show -j | jq -cS '[.qos[] | del(.applied, .portals)]'
}
applied_count() { grep -c "$CONF: applied" /tmp/gpupathd.log; }
hup() {
	n=$(applied_count); r=$(grep -c "keeping the configuration" /tmp/gpupathd.log)
	kill -HUP "$gpd"
	wait_for 20 sh -c "[ \$(grep -c '$CONF: applied' /tmp/gpupathd.log) -gt $n ] ||
		[ \$(grep -c 'keeping the configuration' /tmp/gpupathd.log) -gt $r ] ||
		[ \$(grep -c 'not applied' /tmp/gpupathd.log) -gt ${na:-0} ]" ||
		fail "SIGHUP not acted on: $(tail -5 /tmp/gpupathd.log)"
	na=$(grep -c 'not applied' /tmp/gpupathd.log)
}

# The subsystem's controllers. The CLI's portal names a subsystem that does
# not exist: each of its attempts makes a controller that lives until the
# target refuses it, so those are left out.
ctrls() {
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && echo "${c##*/}"
	done
}

# Reload with changes, under I/O: applied, nothing reconnected.
ctrls >/tmp/ctrls.before
[ "$(wc -l </tmp/ctrls.before)" = 3 ] || fail "not 3 controllers: $(cat /tmp/ctrls.before)"
lines=$(wc -l </tmp/gpupathd.log)
fio_start 3
sleep 1
write_conf 3 "$(printf '[qos bulk]\ndscp = 10')"
hup
grep -q "portal rail2 updated" /tmp/gpupathd.log || fail "rail2 not updated"
grep -q "qos bulk added" /tmp/gpupathd.log || fail "qos bulk not added"
grep -q "$CONF: applied, 3 portals and 2 QoS classes, 2 changes" /tmp/gpupathd.log ||
	fail "reload: $(grep "$CONF" /tmp/gpupathd.log | tail -3)"
[ "$($GP portal show rail2 -j | jq .reconnect_delay)" = 3 ] || fail "reconnect-delay not 3"
fio_check "reload"
sleep 2
ctrls | diff /tmp/ctrls.before - || fail "controllers changed across the reload"
! tail -n +$((lines + 1)) /tmp/gpupathd.log | grep -v "portal cli " | grep connecting ||
	fail "the reload made connections"
[ "$($GP portal show -j | jq -c '[.portals[] | select(.name != "cli") |
	.connections[].state] | unique')" = '["live"]' ] || fail "after reload: $($GP portal show)"
note "SIGHUP under fio: rail2 reconnect-delay 1 -> 3 and class bulk added;" \
	"controllers $(tr '\n' ' ' </tmp/ctrls.before)unchanged, fio verified"

# A file with mistakes: each named with its line, nothing changed.
settings >/tmp/settings.before
cp $CONF /tmp/good.conf
sed -i 's/^dscp = 26$/dscp = 64/; s/^trsvcid = 4421$/trsvcid = 4421x/' $CONF
hup
grep "$CONF:" /tmp/gpupathd.log | tail -4
line=$(grep -n '^dscp = 64' $CONF | cut -d: -f1)
grep -q "$CONF:$line: qos roce: dscp must be 0 to 63, not 64" /tmp/gpupathd.log ||
	fail "mistake at line $line not named"
line=$(grep -n '^trsvcid = 4421x' $CONF | cut -d: -f1)
grep -q "$CONF:$line: portal tcp: trsvcid: '4421x' is not a number" /tmp/gpupathd.log ||
	fail "mistake at line $line not named"
grep -q "$CONF: 2 mistakes; nothing in it is applied" /tmp/gpupathd.log || fail "not counted"
settings | diff /tmp/settings.before - || fail "a file with mistakes changed something"

# A file the module would refuse in part (a portal naming a class that does
# not exist): found before the pass changes anything, the class change
# before it included.
cp /tmp/good.conf $CONF
sed -i 's/^dscp = 10$/dscp = 12/; s/^qos = roce$/qos = nosuch/' $CONF
hup
line=$(grep -n '^\[portal rail1\]' $CONF | cut -d: -f1)
grep -q "$CONF:$line: portal rail1: .*no QoS class with this name" /tmp/gpupathd.log ||
	fail "refusal not named: $(tail -5 /tmp/gpupathd.log)"
grep -q "$CONF: not applied; nothing was changed" /tmp/gpupathd.log || fail "no refusal logged"
! grep -q "undoing" /tmp/gpupathd.log || fail "a change was made (and undone)"
settings | diff /tmp/settings.before - || fail "a refused file changed something"
grep -A3 "$CONF:$line: portal rail1" /tmp/gpupathd.log
note "files with mistakes, or refused by the module: lines named, nothing changed"

# A rejected reload under I/O leaves every controller, path and id as it
# was: the TCP portal replaced by one of another name (same target) with an
# unknown class, then by one of the same name (another target) with one.
ids() { $GP portal show -j | jq -c '[.portals[] | {name, id}]'; $GP volume show "$vol" -j |
	jq -c '[.path_list[] | {id, device}]'; }
ids >/tmp/ids.before
fo=$($GP volume show "$vol" -j | jq '.stats.failovers')
lines=$(wc -l </tmp/gpupathd.log)
fio_start 4
sleep 1
sed 's/^\[portal tcp\]$/[portal tcp2]/; /^ctrl-loss-tmo = 30$/a qos = nope' /tmp/good.conf >$CONF
hup
sed 's/^trsvcid = 4421$/trsvcid = 4420/; /^ctrl-loss-tmo = 30$/a qos = nope' /tmp/good.conf >$CONF
hup
# The live TCP portal dropped and one added that the module would refuse
# (a host NQN of its own, no host ID): --check-config says so, and the
# reload changes nothing (no portal deleted and added back under new ids).
awk '/^\[portal tcp\]/ { skip = 1 } /^\[qos bulk\]/ { skip = 0 } !skip' /tmp/good.conf >$CONF
printf '\n[portal other]\ntransport = tcp\ntraddr = 10.99.0.1\ntrsvcid = 4421\nnqn = %s\nhost-nqn = nqn.2026-12.io.gpupath:tenant-a\n' \
	"$NQN" >>$CONF
! $GPD --check-config -c $CONF >/tmp/check.out 2>&1 ||
	fail "--check-config called good a file the module refuses: $(cat /tmp/check.out)"
hup
grep -q "portal other: a host NQN of its own needs a host ID" /tmp/gpupathd.log ||
	fail "the host NQN without its host ID not named: $(tail -3 /tmp/gpupathd.log)"
# A file cut short as it is saved: names nothing, removes nothing.
: >$CONF
hup
grep -q "$CONF: names no portal and no QoS class, and would remove the 5 " /tmp/gpupathd.log ||
	fail "an empty file was not refused: $(tail -3 /tmp/gpupathd.log)"
fio_check "rejected reloads"
for n in tcp2 tcp; do
	grep -q "portal $n: qos nope: no QoS class" /tmp/gpupathd.log ||
		fail "portal $n's class not named: $(tail -5 /tmp/gpupathd.log)"
done
ids | diff /tmp/ids.before - || fail "a rejected reload changed portal or path ids"
ctrls | diff /tmp/ctrls.before - || fail "controllers changed across rejected reloads"
! tail -n +$((lines + 1)) /tmp/gpupathd.log | grep -v "portal cli " |
	grep -E "connecting|deleted|replaced|added" ||
	fail "a rejected reload touched a connection"
[ "$($GP volume show "$vol" -j | jq '.stats.failovers')" = "$fo" ] ||
	fail "failovers across rejected reloads: $($GP volume show "$vol")"
settings | diff /tmp/settings.before - || fail "a rejected reload changed something"
note "rejected reloads under fio (an unknown class twice, a host NQN without its host ID, an" \
	"empty file): portal and path ids, controllers unchanged, no failover"

# kill -9 and restart with the same file: nothing to change, no reconnect.
cp /tmp/good.conf $CONF
fio_start 2
gpd_stop KILL
gpd_start /tmp/gpupathd2.log -c $CONF
wait_for 30 grep -q "$CONF: applied" /tmp/gpupathd2.log || fail "restart: not applied"
grep -q "$CONF: applied, 3 portals and 2 QoS classes, 0 changes" /tmp/gpupathd2.log ||
	fail "restart changed something: $(grep "$CONF" /tmp/gpupathd2.log)"
taken() { [ "$(grep -c ' is live (nvme' /tmp/gpupathd2.log)" = 3 ]; }
wait_for 30 taken || { cat /tmp/gpupathd2.log; fail "restarted daemon did not take the controllers"; }
! grep -v "portal cli " /tmp/gpupathd2.log | grep connecting || fail "the restarted daemon connected again"
fio_check "kill -9 and restart"
ctrls | diff /tmp/ctrls.before - || fail "controllers changed across the restart"
mv /tmp/gpupathd2.log /tmp/gpupathd.log

# A portal dropped from the file: deleted and disconnected; the CLI's stays.
ctrl=$($GP portal show tcp -j | jq -r '.connections[0].controller')
awk '/^\[portal tcp\]/ { skip = 1 } /^\[qos bulk\]/ { skip = 0 } !skip' /tmp/good.conf >$CONF
hup
grep -q "portal tcp is no longer named: deleted" /tmp/gpupathd.log || fail "tcp not deleted"
wait_for 20 sh -c "! [ -e /sys/class/nvme/$ctrl ]" || fail "$ctrl still connected"
two_paths() { [ "$($GP volume show "$vol" -j | jq '.paths')" = 2 ]; }
wait_for 20 two_paths || fail "the TCP path not removed: $($GP volume show "$vol")"
$GP portal show cli >/dev/null || fail "the CLI's portal was deleted"
dd if="$VOL" of=/tmp/vol.read bs=64k count=256 iflag=direct 2>/dev/null || fail "read $VOL"
$PATTERN check /tmp/vol.read 0 $((16 * MiB)) 511 || fail "read wrong data on two paths"
note "portal dropped from the file: deleted, $ctrl disconnected; the CLI's portal kept"

# Removing everything the file made is said outright: remove-all = yes.
printf '[daemon]\nremove-all = yes\n' >$CONF
hup
grep -q "$CONF: applied, 0 portals and 0 QoS classes" /tmp/gpupathd.log ||
	fail "remove-all = yes not applied: $(tail -5 /tmp/gpupathd.log)"
left=$($GP portal show -j | jq -r '[.portals[].name] | join(" ")')
[ "$left" = cli ] || fail "after remove-all: portals '$left' (the CLI's alone was to stay)"
[ "$($GP qos show -j | jq '.qos | length')" = 0 ] || fail "after remove-all: $($GP qos show)"
note "remove-all = yes: every portal and class of the file deleted; the CLI's portal kept"
