# SPDX-License-Identifier: GPL-2.0
# gpupath-bench on the switch topology: direct, compat and host side by
# side, every read checked against the pattern. The numbers are printed, not
# asserted (TCG timing means little); what is asserted is that every mode
# ran, without errors or mismatches.
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
load_module
prov=$(bind_bar) || fail "no provider"
run_bench() {
	echo "gpupath-bench $*"
	gpupath-bench -d $NS -p "$prov" -D 2 -S 64M "$@" -j >/tmp/bench.json ||
		fail "bench failed: $(cat /tmp/bench.json)"
	cat /tmp/bench.json
	jq -e '[.modes[] | select(has("error"))] == [] and
	       ([.modes[] | .mismatches + .errors] | add) == 0' /tmp/bench.json >/dev/null ||
		fail "a mode did not run cleanly"
	gpupath-bench -d $NS -p "$prov" -D 1 -S 64M "$@" || fail "bench (text) failed"
}
run_bench -s 1M -v
run_bench -s 128K -t 2 -r -v
run_bench -s 1M -q 8 -m direct,host
unbind_bar
