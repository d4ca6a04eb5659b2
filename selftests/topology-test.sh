#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gpupath topology on a sysfs tree built here (GPUPATH_SYSFS): the PCIe
# tree, the relations and the rails it gives, no hardware needed. Prints TAP.
#
#   pci0000:00, NUMA node 0
#     00:01.0 root port --- 01:00.0 switch -+- 02:00.0 --- 03:00.0 GPU0 (NVIDIA 3D)
#                                           |- 02:01.0 --- 04:00.0 NIC0 eth0, mlx5_0
#                                           '- 02:02.0 --- 05:00.0 NVMe nvme0
#     00:02.0 root port -+- 06:00.0 GPU1 (NVIDIA 3D)
#                        '- 06:00.1 NIC1 (virtio-net: eth1 below virtio1), rxe0 on eth1
#     00:05.0 the VGA of a BMC (ASPEED): not a GPU
#   pci0000:40, NUMA node 0
#     40:01.0 root port --- 41:00.0 GPU2 (Intel VGA): its NICs are across host bridges
#   pci0000:80, NUMA node 1
#     80:01.0 root port --- 81:00.0 GPU3 (AMD, display 0x0380): nothing on its node
#
# and what must be left out: lo (no device), nvme1 (a fabrics controller).
#
# Expected rails: GPU0 <-> NIC0 and nvme0 via switch; GPU1 <-> NIC1 via
# root-port, nvme0 via host-bridge; GPU2 <-> NIC0 (the lower address of two
# equally close) via numa; GPU3 <-> NIC0 via system.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
GP=$top/tools/gpupath/gpupath
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sys=$work/sys
proc=$work/proc
export GPUPATH_PROCFS=$proc
out=$work/out

# pcidev PATH CLASS VENDOR DEVICE NUMA: a PCI function at devices/PATH.
pcidev() {
	local d=$sys/devices/$1
	mkdir -p "$d" "$sys/bus/pci/devices"
	echo "$2" >"$d/class"
	echo "$3" >"$d/vendor"
	echo "$4" >"$d/device"
	echo "$5" >"$d/numa_node"
	ln -s "../../../devices/$1" "$sys/bus/pci/devices/${1##*/}"
}

# classdev CLASS NAME DIR [DEVICE]: /sys/class/CLASS/NAME for the class
# device at devices/DIR/NAME, whose device link leads to devices/DEVICE.
classdev() {
	local d=$sys/devices/$3/$2
	mkdir -p "$d" "$sys/class/$1"
	[ -z "${4:-}" ] || ln -s "$sys/devices/$4" "$d/device"
	ln -s "$d" "$sys/class/$1/$2"
}

build_tree() {
	local rp0=pci0000:00/0000:00:01.0 rp1=pci0000:00/0000:00:02.0 sw
	sw=$rp0/0000:01:00.0
	pcidev $rp0 0x060400 0x8086 0x7c70 0
	pcidev $sw 0x060400 0x10b5 0x8747 0
	pcidev $sw/0000:02:00.0 0x060400 0x10b5 0x8747 0
	pcidev $sw/0000:02:01.0 0x060400 0x10b5 0x8747 0
	pcidev $sw/0000:02:02.0 0x060400 0x10b5 0x8747 0
	pcidev $sw/0000:02:00.0/0000:03:00.0 0x030200 0x10de 0x2330 0
	pcidev $sw/0000:02:01.0/0000:04:00.0 0x020000 0x15b3 0x101d 0
	pcidev $sw/0000:02:02.0/0000:05:00.0 0x010802 0x144d 0xa824 0
	pcidev $rp1 0x060400 0x8086 0x7c71 0
	pcidev $rp1/0000:06:00.0 0x030200 0x10de 0x2330 0
	pcidev $rp1/0000:06:00.1 0x020000 0x1af4 0x1041 0
	pcidev pci0000:00/0000:00:05.0 0x030000 0x1a03 0x2000 0
	pcidev pci0000:40/0000:40:01.0 0x060400 0x8086 0x7c72 0
	pcidev pci0000:40/0000:40:01.0/0000:41:00.0 0x030000 0x8086 0x56c0 0
	pcidev pci0000:80/0000:80:01.0 0x060400 0x8086 0x7c73 1
	pcidev pci0000:80/0000:80:01.0/0000:81:00.0 0x038000 0x1002 0x740f 1

	classdev net eth0 $sw/0000:02:01.0/0000:04:00.0/net $sw/0000:02:01.0/0000:04:00.0
	mkdir -p "$sys/devices/$rp1/0000:06:00.1/virtio1"
	classdev net eth1 $rp1/0000:06:00.1/virtio1/net $rp1/0000:06:00.1/virtio1
	classdev net lo virtual/net
	classdev infiniband mlx5_0 $sw/0000:02:01.0/0000:04:00.0/infiniband \
		$sw/0000:02:01.0/0000:04:00.0
	classdev infiniband rxe0 virtual/infiniband
	echo eth1 >"$sys/devices/virtual/infiniband/rxe0/parent"
	classdev nvme nvme0 $sw/0000:02:02.0/0000:05:00.0/nvme $sw/0000:02:02.0/0000:05:00.0
	mkdir -p "$sys/devices/virtual/nvme-fabrics/ctl"
	classdev nvme nvme1 virtual/nvme-fabrics/ctl virtual/nvme-fabrics/ctl

	# The NVIDIA driver bound to both NVIDIA GPUs; GPU0 with the P2PDMA
	# region UVM registers over BAR1, GPU1 without; gpupath's own region
	# not allowed, the driver's registry asking for static BAR1 only.
	mkdir -p "$sys/bus/pci/drivers/nvidia" "$sys/module/gpupath/parameters" \
		"$sys/devices/$sw/0000:02:00.0/0000:03:00.0/p2pmem" "$proc/driver/nvidia"
	ln -s ../../../bus/pci/drivers/nvidia "$sys/devices/$sw/0000:02:00.0/0000:03:00.0/driver"
	ln -s ../../../bus/pci/drivers/nvidia "$sys/devices/$rp1/0000:06:00.0/driver"
	echo 0 >"$sys/devices/$sw/0000:02:00.0/0000:03:00.0/p2pmem/published"
	echo N >"$sys/module/gpupath/parameters/nvidia_bar_region"
	printf 'ResmanDebugLevel: 4294967295\nRegistryDwords: "RMForceStaticBar1=1"\n' \
		>"$proc/driver/nvidia/params"

	# IOMMU groups: GPU0 and the NVMe translated (lazy), NIC0 in
	# passthrough, GPU1 in a group of an older kernel's (no type); the
	# rest with no IOMMU at all.
	group() {
		mkdir -p "$sys/kernel/iommu_groups/$1"
		[ -z "$2" ] || echo "$2" >"$sys/kernel/iommu_groups/$1/type"
		ln -s "$sys/kernel/iommu_groups/$1" "$sys/devices/$3/iommu_group"
	}
	group 1 DMA-FQ $sw/0000:02:00.0/0000:03:00.0
	group 2 identity $sw/0000:02:01.0/0000:04:00.0
	group 3 DMA $sw/0000:02:02.0/0000:05:00.0
	group 4 "" $rp1/0000:06:00.0
}

# t NAME WANT GOT: one TAP line.
t() {
	if [ "$2" = "$3" ]; then
		echo "ok - topology: $1"
	else
		echo "not ok - topology: $1 (got '$3', expected '$2')"
	fi
}

# rail N: "GPU NIC NIC_RELATION NVME... NVME_RELATION" of rail N in the JSON.
rail() {
	jq -r --argjson n "$1" '.rails[$n] | [.gpu, .nic, .nic_relation,
		(.nvme | map(.pci_dev) | join(",")), .nvme_relation] | join(" ")' "$out.json"
}

# dev BDF FIELD: a device's field in the JSON, arrays joined with ",".
dev() {
	jq -r --arg d "$1" --arg f "$2" '.devices[] | select(.pci_dev == $d) | .[$f] |
		if type == "array" then join(",") else tostring end' "$out.json"
}

build_tree
GPUPATH_SYSFS=$sys "$GP" topology -j >"$out.json" 2>"$out.err"
t "topology -j exits 0" "0" "$?"
t "topology -j is valid JSON" "ok" "$(jq -e .rails "$out.json" >/dev/null 2>&1 && echo ok)"
t "the GPUs: NVIDIA, Intel and AMD, not the BMC's VGA" \
	"0000:03:00.0 0000:06:00.0 0000:41:00.0 0000:81:00.0" \
	"$(jq -r '[.devices[] | select(.kind == "gpu") | .pci_dev] | join(" ")' "$out.json")"
t "devices are named from pci.ids (libpci), as lspci names them" \
	"NVIDIA Corporation|Red Hat, Inc. Virtio 1.0 network device" \
	"$(jq -r '[(.devices[] | select(.pci_dev == "0000:03:00.0") | .name | sub(" GH100.*"; "")),
		(.devices[] | select(.pci_dev == "0000:06:00.1") | .name)] | join("|")' "$out.json")"
t "the NICs: functions with interfaces, not lo" "0000:04:00.0 0000:06:00.1" \
	"$(jq -r '[.devices[] | select(.kind == "nic") | .pci_dev] | join(" ")' "$out.json")"
t "the NVMe functions, with the PCIe controller only" "0000:05:00.0 nvme0" \
	"$(jq -r '.devices[] | select(.kind == "nvme") | "\(.pci_dev) \(.controllers | join(","))"' \
		"$out.json")"
t "GPU0's place: root port, switch, bridges" "0000:00:01.0 0000:01:00.0 3" \
	"$(dev 0000:03:00.0 root_port) $(dev 0000:03:00.0 switch) \
$(jq -r '.devices[] | select(.pci_dev == "0000:03:00.0") | .bridges | length' "$out.json")"
t "GPU3's host bridge and NUMA node" "pci0000:80 1" \
	"$(dev 0000:81:00.0 host_bridge) $(dev 0000:81:00.0 numa_node)"
t "NIC0: interface and RDMA device by its PCI function" "eth0 mlx5_0" \
	"$(dev 0000:04:00.0 netdevs) $(dev 0000:04:00.0 rdma)"
t "NIC1: a virtio interface, and soft-RoCE by its parent interface" "eth1 rxe0" \
	"$(dev 0000:06:00.1 netdevs) $(dev 0000:06:00.1 rdma)"
t "each device's IOMMU: translated, passthrough, unknown without a type, off without a group" \
	"translated passthrough translated unknown off" \
	"$(dev 0000:03:00.0 iommu) $(dev 0000:04:00.0 iommu) $(dev 0000:05:00.0 iommu) \
$(dev 0000:06:00.0 iommu) $(dev 0000:41:00.0 iommu)"
t "four rails, one per GPU" 4 "$(jq '.rails | length' "$out.json")"
t "rail 0: GPU0 <-> NIC0 via switch, nvme0 via switch" \
	"0000:03:00.0 0000:04:00.0 switch 0000:05:00.0 switch" "$(rail 0)"
t "rail 1: GPU1 <-> NIC1 via root-port, nvme0 via host-bridge" \
	"0000:06:00.0 0000:06:00.1 root-port 0000:05:00.0 host-bridge" "$(rail 1)"
t "rail 2: GPU2 <-> the lower of two NICs on its node, via numa" \
	"0000:41:00.0 0000:04:00.0 numa 0000:05:00.0 numa" "$(rail 2)"
t "rail 3: GPU3 alone on its node: NIC0 via system" \
	"0000:81:00.0 0000:04:00.0 system 0000:05:00.0 system" "$(rail 3)"
t "rail 0 names the NIC's interfaces and RDMA devices" "eth0 mlx5_0" \
	"$(jq -r '.rails[0] | "\(.netdevs | join(",")) \(.rdma | join(","))"' "$out.json")"

t "NVIDIA GPU0: the driver's P2PDMA region, nothing to fix" \
	"nvidia true true false false null" \
	"$(jq -r '.devices[] | select(.pci_dev == "0000:03:00.0") | .nvidia | [.driver,
		.p2pdma_region, .static_bar1, .iomap_wc_disabled, .gpupath_region_allowed,
		.fix] | map(tostring) | join(" ")' "$out.json")"
t "NVIDIA GPU1: no region; the fix names the driver's two settings" "false true" \
	"$(jq -r '.devices[] | select(.pci_dev == "0000:06:00.0") | .nvidia |
		"\(.p2pdma_region) \(.fix | test("RMForceStaticBar1=1;RmForceDisableIomapWC=1"))"' \
		"$out.json")"
t "the GPUs of other vendors have no NVIDIA state" "null null" \
	"$(jq -r '[.devices[] | select(.pci_dev == "0000:41:00.0" or .pci_dev == "0000:81:00.0") |
		.nvidia | tostring] | join(" ")' "$out.json")"
echo Y >"$sys/module/gpupath/parameters/nvidia_bar_region"
GPUPATH_SYSFS=$sys "$GP" topology -j >"$out.json" 2>&1
t "NVIDIA GPU1 with nvidia_bar_region: gpupath's own region at the first registration" \
	"true true" \
	"$(jq -r '.devices[] | select(.pci_dev == "0000:06:00.0") | .nvidia |
		"\(.gpupath_region_allowed) \(.fix | test("registers its own"))"' "$out.json")"
echo N >"$sys/module/gpupath/parameters/nvidia_bar_region"
# Both settings, and still no region on GPU1: UVM of 565 to 590 keeps one
# only while a CUDA process uses the GPU.
params=$(cat "$proc/driver/nvidia/params")
printf 'RegistryDwords: "RMForceStaticBar1=1;RmForceDisableIomapWC=1"\n' >"$proc/driver/nvidia/params"
GPUPATH_SYSFS=$sys "$GP" topology -j >"$out.json" 2>&1
t "NVIDIA GPU1 with both settings and no region: UVM keeps one only while CUDA runs" \
	"true true false true" \
	"$(jq -r '.devices[] | select(.pci_dev == "0000:06:00.0") | .nvidia |
		"\(.static_bar1) \(.iomap_wc_disabled) \(.p2pdma_region)
		 \(.fix | test("only while a CUDA process uses the GPU"))"' "$out.json" | xargs)"
printf '%s\n' "$params" >"$proc/driver/nvidia/params"

GPUPATH_SYSFS=$sys "$GP" topology >"$out.txt" 2>&1
t "topology (text) exits 0" 0 "$?"
t "text: NVIDIA GPU0's region" 1 \
	"$(grep -A1 'GPU 0000:03:00.0 ' "$out.txt" |
		grep -c '^ *driver nvidia, P2PDMA region over its BAR: yes$')"
t "text: NVIDIA GPU1 without one, and the fix" 2 \
	"$(grep -A2 'GPU 0000:06:00.0 ' "$out.txt" |
		grep -c 'P2PDMA region over its BAR: no$\|RmForceDisableIomapWC=1')"
t "text: rail 0 line" 1 \
	"$(grep -c '^rail 0: GPU 0000:03:00.0 <-> NIC 0000:04:00.0 (eth0, rdma mlx5_0) via switch$' "$out.txt")"
t "text: rail 1's NVMe" 1 "$(grep -c '^  NVMe 0000:05:00.0 (nvme0) via host-bridge$' "$out.txt")"
t "text: the tree has the switch under its root port" 1 \
	"$(grep -c '^    switch 0000:01:00.0$' "$out.txt")"
t "text: GPU1 right under its root port, named as lspci names it, its IOMMU said" 1 \
	"$(grep -cE '^    GPU 0000:06:00.0 NVIDIA Corporation GH100.* \[10de:2330\], numa node 0, iommu unknown$' \
		"$out.txt")"

# Without GPUs: said plainly, not an error.
rm -r "$sys/bus/pci/devices/0000:03:00.0" "$sys/bus/pci/devices/0000:06:00.0" \
	"$sys/bus/pci/devices/0000:41:00.0" "$sys/bus/pci/devices/0000:81:00.0"
GPUPATH_SYSFS=$sys "$GP" topology >"$out.txt" 2>&1
t "no GPU: exit 0" 0 "$?"
t "no GPU: said so" 1 "$(grep -c '^no GPU found' "$out.txt")"
GPUPATH_SYSFS=$sys "$GP" topology -j >"$out.json" 2>&1
t "no GPU: no rails in the JSON, NICs still listed" "0 2" \
	"$(jq -r '"\(.rails | length) \([.devices[] | select(.kind == "nic")] | length)"' "$out.json")"

GPUPATH_SYSFS=$work/nothing "$GP" topology >"$out.txt" 2>&1
t "no sysfs there: exit 1" 1 "$?"
t "no sysfs there: says where it looked" 1 \
	"$(grep -c "cannot read the PCI devices in $work/nothing/bus/pci/devices: No such file" "$out.txt")"
GPUPATH_SYSFS=$sys "$GP" topology extra >"$out.txt" 2>&1
t "a stray argument is a usage error" 2 "$?"
