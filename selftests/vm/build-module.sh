#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build gpupath.ko out of a copy of the module's sources, so that builds for
# several kernels do not share objects:
#
#   build-module.sh KDIR OUTDIR [make arguments, e.g. W=1 C=1]
#
# Fails on any compiler or sparse warning.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

[ $# -ge 2 ] || die "usage: build-module.sh KDIR OUTDIR [make args]"
kdir=$1 out=$2
shift 2
[ -d "$kdir" ] || die "no kernel build tree at $kdir"
rm -rf "$out"
mkdir -p "$out"
cp -r "$top/Kbuild" "$top/kmod" "$top/uapi" "$out/"
log=$out/build.log
if ! make -C "$kdir" M="$out" "$@" modules >"$log" 2>&1; then
	cat "$log"
	die "module build failed"
fi
cat "$log"
if grep -E '(warning|error):' "$log"; then
	die "the module build printed warnings"
fi
