# SPDX-License-Identifier: GPL-2.0
# Any program's O_DIRECT into device memory, without gpupath's ioctls (switch
# topology). From 6.2 the kernel pins P2PDMA pages for user-space direct I/O
# and sends them only to queues that take them: gpupath's mappings of device
# memory are then pinnable, and /dev/gpupathN takes such pages, each bio on a
# path that can DMA the memory, or refused at once when none can. Checked:
# pread/pwrite(O_DIRECT) between a gpupath buffer's mapping and the raw
# namespace, a volume over it and an XFS file on the volume, bytes checked in
# the BAR from the host; the real fio (verify) with the PCI core's p2pmem
# allocator; a volume whose only path cannot DMA the memory; a namespace
# that does not take P2PDMA pages; the pages' return to the pool. On 6.1,
# where GUP cannot tell device memory from host memory, the mappings stay
# unpinnable: O_DIRECT on them fails with EFAULT and nothing moves.
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
MiB=1048576
M=/mnt/od
load_module
prov=$(bind_bar) || fail "no provider for the BAR"
BAR=$(pci_dev 0x1af4 0x1110) || fail "no ivshmem device"
ALLOC=$BAR/p2pmem/allocate
mark_dmesg
hold=
cleanup() {
	[ -z "$hold" ] || kill "$hold" 2>/dev/null
	umount -l $M 2>/dev/null
	volumes_del_all
	fabric_teardown
}
trap cleanup EXIT
avail() { cat "$BAR/p2pmem/available"; }
avail0=$(avail)
pool_back() { [ "$(avail)" = "$avail0" ]; }
# hold_below N: a gpupath buffer over BAR [0, N MiB), held by gp-io -H until
# hold_release, so that the next allocation (first fit) starts at N MiB.
hold_below() {
	rm -f /tmp/od.fifo && mkfifo /tmp/od.fifo
	$GPIO -H -o $(($1 * MiB - 4096)) read "$prov" $NS 0 4096 241 </tmp/od.fifo >/tmp/od.hold &
	hold=$!
	exec 3>/tmp/od.fifo
	wait_for 10 grep -q 'bar_offset' /tmp/od.hold || fail "holding buffer: $(cat /tmp/od.hold)"
	grep -q "bar_offset=$(($1 * MiB - 4096))" /tmp/od.hold ||
		fail "holding buffer: $(cat /tmp/od.hold)"
}
# (Its read's bytes are not what it checks for once the namespace changed.)
hold_release() {
	exec 3>&-
	wait "$hold" || true
	hold=
}

# The namespace's first 60 MiB only, as the file tests: 16 MiB of pattern 241.
$PATTERN gen $((16 * MiB)) 241 | dd of=$NS bs=$MiB oflag=direct 2>/dev/null ||
	fail "pattern onto the namespace"

case $(uname -r) in
6.1.*)
	$GP show -j | jq -e '.module.features | index("user-direct-io") | not' >/dev/null ||
		fail "6.1 says user-direct-io"
	# GUP refuses the mapping (raw frames): no I/O reaches any queue.
	expect_io 3 'mode=odirect .*error=Bad address' -p odirect read "$prov" $NS 0 $MiB 241
	before=$(dd if=$NS bs=$MiB skip=20 count=1 iflag=direct 2>/dev/null | sha256sum)
	expect_io 3 'mode=odirect .*error=Bad address' -p odirect write "$prov" $NS $((20 * MiB)) \
		$MiB 242
	[ "$(dd if=$NS bs=$MiB skip=20 count=1 iflag=direct 2>/dev/null | sha256sum)" = "$before" ] ||
		fail "a refused O_DIRECT write changed the namespace"
	[ ! -e "$ALLOC" ] || fail "6.1 has no p2pmem/allocate, yet $ALLOC exists"
	pool_back || fail "the pool lost memory: $(avail) of $avail0"
	check_dmesg
	echo "6.1: O_DIRECT on device memory refused with EFAULT, nothing written"
	exit 0
	;;
esac

$GP show -j | jq -e '.module.features | index("user-direct-io")' >/dev/null ||
	fail "the module does not say user-direct-io"

# Raw namespace, both ways: read into the BAR at 11 MiB (checked on the
# host), written back from the BAR and read back through host memory.
expect_io 0 'mode=odirect reason=none' -p odirect -o $((11 * MiB)) read "$prov" $NS $MiB \
	$MiB 241
host_expect bar.img "$(bar_offset)" $MiB 241 $MiB
expect_io 0 'mode=odirect reason=none' -p odirect write "$prov" $NS $((20 * MiB)) $MiB 242
dd if=$NS of=/tmp/od.w bs=$MiB skip=20 count=1 iflag=direct 2>/dev/null &&
	$PATTERN check /tmp/od.w 0 $MiB 242 $((20 * MiB)) ||
	fail "the O_DIRECT write from device memory did not reach the namespace"

# A volume over the namespace takes the pages; its path counts them direct.
volume_new
$GP path add "$vol" $NS -j >/tmp/odp.json || fail "path add $NS"
pid=$(jq .id /tmp/odp.json)
direct() { $GP path show "$pid" -j | jq .stats.direct_ios; }
d0=$(direct)
expect_io 0 'mode=odirect reason=none' -p odirect -o $((12 * MiB)) read "$prov" "$VOL" \
	$((2 * MiB)) $MiB 241
host_expect bar.img "$(bar_offset)" $MiB 241 $((2 * MiB))
expect_io 0 'mode=odirect reason=none' -p odirect write "$prov" "$VOL" $((21 * MiB)) $MiB 243
dd if=$NS of=/tmp/od.w bs=$MiB skip=21 count=1 iflag=direct 2>/dev/null &&
	$PATTERN check /tmp/od.w 0 $MiB 243 $((21 * MiB)) ||
	fail "the O_DIRECT write through the volume did not reach the namespace"
d1=$(direct)
[ "$d1" -ge $((d0 + 2)) ] || fail "the path counted $((d1 - d0)) direct I/Os, expected 2 or more"
echo "volume: $((d1 - d0)) direct I/Os on the path"

# The real fio, its buffer from the PCI core's allocator on the provider.
# A buffer of 14 MiB is held first, so that fio's (first fit) lands at BAR
# 14 MiB: the last block fio reads stays there for the host to check.
hold_below 14
fiop="--filename=$VOL --direct=1 --ioengine=psync --iodepth=1 --bs=128k --iomem=mmapshared:$ALLOC"
# shellcheck disable=SC2086
fio --name=wv $fiop --rw=write --offset=$((24 * MiB)) --size=$((4 * MiB)) --verify=crc32c \
	--verify_state_save=0 >/tmp/fio.out 2>&1 || { cat /tmp/fio.out; fail "fio write+verify"; }
grep -q "err= 0" /tmp/fio.out || { cat /tmp/fio.out; fail "fio errors (write+verify)"; }
# shellcheck disable=SC2086
fio --name=r $fiop --rw=read --offset=0 --size=$MiB >/tmp/fio.out 2>&1 ||
	{ cat /tmp/fio.out; fail "fio read"; }
grep -q "err= 0" /tmp/fio.out || { cat /tmp/fio.out; fail "fio errors (read)"; }
host_expect bar.img $((14 * MiB)) $((128 * 1024)) 241 $((MiB - 128 * 1024))
d2=$(direct)
[ "$d2" -ge $((d1 + 72)) ] || fail "fio: $((d2 - d1)) direct I/Os on the path, expected 72 or more"
echo "fio: $((d2 - d1)) direct I/Os on the path"

# XFS on the volume: a new file written by fio from device memory and
# verified, another by gp-io; a file read into the BAR at 15 MiB by fio.
TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 mkfs.xfs -q -f -d size=60m "$VOL" || fail "mkfs.xfs"
mkdir -p $M && mount -t xfs "$VOL" $M || fail "mount xfs"
$PATTERN gen $((2 * MiB)) 244 >$M/data && sync || fail "cannot write the data file"
echo 3 >/proc/sys/vm/drop_caches
# 15 MiB now held, so that fio's buffer starts at 15 MiB.
hold_release
hold_below 15
fiof="--direct=1 --ioengine=psync --iodepth=1 --bs=128k --iomem=mmapshared:$ALLOC"
# shellcheck disable=SC2086
fio --name=fw $fiof --filename=$M/new --rw=randwrite --size=$((4 * MiB)) --verify=crc32c \
	--verify_state_save=0 >/tmp/fio.out 2>&1 || { cat /tmp/fio.out; fail "fio on an XFS file"; }
grep -q "err= 0" /tmp/fio.out || { cat /tmp/fio.out; fail "fio errors (XFS write+verify)"; }
expect_io 0 'mode=odirect reason=none' -p odirect write "$prov" $M/od 0 $MiB 245
sync && echo 3 >/proc/sys/vm/drop_caches
$PATTERN check $M/od 0 $MiB 245 || fail "the XFS file written by O_DIRECT from the BAR is wrong"
# Last, so that the block it reads last stays at 15 MiB.
# shellcheck disable=SC2086
fio --name=fr $fiof --filename=$M/data --rw=read --size=$((2 * MiB)) >/tmp/fio.out 2>&1 ||
	{ cat /tmp/fio.out; fail "fio read of the XFS file"; }
grep -q "err= 0" /tmp/fio.out || { cat /tmp/fio.out; fail "fio errors (XFS read)"; }
host_expect bar.img $((15 * MiB)) $((128 * 1024)) 244 $((2 * MiB - 128 * 1024))
hold_release
umount $M
xfs_repair -n "$VOL" >/tmp/repair.out 2>&1 || { cat /tmp/repair.out; fail "xfs_repair"; }
d3=$(direct)
echo "XFS: $((d3 - d2)) direct I/Os on the path"

# The pages went back to the pool: no mapping and no pin holds one.
wait_for 5 pool_back || fail "the pool has $(avail) of $avail0 bytes"

# A read in flight outlives its buffer: queued by the volume (its path
# down), the buffer unmapped and freed, /dev/gpupath closed. The pinned
# pages stay out of the pool until the read completes, then go back.
$GP path set "$pid" state down || fail "path down"
rm -f /tmp/od.fifo && mkfifo /tmp/od.fifo
$GPIO -A -p odirect read "$prov" "$VOL" 0 $MiB 241 </tmp/od.fifo >/tmp/od.pin &
pin=$!
exec 3>/tmp/od.fifo
wait_for 10 grep -q submitted /tmp/od.pin || fail "pinned read: $(cat /tmp/od.pin)"
pinned=$(avail)
[ "$pinned" = $((avail0 - MiB)) ] ||
	fail "with the buffer freed and its read in flight the pool has $pinned of $avail0 bytes"
$GP path set "$pid" state up || fail "path up"
exec 3>&-
wait "$pin" || fail "the pinned read: $(cat /tmp/od.pin)"
wait_for 5 pool_back || fail "after the pinned read the pool has $(avail) of $avail0 bytes"
echo "a read outlived its buffer: $((avail0 - pinned)) bytes kept from the pool until it ended"

# A volume whose only path cannot DMA the memory (nvme-rdma on soft-RoCE)
# refuses at once, nothing written; nvme-tcp's own queue never takes the
# pages (GUP refuses, EREMOTEIO).
fabric_paths 4 246
volume_new
$GP path add "$vol" "$RDMA" -j >/tmp/odr.json || fail "path add $RDMA"
VR=$VOL
r0=$($GP volume show "$vol" -j | jq .stats.refused)
expect_io 3 'mode=odirect .*error=Operation not supported' -p odirect read "$prov" "$VR" 0 \
	$MiB 246
expect_io 3 'mode=odirect .*error=Operation not supported' -p odirect write "$prov" "$VR" 0 \
	$MiB 247
dd if="$VR" of=/tmp/od.w bs=$MiB count=1 iflag=direct 2>/dev/null &&
	$PATTERN check /tmp/od.w 0 $MiB 246 ||
	fail "a refused O_DIRECT write changed the volume"
r1=$($GP volume show "$vol" -j | jq .stats.refused)
[ "$r1" -ge $((r0 + 2)) ] || fail "the volume counted $((r1 - r0)) refusals, expected 2 or more"
expect_io 3 'mode=odirect .*error=Remote I/O error' -p odirect read "$prov" "$TCP" 0 $MiB 246
# Host memory still goes through the same volume.
expect_io 0 'mode=odirect reason=none' -p odirect read host "$VR" 0 $MiB 246

check_dmesg
