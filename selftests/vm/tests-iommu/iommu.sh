# SPDX-License-Identifier: GPL-2.0
# DMA translation on (run-vm.sh --topology iommu: QEMU's Intel IOMMU, a
# kernel that translates by default, an EPYC CPU). Two routes from one
# "GPU" BAR:
#
# - the NVMe controller beside it below the PCIe switch: the kernel maps
#   P2P by bus address, which the IOMMU never translates. QEMU's switch
#   routes nothing between its ports, so such a write goes up to the IOMMU,
#   which drops it, and the read still completes without an error (the
#   device memory keeps what it had). gpupath must refuse it
#   (iommu-bus-addr) and bounce, every byte landing; with p2p_past_iommu=1
#   (an administrator's word that the switch routes P2P) it goes direct, and
#   gpupath diagnose then sees the bytes not land;
# - the controller on the root bus: through the host bridge (allowed for
#   this CPU), mapped by the IOMMU per I/O: direct, every byte in the BAR,
#   checked from the host.
. /src/selftests/vm/guest-lib.sh

MiB=1048576
PARAM=/sys/module/gpupath/parameters/p2p_past_iommu
[ -e /sys/class/iommu/dmar0 ] || skip "no IOMMU in this kernel"
load_module
prov=$(bind_bar) || fail "no provider"
bdf=$(basename "$(pci_dev 0x1af4 0x1110)")
[ "$(cat /sys/bus/pci/devices/$bdf/iommu_group/type)" = DMA-FQ ] ||
	fail "the BAR's device is not translated: $(cat /sys/bus/pci/devices/$bdf/iommu_group/type)"
SW=/dev/$(switch_nvme "$bdf") || fail "no NVMe beside the GPU"
ROOT=
for b in /sys/block/nvme*n1; do
	case $(readlink -f "$b") in
	*/pci0000:00/0000:00:??.?/nvme/*) ROOT=/dev/${b##*/} ;;
	esac
done
[ -n "$ROOT" ] && [ "$ROOT" != "$SW" ] || fail "no NVMe on the root bus: $(ls /sys/block)"
note "beside the GPU: $SW; on the root bus: $ROOT"
[ "$(cat $PARAM)" = N ] || fail "p2p_past_iommu is on by default"

# show, topology: translation on for the provider and the controllers.
$GP show -j >/tmp/show.json || fail "show -j"
jq -e --arg b "$bdf" '.providers[] | select(.pci_dev == $b) |
	.iommu == "translated" and .iommu_domain == "DMA-FQ"' /tmp/show.json >/dev/null ||
	fail "show: $(jq -c .providers /tmp/show.json)"
$GP topology -j | jq -e '[.devices[] | select(.kind == "nvme") | .iommu] == ["translated", "translated"]' \
	>/dev/null || fail "topology: $($GP topology)"

# Beside the GPU: refused with the reason, bounced, every byte landing.
$PATTERN gen $((4 * MiB)) 501 | dd of=$SW bs=$MiB conv=fsync 2>/dev/null
expect_io 3 'mode=none reason=iommu-bus-addr .*error=Invalid cross-device link' \
	-p direct read "$prov" $SW 0 $MiB 501
expect_io 0 'mode=bounce reason=iommu-bus-addr' -p auto -o $((16 * MiB)) read "$prov" $SW $MiB \
	$((2 * MiB)) 501
host_expect bar.img "$(bar_offset)" $((2 * MiB)) 501 $MiB
$GP provider show "$prov" -j | jq -e '.peers | map(.pci_dev) | index("'"$(basename \
	"$(readlink -f /sys/block/${SW#/dev/}/device/device)")"'") | not' >/dev/null ||
	fail "the switch's controller is still listed as a P2P peer"
$GP diagnose -j >/tmp/diag.json || fail "diagnose -j"
jq -e --arg d "${SW#/dev/}" --arg b "$bdf" '.providers[] | select(.pci_dev == $b) |
	.iommu == "translated" and (.paths[] | select(.device == $d) |
	.p2p == false and .reason == "iommu-bus-addr" and .iommu == "translated" and
	.probe.mode == "bounce") and
	any(.findings[]; .problem == "no-p2p" and (.fix | contains("iommu=pt")))' \
	/tmp/diag.json >/dev/null || fail "diagnose: $(cat /tmp/diag.json)"

# On the root bus: through the host bridge, mapped by the IOMMU: direct.
$PATTERN gen $((4 * MiB)) 502 | dd of=$ROOT bs=$MiB conv=fsync 2>/dev/null
expect_io 0 'mode=direct reason=none' -p direct -o $((24 * MiB)) read "$prov" $ROOT 0 \
	$((2 * MiB)) 502
host_expect bar.img "$(bar_offset)" $((2 * MiB)) 502 0
expect_io 0 'mode=direct reason=none' -p direct write "$prov" $ROOT $((8 * MiB)) $MiB 503
host_expect nvme1.img $((8 * MiB)) $MiB 503 $((8 * MiB))
# The kernel's own O_DIRECT into gpupath's mapping: the same route.
expect_io 0 'mode=odirect' -p odirect -o $((32 * MiB)) read "$prov" $ROOT $MiB $MiB 502
host_expect bar.img "$(bar_offset)" $MiB 502 $MiB

# The administrator's word that the switch routes P2P: direct again, and
# diagnose's probe finds the bytes did not land (QEMU's switch does not).
echo 1 >$PARAM || fail "p2p_past_iommu=1"
expect_io 1 'mode=direct reason=none' -p direct read "$prov" $SW 0 $MiB 501
dmesg | grep -q 'DMAR: \[DMA Write' || fail "no DMAR fault logged for the P2P write"
$GP diagnose -j >/tmp/diag.json || fail "diagnose -j (p2p_past_iommu=1)"
jq -e --arg d "${SW#/dev/}" --arg b "$bdf" '.providers[] | select(.pci_dev == $b) |
	(.paths[] | select(.device == $d) | .probe.landed == false) and
	(.verdict | startswith("WRONG DATA")) and (.fix | contains("iommu=pt"))' \
	/tmp/diag.json >/dev/null || fail "diagnose with p2p_past_iommu=1: $(cat /tmp/diag.json)"
echo 0 >$PARAM || fail "p2p_past_iommu=0"
expect_io 3 'reason=iommu-bus-addr' -p direct read "$prov" $SW 0 $MiB 501
$GP stats -j | jq -e --argjson id "$prov" '.providers[] | select(.id == $id) |
	.stats.refused["iommu-bus-addr"].ios >= 2' >/dev/null || fail "counters: $($GP stats)"
unbind_bar
