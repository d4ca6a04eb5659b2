#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A kernel after the last tested series, as a node gets it in an upgrade:
# DKMS skips it with its BUILD_EXCLUSIVE message and leaves nothing behind,
# and a build forced past DKMS stops at compat.h's bound with a clear error.
# Asked for with GPUPATH_UNTESTED_KERNEL=1, dkms builds it; its automatic
# builds (a kernel's postinst) still never try. The kernel is a copy of
# Debian's stock 6.12 headers that says 7.4.0, built by Debian 12's DKMS.
# Prints TAP.
#
#   dkms-exclude.sh WORKDIR
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

[ $# -eq 1 ] || die "usage: dkms-exclude.sh WORKDIR"
work=$1 rel=7.4.0-gpupath-fake
ver=$(gpupath_version "$top")
base=$(KERNEL_SERIES=6.12 stock_release) || exit 1
rm -rf "$work"
mkdir -p "$work"
res() { if [ "$1" = 0 ]; then echo "ok - dkms-exclude: $2"; else echo "not ok - dkms-exclude: $2"; fi; }

# The fake header tree: the stock tree's own files, its links made absolute.
hdr=$work/linux-headers-$rel
cp -a "/usr/src/linux-headers-$base" "$hdr"
for l in scripts tools; do
	ln -sfn "$(readlink -f "/usr/src/linux-headers-$base/$l")" "$hdr/$l"
done
printf '#define LINUX_VERSION_CODE %d\n#define KERNEL_VERSION(a,b,c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))\n#define LINUX_VERSION_MAJOR 7\n#define LINUX_VERSION_PATCHLEVEL 4\n#define LINUX_VERSION_SUBLEVEL 0\n' \
	$(( (7 << 16) + (4 << 8) )) >"$hdr/include/generated/uapi/linux/version.h"
echo "#define UTS_RELEASE \"$rel\"" >"$hdr/include/generated/utsrelease.h"
echo "$rel" >"$hdr/include/config/kernel.release"

# DKMS, in a private tree: install (as a kernel's postinst does) and
# autoinstall both skip the kernel.
tree=$work/dkms
mkdir -p "$tree/src/gpupath-$ver" "$tree/tree" "$tree/install"
cp -r "$top/Kbuild" "$top/Makefile" "$top/dkms.conf" "$top/kmod" "$top/uapi" "$tree/src/gpupath-$ver/"
opts=(--sourcetree "$tree/src" --dkmstree "$tree/tree" --installtree "$tree/install")
dkms add -m gpupath -v "$ver" "${opts[@]}" >"$work/add.log" 2>&1
res $? "dkms add"
dkms install -m gpupath -v "$ver" -k "$rel" --kernelsourcedir "$hdr" "${opts[@]}" >"$work/install.log" 2>&1
rc=$?
sed 's/^/# /' "$work/install.log"
[ $rc = 77 ] && grep -q 'BUILD_EXCLUSIVE directive which does not match this kernel' "$work/install.log"
res $? "dkms install for $rel is skipped (exit $rc, 77 expected) with the BUILD_EXCLUSIVE message"
dkms autoinstall -k "$rel" --kernelsourcedir "$hdr" "${opts[@]}" >"$work/autoinstall.log" 2>&1
rc=$?
sed 's/^/# /' "$work/autoinstall.log"
[ $rc = 0 ]
res $? "dkms autoinstall for $rel (a kernel's postinst) succeeds without building (exit $rc)"
left=$( { find "$tree/tree/gpupath/$ver/$rel" "$tree/install" -mindepth 1 2>/dev/null;
	  find "$tree" -name '*.ko*'; } | sed "s|^$tree/||")
[ -z "$left" ]
res $? "nothing is left for $rel: no build directory, no module${left:+ (left: $(echo $left))}"
dkms status -m gpupath "${opts[@]}" 2>&1 | sed 's/^/# /'
dkms status -m gpupath -k "$rel" "${opts[@]}" 2>/dev/null | grep -q "$rel.*installed"
[ $? != 0 ]
res $? "dkms status shows gpupath installed for no $rel"

# Inside the range autoinstall does build: the stock 6.12 headers (the
# private install tree needs the kernel's directory).
mkdir -p "$tree/install/$base"
dkms autoinstall -k "$base" "${opts[@]}" >"$work/autoinstall-$base.log" 2>&1
rc=$?
[ $rc = 0 ] && dkms status -m gpupath -k "$base" "${opts[@]}" 2>/dev/null | grep -q 'installed'
res $? "dkms autoinstall for $base, inside the range, installs gpupath (exit $rc)"
[ $rc = 0 ] || sed 's/^/# /' "$work/autoinstall-$base.log" | tail -20

# Past DKMS, compat.h refuses the kernel by name.
out=$work/module
msg='gpupath is tested up to Linux 7.3: this kernel is newer (GPUPATH_UNTESTED_KERNEL=1 builds it anyway)'
if selftests/vm/build-module.sh "$hdr" "$out" >"$work/module.log" 2>&1; then
	res 1 "a forced build against $rel stops at compat.h's bound"
else
	grep -o "error: #error \"$msg\"" "$out/build.log" | head -n 1 | sed 's/^/# /'
	grep -qF "$msg" "$out/build.log"
	res $? "a forced build against $rel stops at compat.h's bound"
fi

# Asked for: dkms builds it (installing would run depmod on a kernel this
# machine does not have), and the module says it is untested.
GPUPATH_UNTESTED_KERNEL=1 dkms build -m gpupath -v "$ver" -k "$rel" --kernelsourcedir "$hdr" \
	"${opts[@]}" >"$work/untested.log" 2>&1
rc=$?
ko=$(find "$tree/tree/gpupath/$ver/$rel" -name 'gpupath.ko*' 2>/dev/null | head -n 1)
[ $rc = 0 ] && [ -n "$ko" ]
res $? "GPUPATH_UNTESTED_KERNEL=1 dkms build for $rel builds it (exit $rc)"
[ $rc = 0 ] || sed 's/^/# /' "$work/untested.log" | tail -20
[ -n "$ko" ] && [ "$(case $ko in *.xz) xz -dc "$ko" ;; *.zst) zstd -qdc "$ko" ;; *) cat "$ko" ;; esac |
	strings | grep -c 'newer than the last series gpupath is tested on')" = 1 ]
res $? "that module warns at load that its kernel is untested"
# The automatic build of a kernel's postinst never asks, even with the
# variable set where it runs.
dkms remove -m gpupath -v "$ver" -k "$rel" "${opts[@]}" >/dev/null 2>&1
GPUPATH_UNTESTED_KERNEL=1 dkms autoinstall -k "$rel" --kernelsourcedir "$hdr" "${opts[@]}" \
	>"$work/autoinstall-untested.log" 2>&1
rc=$?
[ $rc = 0 ] && ! find "$tree/install/$rel" -name 'gpupath.ko*' | grep -q .
res $? "dkms autoinstall for $rel with GPUPATH_UNTESTED_KERNEL=1 still builds nothing (exit $rc)"
