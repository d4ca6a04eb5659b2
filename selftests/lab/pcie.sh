# SPDX-License-Identifier: GPL-2.0
# The performance lab's reads from QEMU's emulated NVMe-PCIe controllers
# into device memory, inside the guest (selftests/lab/run.sh boots it with
# run-vm.sh --topology stack: an ivshmem BAR standing in for the GPU and two
# controllers of one subsystem sharing two namespaces, all behind one
# switch; one vCPU, icount, kmemleak off).
#
# The controller does its work in host time, so neither elapsed nor busy
# guest time repeats (Documentation/performance.md). What repeats is the
# part the reader pays for: the reading threads' CPU time with interrupts
# taken out, and the controllers' interrupt handlers, wherever they ran
# (selftests/lab/cpubusy with io_irq=nvme: /proc/cpubusy's "io" line,
# gpupath-bench's io_ns).
#
# LAB_MODE=pcie (nvme_core.multipath=N): the namespace, a one-path and a
#   two-path volume (round-robin) on it, md RAID0 over the two namespaces,
#   raw and over one-path volumes.
# LAB_MODE=pcie-head (nvme_core.multipath=Y): the native head with its two
#   paths (round-robin), a one-path volume over it, md RAID0 over the two
#   heads.
# LAB_MODE=iommu, iommu-strict, iommu-pt, iommu-off (run-vm.sh --topology
#   iommu, the kernel told nothing, iommu.strict=1, iommu=pt,
#   intel_iommu=off): the namespace of the
#   controller on the root bus, whose direct reads reach the BAR through the
#   host bridge, mapped by the IOMMU where it translates.
# LAB_MODE=spans (nvme_core.multipath=N): where a one-path volume's
#   instructions per I/O go, from kretprobes on the functions that do its
#   work (cpubusy's spans=): 2000 random 4 KiB reads at queue depth 1 (fio),
#   of the namespace and of the volume. Not timed with the rest: the probes
#   cost more than what they time.
# Each in reads of 1 MiB (256 of them) and 128 KiB (1024): into host memory
# (host), into the BAR directly (direct) and through a bounce (compat) with
# gpupath's ioctls, and with the kernel's own O_DIRECT into host memory and
# into the BAR (odirect-host, odirect-direct; Linux 6.2 and later), LAB_REPS
# times each. A way the kernel refuses (O_DIRECT into the BAR on 6.1, md or
# the head without P2PDMA) is noted and left out. One JSON object per
# repetition goes to /out/lab.jsonl.
. /src/selftests/vm/guest-lib.sh

MODE=${LAB_MODE:-pcie}
REPS=${LAB_REPS:-3}
OUT=/out/lab.jsonl
: >$OUT

wanted() { [ -z "${LAB_ONLY:-}" ] || case ",$LAB_ONLY," in *",$1,"*) ;; *) return 1 ;; esac; }

# The buffers from huge pages: how many 4 KiB pages of a buffer happen to be
# contiguous decides how many segments an I/O takes (guest.sh says more).
echo 8 >/proc/sys/vm/nr_hugepages
[ "$(awk '/^HugePages_Total:/ { print $2 }' /proc/meminfo)" = 8 ] || fail "8 huge pages"
export GPUPATH_HUGEPAGES=1
load_module
# The functions of a volume's I/O that spans times: the volume's submit_bio,
# and in it the clone, the accounting's start, the pick and the clone's
# cgroup association; its completion, and in it the end of the I/O on the
# original bio, the accounting's end and the upper layer's completion
# (block/fops.c's, which the namespace's reads have too).
SPANS=gpupath_multipath_submit_bio,bio_alloc_clone,bio_start_io_acct,pick_path
SPANS=$SPANS,bio_associate_blkg_from_css,clone_end_io,orig_end,bio_end_io_acct_remapped
SPANS=$SPANS,blkdev_bio_end_io_async
if [ "$MODE" = spans ]; then
	insmod /out/cpubusy.ko spans=$SPANS || fail "cpubusy spans=$SPANS"
else
	insmod /out/cpubusy.ko io_irq=nvme || fail "cpubusy"
	grep -q '^io ' /proc/cpubusy || fail "cpubusy has no io line"
fi
prov=$(bind_bar) || fail "no provider"
for q in /sys/block/nvme*/queue/scheduler; do
	echo none >$q 2>/dev/null
done

# pbench CONFIG DEV [-o]: each size, each way, LAB_REPS times.
pbench() {
	local config=$1 dev=$2 o=${3:-} size n job modes r k way any=
	for way in host direct compat; do
		wanted "$config-${o:+odirect-}$way" && any=1
	done
	[ -n "$any" ] || return 0
	for size in 1M 128K; do
		case $size in 1M) n=256 job=pcie-1m ;; *) n=1024 job=pcie-128k ;; esac
		modes=host,direct,compat
		[ -z "$o" ] || modes=host,direct
		for r in $(seq "$REPS"); do
			# It exits 1 when a way is refused; that way's figures say so.
			gpupath-bench -d "$dev" -p "$prov" -m $modes -s $size -S 256M -n $n -D 3600 \
				-I /proc/cpubusy $o -j >/tmp/bench.json 2>/tmp/bench.err
			jq -e .modes /tmp/bench.json >/dev/null 2>&1 ||
				{ cat /tmp/bench.err /tmp/bench.json; fail "gpupath-bench $config $size"; }
			for k in ${modes//,/ }; do
				way=${o:+odirect-}$k
				wanted "$config-$way" || continue
				if jq -e --arg k $k '.modes[$k].error' /tmp/bench.json >/dev/null; then
					[ "$r" != 1 ] || note "$config-$way $size: refused," \
						"$(jq -r --arg k $k '.modes[$k] | "\(.error) \(.reason)"' /tmp/bench.json)"
					continue
				fi
				# Direct must have gone direct, every byte.
				[ $k != direct ] || [ -n "$o" ] || jq -e \
					'.modes.direct | .module_direct_bytes == .bytes' /tmp/bench.json >/dev/null ||
					{ cat /tmp/bench.json; fail "$config $size: direct did not all go direct"; }
				jq -e --arg k $k '.modes[$k] | .errors == 0 and .ios > 0 and .io_ns > 0' \
					/tmp/bench.json >/dev/null ||
					{ cat /tmp/bench.json; fail "gpupath-bench $config-$way $size"; }
				jq -c --arg c "$config-$way" --arg m "$MODE" --arg k $k --arg j $job \
					--argjson r "$r" '.modes[$k] | {mode: $m, config: $c, job: $j, rep: $r,
					ios: .ios, iops: .iops, bw: (.gbps * 1e9), bytes: .bytes, io_ns: .io_ns,
					busy_ns: .busy_ns, errors: (.errors + .mismatches)}' /tmp/bench.json >>$OUT
			done
		done
		note "$config$o $size: $(jq -r '[.modes | to_entries[] | select(.value.io_ns) |
			"\(.key) \(.value.io_s_per_gb * 1e9 / 2 | floor)"] | join(", ")' /tmp/bench.json)" \
			"instructions per GB (shift 1)"
	done
}

# pbench_all CONFIG DEV: gpupath's ways, then the kernel's O_DIRECT.
pbench_all() {
	pbench "$1" "$2"
	pbench "$1" "$2" -o
}

# md0 CONFIG DEV1 DEV2: md RAID0 (512 KiB chunks, no superblock), O_DIRECT
# only: gpupath's ioctls read NVMe namespaces, volumes and files, not md.
# With 64 KiB chunks a 1 MiB read is 16 commands at once, and QEMU's
# controller stopped completing them now and then (its stall, in
# Documentation/testing.md); at 512 KiB it is two, as with 128 KiB reads.
md0() {
	wanted "$1-odirect-host" || wanted "$1-odirect-direct" || return 0
	mdadm --build /dev/md0 --quiet --level=0 --raid-devices=2 --chunk=512 "$2" "$3" ||
		fail "mdadm --build $1"
	pbench "$1" /dev/md0 -o
	mdadm --stop /dev/md0 >/dev/null || fail "mdadm --stop"
}

# spans_run CONFIG DEV: fio's 4 KiB reads on DEV; each part's nanoseconds
# per I/O into $OUT (selftests/lab/report.py divides by 2^shift).
spans_run() {
	grep '^span' /proc/cpubusy >/tmp/span.0
	fio --name=spans --filename="$2" --direct=1 --ioengine=libaio --rw=randread --bs=4k \
		--iodepth=1 --number_ios=2000 --size=64m --randrepeat=1 --norandommap \
		--output-format=json >/tmp/fio.json 2>/tmp/fio.err ||
		{ cat /tmp/fio.err; fail "fio on $2"; }
	grep '^span' /proc/cpubusy >/tmp/span.1
	ios=$(jq '.jobs[0].read.total_ios' /tmp/fio.json)
	iops=$(jq '.jobs[0].read.iops' /tmp/fio.json)
	[ "$ios" -ge 2000 ] || fail "fio on $2: $ios I/Os"
	# Calls and ns of each function over the run; the probes' own cost from
	# the later read. A function's own time: its span less the probe's, and
	# less each probed callee's whole span and probe.
	awk -v ios="$ios" -v iops="$iops" -v c="$1" -v m="$MODE" '
		FNR == NR { if ($1 == "span") { c0[$2] = $3; n0[$2] = $4 }; next }
		$1 == "span-cost" { full = $2; empty = $3; next }
		{ calls[$2] = $3 - c0[$2]; ns[$2] = $4 - n0[$2] }
		function net(f) { return calls[f] ? ns[f] - calls[f] * empty : 0 }
		function per(f, k) { return calls[f] ? net(f) / calls[f] * k : 0 }
		function rec(part, v) {
			printf "{\"mode\":\"%s\",\"config\":\"%s\",\"job\":\"span-%s\",\"rep\":1,", m, c, part
			printf "\"ios\":%d,\"iops\":%s,\"ns_per_io\":%.1f,\"errors\":0}\n", ios, iops, v
		}
		END {
			up = per("blkdev_bio_end_io_async", 1)
			if (c != "vol-1") { rec("upper", up); exit }
			clone = per("bio_alloc_clone", 1); acct = per("bio_start_io_acct", 1)
			pick = per("pick_path", 1)
			# Called twice for each I/O of a volume: by the block layer
			# for the bio received, and for the clone (counted here).
			blkg = per("bio_associate_blkg_from_css", 1)
			subm = per("gpupath_multipath_submit_bio", 1) - 4 * full - clone - acct - pick - blkg
			acct_end = per("bio_end_io_acct_remapped", 1)
			orig = per("orig_end", 1) - 2 * full - acct_end - up
			done = per("clone_end_io", 1) - full - per("orig_end", 1)
			rec("clone", clone); rec("acct", acct + acct_end); rec("pick", pick)
			rec("blkg", blkg); rec("submit-rest", subm); rec("end-rest", orig + done)
			rec("total", clone + acct + acct_end + pick + blkg + subm + orig + done)
			rec("upper", up)
		}' /tmp/span.0 /tmp/span.1 >>$OUT || fail "spans of $1"
	note "$1: $(jq -rs --arg c "$1" 'map(select(.config == $c) | "\(.job) \(.ns_per_io)") |
		join(", ")' $OUT) (ns per I/O)"
}

case $MODE in
spans)
	set -- $(stack_paths 1)
	spans_run ns /dev/$1
	volume_new policy round-robin
	$GP path add "$vol" /dev/$1 >/dev/null || fail "path add /dev/$1"
	spans_run vol-1 "$VOL"
	$GP volume del "$vol" || fail "volume del" ;;
iommu*)
	for b in /sys/block/nvme*n1; do
		case $(readlink -f $b) in
		*/pci0000:00/0000:00:??.?/nvme/*) root=/dev/${b##*/} ;;
		esac
	done
	[ -n "${root:-}" ] || fail "no NVMe on the root bus: $(ls /sys/block)"
	note "the BAR's IOMMU group: $(cat /sys/bus/pci/devices/$(basename \
		"$(pci_dev 0x1af4 0x1110)")/iommu_group/type 2>/dev/null || echo none)"
	pbench_all "$MODE" $root ;;
pcie)
	set -- $(stack_paths 1)
	[ $# = 2 ] || fail "namespace 1 has not two paths: $*"
	p1=/dev/$1 p2=/dev/$2
	set -- $(stack_paths 2)
	ns2=/dev/$1
	pbench_all ns $p1
	volume_new policy round-robin
	$GP path add "$vol" $p1 >/dev/null || fail "path add $p1"
	pbench_all vol-1 "$VOL"
	$GP path add "$vol" $p2 >/dev/null || fail "path add $p2"
	pbench_all vol-2 "$VOL"
	$GP volume del "$vol" || fail "volume del"
	md0 md0-raw $p1 $ns2
	volume_new policy round-robin
	v1=$vol V1=$VOL
	$GP path add "$v1" $p1 >/dev/null || fail "path add $p1"
	volume_new policy round-robin
	$GP path add "$vol" $ns2 >/dev/null || fail "path add $ns2"
	md0 md0-vol "$V1" "$VOL"
	$GP volume del "$vol" && $GP volume del "$v1" || fail "volume del" ;;
*)
	head1=$(ls /sys/block | grep -E '^nvme[0-9]+n1$') || fail "no head of namespace 1"
	head2=$(ls /sys/block | grep -E '^nvme[0-9]+n2$') || fail "no head of namespace 2"
	sub=$(readlink -f /sys/block/$head1/device) || fail "no subsystem of $head1"
	[ "$(ls $sub | grep -cE '^nvme[0-9]+$')" = 2 ] || fail "$head1 has not two paths: $(ls $sub)"
	echo round-robin >$sub/iopolicy || fail "iopolicy round-robin"
	pbench_all head-2 /dev/$head1
	volume_new policy round-robin
	$GP path add "$vol" /dev/$head1 >/dev/null || fail "path add the head"
	pbench_all vol-head "$VOL"
	$GP volume del "$vol" || fail "volume del"
	md0 md0-head /dev/$head1 /dev/$head2 ;;
esac
unbind_bar
