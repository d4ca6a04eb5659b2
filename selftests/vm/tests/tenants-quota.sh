# SPDX-License-Identifier: GPL-2.0
# Device-memory quotas of a provider (the 64 MiB ivshmem BAR; at most
# 6 MiB of it used at once, below the regions other tests leave for the
# host to check, from 11 MiB up): at most
# 2 MiB per user and 3 MiB per cgroup (with its descendants), set with
# `gpupath provider set`. Tenants are users in cgroups; each holds its
# allocation (gp-io -H) while the next one asks.
#  - what each user and cgroup holds shows in provider show and in the
#    Prometheus metrics, and adds up to what the provider has allocated;
#  - an allocation over the user's limit, over its cgroup's, or over an
#    ancestor cgroup's fails with EDQUOT and a message naming the limit and
#    the holder, and nothing is charged or leaked;
#  - a limit lowered below what is held takes nothing back;
#  - a cgroup's own limit replaces the provider's for it, "none" lifts it,
#    "default" gives the provider's back;
#  - bad input is refused with a message and changes nothing: no such
#    provider, a negative, fractional or absurd size, a limit larger than
#    the provider, a cgroup that does not exist, the root cgroup, a relative
#    path, an unknown keyword, a user without CAP_SYS_ADMIN (EPERM);
#  - with every holder gone nothing is held; the module unloads with limits
#    set, and kmemleak finds nothing.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
KiB=1024
NS=/dev/nvme0n1
OFF=$((900 * MiB))
load_module
prov=$(bind_bar) || fail "no provider"
cgroup_setup
mkdir -p $CG/ta/job1 $CG/tb
chmod 0666 $NS
cleanup() {
	for h in 1 2 3; do eval "exec $((h + 4))>&-" 2>/dev/null; done
	wait
	rmdir $CG/ta/job1 $CG/ta $CG/tb 2>/dev/null
	unbind_bar
}
trap cleanup EXIT
kmemleak_clear

show() { $GP provider show "$prov" -j; }
# held KEY VALUE: bytes the usage entry with .KEY == VALUE holds (0: none).
held() {
	show | jq --arg k "$1" --arg v "$2" \
		'[.usage[] | select((.[$k] | tostring) == $v) | .bytes] | add // 0'
}
# hold N CG UID SIZE: a device-memory buffer of SIZE held by UID in CG until
# release N; waits until it is held.
hold() {
	rm -f /tmp/hold$1
	mkfifo /tmp/hold$1
	in_cg "$2" "$3" $GPIO -H -p direct write "$prov" $NS $((OFF + $1 * 16 * MiB)) "$4" 70$1 \
		</tmp/hold$1 >/tmp/hold$1.out 2>&1 &
	eval "exec $(($1 + 4))>/tmp/hold$1"
	wait_for 20 grep -q "mode=" /tmp/hold$1.out || fail "hold $1: nothing printed"
	grep -q "mode=direct" /tmp/hold$1.out || fail "hold $1: $(cat /tmp/hold$1.out)"
}
release() { eval "exec $(($1 + 4))>&-"; }
# quota_refused CG UID SIZE PATTERN: an allocation that must fail with
# EDQUOT, its message matching PATTERN, and change nothing held.
quota_refused() {
	local cg=$1 uid=$2 size=$3 pat=$4 before out
	before=$(show | jq -c '[.allocated, .usage]')
	out=$(in_cg "$cg" "$uid" $GPIO -p direct write "$prov" $NS $OFF "$size" 709 </dev/null)
	note "user $uid in $cg, $((size / MiB)) MiB: $out"
	echo "$out" | grep -Eq "error=Disk quota exceeded \(provider $prov: .*$pat" ||
		fail "expected EDQUOT naming /$pat/"
	[ "$(show | jq -c '[.allocated, .usage]')" = "$before" ] ||
		fail "a refused allocation changed what is held"
}

# ---- bad input ------------------------------------------------------------
# bad ARGS... MESSAGE: gpupath provider set ARGS fails saying MESSAGE, and
# the limits stay as they were.
bad() {
	local msg=$1 before out
	shift
	before=$(show | jq -c '[.user_limit, .cgroup_limit, .cgroup_limits]')
	out=$("$@" 2>&1) && fail "accepted: $*"
	note "$*: $out"
	echo "$out" | grep -q -- "$msg" || fail "expected '$msg'"
	[ "$(show | jq -c '[.user_limit, .cgroup_limit, .cgroup_limits]')" = "$before" ] ||
		fail "a refused set changed the limits"
}
bad "no provider with this id" $GP provider set 999 user-limit 1M
bad "not a size" $GP provider set "$prov" user-limit -5M
bad "not a size" $GP provider set "$prov" cgroup-limit 1.5M
bad "not a size" $GP provider set "$prov" user-limit 12Q
bad "too large" $GP provider set "$prov" user-limit 99999999999999999999
bad "too large" $GP provider set "$prov" user-limit 99999999T
bad "larger than the provider's memory" $GP provider set "$prov" user-limit 1T
bad "larger than the provider's memory" $GP provider set "$prov" user-limit 8M cgroup-limit 65M
bad "unknown keyword" $GP provider set "$prov" group-limit 1M
bad "given twice" $GP provider set "$prov" user-limit 1M user-limit 2M
bad "Usage" $GP provider set "$prov"
bad "Operation not permitted" /usr/bin/setpriv --reuid 1001 --regid 1001 --clear-groups \
	$GP provider set "$prov" user-limit 1M
bad "not a provider id" $GP provider set 0x-1 user-limit 1M
bad "no such cgroup" $GP provider set "$prov" cgroup /no/such/tenant cgroup-limit 1M
bad "root cgroup is not charged" $GP provider set "$prov" cgroup / cgroup-limit 1M
bad "a cgroup is a path below" $GP provider set "$prov" cgroup ta cgroup-limit 1M
bad "larger than the provider's memory" $GP provider set "$prov" cgroup /ta cgroup-limit 1G
bad "needs cgroup-limit" $GP provider set "$prov" cgroup /ta user-limit 1M
bad "needs cgroup PATH" $GP provider set "$prov" cgroup-limit default

# ---- limits ---------------------------------------------------------------
$GP provider set "$prov" user-limit 2M cgroup-limit 3MiB || fail "provider set"
show | jq -e '.user_limit == 2097152 and .cgroup_limit == 3145728' >/dev/null ||
	fail "limits not as set: $(show | jq -c '[.user_limit, .cgroup_limit]')"
$GP provider show "$prov" | grep -q "limits: 2 MiB per user, 3 MiB per cgroup" ||
	fail "provider show does not print the limits"

hold 1 ta 1001 $MiB
quota_refused ta 1001 $((2 * MiB)) "user 1001 holds 1024 KiB, its limit is 2048 KiB"
hold 2 ta 1002 $MiB
quota_refused ta 1003 $((2 * MiB)) "cgroup /ta holds 2048 KiB, its limit is 3072 KiB"
quota_refused ta/job1 1004 $((2 * MiB)) "cgroup /ta holds 2048 KiB, its limit is 3072 KiB"
quota_refused tb 1005 $((4 * MiB)) \
	"user 1005 holds 0 KiB, its limit is 2048 KiB; cgroup /tb holds 0 KiB, its limit is 3072 KiB"
hold 3 tb 1003 $((2 * MiB))
$GP provider show "$prov"
show >/tmp/q.json
for kv in "uid 1001 $MiB" "uid 1002 $MiB" "uid 1003 $((2 * MiB))" \
	"cgroup /ta $((2 * MiB))" "cgroup /tb $((2 * MiB))"; do
	set -- $kv
	[ "$(held "$1" "$2")" = "$3" ] || fail "$1 $2 holds $(held "$1" "$2"), expected $3"
done
jq -e '([.usage[] | select(.uid) | .bytes] | add) == .allocated' /tmp/q.json >/dev/null ||
	fail "what the users hold does not add up to the provider's allocated bytes"
$GP stats --prometheus >/tmp/q.prom || fail "stats --prometheus"
grep "gpupath_provider_held_bytes\|_limit_bytes" /tmp/q.prom
grep -q "^gpupath_provider_held_bytes{provider=\"$prov\",.*cgroup=\"/ta\"} $((2 * MiB))$" \
	/tmp/q.prom || fail "metrics: cgroup /ta"
grep -q "^gpupath_provider_held_bytes{provider=\"$prov\",.*uid=\"1001\"} $MiB$" \
	/tmp/q.prom || fail "metrics: uid 1001"
grep -q "^gpupath_provider_user_limit_bytes{provider=\"$prov\".*} $((2 * MiB))$" /tmp/q.prom ||
	fail "metrics: the user limit"

# A cgroup's own limit, in place of the provider's; then none; then the default.
$GP provider set "$prov" cgroup /tb cgroup-limit 2M || fail "cgroup /tb cgroup-limit 2M"
$GP provider show "$prov" | grep -q "limit of cgroup /tb: 2 MiB" || fail "show: /tb's limit"
show | jq -e '.cgroup_limits == [{"cgroup": "/tb", "cgroup_id": .cgroup_limits[0].cgroup_id,
	"limit": 2097152}]' >/dev/null || fail "-j: /tb's limit: $(show | jq -c .cgroup_limits)"
quota_refused tb 1006 $MiB "cgroup /tb holds 2048 KiB, its limit is 2048 KiB"
$GP provider set "$prov" cgroup /tb cgroup-limit none || fail "cgroup /tb cgroup-limit none"
io_out=$(in_cg tb 1006 $GPIO -p direct write "$prov" $NS $OFF $((2 * MiB)) 709 </dev/null) ||
	fail "no limit for /tb, yet: $io_out"
note "cgroup /tb without a limit: 4 MiB held at once ($io_out)"
$GP provider set "$prov" cgroup /tb cgroup-limit default || fail "cgroup-limit default"
show | jq -e '.cgroup_limits == [] and .cgroup_limit == 3145728' >/dev/null ||
	fail "cgroup-limit default left $(show | jq -c '[.cgroup_limit, .cgroup_limits]')"
quota_refused tb 1006 $((2 * MiB)) "cgroup /tb holds 2048 KiB, its limit is 3072 KiB"

# A lower limit takes nothing back; the next allocation is refused.
$GP provider set "$prov" user-limit 1M || fail "lower the user limit"
[ "$(held uid 1003)" = $((2 * MiB)) ] || fail "lowering the limit took memory back"
quota_refused tb 1003 $MiB "user 1003 holds 2048 KiB, its limit is 1024 KiB"
$GP provider set "$prov" user-limit none || fail "user-limit none"
show | jq -e '.user_limit == 0 and .cgroup_limit == 3145728' >/dev/null ||
	fail "user-limit none changed the wrong limit"

release 1
release 2
release 3
wait
wait_for 10 sh -c "[ \"\$($GP provider show $prov -j | jq '.allocated')\" = 0 ]" ||
	fail "memory still allocated after every holder left"
show | jq -e '.usage == []' >/dev/null || fail "usage left after every holder left: $(show)"
note "every holder gone: nothing allocated, nothing held"

# The module goes with limits in place, a cgroup's own among them; nothing leaks.
$GP provider set "$prov" user-limit 2M cgroup-limit 3M || fail "limits back"
$GP provider set "$prov" cgroup /ta cgroup-limit 2M || fail "a limit for /ta"
unbind_bar
unload_module
load_module
kmemleak_check "quotas" || note "kmemleak: not in this kernel"
