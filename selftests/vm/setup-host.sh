#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages that building, the demo and the tests need.
# Does nothing when they are all there; otherwise runs apt-get (as root, or
# through sudo).
set -euo pipefail

pkgs=(
	# user space
	gcc g++ make pkg-config libc6-dev libnl-3-dev libnl-genl-3-dev
	libnvme-dev libjson-c-dev libpci-dev libudev-dev libsystemd-dev zlib1g-dev
	libavahi-client-dev libdevmapper-dev libmicrohttpd-dev
	# test kernels (both LTS series), module, static checks
	linux-source-6.1 linux-source-6.12 flex bison bc libelf-dev libssl-dev
	ccache xz-utils sparse perl dkms openssl linux-headers-amd64 kmod
	# the Debian 13 tree for the 7.x kernels (selftests/vm/setup-trixie.sh)
	debootstrap
	# VM and what goes into its initramfs
	qemu-system-x86 cpio busybox-static nvme-cli iproute2 fio jq dmsetup tcpdump strace udev
	dbus-daemon dpkg
	e2fsprogs xfsprogs fsverity
	# partitions on volumes, and their block-layer statistics
	parted fdisk sysstat
	# host-side checks, the fuzzing harnesses (libFuzzer is in libclang-rt)
	python3 clang libclang-rt-14-dev
	# libgpupath's ABI against its releases (abidiff, abidw)
	abigail-tools
	# the YNL spec: its code generator and schema check, its client in the VM
	python3-yaml python3-jsonschema
	# bash completion and man pages, checked on the host
	bash-completion groff-base
	# make deb (debhelper, DKMS's debhelper addon) and its checks
	dpkg-dev debhelper dh-dkms lintian
)

missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
		missing+=("$p")
done
# Debian 12's stock 6.12 kernel (linux-image-6.12.*+deb12-amd64) has no
# metapackage: its headers are the newest installed, else the newest in the
# archive (named once the package lists are read, below).
h612=$(dpkg-query -W -f='${db:Status-Status} ${Package}\n' \
	'linux-headers-6.12.*+deb12-amd64' 2>/dev/null | awk '$1 == "installed" { print $2 }' |
	sort -V | tail -n 1) || true
[ -n "$h612" ] || missing+=(linux-headers-6.12)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "  SETUP    installing: ${missing[*]}" >&2
sudo=
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || {
		echo "error: need root (or sudo) to install: ${missing[*]}" >&2
		exit 1
	}
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null
if [ "${missing[-1]}" = linux-headers-6.12 ]; then
	h612=$(apt-cache pkgnames linux-headers-6.12. | grep -E '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
		sort -V | tail -n 1)
	[ -n "$h612" ] || { echo "error: no linux-headers-6.12.*+deb12-amd64 in the archive" >&2; exit 1; }
	missing[-1]=$h612
fi
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
