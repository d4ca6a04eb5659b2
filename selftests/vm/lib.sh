# SPDX-License-Identifier: GPL-2.0
# Shared settings of the VM harness scripts; sourced, not run.

GPUPATH_CACHE=${GPUPATH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpupath}
# The kernel series the VM tests run (Debian 12 ships linux-source for both
# LTS series gpupath supports) and the variant: default, or debug (KASAN,
# lockdep, kmemleak, panic_on_warn).
KERNEL_SERIES=${KERNEL_SERIES:-6.1}
case $KERNEL_SERIES in
6.1 | 6.12) ;;
*) printf 'error: KERNEL_SERIES must be 6.1 or 6.12, not %s\n' "$KERNEL_SERIES" >&2; exit 1 ;;
esac
KSRC_PACKAGE=linux-source-$KERNEL_SERIES
KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/$KSRC_PACKAGE.tar.xz}
KERNEL_VARIANT=${KERNEL_VARIANT:-default}

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Debian package version of the kernel source, part of every cache key.
ksrc_version() {
	dpkg-query -W -f='${Version}' "$KSRC_PACKAGE" 2>/dev/null ||
		die "$KSRC_PACKAGE is not installed (run selftests/vm/setup-host.sh)"
}

# The config fragments that make up a variant, in merge order: the common
# one, the series' own where it has one, then the variant's.
variant_fragments() {
	local top=$1
	echo "$top/selftests/config"
	[ ! -f "$top/selftests/config.$KERNEL_SERIES" ] || echo "$top/selftests/config.$KERNEL_SERIES"
	case $KERNEL_VARIANT in
	default) ;;
	debug) echo "$top/selftests/config.debug" ;;
	*) die "KERNEL_VARIANT must be 'default' or 'debug', not '$KERNEL_VARIANT'" ;;
	esac
}

# How build-kernel.sh builds (base configs, targets): bump when that changes.
KERNEL_RECIPE="1 x86_64_defconfig kvm_guest.config bzImage modules"

# Directory of the built test kernel for this source version, variant and
# config: rebuilt only when one of those changes.
kernel_dir() {
	local top=$1 key
	key=$( { ksrc_version; echo "$KERNEL_RECIPE";
		 variant_fragments "$top" | xargs cat; } | sha256sum | cut -c1-12)
	echo "$GPUPATH_CACHE/kernel/$(ksrc_version)-$KERNEL_VARIANT-$key"
}

# The unpacked kernel source (Debian's linux-source-$KERNEL_SERIES), unpacked once into
# the cache. Prints its directory. One unpacks at a time: a kernel build
# and the YNL client may both want the 6.12 source at once.
ksrc_dir() {
	local ver src
	ver=$(ksrc_version) || return 1
	src=$GPUPATH_CACHE/src/linux-source-$ver
	if [ ! -f "$src/.done" ]; then
		mkdir -p "$GPUPATH_CACHE/src"
		(
			flock 9 || exit 1
			[ -f "$src/.done" ] && exit 0
			msg UNPACK "$KSRC_TARBALL"
			rm -rf "$src" "$src.tmp"
			mkdir -p "$src.tmp"
			tar -C "$src.tmp" --strip-components=1 -xf "$KSRC_TARBALL" || exit 1
			touch "$src.tmp/.done"
			mv "$src.tmp" "$src"
		) 9>"$src.lock" || return 1
	fi
	echo "$src"
}

# The release of Debian's stock kernel of KERNEL_SERIES whose headers are
# installed: linux-headers-amd64's for 6.1; for 6.12, which has no
# metapackage in Debian 12, the newest linux-headers-6.12.*+deb12-amd64.
stock_release() {
	local hdr
	case $KERNEL_SERIES in
	6.1) hdr=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		   grep -o 'linux-headers-[^ ,]*') ;;
	*) hdr=$(dpkg-query -W -f='${db:Status-Status} ${Package}\n' \
		 "linux-headers-$KERNEL_SERIES.*+deb12-amd64" 2>/dev/null |
		 awk '$1 == "installed" { print $2 }' | sort -V | tail -n 1) ;;
	esac
	[ -n "$hdr" ] || die "no stock linux-headers for $KERNEL_SERIES (run selftests/vm/setup-host.sh)"
	echo "${hdr#linux-headers-}"
}

# The module's version, from kmod/version.h.
gpupath_version() {
	sed -n 's/^#define GPUPATH_VERSION[[:space:]]*"\(.*\)"/\1/p' "$1/kmod/version.h"
}
