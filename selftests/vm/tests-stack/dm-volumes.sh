# SPDX-License-Identifier: GPL-2.0
# Device-mapper tables over gpupath volumes, seen through to the volumes as
# far as gpupathd, which reads each dm disk's table, tells the module (stack
# topology, per-path devices: each of the two namespaces is a volume of its
# two paths), on every kernel:
#  - before gpupathd has said anything of a dm disk: refused, stacked-device;
#  - dm-striped over the two volumes, and dm-linear concatenating them:
#    gpupath's ioctls read and write device memory direct through the table;
#    the bytes read land in the BAR (checked on the host), those written land
#    on the volumes, and both volumes count direct I/O;
#  - the table swapped (dmsetup reload and resume) for dm-crypt over the
#    same volumes: gpupathd hears the change uevent and the disk is refused,
#    stacked-transform, its reads bounced with the decrypted bytes; swapped
#    back to striped, direct again;
#  - a table with a target that neither remaps nor transforms (error):
#    stacked-device;
#  - the netlink command itself: refused without CAP_SYS_ADMIN, for a disk
#    that is not device mapper and for a stale disk sequence number;
#  - gpupathd stopped: its words go with its socket, stacked-device again.
# (The BAR from 16 to 28 MiB: md-volumes takes 40 to 52 in the same guest.)
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
prov=$(bind_bar) || fail "no provider"
# No udev in the guest to make /dev/mapper's nodes: dmsetup makes them.
export DM_DISABLE_UDEV=1
cleanup() {
	[ -z "${gpd:-}" ] || kill "$gpd" 2>/dev/null
	dmsetup remove gpdm 2>/dev/null
	volumes_del_all
	unbind_bar
}
trap cleanup EXIT

stack_volumes
s1=$(blockdev --getsz "$VOL1") s2=$(blockdev --getsz "$VOL2")
# 64 KiB chunks, a whole number of stripes over both.
stripe=$(( (s1 < s2 ? s1 : s2) / 128 * 128 ))
striped="0 $((2 * stripe)) striped 2 128 $VOL1 0 $VOL2 0"
linear="0 $s1 linear $VOL1 0
$s1 $s2 linear $VOL2 0"
# table TABLE: /dev/mapper/gpdm's table swapped for TABLE, as LVM does.
table() {
	dmsetup reload gpdm --table "$1" || fail "dmsetup reload: $1"
	dmsetup resume gpdm || fail "dmsetup resume"
}

dmsetup create gpdm --table "$striped" || fail "dmsetup create (striped)"
expect_io 3 "mode=none reason=stacked-device" -p direct read "$prov" /dev/mapper/gpdm 0 $MiB 0

gpd_start /tmp/gpupathd.log
wait_for 10 grep -q "dm-.*: table striped: remaps only" /tmp/gpupathd.log ||
	{ cat /tmp/gpupathd.log; fail "gpupathd did not tell the module of the striped table"; }
grep "table striped" /tmp/gpupathd.log | sed 's/^/gpupathd: /'
stack_direct /dev/mapper/gpdm 801 16 "dm-striped"

table "$linear"
wait_for 10 grep -q "table linear: remaps only" /tmp/gpupathd.log ||
	{ cat /tmp/gpupathd.log; fail "gpupathd did not hear of the linear table"; }
# Across the boundary of the two volumes, both ways: each counts direct I/O.
d1=$(direct_ios "$vol1") d2=$(direct_ios "$vol2")
b=$((s1 * 512 - MiB))
$PATTERN fill /dev/mapper/gpdm $b $((2 * MiB)) 802 &&
	blockdev --flushbufs /dev/mapper/gpdm || fail "linear: the pattern across the boundary"
expect_io 0 "mode=direct reason=none" -p direct -o $((20 * MiB)) read "$prov" \
	/dev/mapper/gpdm $b $((2 * MiB)) 802
host_expect bar.img "$(bar_offset)" $((2 * MiB)) 802 $b
expect_io 0 "mode=direct reason=none" -p direct write "$prov" /dev/mapper/gpdm $b \
	$((2 * MiB)) 852
dd if=/dev/mapper/gpdm of=/tmp/lin.w bs=$MiB skip=$((b / MiB)) count=2 iflag=direct 2>/dev/null &&
	$PATTERN check /tmp/lin.w 0 $((2 * MiB)) 852 $b ||
	fail "linear: the direct write across the boundary is not on the volumes"
n1=$(($(direct_ios "$vol1") - d1)) n2=$(($(direct_ios "$vol2") - d2))
note "dm-linear: direct across the boundary of the two volumes; direct I/Os on them: $n1, $n2"
[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] || fail "linear: a volume below had no direct I/O"

# dm-crypt over the same volumes: the table changes, the disk stays.
key=$(printf '%064d' 7)
table "0 $s1 crypt aes-xts-plain64 $key 0 $VOL1 0"
wait_for 10 grep -q "table crypt: touches the data" /tmp/gpupathd.log ||
	{ cat /tmp/gpupathd.log; fail "gpupathd did not hear of the crypt table"; }
$PATTERN gen $MiB 803 | dd of=/dev/mapper/gpdm bs=$MiB oflag=direct 2>/dev/null ||
	fail "crypt: writing the pattern"
expect_io 3 "mode=none reason=stacked-transform" -p direct read "$prov" /dev/mapper/gpdm 0 $MiB 803
expect_io 0 "mode=bounce reason=stacked-transform" read "$prov" /dev/mapper/gpdm 0 $MiB 803
# What is on the volume is ciphertext: the pattern went through dm-crypt.
dd if="$VOL1" of=/tmp/crypt.raw bs=$MiB count=1 iflag=direct 2>/dev/null
! $PATTERN check /tmp/crypt.raw 0 $MiB 803 0 2>/dev/null ||
	fail "crypt: the volume holds the plaintext"

table "$striped"
wait_for 10 sh -c 'grep "table " /tmp/gpupathd.log | tail -n 1 | grep -q "table striped"' ||
	{ cat /tmp/gpupathd.log; fail "gpupathd did not hear of the striped table again"; }
stack_direct /dev/mapper/gpdm 804 24 "dm-striped, after crypt"

table "0 $s1 linear $VOL1 0
$s1 2048 error"
wait_for 10 grep -q "table linear,error: not seen through" /tmp/gpupathd.log ||
	{ cat /tmp/gpupathd.log; fail "gpupathd did not hear of the linear,error table"; }
expect_io 3 "mode=none reason=stacked-device" -p direct read "$prov" /dev/mapper/gpdm 0 $MiB 0

# The command itself, by hand (the kernel's own YNL client).
[ -f /out/ynl/cli.py ] || fail "no YNL client in /out/ynl"
mm=$(dmsetup info -c --noheadings --separator : -o major,minor gpdm) || fail "dmsetup info"
mm=$(echo $mm) seq=$(cat /sys/dev/block/$mm/diskseq) || fail "no diskseq for $mm"
v1=$(basename "$(readlink -f "$VOL1")")
vmm=$(cat /sys/block/$v1/dev)
# stack_set MAJOR MINOR DISKSEQ: the command, kind remap; its output in $out.
stack_set() {
	out=$($asif python3 /out/ynl/cli.py --spec /src/Documentation/netlink/specs/gpupath.yaml \
		--no-schema --do stack-set \
		--json "{\"stack\": {\"major\": $1, \"minor\": $2, \"diskseq\": $3, \"kind\": 1}}" 2>&1)
}
# refused WANT MAJOR MINOR DISKSEQ: stack-set fails, saying WANT.
refused() {
	local want=$1
	shift
	stack_set "$@" && fail "stack-set $* was taken"
	echo "stack-set $*${asif:+ (CAP_NET_ADMIN only)}: $(echo "$out" | tail -n 1)"
	echo "$out" | grep -q "$want" || fail "stack-set $*: expected '$want'"
}
asif=
refused "sequence number" "${mm%:*}" "${mm#*:}" $((seq + 1000))
refused "no device-mapper disk" "${vmm%:*}" "${vmm#*:}" "$(cat /sys/block/$v1/diskseq)"
refused "no device-mapper disk" 4095 1048575 1
refused "not a major number" 4096 0 1
asif="/usr/bin/setpriv --inh-caps=-all --bounding-set=-all,+net_admin"
refused CAP_SYS_ADMIN "${mm%:*}" "${mm#*:}" "$seq"
asif=
note "stack-set refused: a stale diskseq, a volume, no disk, no device number, CAP_NET_ADMIN alone"
# It still holds the daemon's word: linear,error.
expect_io 3 "mode=none reason=stacked-device" -p direct read "$prov" /dev/mapper/gpdm 0 $MiB 0

# A word lasts as long as the socket that said it: gpupathd gone, the
# striped table is no longer seen through.
table "$striped"
wait_for 10 sh -c 'grep "table " /tmp/gpupathd.log | tail -n 1 | grep -q "table striped"' ||
	{ cat /tmp/gpupathd.log; fail "gpupathd did not hear of the striped table, the third time"; }
expect_io 0 "mode=direct reason=none" -p direct read "$prov" /dev/mapper/gpdm 0 $MiB 804
gpd_stop
expect_io 3 "mode=none reason=stacked-device" -p direct read "$prov" /dev/mapper/gpdm 0 $MiB 0
note "gpupathd stopped: its word on the striped table went with it"

dmsetup remove gpdm || fail "dmsetup remove"
check_dmesg
exit 0
