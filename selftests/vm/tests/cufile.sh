# SPDX-License-Identifier: GPL-2.0
# The cuFile API on gpupath: gp-cufile, a program written against cufile.h
# and linked against libcufile.so.0, run with gpupath's libcufile.so.0 in its
# place (LD_LIBRARY_PATH). It reads a pattern from the emulated NVMe into
# gpupath device memory (directly: the switch topology), batches, writes,
# and checks every error code it provokes; the bytes it read are checked in
# the BAR's backing file on the host, and what it wrote in nvme.img. First
# the same program on a regular file in the guest's root file system, which
# the module refuses (fs-unsupported): through the file system (compat).
# (Files on ext4 and XFS, direct: file.sh.)
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
MiB=1048576
BASE=$((224 * MiB))
load_module
prov=$(bind_bar) || fail "no provider"
size=$(blockdev --getsize64 $NS)
# Pattern 901 over 4 MiB at BASE and over the last 4 KiB (positions = offsets).
$PATTERN fill $NS $BASE $((4 * MiB)) 901 && $PATTERN fill $NS $((size - 4096)) 4096 901 ||
	fail "pattern onto $NS"

# Device memory 58-60 MiB into the BAR: no other test's bytes checked there.
# A regular file: through the file system.
$PATTERN gen $((8 * MiB)) 903 >/tmp/cufile.img
$CUFILE -o $((58 * MiB)) "$prov" /tmp/cufile.img 903 >/tmp/cufile.out 2>&1
rc=$?
cat /tmp/cufile.out
[ $rc = 0 ] || fail "gp-cufile on a regular file exited $rc"
grep -q '^io registered.* mode=bounce reason=fs-unsupported$' /tmp/cufile.out ||
	fail "the file was not read the compat way"
$PATTERN check /tmp/cufile.img $((6 * MiB)) $MiB 904 $((6 * MiB)) ||
	fail "the write did not reach the file"
rm -f /tmp/cufile.img

# The namespace, last: its bytes stay in the BAR for the host to check.
$CUFILE -b $BASE -o $((58 * MiB)) "$prov" $NS 901 >/tmp/cufile.out 2>&1
rc=$?
cat /tmp/cufile.out
[ $rc = 0 ] || fail "gp-cufile on $NS exited $rc"
grep -q '^io registered, 1 MiB at BASE + 2 MiB mode=direct reason=none$' /tmp/cufile.out ||
	fail "the registered read was not direct"
grep -q '^io unaligned.* mode=bounce reason=unaligned$' /tmp/cufile.out ||
	fail "the unaligned read was not bounced for being unaligned"
grep -q '^io write mode=direct reason=none$' /tmp/cufile.out || fail "the write was not direct"
moff=$(sed -n 's/^mem bar=2 bar_offset=\([0-9]*\)$/\1/p' /tmp/cufile.out)
[ -n "$moff" ] || fail "no BAR offset printed"
# The batch at 0 of the memory, the registered read at 1 MiB of it.
host_expect bar.img "$moff" $MiB 901 $BASE
host_expect bar.img $((moff + MiB)) $MiB 901 $((BASE + 2 * MiB))
host_expect nvme.img $((BASE + 6 * MiB)) $MiB 902 $((BASE + 6 * MiB))
# The parameter and statistics API with the module: the provider's BAR is 64 MiB.
$PATTERN gen $((4 * MiB)) 905 >/tmp/params.img
$CUFILE params /tmp/params.img $((64 * 1024)) >/tmp/params.out 2>&1 ||
	{ cat /tmp/params.out; fail "gp-cufile params"; }
rm -f /tmp/params.img
# "allow_compat_mode": false: the driver opens, since the module is there.
echo '{ "properties": { "allow_compat_mode": false } }' >/tmp/nocompat.json
CUFILE_ENV_PATH_JSON=/tmp/nocompat.json $CUFILE nocompat ||
	fail "cuFileDriverOpen with compat mode off and the module loaded"
$GP stats -j | jq -e --argjson id "$prov" '.providers[] | select(.id == $id) |
	.stats.direct_ios > 0 and .stats.errors == 0' >/dev/null ||
	fail "provider counters: $($GP stats -j | jq -c .providers)"
unbind_bar
