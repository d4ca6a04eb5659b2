#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build gpupath.ko out of a copy of the module's sources, so that builds for
# several kernels do not share objects:
#
#   build-module.sh KDIR OUTDIR [make arguments, e.g. W=1 C=1]
#
# MODULE_SRC names what is copied (default: gpupath's Kbuild, kmod and uapi;
# the test-only nvfake module names its own files). Fails on any compiler or
# sparse warning.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

[ $# -ge 2 ] || die "usage: build-module.sh KDIR OUTDIR [make args]"
kdir=$1 out=$2
shift 2
[ -d "$kdir" ] || die "no kernel build tree at $kdir"
rm -rf "$out"
mkdir -p "$out"
src=${MODULE_SRC:-$top/Kbuild $top/kmod $top/uapi}
# shellcheck disable=SC2086
cp -r $src "$out/"
log=$out/build.log
if ! make -C "$kdir" M="$out" "$@" modules >"$log" 2>&1; then
	cat "$log"
	die "module build failed"
fi
cat "$log"
if grep -E '(warning|error):' "$log"; then
	die "the module build printed warnings"
fi
# C=1 that checked nothing (the kernel's Makefile turns it off, with a note
# and no "warning:", when it finds the checker missing or too old) fails.
case " $* " in
*" C=1 "* | *" C=2 "*)
	grep -q '^  CHECK ' "$log" || die "C=1 was given but no file was checked (is the checker there and new enough?)"
	;;
esac
