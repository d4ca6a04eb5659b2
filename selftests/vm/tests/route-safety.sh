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
# - a provider removed (its stub unbound) while a direct read into its
#   memory waits in a volume for a path: the read fails, the unbind ends;
# - the NVMe controller, whose CMB is a provider with memory held by a
#   process, is removed from the bus: the memory is taken back first (the
#   removal does not wait for it), the provider leaves the list, reading
#   the list afterwards (any user may) does not touch the gone device, and
#   the controller comes back with a rescan; adopted again, its CMB takes
#   I/O (the new page map is the provider's).
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

# A direct read into the BAR waits in a volume whose only path is down; the
# BAR's provider goes: the read fails, the unbind does not wait for a path.
# nvme_ns: the namespace of the controller at $nvme.
nvme_ns() {
	for b in /sys/block/nvme*; do
		[ "$(basename "$(readlink -f "$b/device/device")")" = "${nvme##*/}" ] &&
			{ echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}
ns=$(nvme_ns) || fail "no namespace of ${nvme##*/}"
volume_new queue-timeout forever
$GP path add "$vol" "$ns" -j >/tmp/rp.json || fail "path add $ns"
# The partition table is read by the first open, while the path is up.
dd if="$VOL" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null || fail "first read of $VOL"
$GP path set "$(jq .id /tmp/rp.json)" state down || fail "path down"
$GPIO -p direct read "$prov" "$VOL" 0 $MiB 505 >/tmp/parked.out 2>&1 &
reader=$!
sleep 2
gone $reader && fail "the read did not wait for a path: $(cat /tmp/parked.out)"
bar=$(pci_dev 0x1af4 0x1110) || fail "no ivshmem device"
timeout 30 sh -c "echo ${bar##*/} >$bar/driver/unbind" ||
	fail "unbinding the provider waited for a read parked in a volume"
wait_gone 10 $reader || fail "the parked read outlived its memory"
wait $reader && fail "the parked read succeeded without its memory"
note "provider unbound under a parked read: $(cat /tmp/parked.out)"
$GP volume del "$vol" || fail "volume del"
prov=$(bind_bar) || fail "the BAR back"

# The CMB provider with memory held by a process, then its controller gone.
$GP provider add "${nvme##*/}" -j >/tmp/cmb.json || fail "cannot adopt the CMB"
cmb=$(jq .id /tmp/cmb.json)
mkfifo /tmp/hold
$GPIO -H -p direct write "$cmb" "$ns" $((200 * MiB)) $MiB 515 </tmp/hold >/tmp/held.out 2>&1 &
holder=$!
exec 7>/tmp/hold
wait_for 10 grep -q mode= /tmp/held.out || fail "the CMB buffer: $(cat /tmp/held.out)"
grep -q 'mode=direct' /tmp/held.out || fail "write from the CMB: $(cat /tmp/held.out)"
timeout 30 sh -c "echo 1 >$nvme/remove" || fail "removing ${nvme##*/} waited for its CMB's memory"
[ ! -e "$nvme" ] || fail "${nvme##*/} still there"
exec 7>&-
wait $holder
rm -f /tmp/hold
$GP provider show -j >/tmp/prov.json || fail "provider show after the removal"
note "providers after the removal: $(jq -c '[.providers[] | {id, pci_dev, size}]' /tmp/prov.json)"
jq -e --argjson c "$cmb" '[.providers[] | select(.id == $c)] | length == 0' /tmp/prov.json \
	>/dev/null || fail "the gone controller's CMB is still a provider"
/usr/libexec/gpupath/gp-priv as 1000 $GP provider show -j >/tmp/prov-user.json ||
	fail "a user's provider show after the removal"
echo 1 >/sys/bus/pci/rescan
wait_for 20 test -e "$nvme/p2pmem" || fail "the controller did not come back"
wait_for 20 nvme_ns || fail "no namespace after the rescan"
ns=$(nvme_ns)
$GP provider add "${nvme##*/}" -j >/tmp/cmb.json || fail "cannot adopt the CMB again"
expect_io 0 'mode=direct reason=none' -p direct write "$(jq .id /tmp/cmb.json)" "$ns" \
	$((200 * MiB)) $MiB 516
$PATTERN check "$ns" $((200 * MiB)) $MiB 516 || fail "the CMB's write after the rescan"
$GP provider del "$(jq .id /tmp/cmb.json)" || fail "provider del"
note "the CMB taken back at the removal, adopted again after the rescan"
check_dmesg
