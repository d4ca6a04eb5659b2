# SPDX-License-Identifier: GPL-2.0
# Native NVMe multipath (this VM boots with nvme_core.multipath=Y): the
# namespace's block device is the head, whose path is picked per I/O below
# gpupath, so direct must be refused with multipath-head and auto must
# still deliver the bytes. Topology: fabric_setup in guest-lib.sh.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
load_module
prov=$(bind_bar) || fail "no provider"
trap 'fabric_teardown; unbind_bar' EXIT
fabric_setup
$PATTERN gen $((2 * MiB)) 601 | dd of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null
nvme connect -t tcp -a 10.99.0.1 -s 4421 -n $NQN || fail "connect"
wait_for 20 ns_dev || fail "no namespace"
ns=$(ns_dev)
[ -d /sys/block/$ns/device ] && parent=$(basename "$(readlink -f /sys/block/$ns/device)")
note "/dev/$ns is a head under ${parent:-?}"
expect_io 3 'mode=none reason=multipath-head .*error=Invalid cross-device link' \
	-p direct read "$prov" "/dev/$ns" 0 $MiB 601
expect_io 0 'mode=bounce reason=multipath-head' -p auto read "$prov" "/dev/$ns" 0 $((2 * MiB)) 601
