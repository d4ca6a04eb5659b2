#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CLI and the daemon on the host, where the module is not loaded: bad
# input gets a clear message and the documented exit status. Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
GP=$top/tools/gpupath/gpupath
GPD=$top/daemon/gpupathd
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# t NAME WANT_RC PATTERN CMD...: CMD exits WANT_RC and its output matches
# the extended regular expression PATTERN.
t() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$out" 2>&1
	rc=$?
	if [ $rc -eq "$want" ] && grep -qE -- "$pat" "$out"; then
		echo "ok - cli: $name"
	else
		sed 's/^/# /' "$out"
		echo "not ok - cli: $name (exit $rc, wanted $want and /$pat/)"
	fi
}

if "$GP" show >/dev/null 2>&1; then
	echo "ok - cli: module-absent checks # SKIP a gpupath module is loaded on this host"
else
	t "show without the module says how to load it" 1 'module is not loaded.*modprobe gpupath' "$GP" show
	t "version without the module" 0 '^module not loaded' "$GP" version
	t "version -j without the module is JSON with module null" 0 '"module":null' "$GP" version -j
fi
t "no command prints usage" 2 '^Usage: gpupath' "$GP"
t "unknown command" 2 "unknown command 'frobnicate'" "$GP" frobnicate
t "unknown option" 2 'Usage: gpupath' "$GP" --frobnicate show
t "stray argument to show" 2 'Usage: gpupath show' "$GP" show extra
t "help lists the commands" 0 'monitor.*notifications' "$GP" --help
t "monitor --count 0 is refused" 2 "positive number, not '0'" "$GP" monitor --count 0
t "monitor --count junk is refused" 2 "positive number, not '3x'" "$GP" monitor --count 3x
t "daemon --version" 0 '^gpupathd [0-9]+\.[0-9]+\.[0-9]+' "$GPD" --version
t "daemon refuses --interval 0" 2 'interval' "$GPD" --foreground --interval 0
t "daemon refuses --interval 3601" 2 'interval' "$GPD" --foreground --interval 3601
t "daemon refuses an unknown option" 2 'gpupathd --help' "$GPD" --frobnicate
t "daemon refuses a stray argument" 2 'gpupathd --help' "$GPD" --foreground extra
