#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the performance lab. Boots each test kernel under QEMU with
# -icount shift=LAB_SHIFT,sleep=off, one vCPU and kmemleak=off, LAB_BOOTS
# times in each of two modes (selftests/lab/guest.sh: per-path block
# devices, then the native multipath head), and prints what each I/O costs
# in guest instructions, with the spread across boots
# (selftests/lab/report.py). Figures are counted, not timed: they repeat
# from boot to boot and do not depend on the host's load.
#
#   LAB_KERNELS  kernel series (default "6.1 6.12 7.3": the test kernels,
#                and Debian's stock 7.3 with the module built by DKMS)
#   LAB_BOOTS    boots per kernel and mode (default 3)
#   LAB_MODES    which boots (default all): "paths" and "head" (nvme-loop,
#                selftests/lab/guest.sh), "pcie" and "pcie-head" (reads
#                from QEMU's emulated NVMe into the BAR: direct, host, the
#                bounce; selftests/lab/pcie.sh), "iommu", "iommu-strict",
#                "iommu-pt" and "iommu-off" (the same from a controller on
#                the root bus behind QEMU's Intel IOMMU, translating with
#                lazy and with strict invalidation, in passthrough, and
#                unused; on kernels with an Intel IOMMU driver), "spans"
#                (where a one-path volume's instructions per I/O go, timed
#                by kretprobes)
#   LAB_SHIFT    icount shift (default 1: 2 ns of guest time per instruction)
#   LAB_MS       milliseconds of guest time each job runs (default 500)
#   LAB_REPS     repetitions of LAB_MS / LAB_REPS each job runs as (default
#                3); a boot's median one counts (one repetition may catch
#                a burst of background work, or run faster than the rest)
#   LAB_WARMUP_MS  milliseconds of each job, uncounted, on the first device
#                of a boot (default 3000: on 6.12 the first seconds of I/O
#                of a boot cost more, 128 KiB reads up to 40%)
#   LAB_ONLY     comma-separated configurations (default: all), e.g.
#                raw,vol-round-robin-1,head-1
#   LAB_OUT      where the JSON lines and the report go
#                (default selftests/build/lab)
#   LAB_APPEND   more kernel parameters, for experiments
#   LAB_AGAINST  an earlier run's summary (its lab.json): each figure is
#                compared with it, and those that differ by over 0.5% are
#                listed
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"
cd "$top"

kernels=${LAB_KERNELS:-6.1 6.12 7.3}
boots=${LAB_BOOTS:-3}
modes=${LAB_MODES:-paths head pcie pcie-head iommu iommu-strict iommu-pt iommu-off spans}
shift_=${LAB_SHIFT:-1}
ms=${LAB_MS:-500}
warm=${LAB_WARMUP_MS:-3000}
reps=${LAB_REPS:-3}
only=${LAB_ONLY:-}
against=${LAB_AGAINST:-}
out=${LAB_OUT:-$top/selftests/build/lab}
case $boots in '' | *[!0-9]* | 0) die "LAB_BOOTS must be a positive number" ;; esac
case $shift_ in '' | *[!0-9]*) die "LAB_SHIFT must be a number (0 to 10)" ;; esac
case $ms in '' | *[!0-9]* | 0) die "LAB_MS must be a positive number of milliseconds" ;; esac
case $reps in '' | *[!0-9]* | 0) die "LAB_REPS must be a positive number" ;; esac
case $warm in '' | *[!0-9]* | 0) die "LAB_WARMUP_MS must be a positive number of milliseconds" ;; esac
case $only in *[!a-z0-9,-]*) die "LAB_ONLY: configuration names, comma-separated" ;; esac
[ -z "$against" ] || python3 selftests/lab/report.py --check "$against" ||
	die "LAB_AGAINST: $against is no summary of a lab run (lab.json)"
for m in $modes; do
	case $m in
	paths | head | pcie | pcie-head | iommu | iommu-strict | iommu-pt | iommu-off | spans) ;;
	*) die "LAB_MODES: paths, head, pcie, pcie-head, iommu, iommu-strict, iommu-pt, iommu-off or spans, not '$m'" ;;
	esac
done
# Kept aside first: it may be the last run's, in $out.
mkdir -p "$(dirname "$out")" || die "LAB_OUT: cannot make $out"
[ -z "$against" ] || { cp "$against" "$out.earlier.json" && against=$out.earlier.json; } ||
	die "LAB_AGAINST: cannot copy $against"
rm -rf "$out"
mkdir -p "$out"
[ -z "$against" ] || { mv "$against" "$out/earlier.json" && against=$out/earlier.json; }
make --no-print-directory userspace test-bins >"$out/build.log" 2>&1 ||
	{ tail -20 "$out/build.log"; die "user space does not build"; }
qemu=$(qemu-system-x86_64 --version | head -1)
start=$(date +%s)
for series in $kernels; do
	export KERNEL_SERIES=$series KERNEL_VARIANT=default
	kmod=$top/selftests/build/kmod-lab-$series
	mkdir -p "$kmod"
	case $series in
	6.*)
		kdir=$(selftests/vm/build-kernel.sh) || die "test kernel $series"
		kimage=$kdir/bzImage kmodroot=$kdir/modroot kconfig=$kdir/build/.config
		selftests/vm/build-module.sh "$kdir/build" "$kmod" >"$out/module-$series.log" 2>&1 ||
			{ tail -20 "$out/module-$series.log"; die "module for $series"; }
		selftests/lab/cpubusy/build.sh "$kdir/build" "$kmod-cpubusy" \
			>"$out/cpubusy-$series.log" 2>&1 ||
			{ tail -20 "$out/cpubusy-$series.log"; die "cpubusy for $series"; } ;;
	*)
		# Debian's stock kernel, the module built by DKMS in Debian 13.
		kdir=$(selftests/vm/stock-kernel.sh) || die "stock kernel $series"
		rel=$(cat "$kdir/release")
		kimage=$kdir/vmlinuz kmodroot=$kdir/modroot kconfig=$kmodroot/lib/modules/$rel/config
		stock_module "$top/selftests/build/dkms-lab-$series" "$rel" \
			"$kmod/gpupath.ko" >"$out/module-$series.log" 2>&1 ||
			{ tail -20 "$out/module-$series.log"; die "module for $series"; }
		# Against the stock headers, in Debian 13 where the host is older.
		if [ -n "$(series_root)" ]; then
			trixie_run "$top" selftests/lab/cpubusy/build.sh "/usr/src/linux-headers-$rel" \
				"$kmod-cpubusy"
		else
			selftests/lab/cpubusy/build.sh "/usr/src/linux-headers-$rel" "$kmod-cpubusy"
		fi >"$out/cpubusy-$series.log" 2>&1 ||
			{ tail -20 "$out/cpubusy-$series.log"; die "cpubusy for $series"; } ;;
	esac
	for b in $(seq "$boots"); do
		for mode in $modes; do
			case $mode in *head) mp=Y ;; *) mp=N ;; esac
			# The guest script, its topology, and what else the mode asks.
			script=guest.sh vm=(--topology switch) extra=
			case $mode in
			pcie* | spans) script=pcie.sh vm=(--topology stack) ;;
			iommu*)
				if ! grep -q '^CONFIG_INTEL_IOMMU=y' "$kconfig"; then
					[ "$b" != 1 ] || echo "# $series $mode: no Intel IOMMU driver in this kernel, not run"
					continue
				fi
				script=pcie.sh vm=(--topology iommu)
				case $mode in
				iommu-strict) extra=" iommu.strict=1" ;;
				iommu-pt) extra=" iommu=pt" ;;
				iommu-off) extra=" intel_iommu=off" ;;
				esac ;;
			esac
			# QEMU's NVMe completes in host time: always late, and guest
			# time following host time while it waits (pcie.sh says why).
			[ $script = guest.sh ] || vm+=(--nvme-latency 500000 --icount-sleep)
			work=$out/$series-$mode-$b
			mkdir -p "$work"
			cp "$kmod/gpupath.ko" "$work/"
			[ $script = guest.sh ] || cp "$kmod-cpubusy/cpubusy.ko" "$work/"
			t0=$(date +%s)
			for try in 1 2; do
				selftests/vm/run-vm.sh --workdir "$work" --kernel "$kimage" \
					--modroot "$kmodroot" "${vm[@]}" --smp 1 --icount "$shift_" \
					--append "kmemleak=off nvme_core.multipath=$mp$extra${LAB_APPEND:+ $LAB_APPEND} LAB_MODE=$mode LAB_MS=$ms LAB_WARMUP_MS=$warm LAB_REPS=$reps${only:+ LAB_ONLY=$only}" \
					--timeout 3600 -- "sh /src/selftests/lab/$script" >"$work/vm.log" 2>&1
				rc=$?
				sed -e 's/\r$//' -e '/^GPUPATH_EXIT=/d' -e "s/^/# $series $mode $b: /" "$work/tap.log"
				# QEMU's emulated NVMe controller may stop completing
				# (Documentation/testing.md): such a boot, once, again.
				[ $rc != 0 ] && [ $script = pcie.sh ] && [ $try = 1 ] &&
					grep -q 'I/O.*timeout' "$work/console.log" || break
				echo "# $series $mode $b: QEMU's NVMe controller stopped completing; the boot once more"
				mv "$work/console.log" "$work/console-stalled.log"
			done
			[ $rc = 0 ] || die "lab boot $series $mode $b failed (exit $rc; $work/console.log)"
			jq -c --arg k "$series" --argjson b "$b" --argjson s "$shift_" \
				'. + {kernel: $k, boot: $b, shift: $s}' "$work/lab.jsonl" >>"$out/lab.jsonl" ||
				die "no figures from $work"
			echo "# $series $mode boot $b: $(( $(date +%s) - t0 )) s"
		done
	done
done
{
	echo "# $qemu: -accel tcg -smp 1 -icount shift=$shift_,sleep=off (sleep=on for the reads from QEMU's NVMe); kernel: kmemleak=off;" \
		"$boots boots per kernel and mode; $ms ms per job in $reps repetitions (the median counts), after $warm ms of warm-up; $(( $(date +%s) - start )) s in all"
	python3 selftests/lab/report.py --json "$out/lab.json" ${against:+--against "$against"} "$out/lab.jsonl"
} | tee "$out/report.txt"
