# SPDX-License-Identifier: GPL-2.0
# gpu-affinity on the rails topology (run-vm.sh --topology rails): two PCIe
# switches, each with an ivshmem "GPU" and an NVMe controller; both
# controllers serve one shared namespace, which makes a volume of two
# NVMe-PCIe paths. Reads into GPU0's memory must go through the NVMe under
# GPU0's switch and reads into GPU1's through the other, DMAed straight into
# each BAR (checked on the host in bar0.img and bar1.img). Host memory uses
# both paths. With GPU0's path down its I/O must be decided again for the
# remaining path: refused direct with the reason and bounced by auto.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
g0=$(gpu_bdf 0) && g1=$(gpu_bdf 1) || fail "two ivshmem GPUs expected"
n0=$(switch_nvme "$g0" | head -1) && n1=$(switch_nvme "$g1" | head -1) ||
	fail "an NVMe under each GPU's switch expected"
note "GPU0 $g0 with $n0, GPU1 $g1 with $n1"
prov0=$(bind_bar "$g0") && prov1=$(bind_bar "$g1") || fail "providers"
cleanup() {
	volumes_del_all
	unbind_bar "$g0"
	unbind_bar "$g1"
}
trap cleanup EXIT
$PATTERN gen $((8 * MiB)) 401 | dd of=/dev/"$n0" bs=$MiB oflag=direct 2>/dev/null ||
	fail "cannot write the namespace"

volume_new policy gpu-affinity
$GP path add "$vol" "/dev/$n0" rail 0 -j >/tmp/p0.json || fail "path add $n0"
$GP path add "$vol" "/dev/$n1" rail 1 -j >/tmp/p1.json || fail "path add $n1"
p0=$(jq .id /tmp/p0.json) p1=$(jq .id /tmp/p1.json)
$GP volume show "$vol"

direct() { $GP path show "$1" -j | jq .stats.direct_ios; }
ios() { $GP path show "$1" -j | jq .stats.ios; }

# read_into PROVIDER BAR_FILE BUF_OFF: 8 reads of 512 KiB into the GPU,
# checked on the host; sets d0 and d1 to the direct I/Os each path did.
read_into() {
	a=$(direct "$p0") b=$(direct "$p1")
	expect_io 0 "mode=direct reason=none ios=8" -b 8 -p direct -o "$3" read "$1" "$VOL" \
		0 $((4 * MiB)) 401
	host_expect "$2" "$(bar_offset)" $((4 * MiB)) 401 0
	d0=$(($(direct "$p0") - a)) d1=$(($(direct "$p1") - b))
}
read_into "$prov0" bar0.img $((24 * MiB))
note "into GPU0: $d0 I/Os via $n0, $d1 via $n1"
[ $d0 -ge 8 ] && [ $d1 = 0 ] || fail "GPU0's I/O did not stay on GPU0's switch"
read_into "$prov1" bar1.img $((24 * MiB))
note "into GPU1: $d0 I/Os via $n0, $d1 via $n1"
[ $d0 = 0 ] && [ $d1 -ge 8 ] || fail "GPU1's I/O did not stay on GPU1's switch"

# Host memory goes by the fallback policy (round-robin): both paths.
a=$(ios "$p0") b=$(ios "$p1")
fio --name=host --filename="$VOL" --rw=randread --bs=4k --direct=1 --ioengine=psync \
	--number_ios=100 --size=8M --output=/dev/null || fail "fio"
a=$(($(ios "$p0") - a)) b=$(($(ios "$p1") - b))
note "host memory: $a via $n0, $b via $n1"
[ $a -ge 40 ] && [ $b -ge 40 ] || fail "host memory not spread by the fallback policy"

# GPU0's path down: the remaining path is under the other switch.
$GP path set "$p0" state down || fail "path down"
nvme1_pci=$(basename "$(readlink -f "/sys/block/$n1/device/device")")
if $GP provider show "$prov0" -j | jq -e --arg d "$nvme1_pci" \
	'.peers | map(.pci_dev) | index($d)' >/dev/null; then
	expect_io 0 "mode=direct reason=none" -p direct -o $((32 * MiB)) read "$prov0" "$VOL" \
		0 $MiB 401
else
	expect_io 3 "mode=none reason=no-p2p-route" -p direct read "$prov0" "$VOL" 0 $MiB 401
	expect_io 0 "mode=bounce reason=no-p2p-route" -p auto -o $((32 * MiB)) read "$prov0" \
		"$VOL" $MiB $MiB 401
	host_expect bar0.img "$(bar_offset)" $MiB 401 $MiB
fi
$GP path set "$p0" state up || fail "path up"
expect_io 0 "mode=direct reason=none" -p direct -o $((36 * MiB)) read "$prov0" "$VOL" 0 $MiB 401
host_expect bar0.img "$(bar_offset)" $MiB 401 0
$GP stats
