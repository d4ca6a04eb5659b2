#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian's stock kernel image (signed, or else unsigned) of
# KERNEL_SERIES that matches the installed headers (linux-headers-amd64 for
# 6.1, the newest linux-headers-6.12.*+deb12-amd64 for 6.12) and unpack it
# (vmlinuz + modules) into the cache, to boot it in the VM with a module
# built by DKMS.
# Prints the directory:
#   DIR/vmlinuz, DIR/modroot/lib/modules/RELEASE, DIR/release
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

release=$(stock_release) || exit 1
dir=$GPUPATH_CACHE/stock/$release
if [ ! -f "$dir/.done" ]; then
	msg FETCH "linux-image-$release"
	rm -rf "$dir"
	mkdir -p "$dir/deb"
	# The signed image can lag a point release behind its -unsigned build
	# (the same kernel, without the Secure Boot signature) in the archive.
	(cd "$dir/deb" && { apt-get download "linux-image-$release" >/dev/null 2>&1 ||
		apt-get download "linux-image-$release-unsigned" >/dev/null 2>&1; }) ||
		die "apt-get download linux-image-$release (or -unsigned) failed"
	dpkg-deb -x "$dir"/deb/*.deb "$dir/x"
	mkdir -p "$dir/modroot/lib"
	mv "$dir/x/lib/modules" "$dir/modroot/lib/modules"
	mv "$dir/x/boot/vmlinuz-$release" "$dir/vmlinuz"
	rm -rf "$dir/x" "$dir/deb"
	depmod -b "$dir/modroot" "$release"
	echo "$release" >"$dir/release"
	touch "$dir/.done"
fi
echo "$dir"
