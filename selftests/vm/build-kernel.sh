#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test kernel from Debian's linux-source-$KERNEL_SERIES with selftests/config
# (plus selftests/config.debug when KERNEL_VARIANT=debug). The result is cached
# outside the tree, keyed by source version, variant and config hash, and
# reused until one of those changes. Prints the kernel directory on stdout:
#   DIR/build    the O= build directory (KDIR for external modules)
#   DIR/bzImage  the kernel
#   DIR/modroot  modules_install output
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

kdir=$(kernel_dir "$top")
ver=$(ksrc_version)
log=$kdir/build.log
# How far a build is: files compiled against about as many as the last
# measured build of the series compiled.
case $KERNEL_SERIES in
6.1) expect=2000 ;;
*) expect=2120 ;;
esac
progress() {
	local n pct
	n=$(grep -c '^  CC' "$log" 2>/dev/null || true)
	n=${n:-0}
	pct=$((n * 100 / expect))
	[ $pct -le 99 ] || pct=99
	echo "linux-$ver: $n of about $expect files compiled ($pct%), $(( ($(date +%s) - start) / 60 )) min"
}

mkdir -p "$(dirname "$kdir")"
# One build of a kernel at a time (make test may have one running in the
# background): a second caller waits for it, showing how far it is, and
# takes the result.
exec 9>"$kdir.lock"
start=$(date +%s)
while ! flock -w 30 9; do
	msg WAIT "for the build already running: $(progress)"
done
if [ -f "$kdir/.done" ]; then
	msg KERNEL "cached $(basename "$kdir")"
	echo "$kdir"
	exit 0
fi

src=$(ksrc_dir)
rm -rf "$kdir"
mkdir -p "$kdir/build"
export CCACHE_DIR=${CCACHE_DIR:-$GPUPATH_CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Depend mode: a cache miss runs the compiler once, without the extra
# preprocessor pass of ccache's default mode (the kernel's -Wp,-MMD gives
# ccache the dependencies).
export CCACHE_DEPEND=${CCACHE_DEPEND:-true}
export KBUILD_BUILD_TIMESTAMP=gpupath KBUILD_BUILD_USER=gpupath KBUILD_BUILD_HOST=gpupath
cc="gcc"
command -v ccache >/dev/null && cc="ccache gcc"
kmake() { make -C "$src" O="$kdir/build" CC="$cc" -j"$(nproc)" "$@"; }

msg CONFIG "$KERNEL_VARIANT: $(variant_fragments "$top" | xargs -n1 basename | tr '\n' ' ')"
{
	kmake x86_64_defconfig
	kmake kvm_guest.config
	# shellcheck disable=SC2046
	(cd "$kdir/build" && "$src/scripts/kconfig/merge_config.sh" -m .config \
		$(variant_fragments "$top"))
	kmake olddefconfig
} >"$log" 2>&1 || { tail -30 "$log" >&2; die "kernel configuration failed, see $log"; }

# Every fragment line must have survived olddefconfig: dependencies drop
# options silently. The last fragment wins where two set the same option.
bad=0
while read -r line; do
	case $line in
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		last=$(variant_fragments "$top" | xargs grep -hE "^(# )?$opt[= ]" | tail -1)
		[ "$line" = "$last" ] || continue
		grep -q "^$opt=" "$kdir/build/.config" && { echo "not unset: $line" >&2; bad=1; } ;;
	CONFIG_*)
		opt=${line%%=*}
		last=$(variant_fragments "$top" | xargs grep -hE "^(# )?$opt[= ]" | tail -1)
		[ "$line" = "$last" ] || continue
		grep -qxF "$line" "$kdir/build/.config" || { echo "missing: $line" >&2; bad=1; } ;;
	esac
done < <(variant_fragments "$top" | xargs cat)
[ $bad = 0 ] || die "config fragment not honoured (see above); fix selftests/config*"

msg BUILD "linux-$ver ($(nproc) jobs, log $log)"
start=$(date +%s)
kmake bzImage modules >>"$log" 2>&1 &
pid=$!
next=$((start + 30))
while kill -0 "$pid" 2>/dev/null; do
	sleep 2
	[ "$(date +%s)" -ge "$next" ] || continue
	next=$((next + 30))
	msg BUILD "$(progress)"
done
wait "$pid" || { tail -40 "$log" >&2; die "kernel build failed, see $log"; }
kmake INSTALL_MOD_PATH="$kdir/modroot" INSTALL_MOD_STRIP=1 modules_install >>"$log" 2>&1 ||
	die "modules_install failed, see $log"
cp "$kdir/build/arch/x86/boot/bzImage" "$kdir/bzImage"
msg BUILT "in $(( $(date +%s) - start )) s"
touch "$kdir/.done"
echo "$kdir"
