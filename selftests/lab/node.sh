#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench NODE=1: the lab's reads on this machine, a real GPU node, as
# root with the module loaded. Read-only. For each CUDA GPU (device memory
# from cuMemAlloc, pinned through NVIDIA's peer-memory API: gp-cuda bench)
# and each gpupath provider of P2PDMA memory (gpupath-bench), reads of each
# size from NODE_TARGET: direct, through the bounce (compat), and into host
# memory. Printed per run: GB/s; busy CPU seconds per GB of all CPUs
# (interrupts and kernel threads included), and against host memory; and
# GB/s against the link's rate, the slower of the PCIe links of the
# target's DMA engine (NVMe controller, or RNIC for NVMe-oF) and of the GPU,
# or the NIC's speed where the target is reached over a network.
#
#   NODE_TARGET   block device or file to read (required); reads walk its
#                 first NODE_SPAN bytes (default 1G, or its size)
#   NODE_SIZES    I/O sizes (default "1M 128K")
#   NODE_BYTES    bytes each run reads (default 4G)
#   NODE_GPUS     CUDA devices, in PCI order (default: as many as
#                 gpupath topology lists NVIDIA GPUs; "none" for none)
#   NODE_OUT      the report's directory (default selftests/build/node):
#                 node.jsonl, a line per run, and report.txt
#   GPUPATH_BUSY_FILE  idle times of finer resolution than /proc/stat's
#                 (the lab's cpubusy module's /proc/cpubusy)
#
# Exit status: 0 when every run that read moved the right bytes, 1 when a
# run read wrong bytes or failed, 2 when it cannot start. POSIX sh (a GPU
# node's, or the test VM's busybox).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
GP=${GP:-$top/tools/gpupath/gpupath}
GPCUDA=${GPCUDA:-$top/selftests/build/gp-cuda}
BENCH=${BENCH:-$top/tools/gpupath-bench/gpupath-bench}
target=${NODE_TARGET:-}
sizes=${NODE_SIZES:-1M 128K}
total=${NODE_BYTES:-4G}
out=${NODE_OUT:-$top/selftests/build/node}

die() { echo "node: $*" >&2; exit 2; }
# bytes N[KMG]: N in bytes.
bytes() {
	case $1 in
	*[kK]) echo $(( ${1%?} << 10 )) ;;
	*[mM]) echo $(( ${1%?} << 20 )) ;;
	*[gG]) echo $(( ${1%?} << 30 )) ;;
	*[!0-9]* | '') return 1 ;;
	*) echo "$1" ;;
	esac
}

[ -n "$target" ] || die "NODE_TARGET: the block device or file to read"
[ -r "$target" ] || die "NODE_TARGET: cannot read $target"
total=$(bytes "$total") || die "NODE_BYTES: a size, not '$NODE_BYTES'"
for s in $sizes; do
	if ! b=$(bytes "$s") || [ "$b" -le 0 ] || [ $((b % 65536)) != 0 ]; then
		die "NODE_SIZES: multiples of 64K, not '$s'"
	fi
done
$GP show -j >/dev/null 2>&1 || die "no gpupath module (modprobe gpupath)"
if [ -b "$target" ]; then
	size=$(blockdev --getsize64 "$target") || die "size of $target"
else
	size=$(stat -c %s "$target") || die "size of $target"
fi
span=$(bytes "${NODE_SPAN:-1G}") || die "NODE_SPAN: a size"
[ "$span" -le "$size" ] || span=$size
mkdir -p "$out" || die "cannot make $out"
: >"$out/node.jsonl"

# The block device under TARGET (a file's file system's), by name.
blockdev_of() {
	local t=$1 mm d
	if [ -b "$t" ]; then
		mm=$(stat -L -c '%t:%T' "$t")
		mm=$(( 0x${mm%:*} )):$(( 0x${mm#*:} ))
	else
		d=$(stat -c '%d' "$t")
		mm=$(( d >> 8 & 0xfff )):$(( (d & 0xff) | (d >> 12 & 0xfff00) ))
	fi
	basename "$(readlink -f "/sys/dev/block/$mm")"
}

# link_gbps BDF: the PCIe link's rate in GB/s (after line encoding), or
# nothing when sysfs does not say.
link_gbps() {
	local d=/sys/bus/pci/devices/$1 gt w
	[ -r "$d/current_link_speed" ] && [ -r "$d/current_link_width" ] || return 0
	gt=$(awk '{ print $1 }' "$d/current_link_speed")
	w=$(cat "$d/current_link_width")
	awk -v gt="$gt" -v w="$w" 'BEGIN {
		if (gt + 0 <= 0 || w + 0 <= 0) exit
		enc = gt <= 5 ? 8 / 10 : gt <= 32 ? 128 / 130 : 242 / 256
		printf "%.3f\n", gt * enc * w / 8 }'
}

# The target's DMA engine and how it is reached, from gpupath diagnose.
dev=$(blockdev_of "$target")
[ -e "/sys/block/$dev" ] || dev=$(basename "$(dirname "$(readlink -f "/sys/class/block/$dev")")")
diag=$($GP diagnose -j --no-probe 2>/dev/null)
dma=$(echo "$diag" | jq -r --arg d "$dev" '[.providers[]?.paths[] | select(.device == $d)][0] |
	.dma_dev // empty')
netdev=$(echo "$diag" | jq -r --arg d "$dev" '[.providers[]?.paths[] | select(.device == $d)][0] |
	.netdev // empty')
[ -n "$dma" ] || dma=$(basename "$(readlink -f "/sys/block/$dev/device/device" 2>/dev/null)")
target_link=
[ -z "$dma" ] || target_link=$(link_gbps "$dma")
if [ -n "$netdev" ] && [ -r "/sys/class/net/$netdev/speed" ]; then
	target_link=$(awk '$1 > 0 { printf "%.3f\n", $1 / 8000 }' "/sys/class/net/$netdev/speed")
fi

# record WHO GPU_BDF SIZE < JSON lines: each mode's line, with the run's
# context and the link's rate and share added, into node.jsonl.
record() {
	local who=$1 gpu=$2 sz=$3 link=$target_link g
	[ -z "$gpu" ] || g=$(link_gbps "$gpu")
	if [ -n "${g:-}" ] && { [ -z "$link" ] || awk -v a="$g" -v b="$link" 'BEGIN { exit !(a < b) }'; }; then
		link=$g
	fi
	jq -c --arg w "$who" --arg g "$gpu" --arg t "$target" --arg dev "$dev" --arg dma "$dma" \
		--argjson sz "$sz" --arg link "$link" '{run: $w, gpu: $g, target: $t, device: $dev,
		dma_dev: $dma, io_size: $sz} + . + (if $link == "" then {link_gbps: null} else
		{link_gbps: ($link | tonumber), link_share: ((.gbps // 0) / ($link | tonumber))} end)' \
		>>"$out/node.jsonl"
}

rc=0
# CUDA GPUs, in PCI order.
gpus=$($GP topology -j 2>/dev/null | jq -r '[.devices[] | select(.kind == "gpu" and
	.nvidia != null)] | sort_by(.pci_dev)[].pci_dev')
n=${NODE_GPUS:-$(echo "$gpus" | grep -c .)}
[ "$n" = none ] && n=0
i=0
while [ "$i" -lt "$n" ]; do
	gpu=$(echo "$gpus" | sed -n "$((i + 1))p")
	for s in $sizes; do
		b=$(bytes "$s")
		CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=$i \
			"$GPCUDA" bench "$target" 0 "$span" "$b" $(( (total + b - 1) / b )) \
			>"$out/run.out" 2>&1 || rc=1
		grep '^{' "$out/run.out" | record "cuda$i" "$gpu" "$b" ||
			{ cat "$out/run.out"; rc=1; }
	done
	i=$((i + 1))
done
# gpupath's own providers of P2PDMA memory.
for p in $($GP show -j | jq -r '.providers[] | select(.type != "nvidia") | "\(.id):\(.pci_dev)"'); do
	for s in $sizes; do
		b=$(bytes "$s")
		"$BENCH" -d "$target" -p "${p%%:*}" -s "$b" -S "$span" -D 3600 -n $(( (total + b - 1) / b )) \
			${GPUPATH_BUSY_FILE:+-I "$GPUPATH_BUSY_FILE"} -v -j >"$out/run.out" 2>&1 || rc=1
		jq -c '.busy_resolution_ns as $res | .modes | to_entries[] | {mode: .key,
			got: (if .value.error then null elif .key == "compat" then "bounce" else .key end),
			landed: ((.value.mismatches // 0) == 0 and .value.error == null),
			busy_resolution_ns: $res} + .value' \
			"$out/run.out" 2>/dev/null | record "provider${p%%:*}" "${p#*:}" "$b" ||
			{ cat "$out/run.out"; rc=1; }
	done
done
[ -s "$out/node.jsonl" ] || die "no run: no NVIDIA GPU and no provider"
jq -e 'select(.landed == false)' "$out/node.jsonl" >/dev/null && rc=1

# The report: each run, its modes side by side.
{
	echo "gpupath node bench: $target ($dev, DMA by ${dma:-?}${netdev:+ via $netdev}), $(hostname), $(uname -r)"
	echo "busy: all CPUs ($(jq -r 'select(.busy_resolution_ns) | .busy_resolution_ns' "$out/node.jsonl" | head -n1) ns resolution); link: the slower of the target's and the GPU's, after encoding"
	jq -rs 'group_by([.run, .io_size])[] | . as $g |
		($g | map(select(.mode == "host"))[0].busy_s_per_gb) as $hb |
		.[] | [.run, (.io_size / 1024 | tostring) + "K", .mode, (.got // "-"), (.reason // "-"),
		  (if .gbps then (.gbps * 1000 | round / 1000 | tostring) else "-" end),
		  (if .busy_s_per_gb then (.busy_s_per_gb * 10000 | round / 10000 | tostring) else "-" end),
		  (if .busy_s_per_gb and $hb and $hb > 0 then (.busy_s_per_gb / $hb * 1000 | round / 1000 | tostring) + "x" else "-" end),
		  (if .link_share then (.link_share * 1000 | round / 10 | tostring) + "%" else "-" end),
		  (if .landed == false then "WRONG BYTES" elif .error then .error else "ok" end)] | @tsv' \
		"$out/node.jsonl" |
		(printf 'run\tsize\tmode\tgot\treason\tGB/s\tbusy s/GB\tbusy:host\tof link\tdata\n'; cat) |
		awk -F '\t' '{ printf "%-10s %-5s %-7s %-7s %-15s %9s %10s %9s %8s %s\n",
			$1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
} | tee "$out/report.txt"
exit $rc
