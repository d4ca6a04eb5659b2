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
	libnvme-dev libjson-c-dev
	# test kernel, module, static checks
	linux-source-6.1 flex bison bc libelf-dev libssl-dev ccache xz-utils
	sparse perl dkms openssl linux-headers-amd64 kmod
	# VM and what goes into its initramfs
	qemu-system-x86 cpio busybox-static nvme-cli iproute2 fio jq dmsetup tcpdump
	# host-side checks, the fuzzing harnesses (libFuzzer is in libclang-rt)
	python3 clang libclang-rt-14-dev
	# bash completion and man pages, checked on the host
	bash-completion groff-base
)

missing=()
for p in "${pkgs[@]}"; do
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
		missing+=("$p")
done
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
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
