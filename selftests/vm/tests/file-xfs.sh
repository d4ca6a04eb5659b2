# SPDX-License-Identifier: GPL-2.0
# Files on XFS straight into device memory, on the switch topology's NVMe
# namespace (reads checked on the host in bar.img); an ext4 file with
# fs-verity and an XFS realtime file are refused and bounced, and so is a
# file on nvme-rdma over soft-RoCE (virtual-dma). (Encrypted files: file.sh.)
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
MiB=1048576
M=/mnt/x
load_module
prov=$(bind_bar) || fail "no provider for the BAR"
mark_dmesg
cleanup() {
	for m in $M /mnt/v /mnt/rt /tmp/tfs; do umount -l $m 2>/dev/null; done
	for l in $v $rtd $rtr; do losetup -d "$l" 2>/dev/null; done
	fabric_teardown
}
v= rtd= rtr=
trap cleanup EXIT
mkdir -p /tmp/tfs && mount -t tmpfs tmpfs /tmp/tfs
# The namespace's first 60 MiB only (other tests' bytes further up stay for
# the host to check), below mkfs.xfs's 300 MB floor for production file
# systems, which its test-suite variables lift.
TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 mkfs.xfs -q -f -d size=60m $NS || fail "mkfs.xfs"
mkdir -p $M && mount -t xfs $NS $M || fail "mount xfs"

# Written through the page cache, read direct into the BAR at 63 MiB (free
# of the other tests' checks, the ext4 test's included).
$PATTERN gen $((6 * MiB)) 221 >$M/data && sync || fail "cannot write the data file"
echo 3 >/proc/sys/vm/drop_caches
expect_io 0 'mode=direct reason=none' -p direct -o $((63 * MiB)) read "$prov" $M/data $MiB \
	$MiB 221
host_expect bar.img "$(bar_offset)" $MiB 221 $MiB
expect_io 0 'mode=direct reason=none ios=4' -b 4 -p direct read "$prov" $M/data 0 \
	$((6 * MiB)) 221

# A new file written direct from the BAR; read back buffered after a drop.
expect_io 0 'mode=direct reason=none' -p direct write "$prov" $M/new 0 $((3 * MiB)) 222
sync && echo 3 >/proc/sys/vm/drop_caches
$PATTERN check $M/new 0 $((3 * MiB)) 222 || fail "the new XFS file does not hold what was written"
# Holes, unwritten extents, the end of the file.
truncate -s $((3 * MiB)) $M/sparse
$PATTERN gen $MiB 223 | dd of=$M/sparse conv=notrunc 2>/dev/null
xfs_io -c "falloc $((2 * MiB)) $MiB" $M/sparse || fail "falloc"
expect_io 0 'mode=direct reason=none' -p direct -Z $MiB read "$prov" $M/sparse 0 $((3 * MiB)) 223
expect_io 0 "mode=direct reason=none .*len=$((3 * MiB))\$" -p direct -Z $MiB read "$prov" $M/sparse 0 \
	$((4 * MiB)) 223
# Page cache both ways.
$PATTERN gen $MiB 224 >$M/pc
expect_io 0 'mode=direct reason=none' -p direct read "$prov" $M/pc 0 $MiB 224
cat $M/pc >/dev/null
expect_io 0 'mode=direct reason=none' -p direct write "$prov" $M/pc 0 $MiB 225
$PATTERN check $M/pc 0 $MiB 225 || fail "a buffered read after a direct write saw stale data"

# The cuFile program on XFS: registered and unregistered reads and a write,
# all direct.
$PATTERN gen $((8 * MiB)) 226 >$M/cuf && sync
cufile_file_direct "$prov" $M/cuf 226

umount $M
xfs_repair -n $NS >/tmp/repair.out 2>&1 ||
	{ cat /tmp/repair.out; fail "xfs_repair found errors"; }

# ext4 with fs-verity (4 KiB blocks, as 6.1 needs): refused, bounced right.
truncate -s 64M /tmp/tfs/v.img
v=$(losetup -f) && losetup "$v" /tmp/tfs/v.img || fail "losetup"
mkfs.ext4 -q -F -b 4096 -O verity "$v" >/dev/null || fail "mkfs.ext4 -O verity"
mkdir -p /mnt/v && mount -t ext4 "$v" /mnt/v || fail "mount"
$PATTERN gen $MiB 227 >/mnt/v/f
fsverity enable /mnt/v/f || fail "fsverity enable"
expect_io 3 'reason=file-verity' -p direct read "$prov" /mnt/v/f 0 $MiB 227
expect_io 0 'mode=bounce reason=file-verity' read "$prov" /mnt/v/f 0 $MiB 227
umount /mnt/v
losetup -d "$v" || fail "the loop device is busy"
v=

# XFS with a realtime device: a file whose data lives there (chattr +r
# while empty) is refused, and bounced right both ways.
truncate -s 64M /tmp/tfs/rtd.img /tmp/tfs/rtr.img
rtd=$(losetup -f) && losetup "$rtd" /tmp/tfs/rtd.img || fail "losetup"
rtr=$(losetup -f) && losetup "$rtr" /tmp/tfs/rtr.img || fail "losetup"
TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 mkfs.xfs -q -f -r rtdev="$rtr" "$rtd" ||
	fail "mkfs.xfs with a realtime device"
mkdir -p /mnt/rt && mount -t xfs -o rtdev="$rtr" "$rtd" /mnt/rt || fail "mount realtime"
xfs_io -f -c "chattr +r" /mnt/rt/f || fail "chattr +r"
$PATTERN gen $MiB 231 >>/mnt/rt/f && sync || fail "cannot write the realtime file"
xfs_io -c "lsattr -v" /mnt/rt/f | grep -q realtime ||
	fail "not a realtime file: $(xfs_io -c "lsattr -v" /mnt/rt/f)"
expect_io 3 'reason=file-realtime' -p direct read "$prov" /mnt/rt/f 0 $MiB 231
expect_io 0 'mode=bounce reason=file-realtime' read "$prov" /mnt/rt/f 0 $MiB 231
expect_io 0 'mode=bounce reason=file-realtime' write "$prov" /mnt/rt/f $MiB $MiB 232
sync && echo 3 >/proc/sys/vm/drop_caches
$PATTERN check /mnt/rt/f $MiB $MiB 232 || fail "the bounced write to a realtime file is wrong"
umount /mnt/rt
xfs_repair -n -r "$rtr" "$rtd" >/tmp/repair.out 2>&1 ||
	{ cat /tmp/repair.out; fail "xfs_repair found errors on the realtime file system"; }
losetup -d "$rtd" && losetup -d "$rtr" || fail "the loop devices are busy"
rtd= rtr=
umount /tmp/tfs || fail "tmpfs still busy"

# XFS on nvme-rdma over soft-RoCE: the file's device has no DMA engine that
# can reach the BAR. Refused with virtual-dma, bounced right by auto, both
# ways; the volume over that namespace says the same.
fabric_paths 1 228
TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 mkfs.xfs -q -f -d size=60m "$RDMA" ||
	fail "mkfs.xfs on $RDMA"
mount -t xfs "$RDMA" $M || fail "mount xfs on $RDMA"
$PATTERN gen $((2 * MiB)) 229 >$M/r && sync || fail "cannot write on $RDMA"
echo 3 >/proc/sys/vm/drop_caches
expect_io 3 'mode=none reason=virtual-dma' -p direct read "$prov" $M/r 0 $MiB 229
expect_io 0 'mode=bounce reason=virtual-dma' -p auto read "$prov" $M/r $MiB $MiB 229
expect_io 0 'mode=bounce reason=virtual-dma' -p auto write "$prov" $M/rw 0 $MiB 230
sync && echo 3 >/proc/sys/vm/drop_caches
$PATTERN check $M/rw 0 $MiB 230 || fail "the bounced write on $RDMA is wrong"
$GP diagnose -j $M/r >/tmp/diag.json || fail "diagnose $M/r"
jq -e --argjson id "$prov" '.fs == "xfs" and (.providers[] | select(.provider == $id) |
	.verdict == "refused" and .reason == "virtual-dma")' /tmp/diag.json >/dev/null ||
	{ cat /tmp/diag.json; fail "diagnose does not say virtual-dma for $M/r"; }
umount $M
check_dmesg
