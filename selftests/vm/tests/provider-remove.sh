# SPDX-License-Identifier: GPL-2.0
# The stub-bound BAR unbound while a process holds a buffer of it, mapped:
#
#   io-check revoke --- /dev/gpupath --- buffer (1 MiB, mmapped, filled)
#                                            |
#   echo BDF > .../drivers/gpupath/unbind --> provider 0000:..:00.0 (ivshmem)
#
# The unbind returns within seconds (it used to wait in D state for the
# buffer to be freed); the process then gets SIGBUS touching the mapping,
# ENODEV for I/O on the handle and for a new mapping, and frees, unmaps and
# closes cleanly. The device binds again and serves a buffer; the module
# unloads.
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
load_module
MiB=1048576
prov=$(bind_bar) || fail "no provider"
bar=$(pci_dev 0x1af4 0x1110)
bdf=${bar##*/}
holder=
cleanup() {
	[ -z "$holder" ] || kill "$holder" 2>/dev/null
	exec 3>&- 2>/dev/null
	wait 2>/dev/null
	unbind_bar
}
trap cleanup EXIT
rm -f /tmp/go
mkfifo /tmp/go
$IOCHECK revoke "$prov" $NS </tmp/go >/tmp/revoke.out 2>&1 &
holder=$!
exec 3>/tmp/go
wait_for 20 grep -q '^ready' /tmp/revoke.out || fail "the holder did not start: $(cat /tmp/revoke.out)"
$GP provider show -j | jq -e --argjson id "$prov" \
	'.providers[] | select(.id == $id) | .allocated == 1048576' >/dev/null ||
	fail "the holder's buffer is not allocated: $($GP provider show)"

# The unbind in the background: if it blocks, the test says so and the
# cleanup (killing the holder) lets it finish.
t0=$(cut -d' ' -f1 /proc/uptime)
echo "$bdf" >/sys/bus/pci/drivers/gpupath/unbind &
unbind=$!
wait_for 20 sh -c "! kill -0 $unbind" || fail "the unbind blocks while a buffer is held"
wait $unbind || fail "the unbind failed"
t1=$(cut -d' ' -f1 /proc/uptime)
note "unbound with a mapped buffer held in $(awk -v a="$t0" -v b="$t1" \
	'BEGIN { printf "%.2f", b - a }') s"
[ ! -e "$bar/driver" ] || fail "$bdf is still bound"
[ "$($GP provider show -j | jq '.providers | length')" = 0 ] || fail "the provider stayed"

echo go >&3
exec 3>&-
wait $holder
rc=$?
holder=
cat /tmp/revoke.out
[ $rc = 0 ] || fail "the holder after the removal: exit $rc"
note "after the removal: $(grep -c '^pass' /tmp/revoke.out) checks passed (SIGBUS, ENODEV, clean close)"

# The device comes back as a provider that serves memory again.
prov=$(bind_bar) || fail "no provider after binding again"
$PATTERN gen $MiB 331 | dd of=$NS bs=$MiB conv=fsync 2>/dev/null
expect_io 0 'mode=direct' -p direct read "$prov" $NS 0 $MiB 331
unbind_bar
trap - EXIT
unload_module
check_dmesg
