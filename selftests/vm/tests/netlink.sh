# SPDX-License-Identifier: GPL-2.0
# The family's policies and extended ACKs, the monitor and the daemon
# following the module across an unload and a reload.
. /src/selftests/vm/guest-lib.sh

load_module
$NLCHECK || fail "policy checks"

# monitor: two events, unloaded then loaded again.
$GP monitor -j --count 2 >/tmp/mon.json 2>/tmp/mon.err &
mon=$!
$GPD --foreground --verbose --interval 1 >/tmp/gpd.log 2>&1 &
gpd=$!
trap '[ -z "$gpd" ] || kill $gpd 2>/dev/null' EXIT
wait_for 10 grep -q 'monitoring (module loaded)' /tmp/mon.err || fail "monitor did not start"
wait_for 10 grep -q 'features:' /tmp/gpd.log || fail "daemon did not read the module: $(cat /tmp/gpd.log)"
rmmod gpupath || fail rmmod
wait_for 10 grep -q 'unloaded' /tmp/gpd.log || fail "daemon missed the unload"
insmod "$KO" || fail insmod
wait_for 20 sh -c "[ \$(wc -l </tmp/mon.json) -ge 2 ]" || fail "monitor saw: $(cat /tmp/mon.json)"
wait $mon || fail "monitor exited with an error"
cat /tmp/mon.json
jq -s -e '.[0].event == "module-unloaded" and .[1].event == "module-loaded" and
	  .[1].module.genl_version == 1' /tmp/mon.json >/dev/null || fail "monitor events wrong"
wait_for 10 grep -q 'gpupath module loaded' /tmp/gpd.log || fail "daemon missed the reload"
kill -HUP $gpd
wait_for 10 grep -q 'reloading /etc/gpupath/gpupath.conf' /tmp/gpd.log || fail "daemon ignored SIGHUP"
kill -0 $gpd || fail "daemon died on SIGHUP"
kill -TERM $gpd
wait $gpd
rc=$?
gpd=
cat /tmp/gpd.log
[ $rc = 0 ] || fail "daemon exit status $rc on SIGTERM"
grep -q stopping /tmp/gpd.log || fail "daemon did not log its stop"

# A refused deletion is not announced: QoS class qd, named by portal pd,
# cannot go (EBUSY), and the monitor sees one qos-del only, after the portal's.
$GP monitor -j >/tmp/mon2.json 2>/tmp/mon2.err &
mon=$!
trap 'kill $mon 2>/dev/null' EXIT
wait_for 10 grep -q 'monitoring (module loaded)' /tmp/mon2.err || fail "monitor did not start"
$GP qos add qd dscp 8 >/dev/null || fail "qos add"
$GP portal add pd transport tcp traddr 10.99.0.1 nqn nqn.2026-11.io.gpupath:x qos qd >/dev/null ||
	fail "portal add"
out=$($GP qos del qd 2>&1) && fail "qos del of a class a portal names: $out"
echo "qos del of a named class -> $out"
$GP portal del pd >/dev/null || fail "portal del"
$GP qos del qd >/dev/null || fail "qos del"
dels() { jq -s -c '[.[] | select(.cmd == "qos-del" or .cmd == "portal-del") | .cmd]' /tmp/mon2.json; }
wait_for 10 sh -c "[ \$(jq -s '[.[] | select(.cmd == \"qos-del\")] | length' /tmp/mon2.json) -ge 1 ]" ||
	fail "monitor saw no qos-del: $(cat /tmp/mon2.json)"
sleep 1
kill $mon
trap - EXIT
[ "$(dels)" = '["portal-del","qos-del"]' ] || fail "deletions announced: $(dels)"
note "a refused qos del is not announced; the monitor saw $(dels)"
