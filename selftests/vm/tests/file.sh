# SPDX-License-Identifier: GPL-2.0
# Files on ext4, straight into device memory: the switch topology's NVMe
# namespace carries an ext4 file system, and gpupath reads and writes its
# files through ext4's own direct I/O, the controller DMAing into and out of
# the BAR (reads checked on the host in bar.img). Holes, the end of a file,
# the page cache, racing truncates, the cases ext4 would serve with the CPU
# (refused, bounced right), and bad input.
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
MiB=1048576
M=/mnt/e
load_module
prov=$(bind_bar) || fail "no provider for the BAR"
mark_dmesg
loops=
# Whatever happens, the next test finds no mount and no loop device of ours.
cleanup() {
	for m in /mnt/ro /mnt/j /mnt/i /mnt/c /mnt/x /mnt/e3 $M /tmp/tfs; do umount -l $m 2>/dev/null; done
	for l in $loops; do losetup -d "$l" 2>/dev/null; done
}
trap cleanup EXIT
# The file system takes the namespace's first 60 MiB only: other tests leave
# bytes further up (64 MiB and more) for the host to check in nvme.img.
mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 $NS 60M || fail "mkfs.ext4"
mkdir -p $M && mount -t ext4 $NS $M || fail "mount"

direct_bytes() {
	$GP stats -j | jq --argjson id "$prov" '.providers[] | select(.id == $id) | .stats.direct_bytes'
}
refused() {	# REASON: the provider's refused I/Os of that reason
	$GP stats -j | jq --argjson id "$prov" --arg r "$1" \
		'.providers[] | select(.id == $id) | .stats.refused[$r].ios // 0'
}

# A file written through the page cache, read direct into the BAR; the host
# checks the 1 MiB at 61 MiB of the BAR (free of the other tests' checks:
# datapath, datapath-fabrics, stress, cufile, bar, volume). gp-io checks
# every read in the BAR through its mapping.
$PATTERN gen $((8 * MiB)) 201 >$M/data && sync || fail "cannot write the data file"
echo 3 >/proc/sys/vm/drop_caches
before=$(direct_bytes)
expect_io 0 'mode=direct reason=none' -p direct -o $((61 * MiB)) read "$prov" $M/data $MiB \
	$MiB 201
host_expect bar.img "$(bar_offset)" $MiB 201 $MiB
expect_io 0 'mode=direct reason=none' -p direct read "$prov" $M/data 0 $((3 * MiB)) 201
# Batched, from the middle of the file.
expect_io 0 'mode=direct reason=none ios=8' -b 8 -p direct read "$prov" $M/data $((4 * MiB)) \
	$((4 * MiB)) 201
[ "$(direct_bytes)" = $((before + 8 * MiB)) ] ||
	fail "direct bytes $(direct_bytes), expected $((before + 8 * MiB))"
note "8 MiB of an ext4 file read direct, counted as direct bytes"

# A direct write from the BAR makes a new file; after fsync and dropping the
# caches a buffered read returns its bytes. ext4 stays consistent.
expect_io 0 'mode=direct reason=none' -p direct write "$prov" $M/new 0 $((4 * MiB)) 202
expect_io 0 'mode=direct reason=none ios=4' -b 4 -p direct write "$prov" $M/new $((4 * MiB)) \
	$((2 * MiB)) 202
sync && echo 3 >/proc/sys/vm/drop_caches
[ "$(stat -c %s $M/new)" = $((6 * MiB)) ] || fail "new file is $(stat -c %s $M/new) bytes"
$PATTERN check $M/new 0 $((6 * MiB)) 202 || fail "the new file does not hold what was written"

# Unaligned, through a descriptor opened O_DIRECT (as GDS programs open
# files), policy auto: bounced in whole blocks (reason unaligned). A read
# gets its bytes; a write changes its bytes alone, and the size of a file
# it grows is the write's end, not its last block's.
expect_io 0 'mode=bounce reason=unaligned' -D -p auto read "$prov" $M/data 513 100000 201
$PATTERN gen 10000 207 >$M/rmw && sync || fail "cannot write the rmw file"
expect_io 0 'mode=bounce reason=unaligned' -D -p auto write "$prov" $M/rmw 5000 3000 208
expect_io 0 'mode=bounce reason=unaligned' -D -p auto write "$prov" $M/rmw 9000 3000 208
[ "$(stat -c %s $M/rmw)" = 12000 ] || fail "the file grew to $(stat -c %s $M/rmw) bytes, not 12000"
$PATTERN check $M/rmw 0 5000 207 && $PATTERN check $M/rmw 5000 3000 208 5000 &&
	$PATTERN check $M/rmw 8000 1000 207 8000 && $PATTERN check $M/rmw 9000 3000 208 9000 ||
	fail "the unaligned writes through O_DIRECT are not what was written around"

# Sparse: data, a hole, an unwritten (fallocated) extent, a hole: zeros in
# the BAR from the first hole on, whoever zeroed them.
truncate -s $((4 * MiB)) $M/sparse
$PATTERN gen $MiB 203 | dd of=$M/sparse conv=notrunc 2>/dev/null
xfs_io -c "falloc $((2 * MiB)) $MiB" $M/sparse || fail "fallocate"
sync
expect_io 0 'mode=direct reason=none' -p direct -Z $MiB read "$prov" $M/sparse 0 $((4 * MiB)) 203
# Across the end: a short read; past it: nothing.
$PATTERN gen $((MiB + 1000)) 204 >$M/short
expect_io 0 "mode=direct reason=none .*len=$((MiB + 1000))\$" -p direct read "$prov" $M/short 0 \
	$((2 * MiB)) 204
expect_io 0 'mode=direct reason=none .*len=0$' -p direct read "$prov" $M/short $((4 * MiB)) \
	4096 204
note "holes and unwritten extents read as zeros, a read across the end is short"

# The cuFile program (gp-cufile, built against libcufile) on an ext4 file:
# reads and its write direct.
$PATTERN gen $((8 * MiB)) 231 >$M/cuf && sync
cufile_file_direct "$prov" $M/cuf 231

# The page cache: dirty buffered data is what a direct read sees; a direct
# write is what a later buffered read sees (no cache drop).
$PATTERN gen $((2 * MiB)) 205 >$M/pc
expect_io 0 'mode=direct reason=none' -p direct read "$prov" $M/pc 0 $((2 * MiB)) 205
cat $M/pc >/dev/null
expect_io 0 'mode=direct reason=none' -p direct write "$prov" $M/pc 0 $((2 * MiB)) 206
$PATTERN check $M/pc 0 $((2 * MiB)) 206 || fail "a buffered read after a direct write saw stale data"
note "page cache coherent both ways"

# A file mapped shared and writable (by xfs_io, until its input ends):
# direct writes refused, bounced right; reads still direct; once unmapped,
# writes direct again.
$PATTERN gen $MiB 217 >$M/mm && sync
rm -f /tmp/mm.fifo && mkfifo /tmp/mm.fifo
xfs_io $M/mm </tmp/mm.fifo >/tmp/mm.out 2>&1 &
mmp=$!
exec 4>/tmp/mm.fifo
echo "mmap -w 0 $MiB" >&4
wait_for 10 grep -q "$M/mm" /proc/$mmp/maps || fail "xfs_io did not map $M/mm: $(cat /tmp/mm.out)"
expect_io 3 'reason=file-mapped' -p direct write "$prov" $M/mm 0 $MiB 218
expect_io 0 'mode=bounce reason=file-mapped' write "$prov" $M/mm 0 $MiB 218
expect_io 0 'mode=direct reason=none' -p direct read "$prov" $M/mm 0 $MiB 218
exec 4>&-
wait $mmp
expect_io 0 'mode=direct reason=none' -p direct write "$prov" $M/mm 0 $MiB 219
$PATTERN check $M/mm 0 $MiB 219 || fail "the direct write after the unmap is not in the file"

# Direct I/O of device memory and host-memory I/O on one namespace at once:
# buffered writers and direct writers from host memory, of other files,
# beside direct reads and writes of device memory; every byte checked.
# Bios of the two kinds may share requests below ext4: each segment is
# DMA-mapped for what it is.
$PATTERN gen $((4 * MiB)) 207 >$M/mix && sync
(for i in 1 2 3 4; do
	$GPIO -p direct write host $M/host$i 0 $MiB $((300 + i)) >/dev/null || exit 1
	$PATTERN gen $MiB $((310 + i)) >$M/buf$i
done; sync) &
hostpid=$!
for i in 1 2 3 4; do
	$GPIO -p direct -b 4 read "$prov" $M/mix 0 $((4 * MiB)) 207 >/tmp/mix.out ||
		fail "direct read beside host I/O: $(cat /tmp/mix.out)"
	$GPIO -p direct write "$prov" $M/dw$i 0 $MiB $((320 + i)) >/tmp/mix.out ||
		fail "direct write beside host I/O: $(cat /tmp/mix.out)"
done
wait $hostpid || fail "host-memory I/O failed"
echo 3 >/proc/sys/vm/drop_caches
for i in 1 2 3 4; do
	$PATTERN check $M/host$i 0 $MiB $((300 + i)) || fail "host O_DIRECT file $i"
	$PATTERN check $M/buf$i 0 $MiB $((310 + i)) || fail "buffered file $i"
	$PATTERN check $M/dw$i 0 $MiB $((320 + i)) || fail "direct-written file $i"
done
rm -f $M/host* $M/buf* $M/dw* $M/mix
note "device-memory and host-memory I/O side by side: every byte right (nvme0n1 read/write merges: $(awk '{print $2 "/" $6}' /sys/block/nvme0n1/stat))"

# Truncate and hole punch racing direct reads: no crash, no splat, and no
# byte that is not the file's (the pattern or zeros).
$PATTERN gen $((4 * MiB)) 208 >$M/race && sync
(i=0; while [ $i -lt 40 ]; do
	truncate -s $((MiB)) $M/race; truncate -s $((4 * MiB)) $M/race
	xfs_io -c "fpunch $((2 * MiB)) $MiB" $M/race
	i=$((i + 1))
done) &
racer=$!
n=0
while kill -0 $racer 2>/dev/null; do
	$GPIO -z -p direct read "$prov" $M/race 0 $((4 * MiB)) 208 >/tmp/race.out
	rc=$?
	[ $rc = 0 ] || fail "read racing truncate: exit $rc, $(cat /tmp/race.out)"
	n=$((n + 1))
done
wait $racer
note "$n direct reads raced truncates and hole punches"

# ext4 would touch these files' data with the CPU: refused with the reason,
# bounced right under policy auto.
mkdir -p /tmp/tfs && mount -t tmpfs tmpfs /tmp/tfs
$PATTERN gen $MiB 209 >/tmp/tfs/f
expect_io 3 'mode=none reason=fs-unsupported' -p direct read "$prov" /tmp/tfs/f 0 $MiB 209
expect_io 0 'mode=bounce reason=fs-unsupported' read "$prov" /tmp/tfs/f 0 $MiB 209
expect_io 0 'mode=bounce reason=fs-unsupported' write "$prov" /tmp/tfs/g 0 $MiB 210
$PATTERN check /tmp/tfs/g 0 $MiB 210 || fail "bounced write to tmpfs"
# cuFile as NVIDIA's: with allow_compat_mode false (in a cufile.json with
# comments, as NVIDIA ships it) what cannot go direct fails with
# CU_FILE_IO_NOT_SUPPORTED (5008); CUFILE_FORCE_COMPAT_MODE bounces even
# what could go direct.
cat >/tmp/cufile.json <<'EOF'
{
	// gpupath reads this one setting of NVIDIA's file
	"properties": {
		/* no silent bounce */
		"allow_compat_mode": false
	}
}
EOF
cuf() {	# RC PATTERN ARGS...: gp-cufile -1, its exit code and its line
	want=$1 pat=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	echo "gp-cufile: $out (exit $rc)"
	[ $rc = "$want" ] && echo "$out" | grep -Eq "$pat" || fail "expected exit $want and /$pat/"
}
cuf 3 'mode=none .*ret=-5008$' env CUFILE_ENV_PATH_JSON=/tmp/cufile.json $CUFILE -1 $MiB "$prov" \
	/tmp/tfs/f 209
cuf 0 'mode=direct reason=none ret=1048576$' env CUFILE_ENV_PATH_JSON=/tmp/cufile.json \
	$CUFILE -1 $MiB "$prov" $M/cuf 231
cuf 0 'mode=bounce reason=fs-unsupported ret=1048576$' $CUFILE -1 $MiB "$prov" /tmp/tfs/f 209
cuf 0 'mode=bounce reason=none ret=1048576$' env CUFILE_FORCE_COMPAT_MODE=true $CUFILE -1 $MiB \
	"$prov" $M/cuf 231
# Others on a loop device (the loop device itself: stacked-device).
img() {	# NAME MKFS-ARGS...: a 64 MiB image in tmpfs on a loop device
	truncate -s 64M /tmp/tfs/$1.img
	loopdev=$(losetup -f) && losetup "$loopdev" /tmp/tfs/$1.img || fail "losetup"
	loops="$loops $loopdev"
	shift
	"$@" "$loopdev" >/dev/null 2>&1 || fail "$* failed"
}
img j mkfs.ext4 -q -F
mkdir -p /mnt/j && mount -t ext4 -o data=journal "$loopdev" /mnt/j || fail "mount data=journal"
$PATTERN gen $MiB 211 >/mnt/j/f
expect_io 3 'reason=file-data-journal' -p direct read "$prov" /mnt/j/f 0 $MiB 211
expect_io 0 'mode=bounce reason=file-data-journal' read "$prov" /mnt/j/f 0 $MiB 211
umount /mnt/j
mount -t ext4 "$loopdev" /mnt/j || fail "mount ext4 on loop"
$PATTERN gen $MiB 212 >/mnt/j/f
expect_io 0 'mode=bounce reason=stacked-device' read "$prov" /mnt/j/f 0 $MiB 212
umount /mnt/j
img i mkfs.ext4 -q -F -O inline_data
mkdir -p /mnt/i && mount -t ext4 "$loopdev" /mnt/i || fail "mount inline_data"
printf 'tiny' >/mnt/i/f
expect_io 3 'reason=file-inline-data' -p direct read "$prov" /mnt/i/f 0 4096 0
umount /mnt/i
img c mkfs.ext4 -q -F -O encrypt
mkdir -p /mnt/c && mount -t ext4 "$loopdev" /mnt/c && mkdir /mnt/c/d || fail "mount encrypt"
$IOCHECK encrypt /mnt/c/d || fail "cannot make an encrypted directory"
$PATTERN gen $MiB 216 >/mnt/c/d/f && sync || fail "cannot write an encrypted file"
expect_io 3 'reason=file-encrypted' -p direct read "$prov" /mnt/c/d/f 0 $MiB 216
expect_io 0 'mode=bounce reason=file-encrypted' read "$prov" /mnt/c/d/f 0 $MiB 216
expect_io 0 'mode=bounce reason=file-encrypted' write "$prov" /mnt/c/d/f $MiB $MiB 217
echo 3 >/proc/sys/vm/drop_caches
$PATTERN check /mnt/c/d/f $MiB $MiB 217 || fail "bounced write to an encrypted file"
umount /mnt/c
img x mkfs.ext4 -q -F -O ^extent,^64bit
mkdir -p /mnt/x && mount -t ext4 "$loopdev" /mnt/x || fail "mount without extents"
expect_io 3 'reason=file-block-mapped' -p direct write "$prov" /mnt/x/f 0 $MiB 213
expect_io 0 'mode=bounce reason=file-block-mapped' write "$prov" /mnt/x/f 0 $MiB 213
$PATTERN check /mnt/x/f 0 $MiB 213 || fail "bounced write to a block-mapped file"
umount /mnt/x
img e3 mkfs.ext3 -q -F
mkdir -p /mnt/e3 && mount -t ext3 "$loopdev" /mnt/e3 || fail "mount ext3"
$PATTERN gen $MiB 214 >/mnt/e3/f
expect_io 0 'mode=bounce reason=fs-unsupported' read "$prov" /mnt/e3/f 0 $MiB 214
umount /mnt/e3
# gpupath diagnose explains a file: its device, and direct or why not.
$GP diagnose $M/data | tee /tmp/diag.out
grep -q "on ext2/ext3/ext4, block device nvme0n1 " /tmp/diag.out || fail "diagnose: no device"
grep -q "^  provider $prov (.*): direct$" /tmp/diag.out || fail "diagnose: not direct"
$GP diagnose -j /tmp/tfs/f | tee /tmp/diag.json
jq -e --argjson id "$prov" '.fs == "tmpfs" and (.providers[] | select(.provider == $id) |
	.verdict == "refused" and .reason == "fs-unsupported" and (.fix | length > 0))' \
	/tmp/diag.json >/dev/null || fail "diagnose of a tmpfs file"
for r in fs-unsupported file-data-journal stacked-device file-inline-data file-block-mapped \
	file-mapped file-encrypted; do
	[ "$(refused $r)" -gt 0 ] || fail "no refusal counted for $r"
done
note "refused and bounced right: $($GP stats -j | jq -c --argjson id "$prov" \
	'.providers[] | select(.id == $id) | .stats.refused')"

# Bad input, each with its errno, and the files as they were.
$PATTERN gen $((2 * MiB)) 215 >$M/f && sync
mkdir -p /mnt/ro && mount --bind $M /mnt/ro && mount -o remount,bind,ro /mnt/ro ||
	fail "read-only bind mount"
sum=$(md5sum <$M/f)
$IOCHECK file "$prov" $M /mnt/ro || fail "file bad input not refused as it should be"
[ "$(md5sum <$M/f)" = "$sum" ] || fail "bad input changed the file"
[ ! -s $M/imm ] && [ ! -s $M/app ] || fail "a refused write reached a file"
umount /mnt/ro

# A file system unmounted lazily under I/O: the reader holding the file
# keeps reading it right; the next one cannot open it; the file system
# goes once the last is done.
mkfifo /tmp/lazygo
(exec 5</tmp/lazygo; exec 6<$M/data
i=0; while [ $i -lt 6 ]; do
	$GPIO -p direct read "$prov" /proc/self/fd/6 0 $((8 * MiB)) 201 >/tmp/lazy.$i 2>&1 ||
		exit 1
	[ $i = 0 ] && read -r _ <&5
	i=$((i + 1))
done) &
lazy=$!
exec 7>/tmp/lazygo
wait_for 60 grep -q mode=direct /tmp/lazy.0 || fail "the first read: $(cat /tmp/lazy.0)"
umount -l $M || fail "lazy umount"
[ ! -e $M/data ] || fail "the file is still there after umount -l"
echo go >&7
exec 7>&-
wait $lazy || fail "I/O under a lazy unmount: $(cat /tmp/lazy.*)"
note "lazy unmount under I/O: $(grep -l 'mode=direct' /tmp/lazy.* | wc -l) reads of the detached file done"

# ext4 is consistent after all of it.
wait_for 20 sh -c "! grep -q ' $M ' /proc/mounts" || fail "still mounted"
e2fsck -fn $NS >/tmp/fsck.out 2>&1 || { cat /tmp/fsck.out; fail "e2fsck found errors"; }
for l in $loops; do losetup -d "$l" || fail "loop device $l busy"; done
loops=
umount /tmp/tfs || fail "tmpfs still busy"
check_dmesg
