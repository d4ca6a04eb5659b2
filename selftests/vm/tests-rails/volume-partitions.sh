# SPDX-License-Identifier: GPL-2.0
# Partitions on a volume, and its block-layer statistics (rails topology:
# the two NVMe-PCIe paths to the shared namespace, policy gpu-affinity).
#  - BLKRRPART (blockdev --rereadpt) answers on the volume as on an NVMe
#    namespace (one over NVMe/TCP, case by case): a table written without
#    telling the kernel is read, EBUSY while a partition is open, EINVAL on
#    a partition, refused to a user without CAP_SYS_ADMIN; when the table
#    cannot be read (the volume with no path, the namespace failing every
#    read) the partitions go, with EIO from 6.12 (BLK_OPEN_STRICT_SCAN) and
#    success before, and come back by a reread once it can be.
#  - parted adds and removes a partition on the live volume.
#  - Device memory to and from a partition goes direct into GPU0's BAR
#    (checked on the host in bar0.img) and lands at the partition's start
#    within the volume; with GPU0's path down the partition's I/O is decided
#    as the whole volume's; past the partition's end it is refused.
#  - fio writes and verifies one partition and reads the other across a
#    flap (a controller removed from the PCI bus and back) and failures
#    injected on the other path, with no error reaching fio;
#    /sys/block/.../stat, /proc/diskstats and iostat count exactly the I/Os
#    and sectors fio reports, per partition and for the volume, however
#    many attempts the failover took.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
# The partitions, in sectors: 64 MiB each from 256 MiB on.
P1=524288 P2=655360 PSIZE=131072
load_module
g0=$(gpu_bdf 0) && g1=$(gpu_bdf 1) || fail "two ivshmem GPUs expected"
n0=$(switch_nvme "$g0" | head -1) && n1=$(switch_nvme "$g1" | head -1) ||
	fail "an NVMe under each GPU's switch expected"
prov0=$(bind_bar "$g0") || fail "provider"
# The partition table goes where other tests keep their data: put back.
dd if=/dev/"$n0" of=/tmp/vp.save bs=$MiB count=1 iflag=direct 2>/dev/null ||
	fail "cannot save the namespace's start"
cleanup() {
	exec 3<&- 2>/dev/null
	kill $(jobs -p) 2>/dev/null
	wait
	[ ! -d $FMR ] || fmr_off "$n1" 2>/dev/null
	volumes_del_all
	fabric_teardown
	echo 1 >/sys/bus/pci/rescan
	wait_for 30 rails_any_ns &&
		dd if=/tmp/vp.save of=/dev/"$(rails_any_ns)" bs=$MiB oflag=direct 2>/dev/null
	unbind_bar "$g0"
}
trap cleanup EXIT
mark_dmesg

volume_new policy gpu-affinity
$GP path add "$vol" "/dev/$n0" rail 0 >/dev/null || fail "path add $n0"
$GP path add "$vol" "/dev/$n1" rail 1 >/dev/null || fail "path add $n1"
VOLN=${VOL#/dev/}

# The NVMe namespace to compare with: nvmet over TCP on null_blk.
fabric_common
fabric_connect tcp 4421
TCPNS=$(fabric_ns tcp)

# nparts DEV: how many partitions the kernel knows of DEV.
nparts() {
	local n=0 p
	for p in /sys/block/"${1#/dev/}"/"${1#/dev/}"p*; do
		[ -e "$p/partition" ] && n=$((n + 1))
	done
	echo $n
}
# rrpart DEV [AS...]: BLKRRPART on DEV (run through AS, e.g. setpriv), as
# "ok" or the errno's name.
rrpart() {
	local out d=$1
	shift
	out=$("$@" blockdev --rereadpt "$d" 2>&1) && { echo ok; return; }
	case $out in
	*"busy"*) echo EBUSY ;;
	*"Invalid argument"*) echo EINVAL ;;
	*"Input/output error"*) echo EIO ;;
	*"Permission denied"*) echo EACCES ;;
	*) echo "other($out)" ;;
	esac
}
# rrpart_cases DEV BREAK MEND: what BLKRRPART does on DEV in each case, one
# line; BREAK DEV makes every read of DEV fail, MEND DEV undoes that.
rrpart_cases() {
	local d=$1 r
	dd if=/dev/zero of="$d" bs=$MiB count=1 oflag=direct 2>/dev/null || fail "zero $d"
	r="empty:$(rrpart "$d")/$(nparts "$d")"
	printf 'label: dos\nstart=%s, size=%s\nstart=%s, size=%s\n' $P1 $PSIZE $P2 $PSIZE |
		sfdisk -q --no-reread --no-tell-kernel "$d" >/dev/null 2>&1 || fail "sfdisk $d"
	r="$r written:$(nparts "$d")"
	r="$r reread:$(rrpart "$d")/$(nparts "$d")"
	exec 3<"${d}p1" || fail "open ${d}p1"
	r="$r p1-open:$(rrpart "$d")/$(nparts "$d")"
	exec 3<&-
	r="$r on-p1:$(rrpart "${d}p1")"
	r="$r p1=$(cat /sys/block/"${d#/dev/}"/"${d#/dev/}"p1/start)+$(cat \
		/sys/block/"${d#/dev/}"/"${d#/dev/}"p1/size)"
	r="$r as-user:$(rrpart "$d" /usr/bin/setpriv --reuid 1000 --regid 1000 --clear-groups)"
	$2 "$d"
	r="$r unreadable:$(rrpart "$d")/$(nparts "$d")"
	$3 "$d"
	r="$r back:$(rrpart "$d")/$(nparts "$d")"
	echo "$r"
}
# The volume with no path, I/O failed at once; the namespace failing
# every bio (fail_make_request).
vol_break() {
	$GP volume set "$vol" queue-timeout 0 >/dev/null &&
		$GP path set "$(path_of 0)" state down && $GP path set "$(path_of 1)" state down ||
		fail "paths down"
}
vol_mend() {
	$GP path set "$(path_of 0)" state up && $GP path set "$(path_of 1)" state up &&
		$GP volume set "$vol" queue-timeout 30000 >/dev/null || fail "paths up"
}
ns_break() { fmr_fail "${1#/dev/}" -1; }
ns_mend() { fmr_off "${1#/dev/}"; }
chmod 0666 "$VOL" "$TCPNS"
vcases=$(rrpart_cases "$VOL" vol_break vol_mend)
note "BLKRRPART on $VOL:   $vcases"
if have_fmr "BLKRRPART on an NVMe namespace failing every read, beside the volume's"; then
	ncases=$(rrpart_cases "$TCPNS" ns_break ns_mend)
	note "BLKRRPART on $TCPNS: $ncases"
	[ "$vcases" = "$ncases" ] || fail "BLKRRPART on the volume differs from an NVMe namespace's"
fi
want="empty:ok/0 written:0 reread:ok/2 p1-open:EBUSY/2 on-p1:EINVAL p1=$P1+$PSIZE as-user:EACCES"
case $vcases in
"$want unreadable:ok/0 back:ok/2" | "$want unreadable:EIO/0 back:ok/2") ;;
*) fail "BLKRRPART did not read the table as expected: $vcases" ;;
esac
fabric_teardown

# parted adds a partition to the live volume, and removes it.
parted -s "$VOL" mkpart primary 384MiB 448MiB || fail "parted mkpart"
wait_for 10 test -b "${VOL}p3" || fail "parted: ${VOL}p3 did not appear"
[ "$(cat /sys/block/$VOLN/${VOLN}p3/start)" = 786432 ] || fail "p3 not where parted put it"
parted -s "$VOL" rm 3 || fail "parted rm"
wait_for 10 sh -c "! test -e /sys/block/$VOLN/${VOLN}p3" || fail "parted: p3 still there"
note "parted: ${VOLN}p3 made at 384 MiB and removed"

# Device memory into and out of partition 1.
expect_io 0 "mode=direct reason=none" -p direct write "$prov0" "${VOL}p1" $MiB $MiB 601
$PATTERN check "$VOL" $((P1 * 512 + MiB)) $MiB 601 $MiB ||
	fail "the write to ${VOLN}p1 did not land at the partition's offset in the volume"
expect_io 0 "mode=direct reason=none ios=4" -b 4 -p direct -o $((40 * MiB)) read "$prov0" \
	"${VOL}p1" $MiB $MiB 601
host_expect bar0.img "$(bar_offset)" $MiB 601 $MiB
expect_io 3 "error=Invalid argument" -p direct read "$prov0" "${VOL}p1" $((64 * MiB)) $MiB 601
# GPU0's own path down: the partition's route is the volume's.
$GP path set "$(path_of 0)" state down || fail "path down"
route() { $GPIO -p direct read "$prov0" "$@" $MiB 601 2>&1 | grep -o 'mode=[^ ]* reason=[^ ]*'; }
whole=$(route "$VOL" $((P1 * 512 + MiB)))
part=$(route "${VOL}p1" $MiB)
note "GPU0's path down: the volume: $whole; ${VOLN}p1: $part"
[ "$whole" = "$part" ] || fail "a partition's device memory routed unlike the volume's"
$GP path set "$(path_of 0)" state up || fail "path up"

# stat SYSDIR: reads, read sectors, writes, written sectors.
stat4() { read -r a _ b _ c _ d _ <"$1/stat"; echo "$a $b $c $d"; }
st_v=/sys/block/$VOLN st_1=/sys/block/$VOLN/${VOLN}p1 st_2=/sys/block/$VOLN/${VOLN}p2
set -- $(stat4 $st_v) $(stat4 $st_1) $(stat4 $st_2)
v0="$1 $2 $3 $4" p10="$5 $6 $7 $8" p20="$9 ${10} ${11} ${12}"
retries0=$($GP volume show "$vol" -j | jq .stats.retries)
fio --name=p1 --filename="${VOL}p1" --rw=randwrite --bs=16k --size=32M --direct=1 \
	--ioengine=libaio --iodepth=8 --verify=crc32c --verify_fatal=1 --do_verify=1 \
	--verify_state_save=0 --loops=3 --output-format=json --output=/tmp/fio1.json 2>/tmp/fio1.err &
f1=$!
fio --name=p2 --filename="${VOL}p2" --rw=randread --bs=64k --size=64M --direct=1 \
	--ioengine=libaio --iodepth=8 --loops=4 --output-format=json --output=/tmp/fio2.json 2>/tmp/fio2.err &
f2=$!
sleep 2
# Retried for certain: rail 1's path fails 2 bios (each takes it out of use
# until the next probe, a second later), then rail 0's controller leaves
# under I/O. One after the other: an I/O error on the only path left would
# be the caller's, as on a namespace with one path.
if have_fmr "2 failures injected on rail 1's path under fio"; then
	fmr_fail "$n1" 2
	wait_for 10 fmr_spent || fail "rail 1's path did not fail its 2 bios"
fi
pcie_flap 0 || fail "flap: $flap_err"
note "flap: rail 0's controller $flap_ctrl removed and back as /dev/$flap_ns under I/O"
# fio_failed N: what fio job N printed, its error, and the kernel's last words.
fio_failed() {
	cat /tmp/fio$1.err
	jq -c '.jobs[] | {jobname, error}' /tmp/fio$1.json
	$GP volume show "$vol"
	dmesg | tail -40
	fail "fio on ${VOLN}p$1 failed"
}
wait $f1 || fio_failed 1
wait $f2 || fio_failed 2
[ ! -d $FMR ] || fmr_off "$n1"
retries=$(($($GP volume show "$vol" -j | jq .stats.retries) - retries0))
# fio's counts: reads, read sectors, writes, written sectors.
fio4() {
	jq -r '.jobs[0] | "\(.read.total_ios) \(.read.io_bytes / 512) \(.write.total_ios)" +
		" \(.write.io_bytes / 512)"' "$1"
}
delta() {
	set -- $1 $2
	echo "$(($5 - $1)) $(($6 - $2)) $(($7 - $3)) $(($8 - $4))"
}
f1c=$(fio4 /tmp/fio1.json) f2c=$(fio4 /tmp/fio2.json)
d1=$(delta "$p10" "$(stat4 $st_1)") d2=$(delta "$p20" "$(stat4 $st_2)")
dv=$(delta "$v0" "$(stat4 $st_v)")
note "reads, sectors read, writes, sectors written (retried I/Os: $retries)"
note "  ${VOLN}p1: fio $f1c, stat $d1"
note "  ${VOLN}p2: fio $f2c, stat $d2"
note "  $VOLN:   stat $dv"
[ "$d1" = "$f1c" ] || fail "${VOLN}p1's statistics differ from fio's counts"
[ "$d2" = "$f2c" ] || fail "${VOLN}p2's statistics differ from fio's counts"
set -- $d1 $d2
[ "$dv" = "$(($1 + $5)) $(($2 + $6)) $(($3 + $7)) $(($4 + $8))" ] ||
	fail "the volume's statistics are not the sum of its partitions'"
# No retry proves nothing, unless the kernel told the volume of the
# deletion before any I/O failed on the path (failover_due, guest-lib.sh).
if [ "$retries" = 0 ]; then
	retry_due 0 && fail "no I/O was retried across the flap: the test proved nothing"
	note "$failover_why"
fi
grep -q " ${VOLN}p1 " /proc/diskstats || fail "${VOLN}p1 not in /proc/diskstats"
iostat -d -k -p "$VOLN" >/tmp/iostat.out || fail "iostat"
cat /tmp/iostat.out
kw=$(awk -v d="${VOLN}p1" '$1 == d { print $7 }' /tmp/iostat.out)
set -- $(stat4 $st_1)
[ "$kw" = $(($4 / 2)) ] || fail "iostat: ${VOLN}p1 wrote $kw kB, the kernel says $(($4 / 2))"
iostat -x -d -p "$VOLN" 1 2 >/dev/null || fail "iostat -x"
# A write and an fsync: one write; the empty flush is no I/O of its own.
set -- $(stat4 $st_1)
w0=$3
dd if=/dev/zero of="${VOL}p1" bs=4k count=1 oflag=direct conv=fsync,notrunc 2>/dev/null ||
	fail "dd with fsync"
set -- $(stat4 $st_1)
[ $(($3 - w0)) = 1 ] || fail "a write and an fsync counted as $(($3 - w0)) writes"

# An open partition holds the volume.
exec 3<"${VOL}p2" || fail "open ${VOLN}p2"
out=$($GP volume del "$vol" 2>&1) && fail "a volume with an open partition was removed"
note "volume del with ${VOLN}p2 open: $out"
exec 3<&-
check_dmesg
