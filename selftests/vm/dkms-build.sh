#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `dkms add` + `dkms build` of this tree into a private DKMS tree, against
# the headers of kernel RELEASE, leaving the system's DKMS tree alone (DKMS
# may create its module-signing key in /var/lib/dkms on first use):
#
#   dkms-build.sh TREE RELEASE
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

[ $# -eq 2 ] || die "usage: dkms-build.sh TREE RELEASE"
tree=$1 rel=$2
ver=$(gpupath_version "$top")
conf_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
[ "$ver" = "$conf_ver" ] ||
	die "dkms.conf says version $conf_ver but kmod/version.h says $ver"
mkdir -p "$tree/src/gpupath-$ver" "$tree/tree" "$tree/install"
cp -r "$top/Kbuild" "$top/Makefile" "$top/dkms.conf" "$top/kmod" "$top/uapi" \
	"$tree/src/gpupath-$ver/"
opts=(--sourcetree "$tree/src" --dkmstree "$tree/tree" --installtree "$tree/install")
dkms add -m gpupath -v "$ver" "${opts[@]}"
# DKMS 3.2 (Debian 13) looks for the headers in the private install tree:
# name them.
dkms build -m gpupath -v "$ver" -k "$rel" --kernelsourcedir "/lib/modules/$rel/build" "${opts[@]}" || {
	cat "$tree/tree/gpupath/$ver/build/make.log" 2>/dev/null
	die "dkms build failed"
}
cat "$tree/tree/gpupath/$ver/$rel"/*/log/make.log 2>/dev/null || true
