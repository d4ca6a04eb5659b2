#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian packages of gpupath from a built tree (make userspace):
#
#   gpupath-dkms_VERSION_all.deb  the module's source under /usr/src, built
#                                 by DKMS for every kernel with headers, and
#                                 again on kernel upgrades
#   gpupath_VERSION_ARCH.deb      gpupathd, the gpupath CLI, gpupath-bench,
#                                 libgpupath, libgpupath-cufile (and the
#                                 libcufile.so.0 in its place), headers, the
#                                 systemd unit, man pages, bash completion
#
#   build-deb.sh OUTDIR
#
# With dpkg-deb alone (no debhelper): the maintainer scripts are below.
# Dependencies on shared libraries are found with dpkg -S.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
ver=$(sed -n 's/^#define GPUPATH_VERSION[[:space:]]*"\(.*\)"/\1/p' "$top/kmod/version.h")
arch=$(dpkg --print-architecture)
multiarch=$(gcc -print-multiarch)
maint="The gpupath authors <gpupath@users.noreply.invalid>"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cd "$top"

control() {	# DIR PACKAGE ARCH DEPENDS DESCRIPTION...
	local dir=$1 pkg=$2 a=$3 deps=$4
	shift 4
	mkdir -p "$dir/DEBIAN"
	{
		echo "Package: $pkg"
		echo "Version: $ver"
		echo "Architecture: $a"
		echo "Maintainer: $maint"
		echo "Installed-Size: $(du -sk --exclude=DEBIAN "$dir" | cut -f1)"
		[ -z "$deps" ] || echo "Depends: $deps"
		echo "Section: admin"
		echo "Priority: optional"
		[ -z "${RECOMMENDS:-}" ] || echo "Recommends: $RECOMMENDS"
		printf 'Description: %s\n' "$1"
		shift
		for l in "$@"; do printf ' %s\n' "$l"; done
	} >"$dir/DEBIAN/control"
}

# ---- gpupath-dkms ----------------------------------------------------------
d=$stage/dkms
src=$d/usr/src/gpupath-$ver
mkdir -p "$src"
cp -r Kbuild Makefile dkms.conf kmod uapi "$src/"
find "$src" \( -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod*' -o -name '*.d' \
	-o -name '.*.cmd' -o -name 'modules.order' -o -name 'Module.symvers' \) -delete
control "$d" gpupath-dkms all "dkms (>= 2.1), make, gcc" \
	"gpupath kernel module, built by DKMS" \
	"The gpupath module reads NVMe namespaces, local or over NVMe-oF (RDMA," \
	"TCP), straight into GPU memory with PCI P2PDMA and the stock NVMe host" \
	"drivers. DKMS builds it for every installed kernel with headers, and" \
	"again when a kernel is installed."
cat >"$d/DEBIAN/postinst" <<EOS
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
	dkms status -m gpupath -v $ver 2>/dev/null | grep -q . || dkms add -m gpupath -v $ver
	for k in /lib/modules/*/build; do
		[ -d "\$k" ] || continue
		k=\${k%/build}
		k=\${k##*/}
		rc=0
		dkms install -m gpupath -v $ver -k "\$k" || rc=\$?
		case \$rc in
		0) ;;
		77) echo "gpupath-dkms: skipped \$k: gpupath supports Linux 6.1 to 6.12" >&2 ;;
		*) echo "gpupath-dkms: could not build for \$k (see above)" >&2 ;;
		esac
	done
fi
exit 0
EOS
cat >"$d/DEBIAN/prerm" <<EOS
#!/bin/sh
set -e
if [ "\$1" = remove ] || [ "\$1" = upgrade ] || [ "\$1" = deconfigure ]; then
	dkms remove -m gpupath -v $ver --all >/dev/null 2>&1 || true
fi
exit 0
EOS
chmod 0755 "$d/DEBIAN/postinst" "$d/DEBIAN/prerm"
dpkg-deb --root-owner-group -Zxz --build "$d" "$out/gpupath-dkms_${ver}_all.deb" >/dev/null

# ---- gpupath ---------------------------------------------------------------
d=$stage/user
make -s install-user DESTDIR="$d" PREFIX=/usr SBINDIR=/usr/sbin LIBDIR=/usr/lib/$multiarch \
	INCLUDEDIR=/usr/include UNITDIR=/lib/systemd/system SYSCONFDIR=/etc NVCC= >/dev/null
rm -f "$d"/usr/lib/"$multiarch"/*.a
gzip -9n "$d"/usr/share/man/man*/*
install -D -m 0644 README.md "$d/usr/share/doc/gpupath/README.md"
install -D -m 0644 -t "$d/usr/share/doc/gpupath/Documentation" Documentation/*.md
install -D -m 0644 daemon/gpupath.conf "$d/usr/share/doc/gpupath/examples/gpupath.conf"
# The shared libraries the programs and libraries name (not what those pull
# in), and the packages that have them.
deps=$(find "$d/usr/sbin" "$d/usr/lib" -type f \( -path '*/sbin/*' -o -name '*.so*' \) |
	xargs -n1 readelf -d | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u |
	while read -r so; do
		[ -e "$d/usr/lib/$multiarch/$so" ] && continue
		lib=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64|AArch64|64bit/ { print $NF; exit }')
		[ -n "$lib" ] || lib=$(ldconfig -p | awk -v so="$so" '$1 == so { print $NF; exit }')
		[ -n "$lib" ] || { echo "build-deb.sh: $so not found" >&2; exit 1; }
		dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib"
	done | cut -d: -f1 | sort -u | paste -sd, | sed 's/,/, /g')
[ -n "$deps" ] || { echo "build-deb.sh: no dependencies found" >&2; exit 1; }
RECOMMENDS="gpupath-dkms (= $ver)" control "$d" gpupath "$arch" "$deps" \
	"gpupath daemon, CLI and libraries: NVMe and NVMe-oF into GPU memory" \
	"gpupathd keeps NVMe-oF connections, multipath volumes and RoCEv2 QoS in" \
	"place; gpupath configures the module over generic netlink and prints" \
	"its counters (also for Prometheus); libgpupath gives programs device" \
	"memory and direct I/O, and libgpupath-cufile the cuFile API on top." \
	"The kernel module is in gpupath-dkms."
echo "/etc/gpupath/gpupath.conf" >"$d/DEBIAN/conffiles"
cat >"$d/DEBIAN/postinst" <<'EOS'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
	ldconfig
	if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
fi
exit 0
EOS
cat >"$d/DEBIAN/postrm" <<'EOS'
#!/bin/sh
set -e
if [ "$1" = remove ] || [ "$1" = purge ]; then
	ldconfig
	if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
fi
if [ "$1" = purge ]; then
	rm -rf /run/gpupath
	rmdir /etc/gpupath 2>/dev/null || true
fi
exit 0
EOS
cat >"$d/DEBIAN/prerm" <<'EOS'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	systemctl stop gpupathd.service 2>/dev/null || true
fi
exit 0
EOS
chmod 0755 "$d/DEBIAN/postinst" "$d/DEBIAN/postrm" "$d/DEBIAN/prerm"
dpkg-deb --root-owner-group -Zxz --build "$d" "$out/gpupath_${ver}_${arch}.deb" >/dev/null
echo "$out/gpupath-dkms_${ver}_all.deb"
echo "$out/gpupath_${ver}_${arch}.deb"
