#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of promtool, Prometheus' checker. Where it is not installed,
# it is taken from Debian's prometheus package, unpacked once into the cache
# (the package is not installed: no Prometheus server is set up or started).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if command -v promtool >/dev/null; then
	command -v promtool
	exit 0
fi
dir=$GPUPATH_CACHE/prometheus
if [ ! -x "$dir/usr/bin/promtool" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -q prometheus >/dev/null 2>&1) ||
		die "promtool: apt-get download prometheus failed"
	rm -rf "$dir"
	dpkg-deb -x "$tmp"/prometheus_*.deb "$dir"
fi
echo "$dir/usr/bin/promtool"
