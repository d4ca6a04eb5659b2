# SPDX-License-Identifier: GPL-2.0
# What a volume costs over its raw path, timed: fio on a namespace's block
# device directly and through a gpupath volume whose one path it is. Two
# paths: the emulated NVMe-PCIe namespace, where the guest CPU is most of
# each I/O's time and a stacking layer shows most, and an nvme-rdma
# namespace over soft-RoCE. For scale, the PCIe path is also measured
# through a device-mapper linear target.
#
# These are TCG timings, noise to a few percent at best: the figures that
# count are the performance lab's (make bench, selftests/lab), which counts
# guest instructions per I/O on nvme-loop, NVMe/TCP and NVMe/RDMA, against
# dm-linear and the native multipath head. What this test still measures
# that the lab cannot is the emulated NVMe-PCIe path, whose device work
# QEMU does outside the instruction count.
#
# One fio process per comparison runs short jobs back to back in ABBA order
# (raw, other, other, raw, ...), so that both see the same machine and a
# drift in its speed cancels out. Each adjacent pair gives a ratio; printed
# are the pairs, the median of their ratios and the ratio of the totals, for
# throughput (128 KiB sequential reads, depth 16) and QD1 latency (mean
# completion latency of 4 KiB random reads). fio is pinned to one CPU so
# that every job sees the same interrupt and queue placement. Nothing about
# the numbers is asserted; what is asserted is that every job completed
# without errors.
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
PAIRS=${PAIRS:-12}
SECS=${SECS:-1}
DM=/dev/mapper/gpbench
# The last CPU: the second where the guest has two.
CPU=$(($(nproc) - 1))
load_module

# jobfile KIND RAW DEV: fio jobs raw-N (RAW) and cmp-N (DEV), N the pair, in
# ABBA order.
jobfile() {
	printf '[global]\ndirect=1\nioengine=libaio\nsize=256M\ntime_based\n'
	printf 'ramp_time=250ms\nruntime=%s\ncpus_allowed=%s\nstonewall\n' "$SECS" "$CPU"
	if [ "$1" = bw ]; then
		printf 'rw=read\nbs=128k\niodepth=16\n'
	else
		printf 'rw=randread\nbs=4k\niodepth=1\n'
	fi
	i=1
	while [ $i -le "$PAIRS" ]; do
		if [ $((i % 2)) = 1 ]; then
			printf '[raw-%d]\nfilename=%s\n[cmp-%d]\nfilename=%s\n' $i "$2" $i "$3"
		else
			printf '[cmp-%d]\nfilename=%s\n[raw-%d]\nfilename=%s\n' $i "$3" $i "$2"
		fi
		i=$((i + 1))
	done
}

# measure KIND RAW DEV: runs the jobs, prints "N raw other" per pair
# (bytes/s or mean ns).
measure() {
	jobfile "$1" "$2" "$3" >/tmp/bench.fio
	fio --output-format=json --output=/tmp/bench.json /tmp/bench.fio || fail "fio ($1 $3)"
	jq -e "[.jobs[] | select(.error != 0 or .read.io_bytes == 0)] == [] and
	       (.jobs | length) == $((PAIRS * 2))" /tmp/bench.json >/dev/null ||
		fail "fio ($1 $3) reported errors"
	if [ "$1" = bw ]; then q=.read.bw_bytes; else q=.read.clat_ns.mean; fi
	jq -r "[.jobs[] | {k: (.jobname | split(\"-\")), v: $q}] | group_by(.k[1] | tonumber)[] |
	       \"\(.[0].k[1]) \(.[] | select(.k[0] == \"raw\") | .v)\" +
	       \" \(.[] | select(.k[0] == \"cmp\") | .v)\"" /tmp/bench.json >/tmp/pairs
	[ "$(awk '$2 > 0 && $3 > 0' /tmp/pairs | wc -l)" = "$PAIRS" ] ||
		fail "fio ($1 $3): $(cat /tmp/pairs)"
	cat /tmp/pairs
}

# report WHAT NAME UNIT DIV [GOAL]: the pairs, then the median and total
# ratios of NAME to the raw path.
report() {
	awk -v what="$1" -v name="$2" -v unit="$3" -v div="$4" -v goal="${5:+ (goal $5)}" '
	{ r[NR] = $3 / $2; raw += $2; cmp += $3
	  printf "%s pair %d: raw %.0f %s, %s %.0f %s (%.3fx)\n", what, $1, $2 / div, unit,
		 name, $3 / div, unit, r[NR] }
	END {
		for (i = 1; i <= NR; i++)
			for (j = i + 1; j <= NR; j++)
				if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
		m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
		printf "%s, %s vs raw path: median of %d pairs %.3fx, total %.3fx%s\n",
		       what, name, NR, m, cmp / raw, goal
	}'
}

# compare TAG RAW DEV: throughput and latency pairs into /tmp/TAG-bw, -lat.
compare() {
	measure bw "$2" "$3" >/tmp/"$1"-bw
	measure lat "$2" "$3" >/tmp/"$1"-lat
}

# vol_compare TAG RAW: RAW against a new volume with RAW as its one path.
vol_compare() {
	volume_new
	$GP path add "$vol" "$2" >/dev/null || fail "path add $2"
	compare "$1" "$2" "$VOL"
	$GP volume show "$vol" -j | jq -e '.stats.errors == 0 and .stats.ios > 0' >/dev/null ||
		fail "volume errors"
	$GP volume del "$vol" || fail "volume del"
}

cleanup() {
	volumes_del_all
	fabric_teardown
	! dmsetup info gpbench >/dev/null 2>&1 || dmsetup remove gpbench
}
trap cleanup EXIT

# dm-linear opens the namespace exclusively, as the volume does: one at a time.
export DM_DISABLE_UDEV=1
dmsetup create gpbench --table "0 $(blockdev --getsz $NS) linear $NS 0" ||
	fail "dmsetup create"
[ -b $DM ] || fail "no $DM"
compare dm $NS $DM
dmsetup remove gpbench || fail "dmsetup remove"

vol_compare pcie $NS
fabric_setup
nvme connect -t rdma -a 10.99.0.1 -s 4420 -n $NQN >/dev/null || fail "rdma: connect"
wait_for 20 ns_dev >/dev/null || fail "rdma: no namespace"
vol_compare rdma "/dev/$(ns_dev)"

report "PCIe path throughput" dm-linear MiB/s 1048576 </tmp/dm-bw
report "PCIe path QD1 latency" dm-linear us 1000 </tmp/dm-lat
report "PCIe path throughput" volume MiB/s 1048576 </tmp/pcie-bw
report "PCIe path QD1 latency" volume us 1000 </tmp/pcie-lat
report "RDMA path throughput" volume MiB/s 1048576 </tmp/rdma-bw
report "RDMA path QD1 latency" volume us 1000 </tmp/rdma-lat
