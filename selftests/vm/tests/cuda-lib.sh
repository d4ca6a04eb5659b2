# SPDX-License-Identifier: GPL-2.0
# libgpupath-cuda into "CUDA memory", directly: the project's double of
# NVIDIA's libcuda.so.1 (selftests/cuda/libcuda.c) hands out device
# addresses over the ivshmem "GPU"'s BAR, where nvfake (the peer-memory
# double) maps CUDA address 0x700000000000 + X to the BAR's byte X, and
# copies through the BAR's resource file. Neither is NVIDIA's driver.
#
#   BAR 12-14 MiB   the double's device memory (below nvidia-double.sh's);
#                   the read at 12 MiB is checked in the BAR's resource, the
#                   ones that name a pin's failure go to 13 MiB
#   (tests/gpu-check.sh uses 10-12 MiB)
#
# gp-cuda check (selftests/cuda/cuda-test.c), with persistent pages and
# with pages that have a free callback: direct reads land the pattern in
# device memory, and the last one is checked in the BAR itself; a second read
# into an allocation reuses its pin; unaligned reads and writes bounce
# under auto (reason unaligned) and fail with EINVAL under direct, and an
# unaligned write leaves the rest of its blocks unchanged; a freed
# allocation's address handed out again is pinned anew, and the old pin
# given back; host memory and reads past an allocation are refused. Then
# why a pin failed is named: no-gpu-region (no P2PDMA region over the BAR)
# and pin-denied (only root may have gpupath create one).
. /src/selftests/vm/guest-lib.sh

GPCUDA=/usr/libexec/gpupath/gp-cuda
NS=/dev/nvme0n1
MiB=1048576
BASE=$((176 * MiB))	# the pattern on the namespace, 4 MiB
SCRATCH=$((184 * MiB))	# 64 KiB written
SEED=971
VA0=$((0x700000000000))
U=1000
BARREG=/sys/module/gpupath/parameters/nvidia_bar_region

GPU=
trap nv_cleanup EXIT
[ -x $GPCUDA ] || fail "no $GPCUDA"
nv_start uvm_region=1
$PATTERN fill $NS $BASE $((4 * MiB)) $SEED || fail "pattern onto $NS"

# cuda RUN...: RUN with the double's device memory at BAR 12-14 MiB.
cuda() {
	env LD_LIBRARY_PATH=/usr/libexec/gpupath/cuda-double \
		GPCU_DOUBLE_BAR="/sys/bus/pci/devices/$GPU/resource2" GPCU_DOUBLE_VA=$VA0 \
		GPCU_DOUBLE_OFFSET=$((12 * MiB)) GPCU_DOUBLE_SIZE=$((2 * MiB)) \
		GPCU_DOUBLE_REVOKE=/sys/kernel/debug/nvfake/revoke "$@"
}

failed=0
for mode in persistent callback; do
	[ $mode = persistent ] || nvfake_as uvm_region=1 persistent=0
	echo "# $mode pages"
	cuda $GPCUDA check $NS $BASE $SEED $SCRATCH >/tmp/cuda.out 2>&1
	rc=$?
	cat /tmp/cuda.out
	[ $rc = 0 ] || { echo "FAIL: gp-cuda check, $mode pages"; failed=$((failed + 1)); }
done
# The last read: 1 MiB of the pattern from BASE + 4 KiB, at the window's
# start, in the BAR's own resource (not through the double). (Not left for
# the host to check after the suite: later tests' buffers reuse that part
# of the BAR.)
$PATTERN check "/sys/bus/pci/devices/$GPU/resource2" $((12 * MiB)) $MiB $SEED $((BASE + 4096)) ||
	{ echo "FAIL: the bytes read are not in the BAR"; failed=$((failed + 1)); }

# why: EXPECT POLICY [UID]: one read of 64 KiB, its outcome (into BAR
# 13-14 MiB, past the bytes checked above).
why() {
	local out
	out=$(cuda env GPCU_DOUBLE_OFFSET=$((13 * MiB)) GPCU_DOUBLE_SIZE=$MiB \
		$GPCUDA read "$2" $NS $BASE 65536 $SEED ${3:-})
	echo "# $2${3:+ as $3}: $out"
	[ "$out" = "$1" ] || { echo "FAIL: expected $1"; failed=$((failed + 1)); }
}
nvfake_as uvm_region=0 persistent=1
[ "$(cat $BARREG)" = N ] || fail "nvidia_bar_region is on"
why "err=18 mode=none reason=no-gpu-region" direct
why "err=0 mode=bounce reason=no-gpu-region" auto
echo 1 >$BARREG || fail "set nvidia_bar_region"
why "err=18 mode=none reason=pin-denied" direct $U
why "err=0 mode=direct reason=none" direct
echo 0 >$BARREG
[ $failed = 0 ] || fail "$failed of the checks above"
