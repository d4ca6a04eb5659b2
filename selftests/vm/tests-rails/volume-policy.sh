# SPDX-License-Identifier: GPL-2.0
# Path policies against a path slowed on purpose: the TCP path of
# rails_setup gets 20 ms of netem delay (nvme-tcp's socket priority puts its
# packets in their own band of a prio qdisc on lo, which carries all of the
# guest-internal fabric). Round-robin still spreads evenly; queue-depth and
# service-time must move the load off the slow path.
. /src/selftests/vm/guest-lib.sh

TC=/usr/sbin/tc
load_module
cleanup() {
	$TC qdisc del dev lo root 2>/dev/null
	volumes_del_all
	rails_teardown
}
trap cleanup EXIT
modprobe -a sch_prio sch_netem || fail "qdisc modules"
modprobe nvme_tcp && echo 6 >/sys/module/nvme_tcp/parameters/so_priority || fail "so_priority"
rails_setup

volume_new
for n in $RAILS; do
	$GP path add "$vol" "/dev/$(rail_ns "$n")" rail "$n" >/dev/null || fail "path add rail $n"
done
ids=$($GP volume show "$vol" -j | jq -r '[.path_list[] | .id] | join(" ")')
tcp=$($GP volume show "$vol" -j | jq '.path_list[] | select(.transport == "tcp") | .id')

# Priority 6 goes to band 0 (class 1:1) with the default priomap.
$TC qdisc add dev lo root handle 1: prio &&
$TC qdisc add dev lo parent 1:1 handle 10: netem delay 20ms || fail "netem"

# ios FILE ID: the path's completed I/Os in a volume show -j FILE.
ios() { jq --argjson p "$2" '.path_list[] | select(.id == $p) | .stats.ios' "$1"; }

# measure POLICY: 300 random 4 KiB reads at depth 8; sets $slow to the slow
# path's share of them and $fast to the mean of the other paths'.
measure() {
	$GP volume set "$vol" policy "$1" || fail "policy $1"
	$GP volume show "$vol" -j >/tmp/before.json
	fio --name="$1" --filename="$VOL" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
		--iodepth=8 --number_ios=300 --size=64M --output=/dev/null || fail "fio $1"
	$GP volume show "$vol" -j >/tmp/after.json
	slow=0 rest=0 n=0 all=
	for p in $ids; do
		c=$(($(ios /tmp/after.json "$p") - $(ios /tmp/before.json "$p")))
		all="$all $c"
		if [ "$p" = "$tcp" ]; then slow=$c; else rest=$((rest + c)); n=$((n + 1)); fi
	done
	fast=$((rest / n))
	note "$1: slow TCP path $slow I/Os, fast paths $fast on average (per path:$all)"
}
measure round-robin
[ $((slow * 100)) -ge $((fast * 80)) ] || fail "round-robin did not spread evenly"
for pol in queue-depth service-time; do
	measure $pol
	[ $((slow * 3)) -le $fast ] || fail "$pol did not move load off the slow path"
done
