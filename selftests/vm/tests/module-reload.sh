# SPDX-License-Identifier: GPL-2.0
# Load and unload the module 20 times, using the netlink family and the
# device each time; kmemleak and the kernel log must stay clean.
. /src/selftests/vm/guest-lib.sh

unload_module
mark_dmesg
kmemleak_clear
i=0
while [ $i -lt 20 ]; do
	insmod "$KO" || fail "insmod #$i"
	[ -c /dev/gpupath ] || fail "no /dev/gpupath after insmod #$i"
	$GP show >/dev/null || fail "gpupath show #$i"
	$GP version | grep -q '^module ' || fail "version ioctl #$i"
	rmmod gpupath || fail "rmmod #$i"
	[ ! -e /dev/gpupath ] || fail "/dev/gpupath left behind after rmmod #$i"
	i=$((i + 1))
done
$GP show 2>&1 | grep -q 'not loaded' || fail "the family is still registered"
if kmemleak_check "20 cycles"; then
	note "kmemleak: clean after 20 cycles"
else
	note "kmemleak: not in this kernel"
fi
check_dmesg
