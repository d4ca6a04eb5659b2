#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build gpupath's Debian packages (make deb) into OUTDIR:
#
#   gpupath_VERSION_ARCH.deb             gpupathd and its systemd unit, the
#                                        gpupath CLI, gpupath-bench, the udev
#                                        rule, man pages, bash completion
#   gpupath-dkms_VERSION_all.deb         the module's source, built by DKMS
#   libgpupath0_VERSION_ARCH.deb         libgpupath.so.0
#   libgpupath-cufile0_VERSION_ARCH.deb  libgpupath-cufile.so.0 (and the
#                                        same under libcufile's name)
#   libgpupath-cuda0_VERSION_ARCH.deb    libgpupath-cuda.so.0 (CUDA memory)
#   libgpupath-dev_VERSION_ARCH.deb      headers, static library, pkg-config
#
# with debhelper, from tools/deb/debian: the tree's files (git's, where it
# is a git work tree: tracked and untracked, not ignored) are copied to a
# temporary directory with debian/ in place, and dpkg-buildpackage builds
# the binary packages there, unsigned. The .changes and .buildinfo files
# come along with the packages.
#
#   build-deb.sh OUTDIR
set -euo pipefail
[ $# = 1 ] || { echo "usage: build-deb.sh OUTDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
ver=$(sed -n 's/^#define GPUPATH_VERSION[[:space:]]*"\(.*\)"/\1/p' "$top/kmod/version.h")
for c in dpkg-buildpackage dh dh_dkms; do
	command -v "$c" >/dev/null || {
		echo "build-deb.sh: $c not found (Debian: dpkg-dev, debhelper, dh-dkms;" \
			"selftests/vm/setup-host.sh installs them)" >&2
		exit 1
	}
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/gpupath-$ver
mkdir "$src"
cd "$top"
# (A tree of another user's is git's to read too: it is only read.)
git() { command git -c safe.directory="$top" "$@"; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf - | tar -xf - -C "$src"
else
	tar --exclude=./selftests/build --exclude=./tools/deb/out --exclude=./.git -cf - . |
		tar -xf - -C "$src"
fi
rm -rf "$src/debian"
cp -r tools/deb/debian "$src/debian"
# debian/changelog names the version kmod/version.h has; a tree whose
# version moved on without a changelog entry gets one in the copy.
cd "$src"
if [ "$(dpkg-parsechangelog -S Version)" != "$ver" ]; then
	{
		printf 'gpupath (%s) unstable; urgency=medium\n\n' "$ver"
		printf '  * Built from the tree at version %s.\n\n' "$ver"
		printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -S Maintainer)" "$(date -R)"
		cat debian/changelog
	} >debian/changelog.new
	mv debian/changelog.new debian/changelog
fi
# Not the flags and variables of a make this runs under.
unset MAKEFLAGS MFLAGS MAKELEVEL
log=$work/build.log
if ! dpkg-buildpackage -us -uc -b >"$log" 2>&1; then
	tail -n 60 "$log" >&2
	echo "build-deb.sh: dpkg-buildpackage failed" >&2
	exit 1
fi
# Warnings of the build's own tools (dpkg-gensymbols, dpkg-shlibdeps,
# dh_missing) are shown.
grep -E '^(dpkg-[a-z]+|dh_[a-z]+): warning' "$log" >&2 || true
cd "$work"
for f in *.deb *.buildinfo *.changes; do
	cp "$f" "$out/"
	echo "$out/$f"
done
