#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the userland part of the test VM's initramfs.
#
# Usage: mkinitramfs.sh OUT.cpio.gz
#
# Writes a gzip'd newc cpio archive holding:
#   - busybox (Debian's busybox-static) with symlinks for its applets, except
#     applets whose names collide with the real tools below;
#   - nvme-cli (with its autoconnect udev rule and unit), udevd, systemd
#     and systemctl (with four targets), strace,
#     dbus-daemon and avahi-daemon (unpacked from Debian's package),
#     iproute2's ip, rdma and tc, fio, jq, dmsetup, tcpdump,
#     e2fsprogs' mke2fs, e2fsck, chattr and lsattr, xfsprogs'
#     mkfs.xfs, xfs_io and xfs_repair, fsverity, parted, sfdisk, blockdev,
#     partx, sysstat's iostat, python3 (with the modules
#     the YNL client imports, PyYAML among them), and
#     kmod (with modprobe, insmod, rmmod, lsmod, depmod and modinfo links),
#     each with every shared library ldd lists for it, at the same absolute
#     paths as on the host;
#   - /etc/nvme/hostnqn and hostid (fixed test values), /etc/iproute2,
#     passwd, group and hosts, and the usual empty directories.
#
# There is no /init and there are no kernel modules in it: the harness
# supplies those in separate cpio archives concatenated after this one (the
# kernel unpacks concatenated archives in order, later entries win).
#
# The layout is not merged-/usr: /bin, /sbin and /lib are real directories so
# that a later archive can add /lib/modules/... without meeting symlinks.
#
# Note: busybox's sh prefers its own applets to PATH, so call iproute2 as
# /usr/sbin/ip (not "ip") in guest scripts.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=selftests/vm/lib.sh
. "$here/lib.sh"

[ $# -eq 1 ] || die "usage: $0 OUT.cpio.gz"
case $1 in
/*) out=$1 ;;
*) out=$PWD/$1 ;;
esac

# Fixed test identity of the guest's NVMe host.
HOST_UUID=6f1c2a4e-3b7d-4e58-9a0c-5d2e8b4f7a13
HOST_NQN=nqn.2014-08.org.nvmexpress:uuid:$HOST_UUID

export LC_ALL=C
umask 022

# First of the given paths that exists, resolved to the real file; else die
# naming the Debian package.
find_tool() {
	local pkg=$1 p
	shift
	for p in "$@"; do
		if [ -e "$p" ]; then
			readlink -f "$p"
			return
		fi
	done
	die "$(basename "$1") not found; install the Debian package $pkg"
}

command -v cpio >/dev/null || die "cpio not found; install the Debian package cpio"
command -v gzip >/dev/null || die "gzip not found; install the Debian package gzip"
command -v ldd >/dev/null || die "ldd not found; install the Debian package libc-bin"

busybox=$(find_tool busybox-static /bin/busybox /usr/bin/busybox)
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is dynamically linked; install the Debian package busybox-static"
fi
nvme=$(find_tool nvme-cli /usr/sbin/nvme /sbin/nvme /usr/bin/nvme)
ip=$(find_tool iproute2 /usr/sbin/ip /usr/bin/ip /sbin/ip /bin/ip)
rdma=$(find_tool iproute2 /usr/sbin/rdma /usr/bin/rdma /sbin/rdma /bin/rdma)
tc=$(find_tool iproute2 /usr/sbin/tc /usr/bin/tc /sbin/tc /bin/tc)
fio=$(find_tool fio /usr/bin/fio)
jq=$(find_tool jq /usr/bin/jq)
kmod=$(find_tool kmod /usr/bin/kmod /bin/kmod)
dmsetup=$(find_tool dmsetup /usr/sbin/dmsetup /sbin/dmsetup)
tcpdump=$(find_tool tcpdump /usr/bin/tcpdump /usr/sbin/tcpdump)
# mdadm, for the md arrays over volumes (tests-stack): Debian's own binary,
# unpacked from its package into the cache rather than installed here (its
# initramfs hook and array monitor have no business on this machine).
mdadm=$GPUPATH_CACHE/mdadm/sbin/mdadm
[ -x /sbin/mdadm ] && mdadm=/sbin/mdadm
if [ ! -x "$mdadm" ]; then
	dl=$(mktemp -d)
	(cd "$dl" && apt-get download mdadm >/dev/null 2>&1) ||
		die "apt-get download mdadm failed (run apt-get update?)"
	rm -rf "$GPUPATH_CACHE/mdadm"
	dpkg-deb -x "$dl"/mdadm_*.deb "$GPUPATH_CACHE/mdadm"
	rm -rf "$dl"
	[ -x "$mdadm" ] || die "the mdadm package has no sbin/mdadm"
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/gpupath-initrd.XXXXXX")
trap 'rm -rf "$root" "$out.tmp.$$"' EXIT
chmod 0755 "$root"	# becomes the mode of the guest's /

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,usr/lib} \
	"$root"/{proc,sys,dev,tmp,run,mnt,host,etc,root,var} \
	"$root"/etc/nvme "$root"/var/tmp
chmod 1777 "$root/tmp" "$root/var/tmp"
chmod 0700 "$root/root"

# Names the real tools occupy; busybox applets of these names are skipped.
declare -A taken=()
declare -A libs_done=()

# Copy one shared object to the same absolute path. A soname symlink stays a
# symlink to the real file, put beside it (iproute2 reads libbpf's version
# from the file name).
copy_lib() {
	local lib=$1 dir real
	[ -n "${libs_done[$lib]:-}" ] && return
	libs_done[$lib]=1
	dir=$(dirname "$lib")
	real=$(basename "$(readlink -f "$lib")")
	mkdir -p "$root$dir"
	if [ -L "$lib" ] && [ "$real" != "$(basename "$lib")" ]; then
		cp -L "$lib" "$root$dir/$real"
		ln -sfn "$real" "$root$lib"
	else
		cp -L "$lib" "$root$lib"
	fi
}

# install_bin SRC DEST [LINK...]: copy a dynamically linked program to DEST
# with all its libraries, and make each LINK a symlink to DEST.
install_bin() {
	local src=$1 dest=$2 line lib l
	shift 2
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$src" "$root$dest"
	chmod 0755 "$root$dest"
	taken[$(basename "$dest")]=1

	local ldd_out
	ldd_out=$(ldd "$src") || die "ldd $src failed"
	while read -r line; do
		case $line in
		*"not found"*) die "$src: missing library: $line" ;;
		*"=> /"*) lib=${line#*=> }; lib=${lib%% (*} ;;
		/*) lib=${line%% (*} ;;
		*) continue ;;	# linux-vdso.so.1 and the like
		esac
		copy_lib "$lib"
	done <<<"$ldd_out"

	for l in "$@"; do
		mkdir -p "$root$(dirname "$l")"
		ln -sfn "$dest" "$root$l"
		taken[$(basename "$l")]=1
	done
}

install_bin "$nvme" /usr/sbin/nvme
install_bin "$ip" /usr/sbin/ip /sbin/ip
install_bin "$rdma" /usr/sbin/rdma /sbin/rdma /usr/bin/rdma
install_bin "$tc" /usr/sbin/tc /sbin/tc
install_bin "$fio" /usr/bin/fio
install_bin "$jq" /usr/bin/jq
install_bin "$dmsetup" /usr/sbin/dmsetup /sbin/dmsetup
install_bin "$tcpdump" /usr/bin/tcpdump /usr/sbin/tcpdump
install_bin "$mdadm" /usr/sbin/mdadm /sbin/mdadm
install_bin "$(find_tool util-linux /usr/bin/setpriv)" /usr/bin/setpriv
install_bin "$(find_tool strace /usr/bin/strace)" /usr/bin/strace
install_bin "$(find_tool dbus-daemon /usr/bin/dbus-daemon)" /usr/bin/dbus-daemon
# avahi-daemon (the mDNS test's responder) is not installed on the host: it
# would announce the host on its networks. Debian's package and the two
# libraries only it needs are unpacked into the cache and copied from there.
avahi=$GPUPATH_CACHE/avahi
if [ ! -x "$avahi/usr/sbin/avahi-daemon" ]; then
	rm -rf "$avahi.tmp"
	mkdir -p "$avahi.tmp/debs"
	(cd "$avahi.tmp/debs" && apt-get download -q avahi-daemon libavahi-core7 libdaemon0 \
		>/dev/null 2>&1) ||
		die "cannot download avahi-daemon, libavahi-core7 and libdaemon0 (apt-get update?)"
	for d in "$avahi.tmp"/debs/*.deb; do dpkg-deb -x "$d" "$avahi.tmp"; done
	rm -rf "$avahi.tmp/debs" "$avahi"
	mv "$avahi.tmp" "$avahi"
fi
mkdir -p "$root/usr/sbin" "$root/lib/x86_64-linux-gnu"
cp "$avahi/usr/sbin/avahi-daemon" "$root/usr/sbin/"
cp -a "$avahi"/usr/lib/x86_64-linux-gnu/lib*.so* "$root/lib/x86_64-linux-gnu/"
while read -r lib; do
	copy_lib "$lib"
done < <(LD_LIBRARY_PATH=$avahi/usr/lib/x86_64-linux-gnu ldd "$avahi/usr/sbin/avahi-daemon" |
	sed -n 's|.*=> \(/[^ ]*\) .*|\1|p' | grep -v "^$avahi/")
taken[avahi-daemon]=1
# udevd (udevadm, run by that name) with no rules but nvme-cli's autoconnect
# rule, whose unit the tests' stand-in for systemctl runs.
install_bin "$(find_tool udev /bin/udevadm /usr/bin/udevadm)" /bin/udevadm \
	/lib/systemd/systemd-udevd
for f in "$(find_tool nvme-cli /usr/lib/udev/rules.d/70-nvmf-autoconnect.rules \
		/lib/udev/rules.d/70-nvmf-autoconnect.rules)":/usr/lib/udev/rules.d \
	"$(find_tool nvme-cli /lib/systemd/system/nvmf-connect@.service \
		/usr/lib/systemd/system/nvmf-connect@.service)":/lib/systemd/system; do
	install -D -m 0644 "${f%%:*}" "$root${f#*:}/$(basename "${f%%:*}")"
done
# systemd, for guests booted with it as PID 1 (GUEST_INIT=systemd in the
# kernel command line; selftests/vm/init): the manager, systemctl, and the
# few targets a unit with default dependencies (gpupathd.service) needs.
# The harness adds gpupathd.service itself, from the tree.
install_bin "$(find_tool systemd /lib/systemd/systemd /usr/lib/systemd/systemd)" \
	/lib/systemd/systemd
install_bin "$(find_tool systemd /bin/systemctl /usr/bin/systemctl)" /bin/systemctl
for u in basic.target sysinit.target shutdown.target network-online.target; do
	install -D -m 0644 "$(find_tool systemd "/lib/systemd/system/$u" "/usr/lib/systemd/system/$u")" \
		"$root/lib/systemd/system/$u"
done
install_bin "$(find_tool e2fsprogs /usr/sbin/mke2fs /sbin/mke2fs)" /usr/sbin/mke2fs \
	/usr/sbin/mkfs.ext4 /usr/sbin/mkfs.ext3
install_bin "$(find_tool e2fsprogs /usr/sbin/e2fsck /sbin/e2fsck)" /usr/sbin/e2fsck
install_bin "$(find_tool e2fsprogs /usr/bin/chattr)" /usr/bin/chattr
install_bin "$(find_tool e2fsprogs /usr/bin/lsattr)" /usr/bin/lsattr
install_bin "$(find_tool xfsprogs /usr/sbin/mkfs.xfs /sbin/mkfs.xfs)" /usr/sbin/mkfs.xfs
install_bin "$(find_tool xfsprogs /usr/sbin/xfs_io /usr/bin/xfs_io)" /usr/sbin/xfs_io
install_bin "$(find_tool xfsprogs /usr/sbin/xfs_repair /sbin/xfs_repair)" /usr/sbin/xfs_repair
install_bin "$(find_tool fsverity /usr/bin/fsverity)" /usr/bin/fsverity
install_bin "$(find_tool parted /usr/sbin/parted /sbin/parted)" /usr/sbin/parted
install_bin "$(find_tool fdisk /usr/sbin/sfdisk /sbin/sfdisk)" /usr/sbin/sfdisk
install_bin "$(find_tool util-linux /usr/sbin/blockdev /sbin/blockdev)" /usr/sbin/blockdev
install_bin "$(find_tool util-linux /usr/bin/partx)" /usr/bin/partx
install_bin "$(find_tool sysstat /usr/bin/iostat)" /usr/bin/iostat
install_bin "$kmod" /usr/bin/kmod /bin/kmod \
	/sbin/modprobe /sbin/insmod /sbin/rmmod /sbin/lsmod /sbin/depmod /sbin/modinfo

# Python, for the YNL client of the netlink spec (Linux's tools/net/ynl,
# reaching the guest in /out): the interpreter and the modules the client
# imports, as the host's Python finds them.
python=$(find_tool python3.11-minimal /usr/bin/python3.11)
install_bin "$python" /usr/bin/python3
/usr/bin/python3.11 -c '
import sys
import argparse, collections, enum, functools, importlib, ipaddress, json, os, pprint
import random, socket, struct, time, traceback, uuid
import base64, binascii, codecs, contextlib, copy, dataclasses, datetime, errno, gettext
import hashlib, inspect, io, locale, linecache, select, selectors, shutil, signal
import string, textwrap, tokenize, typing, warnings, weakref
import encodings.idna, encodings.latin_1, encodings.ascii, encodings.utf_8
try:
	import yaml
except ImportError:
	sys.exit("yaml not found; install the Debian package python3-yaml")
# What is imported lazily: help and errors of argparse, JSON out, tracebacks.
p = argparse.ArgumentParser(description="x")
p.add_argument("--a", type=int)
p.format_help()
p.parse_args([])
json.dumps({"a": [1]}, indent=2)
pprint.pformat({"a": 1})
ipaddress.ip_address("10.0.0.1")
yaml.safe_load("a: [1]")
try:
	raise ValueError("x")
except ValueError:
	traceback.format_exc()
for m in list(sys.modules.values()):
	f = getattr(m, "__file__", None)
	if f:
		print(f)
' | sort -u >"$root/.pyfiles" || die "python3 cannot import what the YNL client needs"
while read -r f; do
	mkdir -p "$root$(dirname "$f")"
	cp -L "$f" "$root$f"
	case $f in
	*.so) for dep in $(ldd "$f" | sed -n 's|.*=> \(/[^ ]*\) .*|\1|p'); do copy_lib "$dep"; done ;;
	esac
done <"$root/.pyfiles"
rm "$root/.pyfiles"
# Python finds its prefix by this landmark.
[ -f "$root/usr/lib/python3.11/os.py" ] || die "python3.11's os.py not copied"

# Libraries gpupath's own programs link (they reach the guest over 9p).
for so in libnl-3.so.200 libnl-genl-3.so.200 libnvme.so.1 libjson-c.so.5 libpci.so.3 \
	libudev.so.1 libsystemd.so.0 libavahi-client.so.3 libavahi-common.so.3 \
	libmicrohttpd.so.12; do
	lib=$(ldconfig -p | awk -v so="$so" '!f && $1 == so && /x86-64/ { print $NF; f = 1 }')
	[ -n "$lib" ] || die "$so not found; install the Debian packages libnl-3-200 libnl-genl-3-200 libnvme1 libjson-c5 libpci3 libudev1 libsystemd0 libavahi-client3 libmicrohttpd12"
	copy_lib "$lib"
	# ... and what it links in turn (libpci: libudev, libz; libmicrohttpd:
	# GnuTLS and its libraries).
	for dep in $(ldd "$lib" | sed -n 's|.*=> \(/[^ ]*\) .*|\1|p'); do
		copy_lib "$dep"
	done
done

# busybox and its applets, where --list-full places them.
cp "$busybox" "$root/bin/busybox"
chmod 0755 "$root/bin/busybox"
while read -r applet; do
	case $applet in
	*/*) ;;
	*) continue ;;	# "linuxrc": not wanted at the top level
	esac
	[ -n "${taken[$(basename "$applet")]:-}" ] && continue
	[ "$applet" = bin/busybox ] && continue
	mkdir -p "$root/$(dirname "$applet")"
	ln -sfn /bin/busybox "$root/$applet"
done < <("$busybox" --list-full)
[ -L "$root/bin/sh" ] || die "busybox has no sh applet"

# Runtime data of the tools.
for d in /etc/iproute2 /usr/share/iproute2 /usr/lib/iproute2; do
	if [ -d "$d" ]; then
		mkdir -p "$root$(dirname "$d")"
		cp -rL "$d" "$root$d"
	fi
done
[ -e /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$root/etc/"
echo "$HOST_NQN" >"$root/etc/nvme/hostnqn"
echo "$HOST_UUID" >"$root/etc/nvme/hostid"

cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
avahi:x:101:101:mDNS responder:/run/avahi-daemon:/bin/false
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
avahi:x:101:
EOF
cat >"$root/etc/hosts" <<'EOF'
127.0.0.1	localhost
::1		localhost
EOF

# Same inputs, same archive: fixed timestamps, owners and inode numbers.
find "$root" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
(cd "$root" && find . | sort | cpio -o -H newc -R 0:0 --reproducible --quiet) |
	gzip -1 -n >"$out.tmp.$$"
mv -f "$out.tmp.$$" "$out"

msg INITRD "$out ($(du -h "$out" | cut -f1))"
