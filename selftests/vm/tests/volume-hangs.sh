# SPDX-License-Identifier: GPL-2.0
# Volumes where a waiting I/O must never hold up what ends the wait, and
# where an error the NVMe driver would retry never reaches the caller:
#
#   /dev/gpupathN --- path A (nvme-rdma over rxe0, port 4420) -----------.
#                 '-- path B (nvme-tcp, port 4422, fast_io_fail_tmo 1) --+-- nvmet -- null_blk
#                 '-- path C (nvme-tcp, port 4421) ----------------------'
#
# - an open of /dev/gpupathN whose partition scan waits for a path (holding
#   the disk's open_mutex) does not stop the path that ends its wait from
#   being added, nor the volume from being deleted (6.1's holder links took
#   open_mutex under the volume's lock);
# - a bio held off the path of its first error (that may have been the
#   namespace's) goes back to it when the other path fails with a path
#   error: no endless queueing, no failure with a path's error while a
#   healthy path remains (queue timeout 0 and 30 s);
# - bios queued while their volume is deleted end, every time (the
#   requeue raced the deletion's last pass);
# - paths removed two at a time under round-robin I/O, over and over (a
#   stale round-robin cursor); fio's data stays right;
# - a path's controller reconnecting: a volume with no queueing rides it
#   out as a plain O_DIRECT does, no fail-fast flag on the clones;
# - the array moves the namespace's ANA group on both paths (nvmet ports'
#   ana_state "change"): the host driver ends the I/O with an I/O error on
#   each, and the bio waits for the paths' new ANA states instead of
#   failing.
. /src/selftests/vm/guest-lib.sh

load_module
cleanup() {
	[ -z "${bg:-}" ] || kill $bg 2>/dev/null
	volumes_del_all
	nvme disconnect -n $NQN >/dev/null 2>&1
	rm -f $CFG/ports/3/subsystems/$NQN
	rmdir $CFG/ports/3 2>/dev/null
	fabric_teardown
}
trap cleanup EXIT
fabric_paths 4 505
nvmet_port 3 tcp 10.99.0.1 4422 || fail "nvmet tcp port 4422"
# (nvme-cli 2.3 has no fast_io_fail_tmo option: written as the kernel reads it.)
echo "transport=tcp,traddr=10.99.0.1,trsvcid=4422,nqn=$NQN,fast_io_fail_tmo=1,reconnect_delay=1,ctrl_loss_tmo=120" \
	>/dev/nvme-fabrics || fail "connect 4422"
# port_ctrl SVCID: the controller connected to that port; port_ns SVCID: its
# namespace's block device.
port_ctrl() {
	for c in /sys/class/nvme/nvme*; do
		grep -q "trsvcid=$1" "$c/address" 2>/dev/null && { echo "${c##*/}"; return 0; }
	done
	return 1
}
port_ns() {
	local c d
	c=$(port_ctrl "$1") || return 1
	for d in /sys/class/nvme/"$c"/nvme*n*; do
		[ -b "/dev/${d##*/}" ] && { echo "/dev/${d##*/}"; return 0; }
	done
	return 1
}
wait_for 20 port_ns 4422 || fail "no namespace on port 4422"
TCP2=$(port_ns 4422) CTRL2=$(port_ctrl 4422) CTRL1=$(port_ctrl 4421)
note "paths: A $RDMA, B $TCP2 ($CTRL2), C $TCP ($CTRL1)"

uptime_s() { cut -d. -f1 /proc/uptime; }

# del_waiting PID...: delete $vol while PIDs wait in it for a path; nothing
# may block. 6.1 counts an open only once its partition scan is done: the
# deletion goes through and the waits fail. 6.12 counts it from the start
# (and an open with a read queued is open on both): the deletion is
# refused, and a queue timeout of 0 ends the waits, then it goes. Sets how.
del_waiting() {
	local p
	if timeout 20 $GP volume del "$vol" 2>/tmp/del.err; then
		how="deleted under it"
	else
		[ $? = 124 ] && { how="volume del blocked"; return 1; }
		grep -q "block device is open" /tmp/del.err ||
			{ how="volume del: $(cat /tmp/del.err)"; return 1; }
		timeout 20 $GP volume set "$vol" queue-timeout 0 ||
			{ how="volume set blocked"; return 1; }
		how="refused while open, ended by queue-timeout 0"
	fi
	for p in "$@"; do
		wait_gone 10 "$p" || { how="$how; a waiting process outlived it"; return 1; }
	done
	! $GP volume show "$vol" >/dev/null 2>&1 || wait_for 10 $GP volume del "$vol" ||
		{ how="$how; volume del once the waits ended"; return 1; }
}

# ---- an open waiting for a path holds open_mutex: PATH_NEW still works ----
volume_new queue-timeout 60000
$GP path add "$vol" "$TCP" state down >/dev/null || fail "path add (down)"
# The first open reads the partition table: its reads wait for a path.
dd if="$VOL" of=/tmp/open.out bs=4k count=1 iflag=direct 2>/dev/null &
bg=$!
sleep 2
gone $bg && fail "the open did not wait for a path"
start=$(uptime_s)
timeout 20 $GP path add "$vol" "$RDMA" >/dev/null ||
	fail "path add blocked (or failed) while an open waited for a path"
wait $bg || fail "the waiting open failed once a path came"
bg=
$PATTERN check /tmp/open.out 0 4096 505 0 || fail "wrong data after the wait"
note "path add with an open waiting for a path: $(( $(uptime_s) - start )) s"
[ -e /sys/block/${VOL#/dev/}/slaves/${RDMA#/dev/} ] || fail "no holder link for the new path"
timeout 20 $GP volume del "$vol" || fail "volume del"

# The same open, then the volume deleted under it: nothing hangs. 6.1 counts
# the open only once its scan is done: the deletion goes through and the
# open fails. 6.12 counts it from the start: the deletion is refused (the
# device is open), and a shorter queue timeout ends the wait.
volume_new queue-timeout forever
$GP path add "$vol" "$TCP" state down >/dev/null || fail "path add (down)"
dd if="$VOL" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &
bg=$!
sleep 2
gone $bg && fail "the open did not wait for a path"
del_waiting "$bg" || fail "volume del with an open waiting for a path: $how"
bg=
note "volume del with an open waiting for a path: $how"

# ---- the suspect path takes the bio back when the other fails ------------
# A's first attempt fails with an error that may be the namespace's (an I/O
# error at submission); B, which then gets the bio, has lost its controller
# (fast_io_fail_tmo expired: a host path error). The bio must go back to A.
if have_fmr "the suspect path takes the bio back when the other fails"; then
	for tmo in 0 30000; do
		volume_new policy weighted queue-timeout $tmo
		$GP path add "$vol" "$RDMA" weight 100 >/dev/null || fail "path add A"
		$GP path add "$vol" "$TCP2" weight 1 -j >/tmp/pb.json || fail "path add B"
		pb=$(jq .id /tmp/pb.json)
		rm $CFG/ports/3/subsystems/$NQN
		wait_for 10 sh -c "! grep -qx live /sys/class/nvme/$CTRL2/state" ||
			fail "B's controller stays live with its port gone"
		sleep 3		# past fast_io_fail_tmo
		fmr_fail "${RDMA#/dev/}" 1
		start=$(uptime_s)
		timeout 40 dd if="$VOL" of=/tmp/sus.out bs=4k count=1 skip=8 iflag=direct 2>/tmp/dd.err
		rc=$?
		took=$(( $(uptime_s) - start ))
		fmr_off "${RDMA#/dev/}"
		note "queue timeout $tmo: dd exit $rc after ~${took} s $(cat /tmp/dd.err)"
		[ $rc = 124 ] && fail "queue timeout $tmo: the bio never ended (queued with a healthy path)"
		[ $rc = 0 ] || fail "queue timeout $tmo: failed while a healthy path remained"
		$PATTERN check /tmp/sus.out 0 4096 505 32768 || fail "wrong data"
		[ "$($GP path show "$pb" -j | jq .stats.errors)" -ge 1 ] ||
			fail "B never had the bio: the test did not make the case"
		fmr_spent || fail "A's injected error was not spent"
		nvmet_link 3 || fail "port 4422 back"
		wait_for 30 grep -qx live /sys/class/nvme/$CTRL2/state || fail "B did not reconnect"
		$GP volume del "$vol" || fail "volume del"
	done
fi

# ---- bios queued while the volume is deleted end ---------------------------
hows=
for i in $(seq 1 15); do
	volume_new queue-timeout forever
	$GP path add "$vol" "$TCP" -j >/tmp/pq.json || fail "path add"
	$GP path set "$(jq .id /tmp/pq.json)" state down || fail "state down"
	pids=
	for j in 1 2 3 4; do
		dd if="$VOL" of=/dev/null bs=4k count=1 skip=$j iflag=direct 2>/dev/null &
		pids="$pids $!"
	done
	[ $((i % 3)) = 0 ] || sleep "0.$i"
	# shellcheck disable=SC2086
	del_waiting $pids || fail "round $i: $how"
	hows="$hows$how
"
done
note "15 deletions with queued bios, every bio ended:" \
	"$(printf '%s' "$hows" | sort | uniq -c | tr '\n' ';')"

# ---- two paths removed at once under round-robin I/O ----------------------
volume_new policy round-robin queue-timeout 30000
fio_loop_start
for i in $(seq 1 10); do
	$GP path add "$vol" "$RDMA" -j >/tmp/pr1.json || fail "path add rdma"
	$GP path add "$vol" "$TCP" -j >/tmp/pr2.json || fail "path add tcp"
	$GP path add "$vol" "$TCP2" -j >/tmp/pr3.json || fail "path add tcp2"
	sleep 0.5
	$GP path del "$(jq .id /tmp/pr1.json)" &
	d1=$!
	$GP path del "$(jq .id /tmp/pr2.json)" &
	d2=$!
	wait $d1 || fail "path del (round $i)"
	wait $d2 || fail "path del (round $i)"
	$GP path del "$(jq .id /tmp/pr3.json)" || fail "path del"
	fio_loop_ok || fail "fio failed in round $i"
done
$GP path add "$vol" "$RDMA" >/dev/null || fail "path add rdma"
sleep 1
fio_loop_stop "paths removed under round-robin"
note "10 rounds of paths removed two at a time: $fio_runs fio runs verified"
$GP volume del "$vol" || fail "volume del"

# ---- a reconnecting controller, no queueing: ridden out -------------------
# C's controller loses its port and gets it back 0.3 s later; it reconnects
# within its reconnect delay (10 s) and the I/O sent meanwhile waits for it.
volume_new queue-timeout 0
$GP path add "$vol" "$TCP" >/dev/null || fail "path add C"
rm $CFG/ports/2/subsystems/$NQN
wait_for 10 sh -c "! grep -qx live /sys/class/nvme/$CTRL1/state" || fail "C stays live"
(sleep 0.3; nvmet_link 2) &
timeout 30 dd if="$VOL" of=/tmp/rc.out bs=4k count=1 skip=3 iflag=direct 2>/tmp/dd.err ||
	fail "I/O failed while the path's controller reconnected: $(cat /tmp/dd.err)"
wait
$PATTERN check /tmp/rc.out 0 4096 505 12288 || fail "wrong data after the reconnect"
grep -qx live /sys/class/nvme/$CTRL1/state || fail "C not live after the I/O"
note "I/O rode out a reconnect with queue timeout 0"
$GP volume del "$vol" || fail "volume del"
# ---- an ANA change on every path: the bio waits for the new states --------
volume_new queue-timeout 0
$GP path add "$vol" "$RDMA" -j >/tmp/pa.json || fail "path add A"
$GP path add "$vol" "$TCP" -j >/tmp/pc.json || fail "path add C"
pa=$(jq .id /tmp/pa.json) pc=$(jq .id /tmp/pc.json)
for p in $pa $pc; do $GP path set "$p" ana-tt 20 ana-group 1 || fail "ana-tt"; done
for port in 1 2; do echo change >$CFG/ports/$port/ana_groups/1/ana_state; done
dd if="$VOL" of=/tmp/ana.out bs=4k count=1 skip=5 iflag=direct 2>/tmp/dd.err &
bg=$!
sleep 3
gone $bg && fail "an ANA change on both paths failed the I/O: $(cat /tmp/dd.err)"
# The array settles; gpupathd would read the new states from the ANA log.
for port in 1 2; do echo optimized >$CFG/ports/$port/ana_groups/1/ana_state; done
for p in $pa $pc; do $GP path set "$p" ana optimized || fail "ana optimized"; done
wait_gone 20 $bg || fail "the I/O still waits with the paths optimized"
wait $bg || fail "the I/O failed after the ANA change: $(cat /tmp/dd.err)"
bg=
$PATTERN check /tmp/ana.out 0 4096 505 20480 || fail "wrong data after the ANA change"
note "an ANA change on both paths: the I/O waited and went through"
$GP volume del "$vol" || fail "volume del"
check_dmesg
