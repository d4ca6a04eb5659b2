# SPDX-License-Identifier: GPL-2.0
# Scale: one nvmet target with SCALE_SUBSYS (64) subsystems of one namespace
# each, reached over the two RDMA rails through two discovery portals (one
# per rail). gpupathd connects every controller (128) and assembles every
# volume with two paths; fio verify runs on 8 of them while rail 1 fails and
# comes back: its veth peer loses the carrier (what gpupathd sees) and the
# host loses the rail's controllers (deleted, as when a NIC goes away: rxe
# loops traffic between two addresses of one interface back, so the link
# alone loses none). gpupathd connects nothing from a rail without carrier,
# and connects all of it again when the link returns.
# Measured and printed:
# the time from start to "every volume has 2 live paths", the largest time
# from the link going down to a volume's path on it being out of service,
# the largest I/O latency fio saw across the flap, the time until every
# volume has 2 paths again, gpupathd's CPU time and peak RSS, and the size
# of the largest netlink dump (bytes the CLI received). Checked: every
# volume fails over, fio has 0 errors, each controller exists once.
# time-limit: 600
. /src/selftests/vm/guest-lib.sh

N=${SCALE_SUBSYS:-64}
FIO_VOLS=8
MiB=1048576
SNQN=nqn.2026-11.io.gpupath:scale
load_module

snqn() { printf '%s-%02d' $SNQN "$1"; }
suuid() { printf '5ca1e000-0000-4000-8000-%012d' "$1"; }
cleanup() {
	local i
	touch /tmp/fio.stop
	[ -z "${fio_pid:-}" ] || wait "$fio_pid" 2>/dev/null
	if [ -n "${gpd:-}" ]; then
		kill "$gpd" 2>/dev/null
		grep -v "notification on" /tmp/gpupathd.log | tail -25 | sed 's/^/gpupathd: /'
	fi
	$GP portal del s1 >/dev/null 2>&1
	$GP portal del s2 >/dev/null 2>&1
	volumes_del_all
	$IP link set rail1p up 2>/dev/null
	for c in /sys/class/nvme/nvme*; do
		case $(cat "$c/subsysnqn" 2>/dev/null) in
		$SNQN-* | nqn.2014-08.org.nvmexpress.discovery) echo 1 >"$c/delete_controller" ;;
		esac
	done 2>/dev/null
	for i in $(seq "$N"); do
		s=$(snqn "$i")
		rm -f $CFG/ports/*/subsystems/"$s"
		[ -d $CFG/subsystems/"$s" ] || continue
		echo 0 >$CFG/subsystems/"$s"/namespaces/1/enable
		rmdir $CFG/subsystems/"$s"/namespaces/1 $CFG/subsystems/"$s"
	done 2>/dev/null
	rm -rf /tmp/scale
	rails_teardown
}
trap cleanup EXIT
rails_targets

# The subsystems, on both rails' ports (the test's own subsystem taken off
# them once they have others: a port with no subsystem is disabled).
mkdir -p /tmp/scale
for i in $(seq "$N"); do
	s=$(snqn "$i")
	S=$CFG/subsystems/$s
	truncate -s $((16 * MiB)) /tmp/scale/$i.img &&
	mkdir $S && echo 1 >$S/attr_allow_any_host &&
	mkdir $S/namespaces/1 &&
	echo -n /tmp/scale/$i.img >$S/namespaces/1/device_path &&
	echo "$(suuid "$i")" >$S/namespaces/1/device_uuid &&
	echo 1 >$S/namespaces/1/buffered_io &&
	echo 1 >$S/namespaces/1/enable &&
	ln -s $S $CFG/ports/11/subsystems/"$s" &&
	ln -s $S $CFG/ports/12/subsystems/"$s" || fail "subsystem $s"
done
rm -f $CFG/ports/11/subsystems/$NQN $CFG/ports/12/subsystems/$NQN
note "target: $N subsystems, each on ports 11 (rail 1) and 12 (rail 2)"

uptime_s() { cut -d' ' -f1 /proc/uptime; }
# gpd_alive: whether the gpupathd this test started still runs.
gpd_alive() { kill -0 "$gpd" 2>/dev/null && echo "gpupathd runs" || echo "gpupathd $gpd is gone"; }
since() { awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }'; }
# usable K: the number of the scale volumes with K usable paths.
usable() {
	$GP volume show -j | jq "[.volumes[] | select(.wwid | startswith(\"uuid.5ca1e000\")) |
		select(.usable == $1)] | length"
}
all_usable() { [ "$(usable "$1")" = "$N" ]; }

t0=$(uptime_s)
gpd_start /tmp/gpupathd.log
wait_for 10 $GP portal show >/dev/null || fail "gpupathd does not answer"
$GP portal add s1 transport rdma traddr 10.99.1.1 trsvcid 4420 rails 1:rail1 \
	reconnect-delay 1 >/dev/null || fail "portal s1"
$GP portal add s2 transport rdma traddr 10.99.2.1 trsvcid 4420 rails 2:rail2 \
	reconnect-delay 1 >/dev/null || fail "portal s2"
wait_for 300 all_usable 2 ||
	fail "after $(since "$t0") s: $(usable 2) of $N volumes with 2 paths, $(usable 1) with 1" \
		"($(gpd_alive))"
up_all=$(since "$t0")
# (sysfs read with builtins: a fork costs ~10 ms under TCG, more under load)
ctrls() {
	local c q n=0
	for c in /sys/class/nvme/nvme*; do
		read -r q <"$c/subsysnqn" && case $q in $SNQN-*) n=$((n + 1)) ;; esac
	done
	echo $n
}
dups() {
	local c q t a
	for c in /sys/class/nvme/nvme*; do
		read -r q <"$c/subsysnqn" && read -r t <"$c/transport" && read -r a <"$c/address" &&
			echo "$q $t ${a%%,*}"
	done | sort | uniq -d
}
[ "$(ctrls)" = $((2 * N)) ] || fail "$(ctrls) controllers for $N subsystems on 2 rails"
[ -z "$(dups)" ] || fail "controllers connected twice: $(dups)"
note "start to all $N volumes with 2 live paths: $up_all s ($((2 * N)) controllers)"

# fio verify on the first FIO_VOLS volumes, all in one fio, until stopped.
$GP volume show -j >/tmp/v.json
jobs=
for i in $(seq $FIO_VOLS); do
	v=$(jq -r ".volumes[] | select(.wwid == \"uuid.$(suuid "$i")\") | .name" /tmp/v.json)
	[ -n "$v" ] || fail "no volume of $(snqn "$i")"
	jobs="$jobs --name=v$i --filename=/dev/$v"
done
rm -f /tmp/fio.stop /tmp/fio.out /tmp/fio.runs /tmp/fio.lat
(
	n=0
	while [ ! -e /tmp/fio.stop ]; do
		# shellcheck disable=SC2086
		fio --rw=randwrite --bs=64k --size=4M --verify=crc32c --verify_state_save=0 \
			--direct=1 --ioengine=libaio --iodepth=4 --disk_util=0 --output-format=json \
			$jobs >/tmp/fio.last 2>/tmp/fio.err &&
			jq -e '[.jobs[].error] | add == 0' /tmp/fio.last >/dev/null ||
			{ cat /tmp/fio.err /tmp/fio.last >>/tmp/fio.out; echo failed >/tmp/fio.runs; exit 1; }
		# the largest completion latency of any write or verify read (ns)
		jq '[.jobs[] | .write.clat_ns.max, .read.clat_ns.max] | max' /tmp/fio.last \
			>>/tmp/fio.lat
		n=$((n + 1))
		echo "$n" >/tmp/fio.runs
	done
) &
fio_pid=$!
wait_for 120 sh -c '[ "$(cat /tmp/fio.runs 2>/dev/null)" -ge 1 ]' ||
	fail "fio: no run done: $(cat /tmp/fio.out 2>/dev/null)"
lat_before=$(sort -n /tmp/fio.lat | tail -1)

# Rail 1 fails: every volume's rail-1 path out of service.
td=$(uptime_s)
$IP link set rail1p down || fail "rail1p down"
# rail1 NAME...: the controllers (names) on rail 1 (target 10.99.1.1).
rail1() {
	local c t a
	for c in /sys/class/nvme/nvme*; do
		read -r t <"$c/transport" && [ "$t" = rdma ] || continue
		read -r a <"$c/address" && case $a in *traddr=10.99.1.1,*) echo "${c##*/}" ;; esac
	done
}
wait_for 120 all_usable 1 ||
	fail "after rail 1 went down: $(usable 1) of $N volumes on 1 path, $(usable 2) on 2"
all_down=$(since "$td")
grep -c ": link down (rail1) at" /tmp/gpupathd.log >/tmp/n.down
[ "$(cat /tmp/n.down)" -ge "$N" ] || fail "$(cat /tmp/n.down) paths marked down for $N volumes"
worst=$(sed -n 's/.*: link down (rail1) at \([0-9.]*\) s.*/\1/p' /tmp/gpupathd.log |
	sort -n | tail -1)
worst_ms=$(awk -v a="$td" -v b="$worst" 'BEGIN { printf "%d", (b - a) * 1000 }')
note "rail 1 down: all $N volumes on rail 2 after $all_down s (seen by the CLI); the last" \
	"path out of service $worst_ms ms after the link went down (goal: 2 s)"
grep "rail interface rail1\|link notifications lost\|pass: [0-9]* ms\|pass: lists" /tmp/gpupathd.log | tail -24
# ... and then (as at the keep-alive timeout) the host loses its controllers.
pids=
for c in $(rail1); do
	echo 1 >/sys/class/nvme/$c/delete_controller &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
[ -z "$(rail1)" ] || fail "rail 1's controllers not deleted: $(rail1)"
wait_for 60 grep -q "waits for rail1's link" /tmp/gpupathd.log ||
	fail "no connection waits for the link"
sleep 5
[ -z "$(rail1)" ] || fail "connected from rail 1 without carrier: $(rail1)"
note "rail 1's controllers gone; after 5 s none connected again from it (no carrier)"
fio_loop_ok || fail "fio verify failed with rail 1 down: $(cat /tmp/fio.out)"

# Rail 1 back: every volume on 2 paths again.
tu=$(uptime_s)
$IP link set rail1p up || fail "rail1p up"
wait_for 300 all_usable 2 ||
	fail "after rail 1 came back: $(usable 2) of $N volumes with 2 paths ($(gpd_alive))"
back=$(since "$tu")
n1=$(rail1 | wc -l)
[ "$n1" = $((N + 1)) ] || fail "$n1 controllers on rail 1 for $N subsystems and discovery"
note "rail 1 back: all $N volumes with 2 paths after $back s ($n1 controllers connected)"
sleep 3
touch /tmp/fio.stop
wait "$fio_pid" || fail "fio verify failed: $(cat /tmp/fio.out)"
fio_pid=
runs=$(cat /tmp/fio.runs)
[ "$runs" -ge 2 ] 2>/dev/null || fail "fio: $runs runs"
lat_max=$(sort -n /tmp/fio.lat | tail -1)
fo=$($GP volume show -j | jq '[.volumes[].stats.failover_max_ns] | max')
errs=$($GP volume show -j | jq '[.volumes[].stats.errors] | add')
[ "$errs" = 0 ] || fail "$errs I/O errors on the volumes"
note "fio verify on $FIO_VOLS volumes: $runs runs, 0 errors; largest I/O latency" \
	"$((lat_max / 1000000)) ms across the flap ($((lat_before / 1000000)) ms before it);" \
	"largest failover of the module's retries $((fo / 1000000)) ms"
[ "$(ctrls)" = $((2 * N)) ] || fail "$(ctrls) controllers after the flap"
[ -z "$(dups)" ] || fail "controllers connected twice after the flap: $(dups)"

# gpupathd's cost over the run.
# utime + stime, in USER_HZ (100 on Linux)
cpu=$(awk '{ printf "%.1f", ($14 + $15) / 100 }' /proc/$gpd/stat)
hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/$gpd/status)
note "gpupathd over $(since "$t0") s: CPU $cpu s, peak RSS $((hwm / 1024)) MiB"

# The largest dump: bytes the CLI received, by strace.
dump_bytes() {
	strace -f -e trace=recvmsg -o /tmp/st.txt "$@" >/dev/null 2>&1 || return 1
	awk -F' = ' '/recvmsg/ && $NF ~ /^[0-9]+$/ { n += $NF; if ($NF > m) m = $NF }
		END { print n, m }' /tmp/st.txt
}
big=0
for w in "volume show" "path show" "portal show" "stats"; do
	# shellcheck disable=SC2086
	set -- $(dump_bytes $GP $w -j) || fail "$w under strace"
	note "dump '$w': $1 bytes in all, largest message $2 bytes"
	[ "$1" -gt "$big" ] && big=$1 && bigw=$w
done
note "largest netlink dump: '$bigw', $big bytes"
