# SPDX-License-Identifier: GPL-2.0
# Shared settings of the VM harness scripts; sourced, not run.

GPUPATH_CACHE=${GPUPATH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpupath}
# The kernel series the VM tests run and the variant: default, or debug
# (KASAN, lockdep, kmemleak, panic_on_warn). Debian 12 ships linux-source
# for the 6.1 and 6.12 LTS series; 7.3 comes from trixie-backports, into a
# Debian 13 tree of its own (setup-trixie.sh), where its stock headers'
# compiler is.
KERNEL_SERIES=${KERNEL_SERIES:-6.1}
case $KERNEL_SERIES in
6.1 | 6.12 | 7.3) ;;
*) printf 'error: KERNEL_SERIES must be 6.1, 6.12 or 7.3, not %s\n' "$KERNEL_SERIES" >&2; exit 1 ;;
esac
KSRC_PACKAGE=linux-source-$KERNEL_SERIES
KERNEL_VARIANT=${KERNEL_VARIANT:-default}

# The Debian 13 tree (made by setup-trixie.sh; its name changes with what
# goes into it).
trixie_tree_dir() {
	echo "$GPUPATH_CACHE/trixie-$(sed -n '/^pkgs=/,/^backports=/p' \
		"$(dirname "${BASH_SOURCE[0]}")/setup-trixie.sh" | sha256sum | cut -c1-12)"
}

# Where a series' packages are: the host's dpkg database, or the trixie
# tree's (7.x). Prints the root ("" for the host).
series_root() {
	case $KERNEL_SERIES in
	6.*) echo "" ;;
	*) trixie_tree_dir ;;
	esac
}
# The source tarball; KSRC_TARBALL overrides it for the series it was set
# for only (a subshell sourcing this again for another series, as the YNL
# client's does for 6.12, inherits the caller's variables).
if [ -z "${KSRC_TARBALL:-}" ] || [ "${KSRC_TARBALL_SERIES:-$KERNEL_SERIES}" != "$KERNEL_SERIES" ]; then
	KSRC_TARBALL=$(series_root)/usr/src/$KSRC_PACKAGE.tar.xz
fi
KSRC_TARBALL_SERIES=$KERNEL_SERIES

# dpkg-query on the series' dpkg database.
series_dpkg_query() {
	local root
	root=$(series_root)
	dpkg-query ${root:+--admindir="$root/var/lib/dpkg"} "$@"
}

msg() { printf '  %-8s %s\n' "$1" "$2" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Debian package version of the kernel source, part of every cache key.
ksrc_version() {
	series_dpkg_query -W -f='${Version}' "$KSRC_PACKAGE" 2>/dev/null ||
		die "$KSRC_PACKAGE is not installed (run selftests/vm/setup-host.sh, and for 7.x setup-trixie.sh)"
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
# installed: linux-headers-amd64's for 6.1 (on the host) and 7.3 (in the
# trixie tree, from trixie-backports); for 6.12, which has no metapackage in
# Debian 12, the newest linux-headers-6.12.*+deb12-amd64.
stock_release() {
	local hdr
	case $KERNEL_SERIES in
	6.12) hdr=$(dpkg-query -W -f='${db:Status-Status} ${Package}\n' \
		 "linux-headers-$KERNEL_SERIES.*+deb12-amd64" 2>/dev/null |
		 awk '$1 == "installed" { print $2 }' | sort -V | tail -n 1) ;;
	*) hdr=$(series_dpkg_query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		   grep -o 'linux-headers-[^ ,]*') ;;
	esac
	[ -n "$hdr" ] || die "no stock linux-headers for $KERNEL_SERIES (run selftests/vm/setup-host.sh, and for 7.x setup-trixie.sh)"
	case ${hdr#linux-headers-} in
	"$KERNEL_SERIES".*) ;;
	*) die "the stock headers installed for $KERNEL_SERIES are ${hdr#linux-headers-}" ;;
	esac
	echo "${hdr#linux-headers-}"
}

# The module's version, from kmod/version.h.
gpupath_version() {
	sed -n 's/^#define GPUPATH_VERSION[[:space:]]*"\(.*\)"/\1/p' "$1/kmod/version.h"
}

# trixie_run DIR CMD...: CMD in the Debian 13 tree (made if need be), in a
# mount namespace of its own holding /proc, /dev and DIR (a directory of
# this machine, seen inside at the same path), in the current directory
# (which is in DIR). For what needs Debian 13's compiler: modules for the
# stock 7.x headers.
trixie_run() {
	local tree dir=$1
	shift
	tree=$("$(dirname "${BASH_SOURCE[0]}")/setup-trixie.sh") || return
	cwd=$PWD unshare --mount --propagation private sh -ec '
		tree=$1 dir=$2
		shift 2
		mount -t proc proc "$tree/proc"
		mount --bind /dev "$tree/dev"
		mkdir -p "$tree$dir"
		mount --bind "$dir" "$tree$dir"
		exec chroot "$tree" env -C "$cwd" PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
	' sh "$tree" "$dir" "$@"
}

# stock_module TREE RELEASE OUT: DKMS builds gpupath (dkms-build.sh, into the
# private DKMS tree TREE) against the stock headers of RELEASE of
# KERNEL_SERIES, in the Debian 13 tree for 7.x; the module it made,
# decompressed (Debian compresses modules as the kernel's own), goes to OUT.
stock_module() {
	local tree=$1 rel=$2 out=$3 ko here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	rm -rf "$tree"
	if [ -n "$(series_root)" ]; then
		trixie_run "$(cd "$here/../.." && pwd)" "$here/dkms-build.sh" "$tree" "$rel" || return
	else
		"$here/dkms-build.sh" "$tree" "$rel" || return
	fi
	ko=$(find "$tree/tree" -name 'gpupath.ko*' -path "*/$rel/*" | head -n 1)
	[ -n "$ko" ] || { echo "no gpupath.ko in $tree" >&2; return 1; }
	case $ko in
	*.xz) xz -dc "$ko" >"$out" ;;
	*.zst) zstd -qdc "$ko" >"$out" ;;
	*.gz) gzip -dc "$ko" >"$out" ;;
	*) cp "$ko" "$out" ;;
	esac
}

# vm_images_dir WORK: where run-vm.sh keeps the disk images and BAR backing
# files of the guest of work directory WORK: in memory, in a directory of
# its own under GPUPATH_VM_IMAGES (default /dev/shm) while that has 4 GiB
# free and the host 6 GiB of memory available (a guest writes at most
# about 1.3 GiB there); WORK itself otherwise, or with GPUPATH_VM_IMAGES
# set empty.
vm_images_dir() {
	local base=${GPUPATH_VM_IMAGES-/dev/shm} d
	d=$(vm_images_mem "$1")
	if [ -n "$d" ] && [ -w "$base" ] &&
	   [ "$(df -Pk "$base" | awk 'NR == 2 { print $4 }')" -ge $((4 << 20)) ] &&
	   [ "$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo)" -ge $((6 << 20)) ] &&
	   mkdir -p "$d"; then
		echo "$d"
	else
		echo "$1"
	fi
}
# vm_images_mem WORK: the in-memory directory of WORK's images (none with
# GPUPATH_VM_IMAGES empty).
vm_images_mem() {
	local base=${GPUPATH_VM_IMAGES-/dev/shm}
	[ -z "$base" ] || echo "$base/gpupath-vm-$(printf %s "$1" | sha256sum | cut -c1-16)"
}
# vm_images_drop WORK: the images of WORK's guest gone, wherever they were.
vm_images_drop() {
	local d
	d=$(vm_images_mem "$1")
	rm -f "$1"/nvme.img "$1"/vblk.img "$1"/bar.img "$1"/bar[01].img "$1"/stack[12].img
	[ -z "$d" ] || rm -rf "$d"
}
