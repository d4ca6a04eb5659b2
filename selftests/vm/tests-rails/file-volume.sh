# SPDX-License-Identifier: GPL-2.0
# Files on a gpupath volume (rails topology): XFS on a volume of the two
# NVMe-PCIe paths to the shared namespace, policy gpu-affinity. A file read
# direct into each GPU goes on the path under that GPU's switch (checked on
# the host in bar0.img and bar1.img). Then the rails flap: each path's
# controller in turn is removed from the PCI bus and brought back by a
# rescan, and its new namespace added as a path, while fio writes and
# verifies (crc32c) one file from host memory and reads of another go into
# GPU0 (direct on the aligned path, bounced while only the other is there),
# each read checked byte for byte. No error may reach either, and the file
# system must be clean afterwards.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
FLAPS=${FLAPS:-4}
M=/mnt/fv
load_module
g0=$(gpu_bdf 0) && g1=$(gpu_bdf 1) || fail "two ivshmem GPUs expected"
n0=$(switch_nvme "$g0" | head -1) && n1=$(switch_nvme "$g1" | head -1) ||
	fail "an NVMe under each GPU's switch expected"
prov0=$(bind_bar "$g0") && prov1=$(bind_bar "$g1") || fail "providers"
# The shared namespace's first 64 MiB are put back at the end: other tests
# leave bytes there for the host to check.
dd if=/dev/"$n0" of=/tmp/fv.save bs=$MiB count=64 iflag=direct 2>/dev/null ||
	fail "cannot save the namespace's start"
cleanup() {
	touch /tmp/stop
	wait
	umount -l $M 2>/dev/null
	volumes_del_all
	echo 1 >/sys/bus/pci/rescan
	wait_for 30 rails_any_ns &&
		dd if=/tmp/fv.save of=/dev/"$(rails_any_ns)" bs=$MiB oflag=direct 2>/dev/null
	unbind_bar "$g0"
	unbind_bar "$g1"
}
trap cleanup EXIT
mark_dmesg

volume_new policy gpu-affinity
$GP path add "$vol" "/dev/$n0" rail 0 >/dev/null || fail "path add $n0"
$GP path add "$vol" "/dev/$n1" rail 1 >/dev/null || fail "path add $n1"
direct() { $GP path show "$(path_of "$1")" -j | jq .stats.direct_ios; }

TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 mkfs.xfs -q -f -d size=60m "$VOL" || fail "mkfs.xfs"
mkdir -p $M && mount -t xfs "$VOL" $M || fail "mount xfs"
$PATTERN gen $((8 * MiB)) 451 >$M/data && sync || fail "cannot write the data file"
echo 3 >/proc/sys/vm/drop_caches

# Each GPU's reads on its own switch's path, into its BAR at 44 MiB.
a0=$(direct 0) a1=$(direct 1)
expect_io 0 'mode=direct reason=none ios=4' -b 4 -p direct -o $((44 * MiB)) read "$prov0" \
	$M/data 0 $((2 * MiB)) 451
host_expect bar0.img "$(bar_offset)" $((2 * MiB)) 451 0
b0=$(direct 0) b1=$(direct 1)
expect_io 0 'mode=direct reason=none ios=4' -b 4 -p direct -o $((44 * MiB)) read "$prov1" \
	$M/data $((2 * MiB)) $((2 * MiB)) 451
host_expect bar1.img "$(bar_offset)" $((2 * MiB)) 451 $((2 * MiB))
c0=$(direct 0) c1=$(direct 1)
note "GPU0's file reads: $((b0 - a0)) direct on rail 0, $((b1 - a1)) on rail 1;" \
	"GPU1's: $((c0 - b0)) on rail 0, $((c1 - b1)) on rail 1"
[ $((b0 - a0)) -ge 4 ] && [ $((b1 - a1)) = 0 ] || fail "GPU0's file I/O left its switch"
[ $((c1 - b1)) -ge 4 ] && [ $((c0 - b0)) = 0 ] || fail "GPU1's file I/O left its switch"

rm -f /tmp/stop /tmp/fio.failed /tmp/gpio.failed /tmp/gpio.log
(
	i=0
	while [ ! -e /tmp/stop ]; do
		i=$((i + 1))
		fio --name=fv --filename=$M/fio --size=16M --rw=randwrite --bs=16k --direct=1 \
			--ioengine=libaio --iodepth=8 --verify=crc32c --verify_fatal=1 --do_verify=1 \
			--verify_state_save=0 --output=/tmp/fio.$i >/dev/null 2>&1 ||
			{ echo "$i" >/tmp/fio.failed; break; }
	done
	echo "$i" >/tmp/fio.runs
) &
(
	i=0
	while [ ! -e /tmp/stop ]; do
		i=$((i + 1))
		off=$(((i % 7) * MiB))
		out=$($GPIO -p auto read "$prov0" $M/data $off $MiB 451 2>&1) ||
			{ echo "run $i: $out" >/tmp/gpio.failed; break; }
		echo "$out" >>/tmp/gpio.log
	done
) &
sleep 2

now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
i=1
while [ $i -le "$FLAPS" ]; do
	r=$((i % 2))
	t0=$(now_ms)
	pcie_flap $r || fail "flap $i: $flap_err"
	t1=$(now_ms)
	[ -e /tmp/fio.failed ] || [ -e /tmp/gpio.failed ] && break
	note "flap $i: rail $r's controller $flap_ctrl removed and back as /dev/$flap_ns in" \
		"$((t1 - t0)) ms"
	i=$((i + 1))
	sleep 1
done
touch /tmp/stop
wait
if [ -e /tmp/fio.failed ]; then
	cat "/tmp/fio.$(cat /tmp/fio.failed)"
	fail "fio run $(cat /tmp/fio.failed) failed (above)"
fi
[ ! -e /tmp/gpio.failed ] || fail "a read into GPU0 failed: $(cat /tmp/gpio.failed)"
nd=$(grep -c 'mode=direct' /tmp/gpio.log) nb=$(grep -c 'mode=bounce' /tmp/gpio.log)
note "fio: $(cat /tmp/fio.runs) write+verify runs; reads into GPU0: $nd direct, $nb bounced," \
	"all checked, across $FLAPS flaps"
[ "$nd" -gt 0 ] || fail "no read into GPU0 went direct"
$GP volume show "$vol" -j >/tmp/v.json
$GP volume show "$vol"
jq -e ".stats.errors == .stats.refused" /tmp/v.json >/dev/null ||
	fail "I/O errors other than refusals of device memory (bounced then)"

umount $M
xfs_repair -n "$VOL" >/tmp/repair.out 2>&1 || { cat /tmp/repair.out; fail "xfs_repair"; }
check_dmesg
