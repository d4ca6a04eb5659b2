# SPDX-License-Identifier: GPL-2.0
# What the data path must refuse or tell apart, and where it must not hang:
#
#   null_blk nullb0 (memory backed) --- dm linear "gpstall" (suspended: I/O waits)
#   null_blk nullb1 --- ext2 on /tmp/ext       tmpfs on /tmp/shm
#   nvme0n1 (behind the switch, beside the BAR), nvme fault injection
#
#  1. Writes to a read-only block device fail with EPERM, to active swap
#     with ETXTBSY, as the block layer's own writes do; reads still work.
#  2. Host memory that is a shared mapping of a written-back file (ext2)
#     is refused (EOPNOTSUPP); of tmpfs it works, and a READ into it is
#     there after the caches are dropped.
#  3. A target error that is no DMA mapping failure (LBA out of range,
#     namespace not ready, injected by nvme's fault injection) is reported
#     as an I/O error, not as dma-map-failed, and auto does not bounce it.
#  4. I/O that hangs (a suspended dm device): a process waiting in
#     GPUPATH_IOC_IO, or closing its file with batch I/O in flight, dies on
#     SIGKILL at once; the I/O completes later on its own and frees itself;
#     until then the module cannot unload, then it can; kmemleak (where the
#     kernel has it) stays empty.
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
MiB=1048576
FI=/sys/kernel/debug/nvme0n1/fault_inject
kmemleak_clear || note "kmemleak: not in this kernel"
modprobe null_blk nr_devices=2 gb=1 memory_backed=1 || fail "null_blk"
load_module
prov=$(bind_bar) || fail "no provider"
pids=
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	dmsetup --noudevsync resume gpstall 2>/dev/null
	wait 2>/dev/null
	dmsetup --noudevsync remove gpstall 2>/dev/null
	swapoff /dev/nullb0 2>/dev/null
	blockdev --setrw /dev/nullb0 2>/dev/null
	umount /tmp/ext /tmp/shm 2>/dev/null
	[ ! -d $FI ] || echo 0 >$FI/times
	unbind_bar
	rmmod null_blk 2>/dev/null
}
trap cleanup EXIT
$PATTERN gen $((4 * MiB)) 77 | dd of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null

# 1. Read-only, swap.
blockdev --setro /dev/nullb0 || fail "blockdev --setro"
expect_io 3 'error=Operation not permitted' write host /dev/nullb0 0 $MiB 78
expect_io 0 'mode=host' read host /dev/nullb0 0 $MiB 77
blockdev --setrw /dev/nullb0
mkswap /dev/nullb0 >/dev/null && swapon /dev/nullb0 || fail "swapon"
expect_io 3 'error=Text file busy' write host /dev/nullb0 $MiB $MiB 78
swapoff /dev/nullb0
$PATTERN check /dev/nullb0 $MiB $MiB 77 || fail "a refused write reached the swap device"
note "writes refused: read-only device EPERM, active swap ETXTBSY"

# 2. Host memory in file mappings.
$PATTERN gen $((4 * MiB)) 77 | dd of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null
mkdir -p /tmp/shm /tmp/ext
mount -t tmpfs tmpfs /tmp/shm || fail "tmpfs"
$IOCHECK host-file /tmp/shm/f /dev/nullb0 ok || fail "host memory in a tmpfs mapping"
echo 3 >/proc/sys/vm/drop_caches
$PATTERN check /tmp/shm/f 0 $MiB 77 || fail "the READ into a tmpfs mapping is lost"
mke2fs -q /dev/nullb1 >/dev/null 2>&1 || mke2fs /dev/nullb1 >/dev/null || fail "mke2fs"
mount -t ext2 /dev/nullb1 /tmp/ext || fail "mount ext2"
$IOCHECK host-file /tmp/ext/f /dev/nullb0 refused ||
	fail "host memory in an ext2 mapping was not refused"
umount /tmp/ext /tmp/shm
note "host memory: tmpfs mapping read into and kept, ext2 mapping refused"

# 3. Target errors from the device, not from the DMA mapping.
if [ -d $FI ]; then
	$PATTERN gen $((4 * MiB)) 79 | dd of=$NS bs=$MiB conv=fsync 2>/dev/null
	echo 0 >$FI/verbose
	echo 1 >$FI/dont_retry
	echo 100 >$FI/probability
	for sc in 0x80:lba-range 0x82:not-ready; do
		echo "${sc%:*}" >$FI/status
		for p in direct auto; do
			echo 1 >$FI/times
			expect_io 3 'error=Remote I/O error' -p $p read "$prov" $NS 0 $MiB 79
			case $io_out in
			*dma-map-failed* | *bounce*) fail "${sc#*:} reported as a mapping failure: $io_out" ;;
			esac
		done
	done
	echo 0 >$FI/times
	expect_io 0 'mode=direct' -p direct read "$prov" $NS 0 $MiB 79
	$GP stats -j | jq -e --argjson id "$prov" '.providers[] | select(.id == $id) |
		.stats.errors == 4 and (.stats.refused["dma-map-failed"].ios // 0) == 0' >/dev/null ||
		fail "counters: $($GP stats -j | jq -c '.providers')"
	note "LBA-range and not-ready errors: I/O errors (4 counted), not dma-map-failed"
else
	skip_part "target errors told from DMA mapping failures" \
		"this kernel has no nvme fault injection (CONFIG_FAULT_INJECTION_DEBUG_FS)"
fi

# 4. Hung I/O: killable waits, a release that does not wait.
gone() {	# PID: exited (no process, or a zombie not yet reaped)
	st=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$st" ] || [ "$st" = Z ]
}
DMS="dmsetup --noudevsync"
$DMS create gpstall --table "0 $((64 * 2048)) linear /dev/nullb0 0" || fail "dm linear"
for d in /sys/block/dm-*; do
	[ "$(cat "$d/dm/name")" = gpstall ] && DM=/dev/${d##*/}
done
[ -b "${DM:-}" ] || fail "no block device for gpstall"
$DMS suspend gpstall || fail "dm suspend"
$GPIO read host "$DM" 0 $MiB 77 >/tmp/stall.sync 2>&1 &
sync_pid=$!
$GPIO -b 4 read host "$DM" $MiB $MiB 77 >/tmp/stall.batch 2>&1 &
batch_pid=$!
pids="$sync_pid $batch_pid"
sleep 2
! gone $sync_pid && ! gone $batch_pid || fail "the I/O did not wait for the suspended device"
kill -9 $sync_pid $batch_pid
wait_for 10 gone $sync_pid || fail "a process waiting in GPUPATH_IOC_IO does not die on SIGKILL"
wait_for 10 gone $batch_pid || fail "closing a file with batch I/O in flight blocks"
wait $sync_pid $batch_pid 2>/dev/null
pids=
! rmmod gpupath 2>/dev/null || fail "the module unloaded under I/O in flight"
$DMS resume gpstall || fail "dm resume"
note "hung I/O: both processes died on SIGKILL; the module stayed busy while the I/O hung"
# The completed requests free themselves, and with them the device's file.
wait_for 20 $DMS remove gpstall || fail "the hung I/O did not release the dm device"
unbind_bar
wait_for 20 rmmod gpupath || fail "the module does not unload after the hung I/O completed"
trap - EXIT
rmmod null_blk
check_dmesg
kmemleak_check "the hung I/O" && note "kmemleak: clean after the hung I/O"
exit 0
