# SPDX-License-Identifier: GPL-2.0
# Real programs' cuFile call sequences (selftests/cufile/clients.c: PyTorch,
# KvikIO, NIXL's GDS and GDS_MT plugins, DALI, NVIDIA's samples 019 and 031
# to 034) through gpupath's libcufile.so.0, into
# "CUDA memory" in the BAR: the project's double of NVIDIA's libcuda.so.1
# hands out device addresses over the ivshmem "GPU", where nvfake (the
# peer-memory double) maps CUDA address 0x700000000000 + X to the BAR's byte
# X. The files are gpupath volumes over the two NVMe namespaces, behind the
# GPU's switch: reads go direct from the controllers into the BAR.
#
#   BAR 28-40 MiB   the double's device memory (dm-volumes takes 16 to 28,
#                   md-volumes 40 to 52, after this test); the streams
#                   client's last read stays at 28 MiB for the host to check
#   volume 1        the clients' FILE: 16 MiB of pattern 5 (zeroed after)
#   volume 2        their SCRATCH: 2 MiB written (zeroed after)
#
# Each client checks the bytes that arrive in device memory through the
# double, which reads them from the BAR's resource; the provider's counters
# must show direct I/O from each client whose I/O is in whole blocks.
# Sizes are a quarter of the host's runs (GPCU_CLIENTS_UNIT=256 KiB): the
# window is 12 MiB.
# (Batches completing in the background are shown on the host, where the
# double's copies can be made slow.)
. /src/selftests/vm/guest-lib.sh

CLIENTS=/usr/libexec/gpupath/gp-cufile-clients
MiB=1048576
UNIT=262144
VA0=$((0x700000000000))
WIN=$((28 * MiB))

GPU=
cleanup() {
	[ -z "${VOL1:-}" ] || dd if=/dev/zero of="$VOL1" bs=$MiB count=16 oflag=direct 2>/dev/null
	[ -z "${VOL2:-}" ] || dd if=/dev/zero of="$VOL2" bs=$MiB count=2 oflag=direct 2>/dev/null
	volumes_del_all
	nv_cleanup
}
trap cleanup EXIT
[ -x $CLIENTS ] || fail "no $CLIENTS"
nv_start uvm_region=1
stack_volumes
$PATTERN gen $((64 * UNIT)) 5 | dd of="$VOL1" bs=$MiB oflag=direct 2>/dev/null ||
	fail "the pattern onto $VOL1"
dd if=/dev/zero of="$VOL2" bs=$MiB count=2 oflag=direct 2>/dev/null || fail "zeroing $VOL2"

direct_bytes() { $GP stats -j | jq '[.providers[].stats.direct_bytes] | add // 0'; }

failed=0
for c in pytorch kvikio nixl gdsmt dali sample001 sample010 sample019 streams; do
	before=$(direct_bytes)
	env LD_LIBRARY_PATH=/usr/libexec/gpupath/cuda-double:/usr/lib/gpupath \
		GPCU_DOUBLE_BAR="/sys/bus/pci/devices/$GPU/resource2" GPCU_DOUBLE_VA=$VA0 \
		GPCU_DOUBLE_OFFSET=$WIN GPCU_DOUBLE_SIZE=$((12 * MiB)) \
		GPCU_DOUBLE_REVOKE=/sys/kernel/debug/nvfake/revoke \
		GPCU_CLIENTS_UNIT=$UNIT timeout 300 $CLIENTS $c "$VOL1" "$VOL2" >/tmp/client.out 2>&1
	rc=$?
	grep -v '^pass ' /tmp/client.out
	n=$(($(direct_bytes) - before))
	echo "# $c: exit $rc, $n bytes direct into the BAR"
	[ $rc = 0 ] || { echo "FAIL: $c"; failed=$((failed + 1)); }
	case $c in
	# Nothing of theirs is in whole blocks, as the programs do it: tensors
	# at 64-byte offsets (PyTorch), device offsets of 777 + 4 MiB * k
	# (KvikIO's tasks from an allocation's base), 3000-byte writes.
	pytorch | kvikio | sample019) ;;
	*) [ "$n" -gt 0 ] || { echo "FAIL: $c: nothing direct"; failed=$((failed + 1)); } ;;
	esac
done
[ $failed = 0 ] || fail "$failed of the checks above"
# The streams client's last read (one unit of the pattern from 5 units on,
# into its first allocation: the window's start) in the BAR's own resource,
# and for the host in bar.img.
$PATTERN check "/sys/bus/pci/devices/$GPU/resource2" $WIN $UNIT 5 $((5 * UNIT)) ||
	fail "the streams client's read is not in the BAR"
host_expect bar.img $WIN $UNIT 5 $((5 * UNIT))
