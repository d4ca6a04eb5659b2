# SPDX-License-Identifier: GPL-2.0
# Fuzzing the module's two interfaces (selftests/vm/fuzz.c): generic-netlink
# requests, then /dev/gpupath ioctls with a BAR provider bound and a
# null_blk device to do I/O against. Seeded: FUZZ_SEED (default 1) repeats
# a run exactly. FUZZ_NL and FUZZ_IOCTL inputs each (default 20000; the
# debug kernel's long run is `make fuzz-vm`). What is looked for is in the
# kernel log (a splat panics a debug kernel) and in kmemleak; the module
# must unload afterwards.
. /src/selftests/vm/guest-lib.sh

FUZZ=/usr/libexec/gpupath/gp-fuzz
seed=${FUZZ_SEED:-1}
n_nl=${FUZZ_NL:-20000}
n_ioctl=${FUZZ_IOCTL:-20000}
unload_module
mark_dmesg
kmemleak_clear
modprobe null_blk nr_devices=1 gb=1 || fail "null_blk"
load_module
cleanup() {
	unbind_bar
	[ ! -d /sys/module/gpupath ] || rmmod gpupath
	rmmod null_blk 2>/dev/null
}
trap cleanup EXIT

# accepted LINE: the count of accepted inputs in a summary line.
accepted() { echo "$1" | sed -n 's/.*: \([0-9]*\) inputs: \([0-9]*\) accepted.*/\2/p'; }

t0=$(cut -d' ' -f1 /proc/uptime)
out=$($FUZZ nl "$seed" "$n_nl" 2>/dev/null) || fail "gp-fuzz nl exited $?"
t1=$(cut -d' ' -f1 /proc/uptime)
note "$out"
echo "$out" | grep -q "^netlink: $n_nl inputs:" || fail "netlink fuzzing did not finish"
# Some inputs must get through the policies to the handlers, or the
# fuzzing tests nothing but the attribute parser.
[ "$(accepted "$out")" -gt $((n_nl / 100)) ] || fail "too few netlink inputs accepted"
note "netlink: seed $seed, $n_nl inputs in" \
	"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s"

prov=$(bind_bar) || fail "bind the BAR"
t0=$(cut -d' ' -f1 /proc/uptime)
out=$($FUZZ ioctl "$seed" "$n_ioctl" /dev/nullb0 2>/dev/null) || fail "gp-fuzz ioctl exited $?"
t1=$(cut -d' ' -f1 /proc/uptime)
note "$out"
echo "$out" | grep -q "^ioctl: $n_ioctl inputs:" || fail "ioctl fuzzing did not finish"
[ "$(accepted "$out")" -gt $((n_ioctl / 100)) ] || fail "too few ioctls accepted"
note "ioctl: seed $seed, $n_ioctl inputs in" \
	"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s, provider $prov"

# Afterwards: nothing left in use, the BAR given back, the module gone.
$GP provider show -j | jq -e '([.providers[].allocated] | add // 0) == 0' >/dev/null ||
	fail "device memory still allocated: $($GP provider show)"
unbind_bar
rmmod gpupath || fail "the module does not unload after fuzzing"
if kmemleak_check "fuzzing"; then
	note "kmemleak: clean"
fi
check_dmesg
