#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libgpupath's ABI. By name: the functions the public headers declare, the
# version scripts that list them (checked in), and what the built libraries
# export must be the same lists, each function in one node of
# libgpupath.map (its default version), and the older versions compat.c
# keeps only under names a later node has. A function declared but not
# listed, listed but not built, or exported without being declared, fails.
#
# Against the releases (selftests/abi/): libgpupath.so.0 keeps every symbol
# of each released version node, with that release's types. abidiff
# (libabigail, Debian: abigail-tools) compares the library with the
# release's ABI dump: a symbol gone, or a function or structure of its
# default version changed, fails; symbols of new nodes are left out of it.
# abidiff does not compare a symbol's non-default versions, so compat.c,
# which holds them, is built once more with GPUPATH_ABI_VIEW as a library of
# its own where they are the default ones, and that is compared too. Last, a
# program built against the release's headers and linked as it was (against
# a library with the release's symbols and version, made here from the
# dump) runs on today's library (selftests/abi/compat-test.c).
#
# selftests/abi/libgpupath.so.0.abi is libgpupath.so.0 as first released:
# version node LIBGPUPATH_0 as commit 75ed133 declared it, unchanged until
# 1dfc7ed, dumped from 4117b96 (the last commit before that) with
#   make tools/lib/libgpupath.so
#   abidw --no-corpus-path --short-locs --no-comp-dir-path \
#         --out-file libgpupath.so.0.abi tools/lib/libgpupath.so.0
# and selftests/abi/include holds the headers it was built from. The ABI of
# a later release is added the same way when it is made; should the soname
# ever change, the dump of the new soname's first release becomes the
# baseline that later builds are compared with.
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
nodes="LIBGPUPATH_0 LIBGPUPATH_0.2"
for n in $nodes; do
	listed "$lib/libgpupath.map" "$n" >"$tmp/map-$n"
	exported "$lib/libgpupath.so.0" "$n" >"$tmp/so-$n"
done
listed "$lib/libgpupath-cuda.map" LIBGPUPATH_CUDA_0 >"$tmp/map-cuda"
(cd "$tmp" && cat map-LIBGPUPATH_0 map-LIBGPUPATH_0.2) | sort >"$tmp/map"
sort -u "$tmp/map" >"$tmp/map-once"

same "libgpupath.map lists what libgpupath.h and libgpupath-admin.h declare" \
	"$tmp/decl" "$tmp/map-once"
same "libgpupath.map lists each function in one version node" "$tmp/map-once" "$tmp/map"
for n in $nodes; do
	same "libgpupath.so.0 exports exactly libgpupath.map's $n" "$tmp/map-$n" "$tmp/so-$n"
done
# LIBGPUPATH_PRIVATE: what libgpupath-cuda and libgpupath-cufile call of
# libgpupath's insides, and nothing else.
exported "$lib/libgpupath.so.0" LIBGPUPATH_PRIVATE >"$tmp/so-private"
nm -D --undefined-only "$lib/libgpupath-cuda.so.0" "$top/tools/cufile/libgpupath-cufile.so.0" |
	awk '/@LIBGPUPATH_PRIVATE/ { sub(/@.*/, "", $2); print $2 }' | sort -u >"$tmp/used-private"
same "libgpupath.so.0's LIBGPUPATH_PRIVATE is what libgpupath-cuda and -cufile use" \
	"$tmp/used-private" "$tmp/so-private"
# The older versions (name@VERSION, compat.c): of functions a later node has.
nm -D --defined-only "$lib/libgpupath.so.0" |
	awk '{ n = split($3, p, "@"); if (n == 2) print p[1] }' | sort -u >"$tmp/so-older"
comm -23 "$tmp/so-older" "$tmp/map-LIBGPUPATH_0.2" >"$tmp/so-older-stray"
: >"$tmp/none"
same "libgpupath.so.0's older versions are of functions LIBGPUPATH_0.2 has" "$tmp/none" \
	"$tmp/so-older-stray"
# Nothing else: no symbol outside the version nodes.
nm -D --defined-only "$lib/libgpupath.so.0" |
	awk '$2 != "A" && $3 !~ /@@LIBGPUPATH_(0|0\.2|PRIVATE)$/ && $3 !~ /[^@]@LIBGPUPATH_0$/ {
		print $3 }' >"$tmp/stray"
same "libgpupath.so.0 exports nothing outside its version nodes" "$tmp/none" "$tmp/stray"
# The Debian package's symbols file names each of them, with its version
# (dpkg-gensymbols checks the same when the package is built).
nm -D --defined-only "$lib/libgpupath.so.0" |
	awk '$2 == "A" { print $3 "@" $3; next } { sub(/@@/, "@", $3); print $3 }' |
	sort >"$tmp/so-syms"
awk '/^ / { print $1 }' "$top/tools/deb/debian/libgpupath0.symbols" | sort >"$tmp/deb-syms"
same "tools/deb/debian/libgpupath0.symbols lists what libgpupath.so.0 exports" \
	"$tmp/so-syms" "$tmp/deb-syms"
same "libgpupath-cuda.map lists the CUDA functions libgpupath.h declares" \
	"$tmp/decl-cuda" "$tmp/map-cuda"
if [ -e "$lib/libgpupath-cuda.so.0" ]; then
	exported "$lib/libgpupath-cuda.so.0" LIBGPUPATH_CUDA_0 >"$tmp/so-cuda"
	same "libgpupath-cuda.so.0 exports exactly libgpupath-cuda.map" "$tmp/map-cuda" \
		"$tmp/so-cuda"
else
	echo "not ok - abi: libgpupath-cuda.so.0 is not built"
	fail=1
fi

# ---- against the releases ---------------------------------------------------

abi=$top/selftests/abi
base=$abi/libgpupath.so.0.abi

# abidiff's verdict on $1 (ok when it exits 0), its report as comments.
abidiff_ok() {	# abidiff_ok WHAT ABIDIFF-ARGS...
	local what=$1 rc
	shift
	abidiff "$@" >"$tmp/abidiff" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		echo "ok - abi: $what"
	else
		# Bits of the exit status: 1 error, 2 usage, 4 ABI change, 8 incompatible.
		sed 's/^/# /' "$tmp/abidiff"
		echo "not ok - abi: $what (abidiff exit $rc)"
		fail=1
	fi
}

if ! command -v abidiff >/dev/null; then
	echo "not ok - abi: abidiff not installed (Debian: abigail-tools; make deps)"
	exit 1
fi

# Every symbol of the release's LIBGPUPATH_0, by name.
sed -n "s/.*<elf-symbol name='\(gpupath_[a-z0-9_]*\)' version='LIBGPUPATH_0' .*/\1/p" \
	"$base" | sort -u >"$tmp/rel-0"
nm -D --defined-only "$lib/libgpupath.so.0" |
	awk '$2 != "A" { n = split($3, p, "@"); if (p[n] == "LIBGPUPATH_0") print p[1] }' |
	sort -u >"$tmp/so-0-all"
same "libgpupath.so.0's LIBGPUPATH_0 has the release's functions, no more" "$tmp/rel-0" \
	"$tmp/so-0-all"

# The library: types outside the headers (of opaque handles) are its own.
abidiff_ok "libgpupath.so.0 against the release: nothing removed or changed" \
	--fail-no-debug-info --no-added-syms --hd2 "$lib" --hd2 "$top/uapi" \
	"$base" "$lib/libgpupath.so.0"

# compat.c's versions, as the default ones of a library of their own.
printf 'LIBGPUPATH_0 { global: gpupath_*; local: *; };\n' >"$tmp/view.map"
if ${CC:-cc} -g -O2 -std=gnu11 -fPIC -shared -DGPUPATH_ABI_VIEW -I"$top/uapi" -I"$lib" \
	-Wl,-soname,libgpupath.so.0 -Wl,--version-script="$tmp/view.map" \
	-o "$tmp/view.so" "$lib/compat.c" 2>"$tmp/cc"; then
	nm -D --defined-only "$tmp/view.so" | awk '$2 == "T" { split($3, p, "@"); print p[1] }' |
		sort -u >"$tmp/view-names"
	nm -D --defined-only "$lib/libgpupath.so.0" |
		awk '$3 ~ /[^@]@LIBGPUPATH_0$/ { split($3, p, "@"); print p[1] }' |
		sort -u >"$tmp/so-compat"
	same "compat.c holds libgpupath.so.0's LIBGPUPATH_0 versions that are not default" \
		"$tmp/so-compat" "$tmp/view-names"
	printf '[suppress_function]\n  symbol_name_not_regexp = ^(%s)$\n' \
		"$(paste -sd'|' "$tmp/view-names")" >"$tmp/view.suppr"
	abidiff_ok "LIBGPUPATH_0 versions of compat.c against the release's" \
		--fail-no-debug-info --suppressions "$tmp/view.suppr" "$base" "$tmp/view.so"
else
	sed 's/^/# /' "$tmp/cc"
	echo "not ok - abi: compat.c builds as a library of its own"
	fail=1
fi

# A program of the release, linked as it was, run on today's library.
sed 's/.*/void &(void) {}/' "$tmp/rel-0" >"$tmp/stub.c"
{ printf 'LIBGPUPATH_0 {\nglobal:\n'; sed 's/.*/\t&;/' "$tmp/rel-0"; printf 'local:\n\t*;\n};\n'; } \
	>"$tmp/stub.map"
mkdir -p "$tmp/stub"
if ${CC:-cc} -fPIC -shared -Wl,-soname,libgpupath.so.0 -Wl,--version-script="$tmp/stub.map" \
	-o "$tmp/stub/libgpupath.so" "$tmp/stub.c" 2>"$tmp/cc" &&
	${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -I"$abi/include" -I"$top/uapi" \
		-o "$tmp/compat-test" "$abi/compat-test.c" -L"$tmp/stub" -lgpupath 2>>"$tmp/cc"; then
	if LD_LIBRARY_PATH=$lib "$tmp/compat-test" >"$tmp/compat.out" 2>&1; then
		echo "ok - abi: a program of the release runs on libgpupath.so.0" \
			"($(grep -c '^ok' "$tmp/compat.out") checks)"
	else
		sed 's/^/# /' "$tmp/compat.out"
		echo "not ok - abi: a program of the release runs on libgpupath.so.0"
		fail=1
	fi
else
	sed 's/^/# /' "$tmp/cc"
	echo "not ok - abi: a program of the release builds against its headers"
	fail=1
fi
exit $fail
