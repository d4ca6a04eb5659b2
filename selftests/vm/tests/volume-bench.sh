# SPDX-License-Identifier: GPL-2.0
# What a volume costs over its raw path: fio on the emulated NVMe namespace
# directly and through a gpupath volume whose one path it is, interleaved
# (raw then volume, volume then raw, ...) so that both see the same machine.
# Printed: throughput (128 KiB sequential reads, depth 16) and QD1 latency
# (4 KiB random reads) of the volume as ratios to the raw device, per round,
# and the median of the rounds' ratios. Nothing about the numbers is asserted (TCG timing means
# little); what is asserted is that every run completed without errors.
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
ROUNDS=${ROUNDS:-6}
SECS=${SECS:-2}
load_module
volume_new
trap '$GP volume del "$vol"' EXIT
$GP path add "$vol" $NS >/dev/null || fail "path add"

# run DEV KIND: prints bytes/s (bw) or mean completion latency in ns (lat).
run() {
	if [ "$2" = bw ]; then
		set -- "$1" --rw=read --bs=128k --iodepth=16
		q='.jobs[0].read.bw_bytes'
	else
		set -- "$1" --rw=randread --bs=4k --iodepth=1
		q='.jobs[0].read.clat_ns.mean | floor'
	fi
	dev=$1
	shift
	fio --name=b --filename="$dev" --direct=1 --ioengine=libaio --size=256M --time_based \
		--runtime="$SECS" "$@" --output-format=json --output=/tmp/b.json ||
		fail "fio on $dev"
	jq -e '.jobs[0].error == 0 and .jobs[0].read.io_bytes > 0' /tmp/b.json >/dev/null ||
		fail "fio on $dev reported errors"
	jq "$q" /tmp/b.json
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >/tmp/bw.ratios
: >/tmp/lat.ratios
r=1
while [ $r -le "$ROUNDS" ]; do
	if [ $((r % 2)) = 1 ]; then
		bw_raw=$(run $NS bw) bw_vol=$(run "$VOL" bw)
		lat_raw=$(run $NS lat) lat_vol=$(run "$VOL" lat)
	else
		bw_vol=$(run "$VOL" bw) bw_raw=$(run $NS bw)
		lat_vol=$(run "$VOL" lat) lat_raw=$(run $NS lat)
	fi
	ratio "$bw_vol" "$bw_raw" >>/tmp/bw.ratios && echo >>/tmp/bw.ratios
	ratio "$lat_vol" "$lat_raw" >>/tmp/lat.ratios && echo >>/tmp/lat.ratios
	note "round $r: throughput raw $((bw_raw >> 20)) MiB/s, volume $((bw_vol >> 20)) MiB/s" \
		"($(ratio "$bw_vol" "$bw_raw")x); QD1 latency raw $((lat_raw / 1000)) us," \
		"volume $((lat_vol / 1000)) us ($(ratio "$lat_vol" "$lat_raw")x)"
	r=$((r + 1))
done
note "volume vs raw path, median of $ROUNDS rounds: throughput $(median </tmp/bw.ratios)x" \
	"(goal >= 0.97x), QD1 latency $(median </tmp/lat.ratios)x (goal <= 1.03x)"
$GP volume show "$vol" -j | jq -e '.stats.errors == 0' >/dev/null || fail "volume errors"
