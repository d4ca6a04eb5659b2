#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build nvfake.ko, the NVIDIA peer-memory test double, out of a copy of its
# source and gpupath's declarations of the API (kmod/nv-p2p.h):
#
#   build.sh KDIR OUTDIR [make arguments, e.g. W=1 C=1]
#
# Fails on any compiler or sparse warning.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/selftests/vm/lib.sh"

[ $# -ge 2 ] || die "usage: build.sh KDIR OUTDIR [make args]"
kdir=$1 out=$2
shift 2
[ -d "$kdir" ] || die "no kernel build tree at $kdir"
rm -rf "$out"
mkdir -p "$out"
cp "$here/nvfake.c" "$here/nvfake.h" "$here/Kbuild" "$top/kmod/nv-p2p.h" "$out/"
log=$out/build.log
if ! make -C "$kdir" M="$out" "$@" modules >"$log" 2>&1; then
	cat "$log"
	die "nvfake build failed"
fi
if grep -E '(warning|error):' "$log"; then
	die "the nvfake build printed warnings"
fi
