#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The uapi keeps every number: each name in selftests/uapi-abi.list (the
# constants of uapi/linux/gpupath.h and of the generated gpupath_nl.h, with
# their values as released) must still exist with the same value, so that
# binaries built against an older header keep working. New names are
# appended to the list (selftests/uapi-check.sh --update prints it again).
#
#   selftests/uapi-check.sh [--update]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
list=$top/selftests/uapi-abi.list
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# values NAMES...: "NAME VALUE" for each, as the current header defines it.
values() {
	{
		printf '#include <stdio.h>\n#include <linux/gpupath.h>\n'
		printf '#define P(x) _Generic((x), char *: printf("%%s \\"%%s\\"\\n", #x, (char *)(x)), '
		printf 'default: printf("%%s %%llu\\n", #x, (unsigned long long)(x)))\n'
		printf 'int main(void)\n{\n'
		printf '\tP(%s);\n' "$@"
		printf '\treturn 0;\n}\n'
	} >"$tmp/v.c"
	gcc -std=c11 -Wall -Werror -I"$top/uapi" -o "$tmp/v" "$tmp/v.c" 2>"$tmp/cc" ||
		{ grep -m5 error "$tmp/cc" | sed 's/^/# /'; return 1; }
	"$tmp/v"
}

if [ "${1:-}" = "--update" ]; then
	# Every constant the headers define, in the order they define them.
	names=$(cat "$top/uapi/linux/gpupath_nl.h" "$top/uapi/linux/gpupath.h" |
		grep -oE '^(#define[[:space:]]+|[[:space:]]+)_*GPUPATH_[A-Z0-9_]+([[:space:]]|,|$)' |
		grep -oE '_*GPUPATH_[A-Z0-9_]+' | grep -vE '^_UAPI|^GPUPATH_IOC_MAGIC$' | awk '!seen[$0]++')
	# Counts grow as the protocol is appended to: __X_MAX and X_MAX, the
	# mask of all features, the hand-kept CONN_STATE_MAX and PATH_STATE_MAX.
	names=$(echo "$names" | grep -vxE "GPUPATH_(FEATURE_(ALL|MASK)|CONN_STATE_MAX|PATH_STATE_MAX)|$(echo "$names" |
		grep -E '^__' | sed 's/^__//' | paste -sd'|')" | grep -v '^__')
	# Those already listed keep their place; new ones go at the end.
	{ awk '{ print $1 }' "$list"; echo "$names"; } | awk 'NF && !seen[$0]++' >"$tmp/names"
	values $(cat "$tmp/names")
	exit
fi

if values $(awk '{ print $1 }' "$list") >"$tmp/now" && diff -u "$list" "$tmp/now" >"$tmp/diff"; then
	echo "ok - uapi: the $(wc -l <"$list") released names of the uapi keep their values"
else
	sed 's/^/# /' "$tmp/diff" 2>/dev/null
	echo "not ok - uapi: a released name of the uapi is gone or changed its value"
	exit 1
fi
