# SPDX-License-Identifier: GPL-2.0
# QoS classes: a class (DSCP 26, so ToS 0x68) named by an RDMA rail's portal
# and by the TCP portal. gpupathd connects both with that ToS and sets
# rdma_cm's default RoCE ToS on the rail's RDMA device, reading it back.
#
# soft-RoCE short-cuts traffic between addresses of one rxe device, so for
# RoCEv2 packets to exist at all, rail 1 gets a host end of its own here:
# 10.99.1.2 and an rxe device on the veth peer rail1p, and policy routing
# that sends the host's own traffic between the two addresses through the
# veth pair (accept_local lets each end take packets from a local source).
# A capture inside the guest then shows DSCP 26 on every RoCEv2 packet
# (UDP 4791) the host sends on the rail and on every NVMe/TCP segment it
# sends to the target, and the class reports each setting as applied.
# Checked too: a portal naming an unknown class, a second class of the
# same name, bad values, and deleting a class in use are refused.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
cleanup() {
	[ -z "${cap:-}" ] || kill "$cap" 2>/dev/null
	if [ -n "${wire:-}" ]; then
		$IP rule del pref 100 2>/dev/null
		$IP rule add pref 0 lookup local 2>/dev/null
		$IP rule del pref 1000 2>/dev/null
	fi
	[ -z "${gpd:-}" ] || kill "$gpd" 2>/dev/null
	for p in rail1 tcp; do $GP portal del $p >/dev/null 2>&1; done
	$GP qos del gold >/dev/null 2>&1
	volumes_del_all
	nvme disconnect -n $NQN >/dev/null 2>&1
	for d in /sys/kernel/config/rdma_cm/*; do [ -d "$d" ] && rmdir "$d"; done
	rm -f /run/gpupath/qos-ledger
	rails_teardown
}
trap cleanup EXIT
rails_targets
wire=1
$IP addr del 10.99.1.2/24 dev rail1 &&
$IP addr add 10.99.1.2/24 dev rail1p &&
rdma link add rxe1p type rxe netdev rail1p || fail "rail 1: host end"
for d in all rail1 rail1p; do
	echo 0 >/proc/sys/net/ipv4/conf/$d/rp_filter
	echo 1 >/proc/sys/net/ipv4/conf/$d/accept_local
done
$IP route add 10.99.1.1 dev rail1p src 10.99.1.2 table 100 &&
$IP route add 10.99.1.2 dev rail1 src 10.99.1.1 table 100 &&
$IP rule add pref 100 iif lo lookup 100 &&
$IP rule add pref 1000 lookup local &&
$IP rule del pref 0 lookup local || fail "rail 1: policy routing"
# An administrator's RoCE default ToS on rxe1p, there before gpupathd: it is
# what gpupathd puts back once no class wants the device.
TOS=/sys/kernel/config/rdma_cm/rxe1p/ports/1/default_roce_tos
rm -f /run/gpupath/qos-ledger
mkdir -p /sys/kernel/config/rdma_cm/rxe1p && echo 32 >$TOS || fail "rdma_cm configfs"

t() { want=$1; shift; out=$("$@" 2>&1); rc=$?; echo "$* -> $out"
	[ $rc != 0 ] || fail "expected a failure"
	echo "$out" | grep -q "$want" || fail "expected '$want'"; }

t "no QoS class with this name" $GP portal add tcp transport tcp traddr 10.99.0.1 \
	trsvcid 4421 nqn $NQN qos gold
t "dscp must be 0 to 63" $GP qos add gold dscp 64
t "a class needs a dscp" $GP qos add gold priority 3
t "pfc is on or off" $GP qos add gold dscp 26 pfc yes
$GP qos add gold dscp 26 priority 3 pfc on ets 50 >/dev/null || fail "qos add gold"
t "a QoS class with this name exists" $GP qos add gold dscp 10
[ "$($GP portal show -j | jq '.portals | length')" = 0 ] || fail "a bad portal was kept"

gpd_start /tmp/gpupathd.log
$GP portal add rail1 transport rdma traddr 10.99.1.1 nqn $NQN rails 1:rail1p \
	qos gold >/dev/null || fail "portal rail1"
$GP portal add tcp transport tcp traddr 10.99.0.1 trsvcid 4421 nqn $NQN \
	rails 3:@10.99.0.2 qos gold >/dev/null || fail "portal tcp"
t "portals use this QoS class" $GP qos del gold
two_paths() {
	[ "$($GP volume show -j |
	     jq "[.volumes[] | select(.wwid == \"uuid.$UUID\") | .usable] | .[0]")" = 2 ]
}
wait_for 90 two_paths || { cat /tmp/gpupathd.log; fail "no volume with two paths"; }
VOL=/dev/$($GP volume show -j | jq -r ".volumes[] | select(.wwid == \"uuid.$UUID\") | .name")

# What gpupathd reports: the ToS taken by both connections, and the RoCE
# default read back from rdma_cm's configfs.
applied() {
	$GP qos show gold -j | jq -e '[.applied[] | select(.result == "applied" and .value == 104)
		| .setting] | sort == ["default_roce_tos", "tos", "tos"]' >/dev/null
}
wait_for 20 applied || fail "not applied: $($GP qos show gold)"
$GP qos show gold
[ "$(cat /sys/kernel/config/rdma_cm/rxe1p/ports/1/default_roce_tos)" = 104 ] ||
	fail "rxe1p default_roce_tos: $(cat /sys/kernel/config/rdma_cm/rxe1p/ports/1/default_roce_tos)"
# DCB (dcbnl: DSCP -> priority, PFC, ETS) and vendor ECN: a veth has none
# of them, and each is reported so, with the reason, never as applied.
$GP qos show gold -j | jq -e '[.applied[] | select(.result == "failed")] | length == 0' \
	>/dev/null || fail "a setting failed: $($GP qos show gold)"
unsupported() {
	$GP qos show gold -j | jq -c "[.applied[] | select(.device == \"$1\" and
		.result == \"unsupported\" and .error == \"Operation not supported\") |
		.setting] | sort"
}
[ "$(unsupported rail1p)" = '["dcb-app-dscp","ecn","ets","pfc"]' ] ||
	fail "rail1p: $(unsupported rail1p)"
tcpif=$($IP -o addr show to 10.99.0.2 | awk '{ print $2 }')
[ "$(unsupported "$tcpif")" = '["dcb-app-dscp","ets","pfc"]' ] || fail "$tcpif: $(unsupported "$tcpif")"
note "DCB on rail1p and $tcpif, ECN on rail1p: reported unsupported (no dcbnl on a veth)"

# On the wire: the host's packets to the target, on both transports.
tcpdump -i any -n -v -Z root 'udp port 4791 or tcp port 4421' >/tmp/cap.txt 2>/tmp/cap.err &
cap=$!
wait_for 10 grep -q "listening on" /tmp/cap.err || fail "tcpdump: $(cat /tmp/cap.err)"
dd if="$VOL" of=/dev/null bs=64k count=128 iflag=direct 2>/dev/null || fail "read $VOL"
sleep 1
kill "$cap"
wait "$cap" 2>/dev/null
cap=
# tcpdump -v: "... lo In IP (tos 0x68, ...)" then the addresses on the next line.
awk '/ IP \(tos 0x/ { match($0, /tos 0x[0-9a-f]+/); tos = substr($0, RSTART + 4, RLENGTH - 4); next }
     tos != "" && / > / { print tos, $1, $3; tos = "" }' /tmp/cap.txt >/tmp/pkts
roce=$(awk '$2 ~ /^10\.99\.1\.2\./ && $3 ~ /^10\.99\.1\.1\.4791:/' /tmp/pkts)
tcp=$(awk '$2 ~ /^10\.99\.0\.2\./ && $3 ~ /^10\.99\.0\.1\.4421:/' /tmp/pkts)
nroce=$(echo "$roce" | grep -c .)
ntcp=$(echo "$tcp" | grep -c .)
note "captured from the host: $nroce RoCEv2 packets (UDP 4791) on rail 1, $ntcp NVMe/TCP segments"
note "ToS seen: RoCEv2 $(echo "$roce" | awk '{ print $1 }' | sort | uniq -c | tr '\n' ' ')," \
	"TCP $(echo "$tcp" | awk '{ print $1 }' | sort | uniq -c | tr '\n' ' ')"
[ "$nroce" -gt 0 ] && [ "$ntcp" -gt 0 ] || { head -20 /tmp/cap.txt; fail "nothing captured"; }
! echo "$roce" | grep -qv '^0x68 ' || fail "RoCEv2 packets without DSCP 26"
! echo "$tcp" | grep -qv '^0x68 ' || fail "NVMe/TCP segments without DSCP 26"
grep "QoS class" /tmp/gpupathd.log | sed 's/^/gpupathd: /'

# The metrics of QoS settings and portal connections, as gpupathd left them.
prom_check daemon-qos
grep -q '^gpupath_qos_setting_info{.*result="applied"' /out/daemon-qos.prom ||
	fail "no applied QoS setting in the metrics"
grep -q '^gpupath_portal_connection_info{.*state="live"' /out/daemon-qos.prom ||
	fail "no live portal connection in the metrics"

# Convergence: the class changed, then no longer named by the RDMA rail's
# portal: gpupathd follows the change, then takes back exactly what it set
# (the administrator's ToS of 32 comes back), and its ledger is empty.
grep -q "^default_roce_tos rxe1p 0 32$" /run/gpupath/qos-ledger ||
	fail "ledger: $(cat /run/gpupath/qos-ledger 2>/dev/null)"
$GP qos set gold dscp 10 >/dev/null || fail "qos set gold"
wait_for 20 sh -c "[ \$(cat $TOS) = 40 ]" || fail "dscp 10: default_roce_tos $(cat $TOS)"
grep -q "^default_roce_tos rxe1p 0 32$" /run/gpupath/qos-ledger ||
	fail "the ledger lost what was there before: $(cat /run/gpupath/qos-ledger)"
$GP portal del rail1 >/dev/null || fail "portal del rail1"
wait_for 20 sh -c "[ \$(cat $TOS) = 32 ]" || fail "not taken back: default_roce_tos $(cat $TOS)"
grep -q "QoS: rxe1p default_roce_tos 0 taken back" /tmp/gpupathd.log || fail "not logged"
[ ! -s /run/gpupath/qos-ledger ] || fail "ledger left: $(cat /run/gpupath/qos-ledger)"
note "class gold: dscp 26 -> 10 made rxe1p's default ToS 104 -> 40; the portal gone, 32 (the" \
	"administrator's) is back and the ledger is empty"
