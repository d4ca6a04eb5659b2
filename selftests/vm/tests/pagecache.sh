# SPDX-License-Identifier: GPL-2.0
# gpupath's I/O on a block device keeps its page cache coherent, as the
# kernel's own O_DIRECT does (emulated NVMe behind the BAR's switch):
#
#   [ivshmem BAR] --+-- switch --+-- nvme0 (nvme0n1)
#
# - a read sees data written through the page cache and not yet written
#   back (dirty pages are written first);
# - a buffered read after a gpupath write sees what gpupath wrote (cached
#   pages of the range are dropped);
# - dirty pages never overwrite a later gpupath write when written back;
# each for device memory (direct) and host memory.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
NS=/dev/nvme0n1
load_module
prov=$(bind_bar) || fail "no provider for the BAR"
expire=$(cat /proc/sys/vm/dirty_expire_centisecs)
period=$(cat /proc/sys/vm/dirty_writeback_centisecs)
cleanup() {
	exec 8<&-
	echo "$expire" >/proc/sys/vm/dirty_expire_centisecs
	echo "$period" >/proc/sys/vm/dirty_writeback_centisecs
	unbind_bar
}
trap cleanup EXIT
# Dirty pages stay dirty until written on purpose, and the device stays
# open: its last close would write and drop its page cache.
exec 8<$NS
echo 360000 >/proc/sys/vm/dirty_expire_centisecs
echo 0 >/proc/sys/vm/dirty_writeback_centisecs

writes() { awk '{ print $5 }' /sys/block/${NS#/dev/}/stat; }
# buffered_write OFF SEED: 1 MiB of pattern SEED (positions = device offsets)
# written at OFF through the page cache, left dirty: the device has seen no
# write since.
buffered_write() {
	w=$(writes)
	$PATTERN gen $(($1 + MiB)) "$2" |
		dd of=$NS bs=$MiB skip=$(($1 / MiB)) seek=$(($1 / MiB)) count=1 iflag=fullblock \
			conv=notrunc 2>/dev/null || fail "buffered write at $1"
	[ "$(writes)" = "$w" ] || fail "the buffered write reached the device at once"
}
# buffered_check OFF SEED: the page cache's view of 1 MiB at OFF.
buffered_check() {
	dd if=$NS of=/tmp/pc.out bs=$MiB skip=$(($1 / MiB)) count=1 2>/dev/null ||
		fail "buffered read at $1"
	$PATTERN check /tmp/pc.out 0 $MiB "$2" "$1"
}

# The first buffered writes after the device is opened are written back at
# once (measured on 6.1): one such write, away from the ranges checked.
$PATTERN gen $MiB 200 | dd of=$NS bs=$MiB seek=150 count=1 iflag=fullblock conv=notrunc \
	2>/dev/null || fail "buffered warm-up write"

for mem in device host; do
	if [ $mem = device ]; then
		src=$prov mode='mode=direct reason=none' pol='-p direct' off=$((96 * MiB))
	else
		src=host mode='mode=host' pol= off=$((112 * MiB))
	fi
	expect_io 0 "$mode" $pol write "$src" $NS $off $MiB 201

	# Dirty pages of the range are written before the read.
	buffered_write $off 202
	expect_io 0 "$mode" $pol read "$src" $NS $off $MiB 202
	note "$mem memory: a read sees the dirty page cache's data"

	# Cached pages of the range go with a write.
	buffered_check $off 202 || fail "$mem: page cache before the write"
	expect_io 0 "$mode" $pol write "$src" $NS $off $MiB 203
	buffered_check $off 203 || fail "$mem: a buffered read after a gpupath write saw stale data"
	note "$mem memory: a buffered read after a write sees the write"

	# Dirty pages written back later do not undo a write.
	buffered_write $off 204
	expect_io 0 "$mode" $pol write "$src" $NS $off $MiB 205
	sync
	echo 3 >/proc/sys/vm/drop_caches
	dd if=$NS of=/tmp/pc.out bs=$MiB skip=$((off / MiB)) count=1 iflag=direct 2>/dev/null ||
		fail "O_DIRECT read"
	$PATTERN check /tmp/pc.out 0 $MiB 205 $off ||
		fail "$mem: dirty pages written back over a later gpupath write"
	note "$mem memory: dirty pages never overwrite a later write"
done
check_dmesg
