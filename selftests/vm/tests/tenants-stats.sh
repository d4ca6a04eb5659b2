# SPDX-License-Identifier: GPL-2.0
# I/O counters per tenant (cgroup v2), in gpupath stats -j and the
# Prometheus output (label cgroup):
#  - tenant ta (user 1001) reads 3 MiB into device memory direct from the
#    NVMe namespace; tenant tb (user 1002) reads 1 MiB into device memory
#    from the virtio-blk disk, which is refused (no-p2p-queue) and bounced
#    by libgpupath through host memory, and 1 MiB into host memory: each
#    cgroup's counters grow by exactly that, and the cgroups' direct and
#    refused counts add up to the provider's;
#  - 70 more cgroups with one I/O each: at most 64 are kept apart, the rest
#    count in "other", and no count is lost; removed cgroups give their
#    slots to new ones, their counts moving to "other";
#  - -j and --prometheus agree sample for sample.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
NS=/dev/nvme0n1
OFF=$((240 * MiB))
load_module
prov=$(bind_bar) || fail "no provider"
cgroup_setup
vd=$(for b in /sys/block/vd*; do [ -e "$b" ] && echo "/dev/${b##*/}"; done | head -n 1)
[ -b "$vd" ] || fail "no virtio-blk disk"
mkdir -p $CG/ta $CG/tb
chmod 0666 $NS "$vd"
cleanup() {
	for d in $CG/ta $CG/tb $CG/many*; do rmdir "$d" 2>/dev/null; done
	unbind_bar
}
trap cleanup EXIT
$PATTERN fill $NS $OFF $((3 * MiB)) 811 || fail "pattern onto $NS"
$PATTERN gen $((2 * MiB)) 812 | dd of="$vd" bs=$MiB oflag=direct 2>/dev/null ||
	fail "pattern onto $vd"

# io CG UID WANT ARGS...: gp-io ARGS as UID in CG; its line must match WANT.
io() {
	local cg=$1 uid=$2 want=$3 out
	shift 3
	out=$(in_cg "$cg" "$uid" $GPIO "$@") || fail "gp-io $* in $cg: $out"
	echo "$out" | grep -Eq "$want" || fail "gp-io $* in $cg: '$out', expected /$want/"
}
# snap: the cgroups' and the provider's counters, as JSON.
snap() {
	$GP stats -j | jq -c --argjson p "$prov" '{
		cg: [.cgroups[] | {key: (if .other then "other" elif .cgroup == "" then
			"id:\(.id)" else .cgroup end),
			value: {d: .direct_ios, db: .direct_bytes, h: .host_ios, hb: .host_bytes,
				r: ([.refused[].ios] | add // 0), rb: ([.refused[].bytes] | add // 0),
				q: (.refused["no-p2p-queue"].ios // 0)}}] | from_entries,
		p: (.providers[] | select(.id == $p) |
			{d: .stats.direct_ios, db: .stats.direct_bytes,
			 r: ([.stats.refused[].ios] | add // 0)})}'
}
# delta A B CG FIELD: how much FIELD of cgroup CG grew from snapshot A to B.
delta() {
	jq -n --argjson a "$1" --argjson b "$2" --arg c "$3" --arg f "$4" \
		'($b.cg[$c][$f] // 0) - ($a.cg[$c][$f] // 0)'
}
# sums A B: the growth of the cgroups' direct and refused I/Os, and the provider's.
sums() {
	jq -n -c --argjson a "$1" --argjson b "$2" '{
		cgroups: [([$b.cg[].d] | add) - ([$a.cg[].d] | add),
			  ([$b.cg[].r] | add) - ([$a.cg[].r] | add)],
		provider: [$b.p.d - $a.p.d, $b.p.r - $a.p.r]}'
}

s0=$(snap)
io ta 1001 "mode=direct reason=none ios=3" -b 3 -p direct read "$prov" $NS $OFF $((3 * MiB)) 811
io tb 1002 "mode=bounce reason=no-p2p-queue" -p auto read "$prov" "$vd" 0 $MiB 812
io tb 1002 "mode=host reason=none" -p auto read host "$vd" $MiB $MiB 812
s1=$(snap)
$GP stats | sed -n '/^cgroup/,$p'
for chk in "/ta d 3" "/ta db $((3 * MiB))" "/ta r 0" "/ta hb 0" \
	"/tb d 0" "/tb q 1" "/tb rb $MiB" "/tb hb $((2 * MiB))"; do
	set -- $chk
	got=$(delta "$s0" "$s1" "$1" "$2")
	[ "$got" = "$3" ] || fail "cgroup $1: $2 grew by $got, expected $3"
done
note "ta: 3 direct I/Os, 3 MiB; tb: 1 refused (no-p2p-queue, bounced), 2 MiB through host memory"
s=$(sums "$s0" "$s1")
note "direct and refused I/Os: cgroups $(echo "$s" | jq -c .cgroups), provider $(echo "$s" | jq -c .provider)"
echo "$s" | jq -e '.cgroups == .provider' >/dev/null ||
	fail "the cgroups' counts do not add up to the provider's"

# More cgroups than the table keeps apart: no count is lost.
i=0
while [ $i -lt 70 ]; do
	mkdir -p $CG/many$i
	io many$i 1003 "mode=direct" -p direct read "$prov" $NS $OFF $MiB 811
	i=$((i + 1))
done
s2=$(snap)
n=$(echo "$s2" | jq '.cg | length')
other=$(delta "$s1" "$s2" other d)
s=$(sums "$s1" "$s2")
note "70 cgroups more: $n entries ($other of the I/Os counted in other);" \
	"direct I/Os: cgroups $(echo "$s" | jq '.cgroups[0]'), provider $(echo "$s" | jq '.provider[0]')"
[ "$n" -le 65 ] || fail "$n cgroup entries: more than 64 and other"
[ "$other" -ge 6 ] || fail "only $other I/Os in other: the table kept more than 64 apart"
echo "$s" | jq -e '.cgroups == .provider and .cgroups[0] == 70' >/dev/null ||
	fail "I/Os lost past the table's end: $s"
# Removed cgroups give their slots back; their counts go to other.
i=0
while [ $i -lt 70 ]; do rmdir $CG/many$i; i=$((i + 1)); done
mkdir -p $CG/late
io late 1003 "mode=direct" -p direct read "$prov" $NS $OFF $MiB 811
s3=$(snap)
rmdir $CG/late
[ "$(delta "$s2" "$s3" /late d)" = 1 ] || fail "a new cgroup got no slot of a removed one"
s=$(sums "$s2" "$s3")
echo "$s" | jq -e '.cgroups == .provider' >/dev/null || fail "counts lost when slots were reused: $s"
note "a new cgroup took a removed one's slot; nothing lost"
prom_check tenants-stats
