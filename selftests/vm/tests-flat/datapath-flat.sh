# SPDX-License-Identifier: GPL-2.0
# The refused-P2P topology: NVMe and the ivshmem "GPU" on the flat root
# bus of q35, whose host bridge is not on 6.1's P2P allow-list. direct must
# fail with no-p2p-route; auto must bounce and still land the bytes in the
# BAR (checked on the host in bar.img).
. /src/selftests/vm/guest-lib.sh

NS=/dev/nvme0n1
MiB=1048576
load_module
prov=$(bind_bar) || fail "no provider"
$GP provider show "$prov" -j | jq -e '.peers == []' >/dev/null ||
	fail "P2P peers on the flat root bus: $($GP provider show "$prov")"
$PATTERN gen $((4 * MiB)) 401 | dd of=$NS bs=$MiB conv=fsync 2>/dev/null
expect_io 3 'mode=none reason=no-p2p-route .*error=Invalid cross-device link' \
	-p direct read "$prov" $NS 0 $MiB 401
expect_io 0 'mode=bounce reason=no-p2p-route' -p auto -o $((32 * MiB)) read "$prov" $NS $MiB \
	$((2 * MiB)) 401
host_expect bar.img "$(bar_offset)" $((2 * MiB)) 401 $MiB
expect_io 0 'mode=bounce reason=no-p2p-route' -p auto write "$prov" $NS $((8 * MiB)) $MiB 402
host_expect nvme.img $((8 * MiB)) $MiB 402 $((8 * MiB))
expect_io 0 'mode=host reason=none' -p auto read host $NS 0 $MiB 401
$GP stats -j | jq -e --argjson id "$prov" '.providers[] | select(.id == $id) |
	.stats.direct_ios == 0 and .stats.refused["no-p2p-route"].ios == 3 and
	.stats.refused["no-p2p-route"].bytes == 4194304' >/dev/null || fail "counters: $($GP stats)"
unbind_bar

# gpupath diagnose says why: P2P refused on the flat root bus, with the fix.
prov=$(bind_bar) || fail "no provider"
$GP diagnose -j >/tmp/diag.json || fail "diagnose -j"
bdf=$(basename "$(pci_dev 0x1af4 0x1110)")
jq -e --arg d "${NS#/dev/}" --arg b "$bdf" '.providers[] | select(.pci_dev == $b) |
	(.paths[] | select(.device == $d) |
	.p2p == false and .reason == "no-p2p-route" and .probe.mode == "bounce") and
	(.verdict | contains("no-p2p-route") and contains($d)) and (.fix | contains("PCIe switch"))' \
	/tmp/diag.json >/dev/null || fail "diagnose: $(cat /tmp/diag.json)"
note "diagnose: $(jq -r --arg b "$bdf" '.providers[] | select(.pci_dev == $b) | .verdict' \
	/tmp/diag.json)"
unbind_bar
