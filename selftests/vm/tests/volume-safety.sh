# SPDX-License-Identifier: GPL-2.0
# Volumes under trouble: what a maintainer's review found, each shown on
# the real thing (nvme-rdma and nvme-tcp to one nvmet namespace, as in
# volume.sh; nvme_core.multipath=N):
#
#   /dev/gpupathN --- path rdma (nvme-rdma over rxe0) ---.
#                 '-- path tcp  (nvme-tcp)         ------+-- nvmet -- null_blk
#
# - queued I/O times out while new I/O keeps coming (the probe is never
#   pushed back);
# - an error that recurs on every path (fail_make_request on both) reaches
#   the caller within seconds, once, and fails no path; an error on one
#   path only is failed over and that path is taken out of use;
# - with no queueing (queue timeout 0), a path flapping beside one that
#   stays up never fails an I/O (a path picked in one pass);
# - device memory refused on every path: the reason of the path closest to
#   going direct, whatever the order of the paths;
# - the volume takes stable pages from a path that needs them (nvme-tcp
#   with data digest), and sysfs shows the stacking (slaves, holders);
# - io_uring reads of the volume are issued inline (no-wait I/O): no
#   io-wq worker thread is started for them;
# - path add and volume delete racing leave no namespace claimed;
# - the volume's size follows its namespace resized on the target (a
#   file-backed nvmet namespace of its own, over TCP);
# - the volume's read-ahead follows the optimal I/O size it takes from a
#   path (a namespace on a dm stripe, whose NOWS the host reads as io_opt).
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
prov=$(bind_bar) || fail "no provider"
NQN2=nqn.2026-11.io.gpupath:resize
NQN3=nqn.2026-11.io.gpupath:stripe
stripe_teardown() {
	nvme disconnect -n $NQN3 >/dev/null 2>&1 || true
	rm -f $CFG/ports/2/subsystems/$NQN3
	if [ -d $CFG/subsystems/$NQN3 ]; then
		echo 0 >$CFG/subsystems/$NQN3/namespaces/1/enable
		rmdir $CFG/subsystems/$NQN3/namespaces/1 $CFG/subsystems/$NQN3
	fi
	dmsetup --noudevsync remove gpstripe 2>/dev/null
	for l in $LOOPS; do losetup -d "$l"; done
	LOOPS=
	rm -f /tmp/stripe0.img /tmp/stripe1.img
}
resize_teardown() {
	nvme disconnect -n $NQN2 >/dev/null 2>&1 || true
	rm -f $CFG/ports/2/subsystems/$NQN2
	[ -d $CFG/subsystems/$NQN2 ] || return 0
	echo 0 >$CFG/subsystems/$NQN2/namespaces/1/enable
	rmdir $CFG/subsystems/$NQN2/namespaces/1 $CFG/subsystems/$NQN2
	rm -f /tmp/resize.img
}
cleanup() {
	volumes_del_all
	resize_teardown
	stripe_teardown
	fabric_teardown
	unbind_bar
}
trap cleanup EXIT
fabric_paths 4 404

# ---- the queue timeout holds while I/O keeps arriving ---------------------
volume_new queue-timeout 2000
$GP path add "$vol" "$RDMA" -j >/tmp/p1.json || fail "path add"
p1=$(jq .id /tmp/p1.json)
# The partition table read with the path up, as udev's first open would:
# a scan with no path waits for the queue timeout on every read, and 7.3's
# reads block 0 again for each partition format (8 reads, 11 s, measured),
# holding the open_mutex every dd below needs.
dd if="$VOL" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null || fail "first read"
$GP path set "$p1" state down || fail "state down"
start=$(cut -d. -f1 /proc/uptime)
dd if="$VOL" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &
first=$!
# A new bio every 0.3 s for 8 s, each waiting too.
i=0
while [ $i -lt 27 ]; do
	dd if="$VOL" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &
	sleep 0.3
	i=$((i + 1))
	kill -0 $first 2>/dev/null || break
done
kill -0 $first 2>/dev/null && fail "queued I/O still waiting after 8 s of new I/O (timeout 2 s)"
wait $first && fail "queued I/O without a path succeeded"
took=$(( $(cut -d. -f1 /proc/uptime) - start ))
note "queued I/O failed after ~${took} s while new I/O kept coming"
[ $took -le 5 ] || fail "queue timeout of 2 s took ${took} s"
wait
$GP path set "$p1" state up || fail "state up"

# ---- errors on every path, and on one ------------------------------------
$GP path add "$vol" "$TCP" -j >/tmp/p2.json || fail "path add tcp"
p2=$(jq .id /tmp/p2.json)
$GP volume set "$vol" queue-timeout 30000 || fail "queue-timeout"
if have_fmr "errors on every path, and on one"; then
	errors() { $GP volume show "$vol" -j | jq .stats.errors; }
	e0=$(errors)
	echo 1 >"/sys/block/${TCP#/dev/}/make-it-fail"
	fmr_fail "${RDMA#/dev/}" -1
	start=$(cut -d. -f1 /proc/uptime)
	timeout 20 dd if="$VOL" of=/dev/null bs=4k count=1 iflag=direct 2>/tmp/dd.err
	rc=$?
	took=$(( $(cut -d. -f1 /proc/uptime) - start ))
	fmr_off "${RDMA#/dev/}"
	fmr_off "${TCP#/dev/}"
	note "an error on every path: dd exit $rc after ~${took} s: $(cat /tmp/dd.err)"
	[ $rc = 124 ] && fail "I/O failing on every path kept retrying (still running after 20 s)"
	[ $rc != 0 ] && grep -q "Input/output error" /tmp/dd.err || fail "expected EIO, got exit $rc"
	[ $took -le 5 ] || fail "the error took ${took} s to reach the caller"
	[ "$(errors)" = $((e0 + 1)) ] || fail "volume errors went from $e0 to $(errors), expected +1"
	$GP volume show "$vol" -j | jq -e '.usable == 2' >/dev/null ||
		fail "an error of every path failed a path: $($GP volume show "$vol")"

	# One path failing: the I/O goes through on the other, the failing path is
	# taken out of use and comes back.
	fmr_fail "${RDMA#/dev/}" 4
	for i in 1 2 3 4; do
		dd if="$VOL" of=/tmp/one.out bs=64k count=1 skip=$i iflag=direct 2>/dev/null ||
			fail "I/O failed although one path works"
		$PATTERN check /tmp/one.out 0 65536 404 $((i * 65536)) || fail "wrong data after failover"
	done
	fmr_off "${RDMA#/dev/}"
	$GP volume show "$vol" -j | jq -e '.stats.failovers > 0 and .stats.errors == '"$((e0 + 1))" \
		>/dev/null || fail "no failover counted: $($GP volume show "$vol" -j | jq -c .stats)"
	wait_for 10 sh -c "$GP volume show $vol -j | jq -e '.usable == 2'" ||
		fail "the RDMA path did not come back"
	note "an error on one path: failed over, path back"
fi

# ---- no queueing: a flapping path beside a healthy one fails nothing ------
$GP volume set "$vol" queue-timeout 0 || fail "queue-timeout 0"
for pol in round-robin weighted; do
	$GP volume set "$vol" policy $pol || fail "policy $pol"
	(while :; do $GP path set "$p2" state down; $GP path set "$p2" state up; done) \
		>/dev/null 2>&1 &
	flapper=$!
	bad=0 n=0
	while [ $n -lt 300 ]; do
		dd if="$VOL" of=/tmp/flap.out bs=4k count=1 skip=$((n % 64)) iflag=direct \
			2>/dev/null || bad=$((bad + 1))
		n=$((n + 1))
	done
	kill $flapper
	wait $flapper 2>/dev/null
	$GP path set "$p2" state up
	note "$pol, queue timeout 0, path $p2 flapping: $bad of $n reads failed"
	[ $bad = 0 ] || fail "$bad reads failed although path $p1 stayed up ($pol)"
done
$GP volume set "$vol" queue-timeout 30000 policy round-robin || fail "volume set"

# ---- the reason of the path closest to direct -----------------------------
# TCP was added first: still virtual-dma (an RDMA device without DMA is
# closer to direct than a transport that copies).
$GP path del "$p1" || fail "path del"
$GP path add "$vol" "$RDMA" >/dev/null || fail "path add rdma again"
expect_io 3 "mode=none reason=virtual-dma" -p direct read "$prov" "$VOL" 0 $MiB 404
$GP volume del "$vol" || fail "volume del"

# ---- stable pages and the stacking in sysfs -------------------------------
nvme disconnect -d "$(basename "$(readlink -f /sys/block/${TCP#/dev/}/device)")" >/dev/null ||
	fail "disconnect tcp"
nvme connect -t tcp -a 10.99.0.1 -s 4421 -n $NQN --data-digest >/dev/null ||
	fail "connect tcp with data digest"
wait_for 20 fabric_ns tcp || fail "tcp: no namespace"
TCP=$(fabric_ns tcp)
[ "$(cat /sys/block/${TCP#/dev/}/queue/stable_writes)" = 1 ] ||
	fail "nvme-tcp with data digest does not ask for stable pages"
volume_new
$GP path add "$vol" "$RDMA" >/dev/null || fail "path add rdma"
[ "$(cat /sys/block/${VOL#/dev/}/queue/stable_writes)" = 0 ] || fail "stable pages without need"
$GP path add "$vol" "$TCP" >/dev/null || fail "path add tcp (data digest)"
[ "$(cat /sys/block/${VOL#/dev/}/queue/stable_writes)" = 1 ] ||
	fail "the volume did not take stable pages from its data-digest path"
ls /sys/block/${VOL#/dev/}/slaves/ | sort >/tmp/slaves
printf '%s\n' "${RDMA#/dev/}" "${TCP#/dev/}" | sort | cmp -s - /tmp/slaves ||
	fail "slaves of ${VOL#/dev/}: $(cat /tmp/slaves)"
[ -e "/sys/block/${TCP#/dev/}/holders/${VOL#/dev/}" ] || fail "no holder link on ${TCP#/dev/}"
note "stable pages and holders: $(cat /tmp/slaves | tr '\n' ' ')"
$GP volume del "$vol" || fail "volume del"
[ -z "$(ls /sys/block/${TCP#/dev/}/holders/)" ] || fail "holder link left after the volume"

# ---- io_uring without workers ----------------------------------------------
volume_new
$GP path add "$vol" "$RDMA" >/dev/null || fail "path add rdma"
fio --name=ur --filename="$VOL" --ioengine=io_uring --direct=1 --rw=randread --bs=4k \
	--iodepth=8 --size=16M --runtime=3 --time_based --output=/tmp/ur.fio &
fpid=$!
sleep 2
workers=$(cat /proc/[0-9]*/task/*/comm 2>/dev/null | grep -c '^iou-wrk')
wait $fpid || { cat /tmp/ur.fio; fail "fio io_uring on the volume"; }
note "io_uring on the volume: $workers io-wq workers"
[ "$workers" = 0 ] || fail "io_uring punted the volume's I/O to $workers worker threads"
$GP volume del "$vol" || fail "volume del"

# ---- path add racing volume delete ---------------------------------------
i=0
while [ $i -lt 20 ]; do
	volume_new
	$GP path add "$vol" "$RDMA" >/dev/null 2>&1 &
	$GP volume del "$vol" >/dev/null 2>&1
	wait
	volumes_del_all
	i=$((i + 1))
done
# Nothing claims the namespace now.
volume_new
$GP path add "$vol" "$RDMA" >/dev/null || fail "the namespace stayed claimed after the races"
$GP volume del "$vol" || fail "volume del"
note "20 path add / volume del races: nothing left claimed"

# ---- read-ahead follows the stacked optimal I/O size -----------------------
# Two 32 MiB loop devices striped in 128 KiB chunks: io_opt 256 KiB, which
# nvmet gives as NOWS and the host's namespace takes as io_opt again.
LOOPS=
for i in 0 1; do
	truncate -s 32M /tmp/stripe$i.img
	l=$(losetup -f) && losetup "$l" /tmp/stripe$i.img || fail "losetup $l"
	LOOPS="$LOOPS $l"
done
set -- $LOOPS
dmsetup --noudevsync create gpstripe --table "0 $((64 * 2048)) striped 2 256 $1 0 $2 0" ||
	fail "dm stripe"
STRIPE=
for d in /sys/block/dm-*; do
	[ "$(cat "$d/dm/name")" = gpstripe ] && STRIPE=/dev/${d##*/}
done
[ -b "$STRIPE" ] || fail "no block device for gpstripe"
mkdir $CFG/subsystems/$NQN3 &&
echo 1 >$CFG/subsystems/$NQN3/attr_allow_any_host &&
mkdir $CFG/subsystems/$NQN3/namespaces/1 &&
echo -n "$STRIPE" >$CFG/subsystems/$NQN3/namespaces/1/device_path &&
echo 1 >$CFG/subsystems/$NQN3/namespaces/1/enable &&
ln -s $CFG/subsystems/$NQN3 $CFG/ports/2/subsystems/$NQN3 || fail "nvmet stripe namespace"
nvme connect -t tcp -a 10.99.0.1 -s 4421 -n $NQN3 >/dev/null || fail "connect $NQN3"
wait_for 20 ctrl_ns subsysnqn $NQN3 || fail "no namespace of $NQN3"
SNS=$(ctrl_ns subsysnqn $NQN3)
opt=$(cat /sys/block/$SNS/queue/optimal_io_size)
ra=$(cat /sys/block/$SNS/queue/read_ahead_kb)
[ "$opt" = $((256 * 1024)) ] || fail "the striped namespace's io_opt is $opt, not 256 KiB"
volume_new
vra0=$(cat /sys/block/${VOL#/dev/}/queue/read_ahead_kb)
$GP path add "$vol" "/dev/$SNS" >/dev/null || fail "path add /dev/$SNS"
vopt=$(cat /sys/block/${VOL#/dev/}/queue/optimal_io_size)
vra=$(cat /sys/block/${VOL#/dev/}/queue/read_ahead_kb)
note "namespace $SNS: io_opt $opt, read_ahead_kb $ra; volume: io_opt $vopt, read_ahead_kb $vra0 -> $vra"
[ "$vopt" = "$opt" ] || fail "the volume did not take the path's io_opt"
[ "$vra" = "$ra" ] && [ "$vra" -gt "$vra0" ] ||
	fail "the volume's read-ahead ($vra KiB) did not follow its io_opt (the path has $ra KiB)"
$GP volume del "$vol" || fail "volume del"
stripe_teardown

# ---- the size follows the namespace ---------------------------------------
truncate -s 64M /tmp/resize.img
mkdir $CFG/subsystems/$NQN2 &&
echo 1 >$CFG/subsystems/$NQN2/attr_allow_any_host &&
mkdir $CFG/subsystems/$NQN2/namespaces/1 &&
echo -n /tmp/resize.img >$CFG/subsystems/$NQN2/namespaces/1/device_path &&
echo 1 >$CFG/subsystems/$NQN2/namespaces/1/buffered_io &&
echo 1 >$CFG/subsystems/$NQN2/namespaces/1/enable &&
ln -s $CFG/subsystems/$NQN2 $CFG/ports/2/subsystems/$NQN2 || fail "nvmet file namespace"
nvme connect -t tcp -a 10.99.0.1 -s 4421 -n $NQN2 >/dev/null || fail "connect $NQN2"
wait_for 20 ctrl_ns subsysnqn $NQN2 || fail "no namespace of $NQN2"
RNS=$(ctrl_ns subsysnqn $NQN2)
volume_new
$GP path add "$vol" "/dev/$RNS" >/dev/null || fail "path add /dev/$RNS"
[ "$(cat /sys/block/${VOL#/dev/}/size)" = $((64 * 2048)) ] || fail "volume size before"
truncate -s 96M /tmp/resize.img
echo 1 >$CFG/subsystems/$NQN2/namespaces/1/revalidate_size || fail "revalidate_size"
wait_for 20 sh -c "[ \$(cat /sys/block/$RNS/size) = $((96 * 2048)) ]" ||
	fail "the host did not see the namespace grow: $(cat /sys/block/$RNS/size)"
# Nothing tells the volume: it looks at its paths every 5 s.
wait_for 10 sh -c "[ \$(cat /sys/block/${VOL#/dev/}/size) = $((96 * 2048)) ]" ||
	fail "the volume did not follow its namespace: $(cat /sys/block/${VOL#/dev/}/size) sectors"
dd if=/dev/zero of="$VOL" bs=$MiB seek=80 count=1 oflag=direct 2>/dev/null ||
	fail "a write past the old end"
note "the volume grew with its namespace to 96 MiB"
# The namespace's write cache turned off and on: the volume follows; the
# read-ahead its administrator set stays across its refreshes.
VQ=/sys/block/${VOL#/dev/}/queue
echo 4096 >$VQ/read_ahead_kb || fail "read_ahead_kb"
wc=$(cat /sys/block/$RNS/queue/write_cache)
for mode in "write through" "$wc"; do
	echo "$mode" >/sys/block/$RNS/queue/write_cache || fail "write_cache $mode"
	wait_for 10 sh -c "[ \"\$(cat $VQ/write_cache)\" = \"$mode\" ]" ||
		fail "the volume's write cache did not follow ($mode): $(cat $VQ/write_cache)"
done
$GP volume set "$vol" queue-timeout 30000 || fail "volume set"
[ "$(cat $VQ/read_ahead_kb)" = 4096 ] || fail "read-ahead reset to $(cat $VQ/read_ahead_kb) KiB"
note "write cache followed ($wc, write through, $wc); read-ahead kept"
$GP volume del "$vol" || fail "volume del"
resize_teardown
check_dmesg
