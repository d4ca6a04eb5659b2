# SPDX-License-Identifier: GPL-2.0
# md arrays over gpupath volumes, seen through to the volumes (stack
# topology, per-path devices: two NVMe controllers under the GPU's switch
# share two namespaces; each namespace is a volume of its two paths):
#  - RAID0, RAID1 and RAID10 over the two volumes: gpupath's ioctls read and
#    write device memory direct through the array, on every kernel; the
#    bytes read land in the BAR (checked on the host), those written land
#    on the namespaces; both volumes count direct I/O;
#  - RAID5 computes parity with the CPU: refused, stacked-transform, and
#    bounced with the right bytes; a member that cannot take device memory
#    (NVMe/TCP) refuses the array with its own reason;
#  - where the kernel's md takes P2PDMA pages (7.2 on), any program's
#    O_DIRECT: fio writes and verifies through RAID0 from device memory
#    while one controller leaves the bus and comes back, with no error.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
prov=$(bind_bar) || fail "no provider"
BAR=/sys/bus/pci/devices/$(gpu_bdf 0)
cleanup() {
	mdadm --stop /dev/md0 >/dev/null 2>&1
	volumes_del_all
	fabric_teardown
	unbind_bar
}
trap cleanup EXIT

stack_volumes

# md_new LEVEL: /dev/md0 over the two volumes.
md_new() {
	local chunk=--chunk=64
	[ "$1" != raid1 ] || chunk=
	mdadm --create /dev/md0 --run --force --quiet --metadata=1.2 --level="$1" \
		--raid-devices=2 $chunk --assume-clean "$VOL1" "$VOL2" >/tmp/md.out 2>&1 ||
		fail "mdadm --create $1: $(cat /tmp/md.out)"
	wait_for 10 test -b /dev/md0 || fail "no /dev/md0"
}
md_del() {
	mdadm --stop /dev/md0 >/dev/null || fail "mdadm --stop"
	mdadm --zero-superblock "$VOL1" "$VOL2" >/dev/null 2>&1
}

seed=700
# BAR offsets well above where fio's buffer goes (first fit, below).
off=40
for level in raid0 raid1 raid10; do
	seed=$((seed + 1))
	md_new $level
	# (RAID1 reads from one member, but writes to both.)
	stack_direct /dev/md0 $seed $off $level
	md_del
	off=$((off + 4))
done

md_new raid0
# Any program's O_DIRECT into device memory, where md takes P2PDMA pages.
ALLOC=$BAR/p2pmem/allocate
fio_md() {
	fio --name=md --filename=/dev/md0 --direct=1 --ioengine=psync --iodepth=1 --bs=128k \
		--iomem=mmapshared:$ALLOC "$@" >/tmp/fio.out 2>&1
}
if ! fio_md --rw=read --size=$MiB; then
	err=$(grep -m1 -oE 'error on file [^:]*: [^:]*' /tmp/fio.out)
	skip_part "fio's O_DIRECT from device memory through md RAID0, across a controller flap" \
		"this kernel refuses it (fio: ${err:-failed}): md takes P2PDMA pages from 7.2 on, O_DIRECT pins them from 6.2 on"
else
	fio_md --rw=randwrite --size=$((32 * MiB)) --verify=crc32c --verify_state_save=0 \
		--loops=4 &
	f=$!
	sleep 2
	ctrl=$(basename "$(readlink -f /sys/block/$(stack_paths 1 | head -n 1)/device/device)")
	echo 1 >/sys/bus/pci/devices/$ctrl/remove || fail "remove $ctrl"
	sleep 2
	echo 1 >/sys/bus/pci/rescan
	wait_for 30 sh -c "[ \$(ls /sys/block | grep -cE '^nvme[0-9]+n1\$') = 2 ]" ||
		fail "controller $ctrl did not come back"
	for n in 1 2; do
		eval "v=\$vol$n"
		for p in $(stack_paths $n); do
			$GP path add "$v" "/dev/$p" >/dev/null 2>&1
		done
	done
	wait $f || { cat /tmp/fio.out; fail "fio through md RAID0 across the flap"; }
	grep -q "err= 0" /tmp/fio.out || { cat /tmp/fio.out; fail "fio errors"; }
	note "fio: O_DIRECT from device memory through /dev/md0, controller $ctrl removed and back: no error"
fi
md_del

# RAID5: parity by the CPU.
mdadm --create /dev/md0 --run --force --quiet --metadata=1.2 --level=5 --raid-devices=2 \
	--chunk=64 --assume-clean "$VOL1" "$VOL2" >/tmp/md.out 2>&1 || fail "raid5: $(cat /tmp/md.out)"
$PATTERN gen $MiB 790 | dd of=/dev/md0 bs=$MiB oflag=direct 2>/dev/null || fail "raid5: write"
expect_io 3 "mode=none reason=stacked-transform" -p direct read "$prov" /dev/md0 0 $MiB 790
expect_io 0 "mode=bounce reason=stacked-transform" read "$prov" /dev/md0 0 $MiB 790
md_del

# A member that cannot take device memory gives the array its reason: a
# namespace over NVMe/TCP (nvmet on null_blk), which copies with the CPU.
fabric_common
fabric_connect tcp 4421
TCPNS=$(fabric_ns tcp) || fail "no NVMe/TCP namespace"
mdadm --create /dev/md0 --run --force --quiet --metadata=1.2 --level=1 --raid-devices=2 \
	--assume-clean "$VOL1" "$TCPNS" >/tmp/md.out 2>&1 ||
	fail "raid1 with $TCPNS: $(cat /tmp/md.out)"
expect_io 3 "mode=none reason=cpu-copy" -p direct read "$prov" /dev/md0 0 $MiB 791
mdadm --stop /dev/md0 >/dev/null || fail "mdadm --stop"
mdadm --zero-superblock "$VOL1" "$TCPNS" >/dev/null 2>&1
fabric_teardown

check_dmesg
exit 0
