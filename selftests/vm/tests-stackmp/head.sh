# SPDX-License-Identifier: GPL-2.0
# Native NVMe multipath heads (stack topology, nvme_core.multipath=Y): two
# controllers under the GPU's switch, one head per namespace over its two
# paths.
#  - Where the kernel lets a head take P2PDMA pages (it stacks that from its
#    paths, 7.2 on), gpupath's ioctls read and write device memory direct
#    through the head while every live path's controller reaches the memory:
#    the bytes read land in the BAR (checked on the host); with one
#    controller gone the other carries it, still direct.
#  - Elsewhere the head is refused, multipath-head, and bounced with the
#    right bytes.
#  - md RAID0 over the two heads: the same answer, seen through.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
prov=$(bind_bar) || fail "no provider"
cleanup() {
	mdadm --stop /dev/md0 >/dev/null 2>&1
	echo 1 >/sys/bus/pci/rescan
	unbind_bar
}
trap cleanup EXIT

# The heads: nvmeXnN whose parent is the subsystem.
heads() {
	for b in /sys/block/nvme*n*; do
		case $(readlink -f "$b/device") in */nvme-subsystem/*) echo "${b##*/}" ;; esac
	done | sort
}
[ "$(heads | wc -l)" = 2 ] || fail "two heads expected: $(ls /sys/block | tr '\n' ' ')"
H1=/dev/$(heads | head -n 1) H2=/dev/$(heads | tail -n 1)
note "heads: $H1 and $H2 over $(ls /sys/block/${H1#/dev/}/multipath 2>/dev/null | tr '\n' ' ')"
$PATTERN gen $((4 * MiB)) 801 | dd of="$H1" bs=$MiB oflag=direct 2>/dev/null || fail "write $H1"

if $GPIO -p direct read "$prov" "$H1" 0 $MiB 801 | grep -q 'reason=multipath-head'; then
	expect_io 3 "mode=none reason=multipath-head" -p direct read "$prov" "$H1" 0 $MiB 801
	expect_io 0 "mode=bounce reason=multipath-head" read "$prov" "$H1" 0 $((4 * MiB)) 801
	skip_part "device memory direct through a head" \
		"this kernel's native-multipath head takes no P2PDMA pages (it stacks them from 7.2 on)"
	exit 0
fi
expect_io 0 "mode=direct reason=none" -p direct -o $((40 * MiB)) read "$prov" "$H1" 0 \
	$((4 * MiB)) 801
host_expect bar.img "$(bar_offset)" $((4 * MiB)) 801 0
expect_io 0 "mode=direct reason=none" -p direct write "$prov" "$H1" $((8 * MiB)) $MiB 802
dd if="$H1" of=/tmp/h.w bs=$MiB skip=8 count=1 iflag=direct 2>/dev/null &&
	$PATTERN check /tmp/h.w 0 $MiB 802 $((8 * MiB)) || fail "the direct write is not on the head"

# One controller gone: the other path carries the head, direct.
p=$(ls /sys/block/${H1#/dev/}/multipath | head -n 1)
ctrl=$(basename "$(readlink -f /sys/block/${H1#/dev/}/multipath/$p/device/device)")
echo 1 >/sys/bus/pci/devices/$ctrl/remove || fail "remove $ctrl"
wait_for 10 sh -c "[ \$(ls /sys/block/${H1#/dev/}/multipath | wc -l) = 1 ]" ||
	fail "the head kept two paths with $ctrl gone"
expect_io 0 "mode=direct reason=none" -p direct -o $((44 * MiB)) read "$prov" "$H1" $MiB $MiB 801
host_expect bar.img "$(bar_offset)" $MiB 801 $MiB
note "controller $ctrl removed: direct through the other path"
echo 1 >/sys/bus/pci/rescan
wait_for 30 sh -c "[ \$(ls /sys/block/${H1#/dev/}/multipath | wc -l) = 2 ]" ||
	fail "the head did not get its second path back"

# An array over the two heads, seen through to them and their paths.
mdadm --create /dev/md0 --run --force --quiet --metadata=1.2 --level=0 --raid-devices=2 \
	--chunk=64 "$H1" "$H2" >/tmp/md.out 2>&1 || fail "mdadm: $(cat /tmp/md.out)"
$PATTERN gen $((2 * MiB)) 803 | dd of=/dev/md0 bs=$MiB oflag=direct 2>/dev/null || fail "write md0"
expect_io 0 "mode=direct reason=none" -p direct -o $((48 * MiB)) read "$prov" /dev/md0 0 \
	$((2 * MiB)) 803
host_expect bar.img "$(bar_offset)" $((2 * MiB)) 803 0
mdadm --stop /dev/md0 >/dev/null || fail "mdadm --stop"
mdadm --zero-superblock "$H1" "$H2" >/dev/null 2>&1
check_dmesg
exit 0
