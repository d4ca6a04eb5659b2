#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Debian 13 (trixie) tree in the cache, for the kernels Debian 12 cannot
# build modules for: Debian's stock 7.x headers are configured for gcc-14
# (-fmin-function-alignment), which Debian 12's gcc-12 rejects. The tree is
# made once with debootstrap from the same archive the host uses, with
# trixie-backports added to its own sources (the host's are never touched),
# and holds what the 7.x phase needs: gcc-14, make, DKMS, sparse, the newest
# linux-headers-*-amd64 of trixie-backports and its linux-source. Prints the
# tree's directory. Run again, it does nothing.
#
# TRIXIE_MIRROR overrides the archive (default: the host's deb.debian.org
# entry, else http://deb.debian.org/debian).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

# What goes in; changing the list makes a new tree.
pkgs="gcc-14 gcc make libc6-dev dkms kmod sparse xz-utils zstd bc flex bison
      libelf-dev libssl-dev"
backports="linux-headers-amd64 linux-source"
tree=$(trixie_tree_dir)
[ -f "$tree/.done" ] && { echo "$tree"; exit 0; }

[ "$(id -u)" = 0 ] || die "setup-trixie.sh: making the Debian 13 tree needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (run selftests/vm/setup-host.sh)"
mirror=${TRIXIE_MIRROR:-$(sed -n 's|^URIs: *\(http[^ ]*/debian\)/*$|\1|p' \
	/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)}
mirror=${mirror:-http://deb.debian.org/debian}

mkdir -p "$(dirname "$tree")"
exec 9>"$tree.lock"
flock 9
[ -f "$tree/.done" ] && { echo "$tree"; exit 0; }
log=$tree.log
# A tree that debootstrap finished is kept when installing into it failed.
if [ ! -f "$tree/.debootstrap" ]; then
	rm -rf "$tree"
	msg TRIXIE "debootstrap trixie from $mirror into $tree (log $log)"
	debootstrap --variant=minbase trixie "$tree" "$mirror" >"$log" 2>&1 ||
		{ tail -20 "$log" >&2; die "debootstrap failed, see $log"; }
	touch "$tree/.debootstrap"
fi
printf 'deb %s trixie main\ndeb %s trixie-backports main\n' "$mirror" "$mirror" \
	>"$tree/etc/apt/sources.list"
# Kernel packages' hooks have no initramfs to make here.
printf 'path-exclude=/usr/share/doc/*\npath-exclude=/usr/share/man/*\n' \
	>"$tree/etc/dpkg/dpkg.cfg.d/01-gpupath-nodoc"
msg TRIXIE "installing: $(echo $pkgs) $backports (trixie-backports)"
# In a mount namespace of its own, so that /proc is gone with it.
# shellcheck disable=SC2086,SC2116
unshare --mount --propagation private sh -ec '
	mount -t proc proc "$1/proc"
	chroot "$1" sh -ec "
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q
		apt-get install -y -q --no-install-recommends $2
		apt-get install -y -q --no-install-recommends -t trixie-backports $3
		apt-get clean"
' sh "$tree" "$(echo $pkgs)" "$backports" >>"$log" 2>&1 ||
	{ tail -20 "$log" >&2; die "installing into the trixie tree failed, see $log"; }
touch "$tree/.done"
echo "$tree"
