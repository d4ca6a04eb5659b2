# SPDX-License-Identifier: GPL-2.0
# Shared settings of the VM harness scripts; sourced, not run.

GPUPATH_CACHE=${GPUPATH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpupath}
KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
KERNEL_VARIANT=${KERNEL_VARIANT:-default}

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Debian package version of the kernel source, part of every cache key.
ksrc_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
		die "linux-source-6.1 is not installed (run selftests/vm/setup-host.sh)"
}

# The config fragments that make up a variant, in merge order.
variant_fragments() {
	local top=$1
	echo "$top/selftests/config"
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

# The unpacked kernel source (Debian's linux-source-6.1), unpacked once into
# the cache. Prints its directory.
ksrc_dir() {
	local ver src
	ver=$(ksrc_version) || return 1
	src=$GPUPATH_CACHE/src/linux-source-$ver
	if [ ! -f "$src/.done" ]; then
		msg UNPACK "$KSRC_TARBALL"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tar -C "$src.tmp" --strip-components=1 -xf "$KSRC_TARBALL" || return 1
		touch "$src.tmp/.done"
		mv "$src.tmp" "$src"
	fi
	echo "$src"
}

# The module's version, from kmod/version.h.
gpupath_version() {
	sed -n 's/^#define GPUPATH_VERSION[[:space:]]*"\(.*\)"/\1/p' "$1/kmod/version.h"
}
