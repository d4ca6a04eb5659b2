# SPDX-License-Identifier: GPL-2.0
# make gpu-check (tools/gpu-check.sh), the first run on a real NVIDIA GPU,
# run here against the test doubles so that it keeps working: nvfake bound
# to the ivshmem "GPU" as NVIDIA's driver, with a region over its BAR as
# UVM registers one, and the project's libcuda.so.1 handing out device
# memory at BAR 10-12 MiB (below tests/cuda-lib.sh's). The target is the NVMe
# namespace from 192 MiB (8 MiB overwritten).
#
# Checked: every step passes and the summary says so, with the inventory
# in the report; then that the check stops at a kernel splat (an NVIDIA
# Xid line in the kernel log during a step) with exit status 2 and says
# where, and that a step past its time limit fails.
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
MiB=1048576
VA0=$((0x700000000000))
REPORT=/tmp/gpu-check.txt

GPU=
trap nv_cleanup EXIT
nv_start uvm_region=1

# check [VAR=VALUE...]: gpu-check with the doubles; its exit status.
check() {
	env LD_LIBRARY_PATH=/usr/libexec/gpupath/cuda-double \
		GPCU_DOUBLE_BAR="/sys/bus/pci/devices/$GPU/resource2" GPCU_DOUBLE_VA=$VA0 \
		GPCU_DOUBLE_OFFSET=$((10 * MiB)) GPCU_DOUBLE_SIZE=$((2 * MiB)) \
		GPCU_DOUBLE_REVOKE=/sys/kernel/debug/nvfake/revoke \
		GP=/usr/sbin/gpupath GPCUDA=/usr/libexec/gpupath/gp-cuda PATTERN=$PATTERN KO="$KO" \
		GPU_CHECK_TARGET=$NS GPU_CHECK_BASE=$((192 * MiB)) GPU_CHECK_IO=$((256 * 1024)) \
		GPU_CHECK_OUT=$REPORT "$@" sh /src/tools/gpu-check.sh >/tmp/gpu-check.log 2>&1
}

check
rc=$?
cat $REPORT
[ $rc = 0 ] || fail "gpu-check exited $rc"
grep -q "^GPU: $GPU (driver nvfake (test double nvfake)), BAR1 64 MiB at 0x" $REPORT ||
	fail "the summary does not name the GPU and its BAR"
grep -q "^P2PDMA region over the BAR: yes" $REPORT || fail "the report has no region"
n=$(sed -n '/^== summary/,$p' $REPORT | grep -c ' pass$')
[ "$n" = 6 ] || fail "$n steps passed, not 6"
tail -n1 $REPORT | grep -qx "6 passed, 0 failed" || fail "no final count"
grep -q "^pass the new allocation was pinned anew" $REPORT || fail "gp-cuda check's lines are not in the report"

# A splat during a step stops the check there (exit 2); the steps after do not run.
printf '#!/bin/sh\necho "NVRM: Xid (PCI:%s): 79, gpu-check test" >/dev/kmsg\nexit 0\n' "$GPU" \
	>/tmp/xid.sh
chmod +x /tmp/xid.sh
check GPCUDA=/tmp/xid.sh
rc=$?
[ $rc = 2 ] || { cat $REPORT; fail "gpu-check exited $rc after a splat, not 2"; }
grep -q "^STOPPED by a kernel splat in: direct read, write, pins, cudaFree" $REPORT ||
	{ cat $REPORT; fail "the summary does not say where it stopped"; }
! grep -q "^== after" $REPORT || fail "steps ran after the splat"
echo "# stopped at the splat: $(grep SPLAT $REPORT | head -n1)"

# A step that does not end in time is killed and fails.
printf '#!/bin/sh\nsleep 100\n' >/tmp/slow.sh
chmod +x /tmp/slow.sh
check GPCUDA=/tmp/slow.sh GPU_CHECK_HANG=2
rc=$?
[ $rc = 1 ] || { cat $REPORT; fail "gpu-check exited $rc after a slow step, not 1"; }
grep -q "direct read, write, pins, cudaFree *FAIL (killed after 2 s)" $REPORT ||
	{ cat $REPORT; fail "the slow step is not reported killed"; }
true
