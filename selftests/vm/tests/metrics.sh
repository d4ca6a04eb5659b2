# SPDX-License-Identifier: GPL-2.0
# Metrics: every sample of `gpupath stats --prometheus` equals what `gpupath
# stats -j` says, with a provider that has served direct and refused I/O and
# a volume over an RDMA and a TCP path that has served I/O. The output is
# left for the host, where `promtool check metrics` must pass it. gpupathd's
# endpoint (--metrics-port, on 127.0.0.1 only) serves the same text.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
NS=/dev/nvme0n1
load_module
prov=$(bind_bar) || fail "no provider"
cleanup() {
	[ -z "${daemon:-}" ] || kill "$daemon" 2>/dev/null
	volumes_del_all
	fabric_teardown
	unbind_bar
}
trap cleanup EXIT
fabric_setup
fabric_connect rdma 4420
fabric_connect tcp 4421
volume_new
$GP path add "$vol" "$(fabric_ns rdma)" rail 1 >/dev/null || fail "path add rdma"
$GP path add "$vol" "$(fabric_ns tcp)" rail 2 >/dev/null || fail "path add tcp"

# Direct from the PCIe namespace (232 MiB of it is this test's), bounced
# from the volume (soft-RoCE: virtual-dma), and host memory through it.
$PATTERN fill $NS $((232 * MiB)) $MiB 951 || fail "pattern onto $NS"
$PATTERN gen $((2 * MiB)) 952 | dd of=/dev/nullb0 bs=$MiB conv=fsync 2>/dev/null
expect_io 0 'mode=direct reason=none' -p direct read "$prov" $NS $((232 * MiB)) $MiB 951
expect_io 0 'mode=bounce reason=virtual-dma' -p auto read "$prov" "$VOL" 0 $MiB 952
expect_io 0 'mode=host reason=none' -p auto read host "$VOL" $MiB $MiB 952

prom_check metrics
P=/out/metrics.prom
grep -Eq "^gpupath_provider_direct_ios_total\\{provider=\"$prov\",.*\\} [1-9]" $P ||
	fail "no direct I/O counted for provider $prov"
grep -Eq "^gpupath_provider_refused_ios_total\\{provider=\"$prov\",.*reason=\"virtual-dma\"\\} [1-9]" $P ||
	fail "no refused I/O counted for provider $prov"
grep -Eq '^gpupath_volume_bytes_total\{volume="gpupath[0-9]+"\} [1-9]' $P ||
	fail "no volume bytes counted"
[ "$(grep -c '^gpupath_path_info{' $P)" = 2 ] || fail "not two paths in the metrics"
$GP stats -j --prometheus >/dev/null 2>&1 && fail "-j and --prometheus together were accepted"
note "$(grep -vc '^#' $P) samples, $(grep -c '^# TYPE' $P) metrics"

# The daemon's endpoint: the same samples; nothing but GET /metrics.
gpupathd -f --metrics-port 9464 >/tmp/gpupathd.log 2>&1 &
daemon=$!
wait_for 10 grep -q "metrics on http://127.0.0.1:9464/metrics" /tmp/gpupathd.log ||
	fail "gpupathd: $(cat /tmp/gpupathd.log)"
# Its ANA poller gives the paths their states (nvmet reports ANA) in a
# thread of its own: the two are compared once it has.
ana_known() { [ "$($GP path show -j | jq '[.paths[] | select(.ana == "unknown")] | length')" = 0 ]; }
wait_for 10 ana_known || fail "no ANA state from gpupathd: $($GP path show)"
wget -q -O /tmp/served.prom http://127.0.0.1:9464/metrics || fail "GET /metrics"
$GP stats --prometheus >/tmp/cli.prom
grep -v '^#' /tmp/served.prom | sed 's/ [^ ]*$//' >/tmp/served.names
grep -v '^#' /tmp/cli.prom | sed 's/ [^ ]*$//' >/tmp/cli.names
cmp -s /tmp/served.names /tmp/cli.names ||
	fail "the endpoint and the CLI differ: $(diff /tmp/served.names /tmp/cli.names | head)"
cp /tmp/served.prom /out/metrics-endpoint.prom
wget -q -O /dev/null http://127.0.0.1:9464/ 2>/dev/null && fail "GET / was served"
gpupathd -f --metrics-port 0 >/tmp/bad.log 2>&1 && fail "metrics port 0 accepted"
grep -q "invalid metrics port '0'" /tmp/bad.log || fail "port 0: $(cat /tmp/bad.log)"
note "gpupathd serves $(grep -vc '^#' /tmp/served.prom) samples at 127.0.0.1:9464/metrics"
