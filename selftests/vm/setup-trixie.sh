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
[ -f "$tree/.done" ] && [ -f "$tree/.sparse" ] && { echo "$tree"; exit 0; }

[ "$(id -u)" = 0 ] || die "setup-trixie.sh: making the Debian 13 tree needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (run selftests/vm/setup-host.sh)"
mirror=${TRIXIE_MIRROR:-$(sed -n 's|^URIs: *\(http[^ ]*/debian\)/*$|\1|p' \
	/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)}
mirror=${mirror:-http://deb.debian.org/debian}

# sparse_from_sid: a sparse that knows __typeof_unqual__, which 7.x's
# headers use under sparse; Debian 13's 0.6.4 does not, and the kernel's
# scripts/checker-valid.sh then turns C=1 off. Debian's unstable has
# 0.6.5~rc1: its package is fetched with a sources list and a state
# directory of its own (the tree's apt never sees unstable) and unpacked in
# /opt/sparse. The headers packages lack checker-valid.sh, which their
# Makefile runs for C=1: it is taken from the same version's linux-source.
sparse_from_sid() {
	msg TRIXIE "sparse from Debian unstable into /opt/sparse, checker-valid.sh into the headers"
	printf 'deb %s sid main\n' "$mirror" >"$tree/etc/apt/sid-sparse.list"
	unshare --mount --propagation private sh -ec '
		mount -t proc proc "$1/proc"
		chroot "$1" sh -ec "
			set -- -o Dir::Etc::SourceList=/etc/apt/sid-sparse.list \
				-o Dir::Etc::SourceParts=/nonexistent \
				-o Dir::State::Lists=/var/lib/apt/sid-sparse \
				-o Dir::Cache=/var/cache/apt-sid-sparse \
				-o Acquire::Check-Valid-Until=false
			mkdir -p /var/lib/apt/sid-sparse/partial /var/cache/apt-sid-sparse/archives/partial
			apt-get \"\$@\" update -q
			cd /tmp
			rm -f sparse_*.deb
			apt-get \"\$@\" download sparse
			rm -rf /opt/sparse
			dpkg-deb -x sparse_*.deb /opt/sparse
			rm -rf sparse_*.deb /var/lib/apt/sid-sparse /var/cache/apt-sid-sparse
			/opt/sparse/usr/bin/sparse --version
			for c in /usr/src/linux-headers-*-common; do
				v=\${c#/usr/src/linux-headers-}
				v=\${v%%.*}.\$(echo \$v | cut -d. -f2)
				tar -xOf /usr/src/linux-source-\$v.tar.xz \
					linux-source-\$v/scripts/checker-valid.sh >\$c/scripts/checker-valid.sh
				chmod +x \$c/scripts/checker-valid.sh
			done"
	' sh "$tree" >>"$log" 2>&1 ||
		{ tail -20 "$log" >&2; die "sparse from Debian unstable into the trixie tree failed, see $log"; }
	touch "$tree/.sparse"
}

mkdir -p "$(dirname "$tree")"
exec 9>"$tree.lock"
flock 9
log=$tree.log
[ -f "$tree/.done" ] && { sparse_from_sid; echo "$tree"; exit 0; }
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
sparse_from_sid
echo "$tree"
