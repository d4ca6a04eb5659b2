# SPDX-License-Identifier: GPL-2.0
# Every bad input to the buffer and I/O ioctls gets its exact errno, and
# nothing reaches the device.
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
MiB=1048576
load_module
prov=$(bind_bar) || fail "no provider"
$PATTERN gen $MiB 301 | dd of=$NS bs=$MiB conv=fsync 2>/dev/null
$IOCHECK "$prov" $NS || fail "bad input not refused as it should be"
echo 3 >/proc/sys/vm/drop_caches
$PATTERN check $NS 0 $MiB 301 || fail "a refused I/O changed the device"
# An unprivileged caller may not change providers.
out=$(/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups $GP provider del "$prov" 2>&1)
echo "unprivileged provider del -> $out"
echo "$out" | grep -q "Operation not permitted" || fail "unprivileged del was not refused"
unbind_bar
