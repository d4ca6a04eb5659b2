#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# gpu-check: the first run on a machine with an NVIDIA GPU (make gpu-check).
# As root, in minutes, it records what the machine is, then tries the
# direct path into the GPU's memory and the ways a CUDA program leaves it,
# stopping at the first hang or kernel splat, and ends with a summary to
# paste into an issue.
#
#   1. inventory: kernel, boot options, P2PDMA, NVIDIA driver version and
#      registry keys, each GPU's BAR1 (size, address), the P2PDMA region
#      over it, the IOMMU and its groups, ACS on the bridges above the GPU,
#      the PCIe topology (gpupath topology), confidential computing, and
#      gpupath's module parameters
#   2. direct reads and writes into cuMemAlloc memory with the bytes checked
#      on the GPU, pins reused, unaligned I/O bounced, a freed allocation
#      pinned anew (gp-cuda check)
#   3. why a pin fails, as an unprivileged user (gp-cuda read)
#   4. cudaFree under running I/O, a process killed in I/O, and a process
#      ending with I/O in flight (gp-cuda busy): each must end in time
#   5. the region and providers after
#
# Environment:
#   GPU_CHECK_TARGET  what to read: a file (on ext4 or XFS on NVMe, best) or
#                     a block device; 64 KiB at 6 MiB is WRITTEN. Default: a
#                     file created in GPU_CHECK_DIR (default /var/tmp) and
#                     removed after. A block device must be a scratch one:
#                     its first 8 MiB are overwritten.
#   GPU_CHECK_BASE    where in a block device: its 8 MiB from there (default 0)
#   GPU_CHECK_IO      bytes per read of the busy steps (default 1 MiB)
#   GPU_CHECK_OUT     where the report goes (default ./gpu-check.txt)
#   GPU_CHECK_HANG    seconds before a step counts as hung (default 60)
#
# Exit status: 0 all passed, 1 a check failed, 2 a hang or splat stopped
# it, 3 it could not start (not root, no GPU, no module).
#
# The same script runs in the project's VM tests against test doubles of
# NVIDIA's driver (selftests/vm/tests/gpu-check.sh), so that it keeps
# working; there the "GPU" is bound to nvfake and libcuda.so.1 is the
# double's.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
GP=${GP:-$top/tools/gpupath/gpupath}
GPCUDA=${GPCUDA:-$top/selftests/build/gp-cuda}
PATTERN=${PATTERN:-$top/selftests/build/gp-pattern}
KO=${KO:-$top/kmod/gpupath.ko}
OUT=${GPU_CHECK_OUT:-$PWD/gpu-check.txt}
HANG=${GPU_CHECK_HANG:-60}
MiB=1048576
SEED=4242
BASE=${GPU_CHECK_BASE:-0}
SCRATCH=$((BASE + 6 * MiB))
IO=${GPU_CHECK_IO:-$MiB}
NOBODY=65534

: >"$OUT" || exit 3
passed=0 failed=0 stopped=
results=$(mktemp) && work=$(mktemp -d) || exit 3

say() { echo "$*" | tee -a "$OUT"; }
# section NAME: a heading in the report.
section() { say ""; say "== $1"; }
# record NAME RESULT [DETAIL]
record() {
	printf '%-34s %s%s\n' "$1" "$2" "${3:+ ($3)}" >>"$results"
	case $2 in
	pass) passed=$((passed + 1)) ;;
	FAIL) failed=$((failed + 1)) ;;
	esac
	say "-- $1: $2${3:+ ($3)}"
}

# ---- the kernel log: splats since the start --------------------------------

klog_mark=$(dmesg 2>/dev/null | wc -l)
# splat: the first kernel warning, oops or hung task logged since the start.
splat() {
	dmesg 2>/dev/null | tail -n +"$((klog_mark + 1))" |
		grep -m1 -E 'WARNING:|BUG:|Oops|general protection|INFO: task .* blocked|KASAN|UBSAN|kmemleak|list_(add|del) corruption|refcount_t:|NVRM: Xid|gpupath: .*(leak|hung|timed out)'
}

# alive PID: whether PID has not ended (a zombie has).
alive() {
	[ -r "/proc/$1/stat" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat")" != Z ]
}

# await NAME PID: waits for PID up to the hang limit. 0 it ended (its
# status in $rc), 2 a hang or splat, which stops the whole check.
await() {
	local s waited=0
	while alive "$2" && [ $waited -lt $((HANG * 10)) ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	if alive "$2"; then
		kill -9 "$2" 2>/dev/null
		sleep 2
	fi
	if alive "$2"; then
		record "$1" HANG "no end after ${HANG} s, unkillable"
		stopped="a hang in: $1"
		procs_in_d | tee -a "$OUT"
		return 2
	fi
	wait "$2"
	rc=$?
	[ $waited -lt $((HANG * 10)) ] || rc=124
	s=$(splat)
	if [ -n "$s" ]; then
		record "$1" SPLAT "$s"
		stopped="a kernel splat in: $1"
		return 2
	fi
	return 0
}

# step NAME CMD...: runs CMD with the hang limit; its output into the
# report. 0 passed (or skipped: exit 4), 1 failed, 2 stopped (await).
step() {
	local name="$1"
	shift
	say "\$ $*"
	"$@" >"$work/step.out" 2>&1 &
	await "$name" $! || { cat "$work/step.out" >>"$OUT"; return 2; }
	tee -a "$OUT" <"$work/step.out"
	case $rc in
	0) record "$name" pass ;;
	4) record "$name" skip "$(tail -n1 "$work/step.out")" ;;
	124) record "$name" FAIL "killed after ${HANG} s"; return 1 ;;
	*) record "$name" FAIL "exit $rc"; return 1 ;;
	esac
}

# procs_in_d: processes in uninterruptible sleep, with their kernel stacks.
procs_in_d() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(awk '{print $3}' "$p/stat" 2>/dev/null)" = D ] || continue
		echo "D: ${p#/proc/} $(cat "$p/comm")"
		sed 's/^/   /' "$p/stack" 2>/dev/null
	done
}

finish() {
	section "summary"
	say "gpupath gpu-check, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r)"
	say "GPU: ${GPU:-none} (driver ${GPU_DRIVER:-none} ${NV_VERSION:-}), BAR1 ${BAR1:-?}, region: ${REGION_BEFORE:-?} before, ${REGION_AFTER:-?} after"
	say "IOMMU: ${IOMMU:-?}; persistent pages: ${PERSISTENT:-?}"
	sed 's/^/  /' "$results" | tee -a "$OUT"
	if [ -n "$stopped" ]; then
		say "STOPPED by $stopped"
		say "$passed passed, $failed failed"
		exit 2
	fi
	say "$passed passed, $failed failed"
	[ "$failed" = 0 ] && exit 0
	exit 1
}

cleanup() {
	[ -z "${made_file:-}" ] || rm -f "$made_file"
	rm -rf "$results" "$work"
}
trap cleanup EXIT

# ---- 1. inventory -------------------------------------------------------------

if [ "$(id -u)" != 0 ]; then
	echo "gpu-check: run as root (it loads the module and reads the kernel log)" >&2
	exit 3
fi
section "inventory"
say "kernel: $(uname -r) ($(uname -v))"
say "cmdline: $(cat /proc/cmdline)"
cfg=/boot/config-$(uname -r)
if [ -r "$cfg" ]; then
	say "CONFIG_PCI_P2PDMA: $(grep -E '^CONFIG_PCI_P2PDMA=|CONFIG_PCI_P2PDMA is not set' "$cfg" || echo unknown)"
elif [ -r /proc/config.gz ]; then
	say "CONFIG_PCI_P2PDMA: $(zcat /proc/config.gz | grep -E '^CONFIG_PCI_P2PDMA=|CONFIG_PCI_P2PDMA is not set' || echo unknown)"
fi

# The GPU: the first device bound to NVIDIA's driver (or its test double).
GPU='' GPU_DRIVER=''
for d in /sys/bus/pci/devices/*; do
	drv=$(basename "$(readlink "$d/driver" 2>/dev/null)")
	case $drv in
	nvidia | nvfake) GPU=${d##*/} GPU_DRIVER=$drv; break ;;
	esac
done
if [ -z "$GPU" ]; then
	say "no PCI device is bound to NVIDIA's driver"
	record "a GPU with NVIDIA's driver" FAIL "none found"
	stopped="no GPU"
	finish
fi
# NVIDIA's BAR1 is resource 1; the test double's "GPU" (ivshmem) has its memory in BAR2.
bar=1
[ "$GPU_DRIVER" = nvidia ] || bar=2
NV_VERSION=$(head -n1 /proc/driver/nvidia/version 2>/dev/null | sed 's/^NVRM version: *//')
[ "$GPU_DRIVER" = nvfake ] && NV_VERSION="(test double nvfake)"
say "GPU: $GPU, driver $GPU_DRIVER $NV_VERSION"
say "GPU name: $(lspci -s "$GPU" 2>/dev/null | cut -d' ' -f2-)"
say "registry keys: $(sed -n 's/^RegistryDwords: *//p' /proc/driver/nvidia/params 2>/dev/null)"
say "modprobe.d: $(grep -rhs 'NVreg_' /etc/modprobe.d /lib/modprobe.d | tr '\n' ';')"
# shellcheck disable=SC2046 # the line's three fields
set -- $(sed -n "$((bar + 1))p" "/sys/bus/pci/devices/$GPU/resource")
start=${1:-} end=${2:-0}
if [ -n "${start:-}" ] && [ $((end)) -gt 0 ]; then
	BAR1="$(((end - start + 1) / MiB)) MiB at $start"
else
	BAR1="absent"
fi
say "BAR$bar: $BAR1"
if command -v nvidia-smi >/dev/null; then
	nvidia-smi -q -d MEMORY 2>&1 | sed -n '/BAR1/,+4p' | tee -a "$OUT"
	say "confidential computing: $(nvidia-smi conf-compute -f 2>&1 | tr '\n' ' ')"
else
	say "confidential computing: unknown (no nvidia-smi)"
fi
region() {
	local p="/sys/bus/pci/devices/$GPU/p2pmem"
	if [ -d "$p" ]; then
		echo "yes (size $(cat "$p/size" 2>/dev/null), published $(cat "$p/published" 2>/dev/null))"
	else
		echo "no"
	fi
}
REGION_BEFORE=$(region)
say "P2PDMA region over the BAR: $REGION_BEFORE"
if [ -n "$(ls /sys/class/iommu 2>/dev/null)" ]; then
	IOMMU="on ($(ls /sys/class/iommu | tr '\n' ' ')), GPU's group $(cat "/sys/bus/pci/devices/$GPU/iommu_group/type" 2>/dev/null)"
else
	IOMMU="off"
fi
say "IOMMU: $IOMMU"
say "ACS on the bridges above the GPU:"
dev=$(readlink -f "/sys/bus/pci/devices/$GPU")
while dev=$(dirname "$dev") && [ -e "$dev/vendor" ]; do
	say "  ${dev##*/}: $(lspci -vvv -s "${dev##*/}" 2>/dev/null | grep -m1 ACSCtl | sed 's/^[[:space:]]*//' || true)"
done

# The module: loaded, or loaded now.
if [ ! -d /sys/module/gpupath ]; then
	insmod "$KO" 2>&1 | tee -a "$OUT"
fi
if [ ! -d /sys/module/gpupath ]; then
	record "the gpupath module loads" FAIL "$KO"
	stopped="no module"
	finish
fi
for p in nvidia_persistent nvidia_bar_region nvidia_revoke_ms; do
	say "gpupath $p: $(cat /sys/module/gpupath/parameters/$p 2>/dev/null)"
done
PERSISTENT=$(cat /sys/module/gpupath/parameters/nvidia_persistent 2>/dev/null)
"$GP" show 2>&1 | tee -a "$OUT"
say "topology:"
"$GP" topology 2>&1 | tee -a "$OUT"
say "diagnose:"
"$GP" diagnose --no-probe 2>&1 | tee -a "$OUT"

# ---- 2. direct reads and writes ---------------------------------------------

TARGET=${GPU_CHECK_TARGET:-}
if [ -z "$TARGET" ]; then
	made_file=$(mktemp "${GPU_CHECK_DIR:-/var/tmp}/gpu-check.XXXXXX") || exit 3
	TARGET=$made_file
	"$PATTERN" gen $((8 * MiB)) $SEED >"$TARGET" || exit 3
	sync "$TARGET"
else
	"$PATTERN" fill "$TARGET" "$BASE" $((4 * MiB)) $SEED || exit 3
fi
section "direct I/O into GPU memory ($TARGET)"
step "direct read, write, pins, cudaFree" "$GPCUDA" check "$TARGET" "$BASE" $SEED $SCRATCH ||
	{ [ -z "$stopped" ] || finish; }

# ---- 3. why a pin fails -------------------------------------------------------

section "a pin as an unprivileged user"
step "read as uid $NOBODY" "$GPCUDA" read auto "$TARGET" "$BASE" 65536 $SEED $NOBODY ||
	{ [ -z "$stopped" ] || finish; }

# ---- 4. ends of a CUDA program during I/O --------------------------------------

section "ends of a CUDA program with I/O in flight"
step "cudaFree under I/O" "$GPCUDA" busy "$TARGET" "$BASE" "$IO" 4 free ||
	{ [ -z "$stopped" ] || finish; }
step "exit with I/O in flight" "$GPCUDA" busy "$TARGET" "$BASE" "$IO" 4 exit ||
	{ [ -z "$stopped" ] || finish; }
say "\$ $GPCUDA busy $TARGET $BASE $IO 4 wait; kill -9"
"$GPCUDA" busy "$TARGET" "$BASE" "$IO" 4 wait >"$work/kill.out" 2>&1 &
pid=$!
sleep 2
kill -9 $pid 2>/dev/null
await "kill -9 in I/O" $pid || finish
cat "$work/kill.out" >>"$OUT"
if grep -q "^busy: 4 threads, 4 reading" "$work/kill.out"; then
	record "kill -9 in I/O" pass
else
	record "kill -9 in I/O" FAIL "the threads were not all reading"
fi

# ---- 5. after -------------------------------------------------------------------

section "after"
REGION_AFTER=$(region)
say "P2PDMA region over the BAR: $REGION_AFTER"
"$GP" provider show 2>&1 | tee -a "$OUT"
step "a CUDA program after all that" "$GPCUDA" read auto "$TARGET" "$BASE" $MiB $SEED ||
	{ [ -z "$stopped" ] || finish; }
finish
