# SPDX-License-Identifier: GPL-2.0
# gpupath diagnose on the rails topology: GPU0 is fed by two paths to one
# namespace, the NVMe controller under its own switch (rail-aligned: P2P,
# direct) and the one under GPU1's switch (it crosses the root complex: not
# aligned, and P2P is refused there). diagnose -j must name the misaligned
# path, say why P2P is refused on it, probe both, and give the fix: read
# through the aligned namespace, with the volume picking by GPU.
. /src/selftests/vm/guest-lib.sh

load_module
g0=$(gpu_bdf 0) && g1=$(gpu_bdf 1) || fail "two ivshmem GPUs expected"
n0=$(switch_nvme "$g0" | head -1) && n1=$(switch_nvme "$g1" | head -1) ||
	fail "an NVMe under each GPU's switch expected"
prov0=$(bind_bar "$g0") || fail "provider"
cleanup() {
	volumes_del_all
	unbind_bar "$g0"
}
trap cleanup EXIT
volume_new policy round-robin
$GP path add "$vol" "/dev/$n1" rail 1 >/dev/null || fail "path add $n1"

$GP diagnose -j >/tmp/diag.json || fail "diagnose -j: $(cat /tmp/diag.json)"
jq . /tmp/diag.json | head -120
P="jq -e --arg g $g0 --arg n0 $n0 --arg n1 $n1"
D='.providers[] | select(.pci_dev == $g)'
$P "$D | .paths[] | select(.device == \$n0) | .aligned == true and .relation == \"switch\"
	and .p2p == true and .probe.mode == \"direct\" and .probe.bytes > 0" /tmp/diag.json \
	>/dev/null || fail "$n0 should be aligned, P2P and probed direct"
$P "$D | .paths[] | select(.device == \$n1) | .aligned == false and .p2p == false and
	.reason == \"no-p2p-route\" and .volume != null and .probe.mode == \"bounce\"" /tmp/diag.json \
	>/dev/null || fail "$n1 should be misaligned, refused and bounced"
$P "$D | .findings[] | select(.problem == \"misaligned\" and .path == \$n1) |
	(.fix | contains(\$n0) and contains(\"gpu-affinity\"))" /tmp/diag.json >/dev/null ||
	fail "no fix naming $n0 for the misaligned $n1"
$P "$D | .findings[] | select(.problem == \"no-p2p\" and .path == \$n1) |
	(.text | contains(\"no-p2p-route\"))" /tmp/diag.json >/dev/null ||
	fail "no reason given for P2P refused on $n1"
$P "$D | (.verdict | contains(\$n1)) and (.fix | contains(\$n0))" /tmp/diag.json >/dev/null ||
	fail "the verdict does not name $n1 with the fix"
# What the kernel does by itself and what gpupath adds, by the release.
case $(uname -r) in
6.1.*) want_up=1 ;;
6.*) want_up=2 ;;
*) want_up=4 ;;
esac
jq -e --argjson n "$want_up" '.kernel.status == "tested" and .kernel.p2pdma == true and
	(.kernel.upstream | length) == $n and (.kernel.gpupath_adds | length) > 0' /tmp/diag.json \
	>/dev/null || fail "diagnose's kernel section: $(jq -c .kernel /tmp/diag.json)"
# The table says the same.
$GP diagnose --no-probe >/tmp/diag.txt || fail "diagnose"
cat /tmp/diag.txt
grep -q "^  $n1 .* MISALIGNED " /tmp/diag.txt || fail "the table does not flag $n1"
grep -q "verdict: waits on $n1" /tmp/diag.txt || fail "no verdict line for $n1"
grep -q "^kernel $(uname -r): a tested series" /tmp/diag.txt &&
	grep -q "^  gpupath adds:" /tmp/diag.txt || fail "the table has no kernel section"
$GP diagnose --bogus >/dev/null 2>&1 && fail "an unknown option was accepted"
note "diagnose: $n0 aligned and direct, $n1 misaligned with the fix: $(jq -r --arg g "$g0" \
	'.providers[] | select(.pci_dev == $g) | .fix' /tmp/diag.json)"
