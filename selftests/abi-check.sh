#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libgpupath's ABI: the functions the public headers declare, the version
# scripts that list them (checked in), and what the built libraries export
# must be the same three lists. A function declared but not listed, listed
# but not built, or exported without being declared, fails the check.
#
#   selftests/abi-check.sh     (after make userspace)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
lib=$top/tools/lib
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# Function names declared in headers, comments stripped.
declared() {
	local h
	for h in "$@"; do
		gcc -fpreprocessed -dD -E -P "$h"
	done | grep -oE '\bgpupath_[a-z0-9_]+[[:space:]]*\(' | tr -d '( \t' | sort -u
}

# The global names of version node $2 in script $1.
listed() {
	awk -v node="$2" '
		$1 == node && $2 == "{" { on = 1; next }
		on && /^}/ { on = 0 }
		on && /^[ \t]+gpupath_[a-z0-9_]+;/ { gsub(/[ \t;]/, ""); print }
	' "$1" | sort -u
}

# The names library $1 exports in version node $2.
exported() {
	nm -D --defined-only "$1" | awk -v node="$2" '
		{ n = split($3, p, "@@"); if (n == 2 && p[2] == node) print p[1] }' | sort -u
}

same() {	# same WHAT A B
	if diff -u "$2" "$3" >"$tmp/diff"; then
		echo "ok - abi: $1 ($(wc -l <"$2") functions)"
	else
		sed 's/^/# /' "$tmp/diff"
		echo "not ok - abi: $1"
		fail=1
	fi
}

for f in "$lib/libgpupath.so.0" "$lib/libgpupath.map" "$lib/libgpupath-cuda.map"; do
	[ -e "$f" ] || { echo "not ok - abi: $f is missing (make userspace first)"; exit 1; }
done

# Each public header stands alone, in C and in C++.
for h in libgpupath.h libgpupath-admin.h; do
	printf '#include <%s>\nint main(void) { return 0; }\n' "$h" >"$tmp/h.c"
	if gcc -std=c99 -Wall -Wextra -Werror -I"$top/uapi" -I"$lib" -o "$tmp/h" "$tmp/h.c" &&
		g++ -Wall -Wextra -Werror -I"$top/uapi" -I"$lib" -x c++ -o "$tmp/h" "$tmp/h.c"; then
		echo "ok - abi: $h compiles on its own as C99 and C++"
	else
		echo "not ok - abi: $h compiles on its own as C99 and C++"
		fail=1
	fi
done

declared "$lib/libgpupath.h" "$lib/libgpupath-admin.h" >"$tmp/all"
grep -v '^gpupath_cuda_' "$tmp/all" >"$tmp/decl"
grep '^gpupath_cuda_' "$tmp/all" >"$tmp/decl-cuda"
listed "$lib/libgpupath.map" LIBGPUPATH_0 >"$tmp/map"
listed "$lib/libgpupath-cuda.map" LIBGPUPATH_CUDA_0 >"$tmp/map-cuda"
exported "$lib/libgpupath.so.0" LIBGPUPATH_0 >"$tmp/so"

same "libgpupath.map lists what libgpupath.h and libgpupath-admin.h declare" \
	"$tmp/decl" "$tmp/map"
same "libgpupath.so.0 exports exactly libgpupath.map's LIBGPUPATH_0" "$tmp/map" "$tmp/so"
printf 'gpupath_bounce\n' >"$tmp/private"
exported "$lib/libgpupath.so.0" LIBGPUPATH_PRIVATE >"$tmp/so-private"
same "libgpupath.so.0's LIBGPUPATH_PRIVATE is gpupath_bounce alone" "$tmp/private" \
	"$tmp/so-private"
# Nothing else: no symbol outside the version nodes.
nm -D --defined-only "$lib/libgpupath.so.0" |
	awk '$2 != "A" && $3 !~ /@@LIBGPUPATH_(0|PRIVATE)$/ { print $3 }' >"$tmp/stray"
: >"$tmp/none"
same "libgpupath.so.0 exports nothing outside its version nodes" "$tmp/none" "$tmp/stray"
same "libgpupath-cuda.map lists the CUDA functions libgpupath.h declares" \
	"$tmp/decl-cuda" "$tmp/map-cuda"
if [ -e "$lib/libgpupath-cuda.so.0" ]; then
	exported "$lib/libgpupath-cuda.so.0" LIBGPUPATH_CUDA_0 >"$tmp/so-cuda"
	same "libgpupath-cuda.so.0 exports exactly libgpupath-cuda.map" "$tmp/map-cuda" \
		"$tmp/so-cuda"
else
	echo "ok - abi: libgpupath-cuda.so.0 # SKIP not built (no CUDA)"
fi
exit $fail
