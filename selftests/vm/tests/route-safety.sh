# SPDX-License-Identifier: GPL-2.0
# What may be handed device memory, and a provider outliving its device:
#
#   root port -- switch --+-- ivshmem BAR2 (provider, gpupath stub driver)
#                         |-- NVMe (nvme0n1; its CMB is P2P memory too)
#                         '-- virtio-blk (vda)
#
# - virtio-blk sits behind the same switch as the BAR, so the PCI distance
#   allows P2P, but its driver does not take P2P pages (its queue lacks the
#   P2PDMA capability): direct I/O is refused with no-p2p-queue, and
#   bounced right;
# - the NVMe controller, whose CMB is a provider, is removed from the bus:
#   reading the provider list afterwards (any user may) does not touch the
#   gone device, and the controller comes back with a rescan.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
prov=$(bind_bar) || fail "no provider"
nvme=$(pci_dev 0x1b36 0x0010) || fail "no NVMe controller"
cleanup() {
	unbind_bar
	[ -e "$nvme" ] || echo 1 >/sys/bus/pci/rescan
}
trap cleanup EXIT

vd=$(for b in /sys/block/vd*; do [ -e "$b" ] && echo "/dev/${b##*/}"; done | head -n 1)
[ -b "$vd" ] || fail "no virtio-blk disk"
$PATTERN gen $((2 * MiB)) 505 | dd of="$vd" bs=$MiB oflag=direct 2>/dev/null || fail "pattern onto $vd"
expect_io 3 "mode=none reason=no-p2p-queue" -p direct read "$prov" "$vd" 0 $MiB 505
expect_io 0 "mode=bounce reason=no-p2p-queue" -p auto -o $((10 * MiB)) read "$prov" "$vd" \
	$MiB $MiB 505
$GP diagnose -j >/tmp/diag.json 2>&1 || true
note "virtio-blk refused and bounced"

# The CMB provider, then its controller gone.
$GP provider add "${nvme##*/}" -j >/tmp/cmb.json || fail "cannot adopt the CMB"
cmb=$(jq .id /tmp/cmb.json)
echo 1 >"$nvme/remove" || fail "remove ${nvme##*/}"
[ ! -e "$nvme" ] || fail "${nvme##*/} still there"
$GP provider show -j >/tmp/prov.json || fail "provider show after the removal"
note "providers after the removal: $(jq -c '[.providers[] | {id, pci_dev, size}]' /tmp/prov.json)"
/usr/libexec/gpupath/gp-priv as 1000 $GP provider show -j >/tmp/prov-user.json ||
	fail "a user's provider show after the removal"
$GP provider del "$cmb" || fail "the gone controller's provider cannot be deleted"
echo 1 >/sys/bus/pci/rescan
wait_for 20 test -e "$nvme/p2pmem" || fail "the controller did not come back"
wait_for 20 sh -c 'ls /dev/nvme*n1' || fail "no namespace after the rescan"
check_dmesg
