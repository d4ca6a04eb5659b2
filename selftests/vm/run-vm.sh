#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel under QEMU (TCG: nested KVM does not work here) and run one
# command in it.
#
#   run-vm.sh --kernel BZIMAGE --modroot DIR --workdir DIR [options] -- CMD...
#
#   --kernel F     kernel image (the test kernel, or Debian's stock vmlinuz)
#   --modroot D    INSTALL_MOD_PATH-style tree with lib/modules/RELEASE
#   --modules LIST only these modules (and what they depend on) from modroot;
#                  default: all of them
#   --workdir D    shared rw with the guest as /out; CMD runs there; the
#                  console log (console.log) and the guest's output
#                  (tap.log) are left there
#   --keep-images  leave the disk images and BAR backing files (nvme.img;
#                  bar.img, or bar0.img and bar1.img for rails; below) in
#                  the work directory for host-side checks, until
#                  vm_images_drop (lib.sh) or the next run there; without
#                  it they go when QEMU exits
#   --topology T   where the "GPU" BAR and the emulated NVMe sit:
#                  switch  both behind one emulated PCIe switch (P2P allowed),
#                          with a virtio-blk disk (vblk.img) on a third port
#                  flat    both on the root bus (P2P refused by 6.1)
#                  rails   two switches, each with one "GPU", one NVMe
#                          controller and one NIC; the two controllers
#                          share one namespace (below)
#                  stack   one switch with a "GPU" and two NVMe controllers
#                          of one subsystem, which share two namespaces
#                          (stack1.img, stack2.img, 256 MiB each): two
#                          paths to each, both near the GPU (md arrays over
#                          volumes, native-multipath heads)
#                  iommu   the switch's "GPU" (bar.img) and NVMe controller
#                          (nvme.img), and a second controller on the root
#                          bus (nvme1.img, 64 MiB), behind QEMU's Intel
#                          IOMMU (as --iommu intel) on an EPYC CPU (unless
#                          --cpu): P2P by bus address inside the switch,
#                          and through the host bridge, IOMMU-mapped
#   --append S     extra kernel command line
#   --timeout S    hard limit for the whole run (default 600)
#   --mem M        guest memory (default 2G)
#   --smp N        virtual CPUs (default 1; more run in turn on one host
#                  thread, below)
#   --icount SHIFT count instead of time: guest time advances 2^SHIFT ns per
#                  instruction and never while the vCPU sleeps (QEMU's
#                  -icount shift=SHIFT,sleep=off; the lab: selftests/lab)
#   --icount-sleep with --icount: guest time follows host time while the
#                  vCPU sleeps (sleep=on), so that a wait on an emulated
#                  device does not jump over the guest's timers
#   --nvme-latency NS  the stack topology's namespaces, and the iommu
#                  topology's controller on the root bus, read zeroes
#                  (null-co) and complete each I/O NS nanoseconds of host
#                  time late: always after the guest has gone idle (the
#                  lab's reads from emulated NVMe, selftests/lab/pcie.sh)
#   --iommu intel  an emulated Intel IOMMU (intel-iommu, DMA translation on,
#                  no interrupt remapping): a kernel with CONFIG_INTEL_IOMMU
#                  translates every device's DMA (Debian's default), unless
#                  told iommu=pt
#   --cpu MODEL    the emulated CPU (default qemu64, which Linux takes for an
#                  AMD family 6: no P2P through the host bridge); EPYC is an
#                  AMD family 0x17, whose host bridge Linux lets P2P through
#
# rails: two PCIe switches, each behind its own root port, each holding one
# "GPU" (ivshmem-plain, BAR2 = 64 MiB backed by bar0.img / bar1.img in the
# work directory), one NVMe controller and one NIC (virtio-net, on a QEMU hub
# of its own with nothing else on it: no packet leaves the guest, and no
# address is set on it). The two controllers belong to one
# NVMe subsystem (nqn.2026-11.io.gpupath:rails, serial "rails": QEMU wants
# one serial per subsystem) and share its one namespace (nsid 1, backed by
# nvme.img), so with nvme_core.multipath=N the guest gets one block device per
# controller, both with the same /sys/block/*/wwid (Linux ignores the IDs of
# QEMU's namespaces, quirk BOGUS_NID, so that is built from vendor, serial,
# model and nsid: nvme.1b36-7261696c73-51454d55204e564d65204374726c-00000001,
# RAILS_WWID in guest-lib.sh). The PCI addresses are fixed by run-vm.sh;
# the bus numbers are what SeaBIOS assigns (depth first), checked by
# tests-rails/rails-topology.sh:
#
#   00:10.0 root port --- 01:00.0 switch 0 upstream
#                           |- 02:00.0 downstream --- 03:00.0 GPU0 (bar0.img)
#                           |- 02:01.0 downstream --- 04:00.0 NVMe controller 0
#                           '- 02:02.0 downstream --- 05:00.0 NIC 0 (virtio-net)
#   00:11.0 root port --- 06:00.0 switch 1 upstream
#                           |- 07:00.0 downstream --- 08:00.0 GPU1 (bar1.img)
#                           |- 07:01.0 downstream --- 09:00.0 NVMe controller 1
#                           '- 07:02.0 downstream --- 0a:00.0 NIC 1 (virtio-net)
#
# QEMU's monitor (QMP) is open to the guest through the host: qmp-agent.py
# passes commands the guest leaves in /out/qmp.req (the qmp helper of
# guest-lib.sh), so that a test can unplug and plug devices (device_del,
# device_add; ids gpu0, gpu1, nvme0, nvme1, eth0, eth1; memory backends bar0,
# bar1; switch ports dn1 or dn0g/dn1g). PCIe native hot-plug (pciehp) runs
# those slots: QEMU's ACPI hot-plug is turned off.
#
# Inside the guest, gpu_bdf N, switch_nvme BDF and switch_nic BDF
# (guest-lib.sh) find them from sysfs rather than from these numbers. No CMB
# on these controllers: the GPUs are the only P2P memory.
#
# The project's programs go into the initramfs (/usr/sbin, and test helpers
# in /usr/libexec/gpupath); the source tree is shared read-only as /src. Exit status: CMD's, or 124 on
# timeout, or 125 when the guest died before reporting one (panic, oops).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

kernel= modroot= modules= workdir= topology=switch append= timeout=600 mem=2G smp=1 icount=
keep= iommu= cpu=qemu64 cpu_given= nvme_latency= icount_sleep=off
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--modroot) modroot=$2; shift 2 ;;
	--modules) modules=$2; shift 2 ;;
	--workdir) workdir=$2; shift 2 ;;
	--topology) topology=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--icount) icount=$2; shift 2 ;;
	--iommu) iommu=$2; shift 2 ;;
	--cpu) cpu=$2 cpu_given=1; shift 2 ;;
	--keep-images) keep=1; shift ;;
	--nvme-latency) nvme_latency=$2; shift 2 ;;
	--icount-sleep) icount_sleep=on; shift ;;
	--) shift; break ;;
	*) die "run-vm.sh: unknown option '$1'" ;;
	esac
done
[ -f "$kernel" ] || die "run-vm.sh: --kernel '$kernel' is not a file"
[ -d "$modroot/lib/modules" ] || die "run-vm.sh: --modroot '$modroot' has no lib/modules"
[ -d "$workdir" ] || die "run-vm.sh: --workdir '$workdir' is not a directory"
[ $# -gt 0 ] || die "run-vm.sh: no command to run"
workdir=$(cd "$workdir" && pwd)

# The userland archive depends only on the host's packages and the script.
userland=$GPUPATH_CACHE/initramfs/userland-$( { cat "$top/selftests/vm/mkinitramfs.sh";
	dpkg-query -W busybox-static nvme-cli iproute2 fio jq kmod libnl-genl-3-200 \
		python3.11-minimal python3-yaml; } | sha256sum | cut -c1-12).cpio.gz
if [ ! -f "$userland" ]; then
	mkdir -p "$(dirname "$userland")"
	# One maker at a time (make test boots guests in parallel).
	(
		flock 9
		if [ ! -f "$userland" ]; then
			"$top/selftests/vm/mkinitramfs.sh" "$userland.tmp"
			mv "$userland.tmp" "$userland"
		fi
	) 9>"$userland.lock"
fi

# Modules (all, or a list plus dependencies) and /init, in a second archive.
stage=$(mktemp -d)
agent=
trap '{ [ -z "$agent" ] || kill "$agent" 2>/dev/null; } || true; rm -rf "$stage"
	[ -n "$keep" ] || vm_images_drop "$workdir"' EXIT
release=$(ls "$modroot/lib/modules" | head -1)
mdir=lib/modules/$release
mkdir -p "$stage/root/$mdir"
if [ -z "$modules" ]; then
	cp -a "$modroot/$mdir/." "$stage/root/$mdir/"
else
	for m in ${modules//,/ }; do
		modprobe -d "$modroot" -S "$release" --show-depends "$m" ||
			die "run-vm.sh: module $m not in $modroot"
	done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r ko; do
		rel=${ko#"$modroot"/}
		mkdir -p "$stage/root/$(dirname "$rel")"
		cp "$ko" "$stage/root/$rel"
	done
	cp "$modroot/$mdir"/modules.order "$modroot/$mdir"/modules.builtin* "$stage/root/$mdir/" 2>/dev/null || true
	depmod -b "$stage/root" "$release"
fi
install -m 0755 "$top/selftests/vm/init" "$stage/root/init"
# The project's programs, as built in the tree (their libraries are in the
# userland archive).
for f in tools/gpupath/gpupath:usr/sbin daemon/gpupathd:usr/sbin \
	 tools/gpupath-bench/gpupath-bench:usr/sbin \
	 selftests/build/gp-pattern:usr/libexec/gpupath selftests/build/nl-check:usr/libexec/gpupath \
	 selftests/build/gp-io:usr/libexec/gpupath selftests/build/io-check:usr/libexec/gpupath \
	 selftests/build/gp-fuzz:usr/libexec/gpupath selftests/build/gp-priv:usr/libexec/gpupath \
	 selftests/build/gp-faults:usr/libexec/gpupath selftests/build/gp-cufile:usr/libexec/gpupath \
	 selftests/build/gp-nvdouble:usr/libexec/gpupath selftests/build/gp-cuda:usr/libexec/gpupath \
	 selftests/build/gp-cufile-clients:usr/libexec/gpupath \
	 selftests/build/cuda-double/libcuda.so.1:usr/libexec/gpupath/cuda-double \
	 tools/lib/libgpupath-cuda.so.0:usr/lib \
	 tools/lib/libgpupath.so.0:usr/lib tools/cufile/libgpupath-cufile.so.0:usr/lib \
	 tools/cufile/compat/libcufile.so.0:usr/lib/gpupath; do
	[ -x "$top/${f%%:*}" ] || continue
	install -D -m 0755 "$top/${f%%:*}" "$stage/root/${f#*:}/$(basename "${f%%:*}")"
done
# gpupathd's unit as shipped, for guests with systemd as init.
install -D -m 0644 "$top/daemon/gpupathd.service" "$stage/root/lib/systemd/system/gpupathd.service"
mkdir -p "$stage/root/src" "$stage/root/out"
(cd "$stage/root" && find . | sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$stage/extra.cpio.gz"
cat "$userland" "$stage/extra.cpio.gz" >"$stage/initrd.gz"

printf '%s\n' "$*" >"$workdir/cmd"
: >"$workdir/console.log"
: >"$workdir/tap.log"
rm -f "$workdir"/qmp*
vm_images_drop "$workdir"
# The disk images and BAR backing files, sparse, live in memory where there
# is room (vm_images_dir, lib.sh), linked from the work directory; the
# host-side checks read them there. Then no guest's I/O waits on the host's
# disk, which both lanes of make test share. Every disk also has
# cache=unsafe: the guest's flushes and FUA writes are not turned into
# fdatasync() of a whole image (with the default, an XFS log write after
# the benchmark's 1 GiB file took longer than the guest's 30 s NVMe
# timeout); the images last one run.
images=$(vm_images_dir "$workdir")
# img NAME SIZE: a sparse image NAME of SIZE in $images; its path.
img() {
	truncate -s "$2" "$images/$1"
	[ "$images" = "$workdir" ] || ln -s "$images/$1" "$workdir/$1"
	echo "$workdir/$1"
}
# nvme_drive ID IMAGE SIZE: a drive for an emulated namespace, from a sparse
# image; with --nvme-latency, a null-co drive of SIZE instead, which reads
# zeroes and completes each I/O that many nanoseconds (host time) late.
nvme_drive() {
	if [ -n "$nvme_latency" ]; then
		devs+=(-drive driver=null-co,size="$3",latency-ns="$nvme_latency",read-zeroes=on,if=none,id="$1")
	else
		devs+=(-drive file="$(img "$2" "$3")",if=none,id="$1",format=raw,cache=unsafe)
	fi
}
# Sparse: 1600 MiB so that the file benchmark's 1 GiB file has room in a
# partition above what the other tests use (tests/bench.sh).
nvme_img=$(img nvme.img 1600M)

devs=()
if [ "$topology" = iommu ]; then
	iommu=intel
	[ -n "$cpu_given" ] || cpu=EPYC
fi
# An emulated AMD CPU has none of the microcode the kernel's speculation
# mitigations look for, and Linux says so with a WARNING line (SRSO).
case $cpu in EPYC*) append="mitigations=off $append" ;; esac
case $iommu in
'') ;;
# First, before the devices it translates for.
intel) devs+=(-device intel-iommu,intremap=off) ;;
*) die "run-vm.sh: --iommu takes intel" ;;
esac
case $cpu in *[!A-Za-z0-9_-]* | '') die "run-vm.sh: --cpu takes a CPU model name" ;; esac
case $topology in
switch | flat | iommu)
	if [ "$topology" != flat ]; then
		devs+=(-device pcie-root-port,id=rp1,chassis=1,slot=1
		       -device x3130-upstream,id=up1,bus=rp1
		       -device xio3130-downstream,id=dn1,bus=up1,chassis=2,slot=0
		       -device xio3130-downstream,id=dn2,bus=up1,chassis=2,slot=1
		       -device xio3130-downstream,id=dn3,bus=up1,chassis=2,slot=2)
		# A disk whose driver takes no P2P memory, beside the "GPU":
		# the route must refuse it although the distance allows it.
		devs+=(-drive file="$(img vblk.img 16M)",if=none,id=vblk0,format=raw,cache=unsafe
		       -device virtio-blk-pci,drive=vblk0,bus=dn3)
		bar_bus=dn1 nvme_bus=dn2
		[ "$topology" != iommu ] ||
			{ nvme_drive nvm1 nvme1.img 64M; devs+=(-device nvme,serial=gpupath1,drive=nvm1,bus=pcie.0); }
	else
		bar_bus=pcie.0 nvme_bus=pcie.0
	fi
	devs+=(-object memory-backend-file,id=bar0,mem-path="$(img bar.img 64M)",share=on,size=64M
	       -device ivshmem-plain,id=gpu0,memdev=bar0,bus="$bar_bus"
	       -drive file="$nvme_img",if=none,id=nvm0,format=raw,cache=unsafe
	       -device nvme,serial=gpupath0,drive=nvm0,cmb_size_mb=64,bus="$nvme_bus") ;;
rails)
	devs+=(-device nvme-subsys,id=subsys0,nqn=nqn.2026-11.io.gpupath:rails)
	for i in 0 1; do
		devs+=(-device pcie-root-port,id=rp$i,chassis=1,slot=$((i + 1)),bus=pcie.0,addr=0x1$i
		       -device x3130-upstream,id=up$i,bus=rp$i
		       -device xio3130-downstream,id=dn${i}g,bus=up$i,chassis=$((i + 2)),slot=0,addr=0
		       -device xio3130-downstream,id=dn${i}n,bus=up$i,chassis=$((i + 2)),slot=1,addr=1
		       -device xio3130-downstream,id=dn${i}e,bus=up$i,chassis=$((i + 2)),slot=2,addr=2)
		devs+=(-object memory-backend-file,id=bar$i,mem-path="$(img bar$i.img 64M)",share=on,size=64M
		       -device ivshmem-plain,id=gpu$i,memdev=bar$i,bus=dn${i}g,addr=0
		       -device nvme,id=nvme$i,serial=rails,subsys=subsys0,bus=dn${i}n,addr=0
		       -netdev hubport,id=nic$i,hubid=$i
		       -device virtio-net-pci,id=eth$i,netdev=nic$i,mac=52:54:00:47:50:1$i,romfile=,bus=dn${i}e,addr=0)
	done
	# Created after both controllers, so attached to both (shared=on).
	devs+=(-drive file="$nvme_img",if=none,id=nvm0,format=raw,cache=unsafe
	       -device nvme-ns,drive=nvm0,bus=nvme0,nsid=1,shared=on) ;;
stack)
	devs+=(-device pcie-root-port,id=rp1,chassis=1,slot=1
	       -device x3130-upstream,id=up1,bus=rp1
	       -device xio3130-downstream,id=dn1,bus=up1,chassis=2,slot=0
	       -device xio3130-downstream,id=dn2,bus=up1,chassis=2,slot=1
	       -device xio3130-downstream,id=dn3,bus=up1,chassis=2,slot=2
	       -device nvme-subsys,id=subsys0,nqn=nqn.2026-12.io.gpupath:stack)
	devs+=(-object memory-backend-file,id=bar0,mem-path="$(img bar.img 64M)",share=on,size=64M
	       -device ivshmem-plain,id=gpu0,memdev=bar0,bus=dn1
	       -device nvme,id=nvme0,serial=stack,subsys=subsys0,bus=dn2
	       -device nvme,id=nvme1,serial=stack,subsys=subsys0,bus=dn3)
	# Created after both controllers, so attached to both (shared=on).
	for i in 1 2; do
		nvme_drive stk$i stack$i.img 256M
		devs+=(-device nvme-ns,drive=stk$i,bus=nvme0,nsid=$i,shared=on)
	done ;;
*) die "run-vm.sh: --topology must be switch, flat, rails, stack or iommu" ;;
esac

# One virtual CPU, or several run in turn on one host thread: never two
# emulated CPUs at once. Under multi-threaded TCG a static branch the
# kernel patched while another vCPU ran it (text_poke_bp's int3) could
# leave that vCPU on the int3 after the patch was done: an oops, once in a
# few 6.12 boots, on whichever key flipped after the second CPU started
# (the RNG's, the timers' as NOHZ started, the scheduler's tracepoint).
# With one CPU running at a time QEMU invalidates the patched code before
# anything runs it again, for every key. make test's guests take one vCPU
# each and run two at a time, a host core each; make stress and make
# fuzz-vm take two in turn, for their races. The CPU has RDRAND and the
# kernel trusts it, so that the RNG is ready early either way.
cmdline="console=ttyS0 panic=-1 oops=panic random.trust_cpu=on nvme.use_cmb_sqes=0 $append"
accel=tcg
[ "$smp" -le 1 ] || accel=tcg,thread=single
"$top/selftests/vm/qmp-agent.py" "$stage/qmp.sock" "$workdir" &
agent=$!
set +e
timeout -k 10 "$timeout" qemu-system-x86_64 -accel "$accel" -M q35 -cpu "$cpu",+rdrand -m "$mem" -smp "$smp" \
	${icount:+-icount "shift=$icount,sleep=$icount_sleep"} \
	-display none -monitor none -no-reboot -nic none \
	-qmp unix:"$stage/qmp.sock",server=on,wait=off \
	-global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off \
	-kernel "$kernel" -initrd "$stage/initrd.gz" -append "$cmdline" \
	-serial "file:$workdir/console.log" -serial "file:$workdir/tap.log" \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-fsdev local,id=src,path="$top",security_model=none,readonly=on \
	-device virtio-9p-pci,fsdev=src,mount_tag=src \
	-fsdev local,id=out,path="$workdir",security_model=none \
	-device virtio-9p-pci,fsdev=out,mount_tag=out \
	"${devs[@]}" \
	</dev/null
qrc=$?
set -e
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	echo "vm: timed out after ${timeout}s; console log: $workdir/console.log" >&2
	exit 124
fi
# isa-debug-exit gives (rc << 1) | 1; anything else is a guest that died.
# QEMU itself exits 1 when it cannot start (bad option): no guest output then.
if [ $((qrc & 1)) -eq 1 ] && [ -s "$workdir/console.log" ]; then
	exit $((qrc >> 1))
fi
echo "vm: guest died without an exit status (qemu $qrc); console log: $workdir/console.log" >&2
exit 125
