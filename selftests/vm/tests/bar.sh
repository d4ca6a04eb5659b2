# SPDX-License-Identifier: GPL-2.0
# The stand-in for GPU memory: the ivshmem BAR is present and what the guest
# writes into it reaches the backing file on the host (the harness checks
# /out/bar.expect against that file after the VM exits). On a P2PDMA kernel
# the emulated NVMe's CMB must be published as P2P memory too.
. /src/selftests/vm/guest-lib.sh

bar=$(pci_dev 0x1af4 0x1110) || fail "no ivshmem device"
res=$bar/resource2
size=$(stat -c %s "$res")
[ "$size" = $((64 << 20)) ] || fail "BAR2 is $size bytes, expected 64 MiB"
grep -q . "$bar/enable" && note "ivshmem at ${bar##*/}, BAR2 $((size >> 20)) MiB"
# Memory decode must be on, or the BAR reads as zeros.
echo 1 >"$bar/enable" 2>/dev/null
# 60 MiB: above every region the data-path tests leave for the host to check.
off=$((60 << 20)) len=$((1 << 20)) seed=$(date +%s)
$PATTERN fill "$res" $off $len $seed || fail "cannot write the BAR"
$PATTERN check "$res" $off $len $seed || fail "BAR does not read back what was written"
echo "$off $len $seed" >/out/bar.expect

nvme=$(pci_dev 0x1b36 0x0010) || fail "no emulated NVMe controller"
if [ "${EXPECT_P2PDMA:-1}" = 1 ]; then
	[ -d "$nvme/p2pmem" ] || fail "CMB of ${nvme##*/} not registered as P2P memory"
	[ "$(cat "$nvme/p2pmem/size")" = $((64 << 20)) ] || fail "CMB size $(cat "$nvme/p2pmem/size")"
	[ "$(cat "$nvme/p2pmem/published")" = 1 ] || fail "CMB not published"
	note "CMB of ${nvme##*/}: $(($(cat "$nvme/p2pmem/available") >> 20)) MiB P2P memory available"
else
	[ ! -d "$nvme/p2pmem" ] || fail "p2pmem on a kernel without P2PDMA?"
fi
