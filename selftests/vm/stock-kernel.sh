#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian's stock kernel image (signed, or else unsigned) of
# KERNEL_SERIES that matches the installed headers (linux-headers-amd64 for
# 6.1, the newest linux-headers-6.12.*+deb12-amd64 for 6.12, trixie-backports'
# linux-headers-amd64 in the trixie tree for 7.3) and unpack it (vmlinuz +
# modules) into the cache, to boot it in the VM with a module built by DKMS.
# What a guest never loads (graphics, sound, USB, wireless, real NICs and
# RNICs, media) is left out of the module tree.
# Prints the directory:
#   DIR/vmlinuz, DIR/modroot/lib/modules/RELEASE, DIR/release
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

release=$(stock_release) || exit 1
dir=$GPUPATH_CACHE/stock/$release
root=$(series_root)
# download PACKAGE...: the first that the archive has, into $dir/deb (with
# the trixie tree's apt where the series is there).
download() {
	local p
	for p in "$@"; do
		if [ -z "$root" ]; then
			(cd "$dir/deb" && apt-get download "$p") >/dev/null 2>&1 && return 0
		else
			mkdir -p "$root/tmp/gpupath-dl"
			chroot "$root" sh -c "cd /tmp/gpupath-dl && apt-get download '$p'" >/dev/null 2>&1 &&
				mv "$root"/tmp/gpupath-dl/*.deb "$dir/deb/" && return 0
		fi
	done
	return 1
}
if [ ! -f "$dir/.done" ]; then
	msg FETCH "linux-image-$release"
	rm -rf "$dir"
	mkdir -p "$dir/deb"
	# The signed image can lag a point release behind its -unsigned build
	# (the same kernel, without the Secure Boot signature) in the archive.
	# From 6.16 on, Debian splits the image into linux-binary (vmlinuz),
	# linux-modules and linux-base (modules.builtin, the config).
	case $KERNEL_SERIES in
	6.*) download "linux-image-$release" "linux-image-$release-unsigned" ||
		die "apt-get download linux-image-$release (or -unsigned) failed" ;;
	*) download "linux-binary-$release" "linux-binary-unsigned-$release" ||
		die "apt-get download linux-binary-$release (or linux-binary-unsigned-) failed"
	   download "linux-modules-$release" || die "apt-get download linux-modules-$release failed"
	   download "linux-base-$release" || die "apt-get download linux-base-$release failed" ;;
	esac
	for d in "$dir"/deb/*.deb; do
		dpkg-deb -x "$d" "$dir/x"
	done
	mkdir -p "$dir/modroot/lib"
	# /lib/modules up to Debian 12, /usr/lib/modules after, where
	# linux-binary puts vmlinuz too.
	if [ -d "$dir/x/usr/lib/modules" ]; then
		mv "$dir/x/usr/lib/modules" "$dir/modroot/lib/modules"
	else
		mv "$dir/x/lib/modules" "$dir/modroot/lib/modules"
	fi
	if [ -f "$dir/modroot/lib/modules/$release/vmlinuz" ]; then
		mv "$dir/modroot/lib/modules/$release/vmlinuz" "$dir/vmlinuz"
	else
		mv "$dir/x/boot/vmlinuz-$release" "$dir/vmlinuz"
	fi
	k=$dir/modroot/lib/modules/$release/kernel
	rm -rf "$k/sound" "$k/net/wireless" "$k/net/mac80211" "$k/net/bluetooth" \
		"$k"/drivers/{gpu,media,usb,staging,sound,bluetooth,iio,isdn,mmc,mtd,hwmon,video,input,hid} \
		"$k"/drivers/{net/wireless,net/ethernet,net/can,net/usb,infiniband/hw,scsi,ata,thunderbolt} \
		"$k"/drivers/{comedi,accel,firewire,nfc,ntb,spi,i2c,w1,leds,power,rtc,watchdog,misc}
	rm -rf "$dir/x" "$dir/deb"
	depmod -b "$dir/modroot" "$release"
	echo "$release" >"$dir/release"
	touch "$dir/.done"
fi
echo "$dir"
