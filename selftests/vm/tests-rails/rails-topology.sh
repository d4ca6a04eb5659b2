# SPDX-License-Identifier: GPL-2.0
# The rails topology (run-vm.sh --topology rails, nvme_core.multipath=N):
#
#   root port --- switch 0 --+-- GPU0 (ivshmem, BAR2 = bar0.img on the host)
#                            '-- NVMe controller 0 --.
#                                                     >-- one subsystem, one
#   root port --- switch 1 --+-- GPU1 (ivshmem, BAR2 = bar1.img on the host)
#                            '-- NVMe controller 1 --'    shared namespace
#                                                         (nvme.img)
# Each switch holds one GPU and one NVMe controller; the two block devices
# are the same namespace (one wwid): what is written through one reads back
# through the other, and is in nvme.img on the host. Each GPU's BAR is its
# own backing file (checked on the host too).
set -e
. /src/selftests/vm/guest-lib.sh

MiB=1048576
[ "$(ls -d /sys/block/nvme* | wc -l)" = 2 ] ||
	fail "expected two NVMe block devices: $(ls /sys/block)"
for i in 0 1; do
	gpu=$(gpu_bdf $i) || fail "no GPU$i"
	sw=$(pci_switch "$gpu") || fail "GPU$i ($gpu) is not behind a PCIe switch"
	ns=$(switch_nvme "$gpu") || fail "no NVMe block device under GPU$i's switch $sw"
	[ "$(echo "$ns" | wc -l)" = 1 ] || fail "several NVMe under switch $sw: $ns"
	wwid=$(cat "/sys/block/$ns/wwid")
	[ "$wwid" = "$RAILS_WWID" ] || fail "/dev/$ns: wwid $wwid, expected $RAILS_WWID"
	ctrl=$(readlink -f "/sys/block/$ns/device/device")
	note "GPU$i $gpu and /dev/$ns (${ctrl##*/}) behind switch $sw, wwid $wwid"
	note "  ${ctrl#/sys/devices/}"
	note "  $(readlink -f "/sys/bus/pci/devices/$gpu" | sed 's|^/sys/devices/||')"
	[ "$(stat -c %s "/sys/bus/pci/devices/$gpu/resource2")" = $((64 * MiB)) ] ||
		fail "GPU$i: BAR2 is not 64 MiB"
	eval "sw$i=\$sw ns$i=\$ns"
	# A pattern into each GPU's BAR2, for the host to find in bar$i.img.
	echo 1 >"/sys/bus/pci/devices/$gpu/enable" 2>/dev/null || true
	$PATTERN fill "/sys/bus/pci/devices/$gpu/resource2" $((8 * MiB)) $MiB $((70 + i)) ||
		fail "cannot write GPU$i's BAR"
	host_expect bar$i.img $((8 * MiB)) $MiB $((70 + i)) $((8 * MiB))
done
{ [ "$sw0" != "$sw1" ] && [ "$ns0" != "$ns1" ]; } || fail "GPU0 and GPU1 share a switch or an NVMe"

# One namespace: written through controller 0, read through controller 1
# and back (O_DIRECT, no page cache in between).
$PATTERN gen $MiB 81 >/tmp/p81
$PATTERN gen $MiB 82 >/tmp/p82
dd if=/tmp/p81 of="/dev/$ns0" bs=$MiB seek=16 oflag=direct 2>/dev/null || fail "write /dev/$ns0"
dd if=/tmp/p82 of="/dev/$ns1" bs=$MiB seek=17 oflag=direct 2>/dev/null || fail "write /dev/$ns1"
dd if="/dev/$ns1" bs=$MiB skip=16 count=1 iflag=direct 2>/dev/null | cmp - /tmp/p81 ||
	fail "written via /dev/$ns0, /dev/$ns1 reads something else"
dd if="/dev/$ns0" bs=$MiB skip=17 count=1 iflag=direct 2>/dev/null | cmp - /tmp/p82 ||
	fail "written via /dev/$ns1, /dev/$ns0 reads something else"
host_expect nvme.img $((16 * MiB)) $MiB 81 0
host_expect nvme.img $((17 * MiB)) $MiB 82 0
note "1 MiB each way between /dev/$ns0 and /dev/$ns1 verified"
