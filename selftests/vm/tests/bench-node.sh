# SPDX-License-Identifier: GPL-2.0
# make bench NODE=1 (selftests/lab/node.sh), the lab's reads on a real GPU
# node, run here against the test doubles as tests/gpu-check.sh runs
# make gpu-check: nvfake bound to the ivshmem "GPU" as NVIDIA's driver with
# UVM's region over its BAR, libcuda.so.1 the double's (device memory at
# BAR 12-16 MiB). Then the BAR bound to gpupath as a provider of P2PDMA
# memory, and no GPU.
#
# Checked, for every run: the three modes read the target's bytes (direct
# went direct, compat bounced, the last read of each compared with the
# target), GB/s and busy seconds per GB are there, the link's rate is what
# sysfs says of the NVMe controller's link (the "GPU" has no PCIe link
# here), and the share is GB/s over that rate; the report names each run.
# A target that cannot be read, and a size that is no multiple of 64K, are
# refused before anything runs.
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
MiB=1048576
VA0=$((0x700000000000))
OUT=/tmp/node

GPU=
trap nv_cleanup EXIT
nv_start uvm_region=1
$PATTERN gen $((16 * MiB)) 611 | dd of=$NS bs=$MiB conv=fsync 2>/dev/null ||
	fail "the target's pattern"

# node [VAR=VALUE...]: node.sh with the doubles; its exit status.
node() {
	env LD_LIBRARY_PATH=/usr/libexec/gpupath/cuda-double \
		GPCU_DOUBLE_BAR="/sys/bus/pci/devices/$GPU/resource2" GPCU_DOUBLE_VA=$VA0 \
		GPCU_DOUBLE_OFFSET=$((12 * MiB)) GPCU_DOUBLE_SIZE=$((4 * MiB)) \
		GP=/usr/sbin/gpupath GPCUDA=/usr/libexec/gpupath/gp-cuda BENCH=/usr/sbin/gpupath-bench \
		NODE_TARGET=$NS NODE_SPAN=16M NODE_BYTES=8M NODE_OUT=$OUT "$@" \
		sh /src/selftests/lab/node.sh >/tmp/node.log 2>&1
}

# The NVMe controller's link, as sysfs gives it, in GB/s after encoding.
ctrl=$(basename "$(readlink -f /sys/block/${NS#/dev/}/device/device)")
gt=$(awk '{ print $1 }' /sys/bus/pci/devices/$ctrl/current_link_speed) &&
	w=$(cat /sys/bus/pci/devices/$ctrl/current_link_width) || fail "no link of $ctrl in sysfs"
link=$(awk -v gt="$gt" -v w="$w" 'BEGIN { enc = gt <= 5 ? 0.8 : 128 / 130
	printf "%.3f\n", gt * enc * w / 8 }')
note "$ctrl: $gt GT/s x$w: $link GB/s"

# checks WHO GOT_DIRECT: each mode of run WHO at both sizes.
checks() {
	jq -e -s --arg w "$1" --arg d "$2" --argjson link "$link" '
		[.[] | select(.run == $w)] as $r |
		($r | length) == 6 and ($r | map(.io_size) | sort | unique) == [131072, 1048576] and
		($r | all(.landed == true and .gbps > 0 and .bytes == 8388608 and
			(.busy_s_per_gb | type) == "number" and .link_gbps == $link and
			((.link_share - .gbps / $link) | fabs) < 1e-6 and .device == "nvme0n1")) and
		($r | map(select(.mode == "direct") | .got) | unique) == [$d] and
		($r | map(select(.mode == "compat") | .got) | unique) == ["bounce"] and
		($r | map(select(.mode == "host") | .got) | unique) == ["host"]' \
		$OUT/node.jsonl >/dev/null
}

node NODE_GPUS=1
rc=$?
cat /tmp/node.log
[ $rc = 0 ] || fail "node.sh exited $rc"
checks cuda0 direct || fail "the CUDA runs: $(cat $OUT/node.jsonl)"
grep -Eq '^cuda0 +1024K +direct +direct ' $OUT/report.txt || fail "the report lacks the direct run"

# The BAR as gpupath's provider, no GPU: gpupath-bench's runs.
nv_cleanup
load_module
prov=$(bind_bar) || fail "no provider"
node NODE_GPUS=none
rc=$?
cat /tmp/node.log
[ $rc = 0 ] || fail "node.sh (provider) exited $rc"
checks "provider$prov" direct || fail "the provider's runs: $(cat $OUT/node.jsonl)"

# Bad input: refused before anything runs, exit 2.
node NODE_TARGET=/nonexistent
[ $? = 2 ] && grep -q 'cannot read /nonexistent' /tmp/node.log || fail "a missing target: $(cat /tmp/node.log)"
node NODE_SIZES=100K
[ $? = 2 ] && grep -q 'multiples of 64K' /tmp/node.log || fail "a size of 100K: $(cat /tmp/node.log)"
unbind_bar
