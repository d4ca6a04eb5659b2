# SPDX-License-Identifier: GPL-2.0
# cgroup v2 I/O control of gpupath I/O: tenants are cgroups (ta, tb) whose
# jobs run as different users. Rates are measured over 10 s windows and
# printed; a limit must hold within 10%, a weight split within 15%.
#  - io.max (rbps) on the raw namespace holds for device-memory reads
#    (GPUPATH_IOC_IO), while an unlimited tenant next to it runs on.
#  - io.max on a volume is the one knob its users need: it holds for device
#    memory (one I/O at a time, and batches; an unlimited tenant next to it
#    runs on), host memory (fio) and a file on ext4 read straight into
#    device memory, all through the volume; cuFile's reads are charged to
#    the tenant's cgroup on the volume (io.stat), as those are.
#  - io.weight (iocost, with a fixed cost model) splits a namespace 1:3
#    between two tenants, and the same split holds through a volume on that
#    namespace: the volume's clones carry the tenant's cgroup to the path,
#    where the weight is set (iocost acts on a request queue, which a
#    bio-based volume does not have).
. /src/selftests/vm/guest-lib.sh

MiB=1048576
NS=/dev/nvme0n1
LIMIT=$((4 * MiB))
WIN=10
load_module
prov=$(bind_bar) || fail "no provider"
cgroup_setup
mkdir -p $CG/ta $CG/tb
M=/mnt/tenants
dd if=$NS of=/tmp/ti.save bs=512 count=1 iflag=direct 2>/dev/null || fail "save sector 0"
cleanup() {
	kill $(jobs -p) 2>/dev/null
	wait
	umount -l $M 2>/dev/null
	volumes_del_all
	echo "$(cat /sys/block/nvme0n1/dev) enable=0" >$CG/io.cost.qos 2>/dev/null
	dd if=/tmp/ti.save of=$NS bs=512 count=1 oflag=direct 2>/dev/null
	blockdev --rereadpt $NS 2>/dev/null
	rmdir $CG/ta $CG/tb 2>/dev/null
	unbind_bar
}
trap cleanup EXIT
chmod 0666 $NS

# bench_mbs OUT CG UID DEV [ARGS]: device-memory reads of DEV for $WIN s in
# cgroup CG as UID; MB/s (MiB) into OUT.
bench_mbs() {
	local out=$1 cg=$2 uid=$3 dev=$4
	shift 4
	in_cg "$cg" "$uid" gpupath-bench -d "$dev" -p "$prov" -m direct -s 1M -S 64M -D $WIN -j \
		"$@" >"$out.json" 2>&1 || { cat "$out.json"; fail "gpupath-bench in $cg"; }
	jq -e '.modes.direct.errors == 0 and .modes.direct.mismatches == 0' "$out.json" \
		>/dev/null || { cat "$out.json"; fail "gpupath-bench in $cg: errors"; }
	jq '.modes.direct.gbps * 1e9 / 1048576 * 100 | round / 100' "$out.json" >"$out"
}
# fio_mbs OUT CG UID DEV: host-memory reads of DEV (O_DIRECT) likewise.
fio_mbs() {
	in_cg "$2" "$3" fio --name=t --filename="$4" --rw=randread --bs=1M --size=64M \
		--direct=1 --ioengine=libaio --iodepth=4 --time_based --runtime=$WIN \
		--output-format=json >"$1.json" 2>"$1.err" || { cat "$1.err"; fail "fio in $2"; }
	# fio may print notes before its JSON.
	sed -n '/^{/,$p' "$1.json" | jq '.jobs[0].read.bw_bytes / 1048576 * 100 | round / 100' >"$1" ||
		{ head -5 "$1.json"; fail "fio in $2: no JSON"; }
}
# within RATE WANT PCT: RATE is within PCT% of WANT.
within() { awk -v r="$1" -v w="$2" -v p="$3" 'BEGIN { exit !(r >= w * (1 - p / 100) && r <= w * (1 + p / 100)) }'; }
# limited WHAT RATE: RATE (MiB/s) holds $LIMIT within 10%.
limited() {
	note "$1: $2 MiB/s under io.max rbps=$((LIMIT / MiB)) MiB/s"
	within "$2" $((LIMIT / MiB)) 10 || fail "$1: the io.max limit did not hold"
}
setmax() { echo "$(cat /sys/block/$1/dev) $2" >$CG/ta/io.max || fail "io.max $1 $2"; }
# beside WHAT DEV: ta (limited) and tb (not) read DEV at once; ta holds the
# limit, tb runs on well above it.
beside() {
	bench_mbs /tmp/a ta 1001 "$2" &
	bench_mbs /tmp/b tb 1002 "$2"
	wait $! || fail "the limited tenant's job"
	limited "$1" "$(cat /tmp/a)"
	note "  the unlimited tenant next to it: $(cat /tmp/b) MiB/s ($(cat /tmp/solo) alone)"
	awk -v b="$(cat /tmp/b)" -v l=$((LIMIT / MiB)) 'BEGIN { exit !(b > 3 * l) }' ||
		fail "the unlimited tenant was held near the other's limit"
}

# ---- io.max on the raw namespace ------------------------------------------
bench_mbs /tmp/solo tb 1002 $NS
setmax nvme0n1 "rbps=$LIMIT"
beside "nvme0n1, device memory" $NS
setmax nvme0n1 "rbps=max"

# ---- io.max on a volume ----------------------------------------------------
volume_new
$GP path add "$vol" $NS >/dev/null || fail "path add"
chmod 0666 "$VOL"
VOLN=${VOL#/dev/}
setmax "$VOLN" "rbps=$LIMIT"
beside "$VOLN, device memory" "$VOL"
bench_mbs /tmp/a ta 1001 "$VOL" -q 8
limited "$VOLN, device memory in batches of 8" "$(cat /tmp/a)"
fio_mbs /tmp/a ta 1001 "$VOL"
limited "$VOLN, host memory (fio)" "$(cat /tmp/a)"
# A file on ext4 in a partition of the volume, from 512 MiB.
printf 'label: dos\nstart=1048576, size=524288\n' | sfdisk -q "$VOL" >/dev/null 2>&1 ||
	fail "sfdisk"
wait_for 10 test -b "${VOL}p1" || fail "no ${VOL}p1"
mkfs.ext4 -q -F "${VOL}p1" && mkdir -p $M && mount -t ext4 "${VOL}p1" $M || fail "ext4 on ${VOL}p1"
gpupath-bench -d $M/data -F 64M -p "$prov" -m host -D 0.1 >/dev/null || fail "bench -F"
chmod 0644 $M/data
echo 3 >/proc/sys/vm/drop_caches
bench_mbs /tmp/a ta 1001 $M/data
limited "a file on ext4 on $VOLN, device memory" "$(cat /tmp/a)"
# cuFile (libgpupath-cufile) in the tenant: its reads are charged to the
# tenant's cgroup on the volume (io.stat), the bios io.max throttles.
$PATTERN gen $((8 * MiB)) 471 >$M/cuf && chmod 0644 $M/cuf || fail "cuFile's file"
echo 3 >/proc/sys/vm/drop_caches
rbytes() {
	awk -v d="$(cat /sys/block/$VOLN/dev)" '$1 == d { for (i = 2; i <= NF; i++)
		if (sub(/^rbytes=/, "", $i)) print $i }' $CG/ta/io.stat
}
up() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
r0=$(rbytes) t0=$(up)
out=$(in_cg ta 1001 $CUFILE -1 $((8 * MiB)) "$prov" $M/cuf 471) || fail "cuFile in ta: $out"
r1=$(rbytes) t1=$(up)
echo "$out" | grep -q "mode=direct" || fail "cuFile in ta did not go direct: $out"
note "cuFile: 8 MiB read direct in ta, $(((r1 - ${r0:-0}) / MiB)) MiB charged to ta on $VOLN," \
	"in $((t1 - t0)) ms ($(awk -v t=$((t1 - t0)) 'BEGIN { printf "%.2f", 8000 / t }') MiB/s)"
[ $((r1 - ${r0:-0})) -ge $((8 * MiB)) ] || fail "cuFile's reads were not charged to ta"
umount $M
setmax "$VOLN" "rbps=max"

# ---- io.weight: iocost on the namespace, fixed model, vrate held at 100% ---
dev=$(cat /sys/block/nvme0n1/dev)
echo "$dev ctrl=user model=linear rbps=$((16 * MiB)) rseqiops=4000 rrandiops=4000" \
	"wbps=$((16 * MiB)) wseqiops=4000 wrandiops=4000" >$CG/io.cost.model || fail "io.cost.model"
echo "$dev enable=1 ctrl=user min=100.00 max=100.00" >$CG/io.cost.qos || fail "io.cost.qos"
echo "default 100" >$CG/ta/io.weight && echo "default 300" >$CG/tb/io.weight || fail "io.weight"
# split DEV: both tenants at once; the ratio tb:ta must be 3 within 15%.
split() {
	bench_mbs /tmp/a ta 1001 "$1" &
	bench_mbs /tmp/b tb 1002 "$1"
	wait $! || fail "ta's job"
	r=$(awk -v a="$(cat /tmp/a)" -v b="$(cat /tmp/b)" 'BEGIN { printf "%.2f", b / a }')
	note "$1, io.weight 100:300: ta $(cat /tmp/a) MiB/s, tb $(cat /tmp/b) MiB/s, ratio $r"
	within "$r" 3 15 || fail "$1: weights 100:300 split the bandwidth $r:1"
}
split $NS
split "$VOL"
check_dmesg
