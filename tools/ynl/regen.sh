#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Documentation/netlink/specs/gpupath.yaml is the one definition of the
# gpupath netlink family. This generates from it, with the YNL code
# generator of Linux 6.12 (tools/net/ynl in Debian's linux-source-6.12,
# unpacked once into the cache the VM tests use):
#
#   uapi/linux/gpupath_nl.h    commands, attributes, enums and constants
#   kmod/netlink-gen.[ch]      each command's request policy (what it takes
#                              inside its object's nest, tools/ynl/kernel-spec.py)
#                              and the split ops; the multicast groups are
#                              kmod/family.c's, by the uapi names, which this
#                              checks it has
#   tools/lib/nl-policy-gen.[ch] libnl policies of every attribute set, for
#                              the library's decoders (tools/ynl/user-policy.py)
#   tools/lib/names-gen.[ch]   the names of every enum's and flag's values and
#                              of the commands, for the tools (tools/ynl/names.py)
#
#   tools/ynl/regen.sh           regenerate (commit the result)
#   tools/ynl/regen.sh --check   fail if a generated file differs from
#                                what the spec generates now
#   YNL_TREE=/path/to/linux tools/ynl/regen.sh   another kernel tree
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
spec=$top/Documentation/netlink/specs/gpupath.yaml
check=false
[ "${1:-}" = "--check" ] && check=true

if [ -z "${YNL_TREE:-}" ]; then
	# shellcheck source=selftests/vm/lib.sh
	KERNEL_SERIES=6.12 . "$top/selftests/vm/lib.sh"
	YNL_TREE=$(ksrc_dir)
fi
gen=$YNL_TREE/tools/net/ynl/ynl-gen-c.py
# Debian's Python, with python3-yaml and python3-jsonschema (the spec is
# checked against the genetlink-legacy schema).
[ -x /usr/bin/python3 ] || { echo "error: /usr/bin/python3 missing (apt-get install python3)" >&2; exit 1; }
[ -f "$gen" ] || { echo "error: no YNL generator at $gen" >&2; exit 1; }

# The generator wants the spec in a kernel-like tree: the schema in
# Documentation/netlink/, a MAINTAINERS file at the top.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/Documentation/netlink/specs"
: >"$tmp/tree/MAINTAINERS"
cp "$YNL_TREE"/Documentation/netlink/genetlink*.yaml "$tmp/tree/Documentation/netlink/"
cp "$spec" "$tmp/tree/Documentation/netlink/specs/"
tspec=$tmp/tree/Documentation/netlink/specs/gpupath.yaml
# The kernel's view, in a tree of its own (the same relative path, which the
# generated files name).
mkdir -p "$tmp/ktree/Documentation/netlink/specs"
cp -r "$tmp/tree/MAINTAINERS" "$tmp/tree/Documentation" "$tmp/ktree/"
/usr/bin/python3 "$top/tools/ynl/kernel-spec.py" "$spec" \
	"$tmp/ktree/Documentation/netlink/specs/gpupath.yaml"
kspec=$tmp/ktree/Documentation/netlink/specs/gpupath.yaml

status=0
# generate MODE header|source SPEC FILE: one generated file, written or compared.
generate() {
	local out=$tmp/$(basename "$4")

	/usr/bin/python3 "$gen" --mode "$1" --"$2" --spec "$3" -o "$out" >"$tmp/log" 2>&1 ||
		{ cat "$tmp/log" >&2; echo "error: $gen failed on $spec" >&2; exit 1; }
	compare "$4"
}

# compare FILE: the generated $tmp/FILE's name, written or compared.
compare() {
	local out=$tmp/$(basename "$1")

	if ! $check; then
		cp "$out" "$top/$1"
		echo "  GEN      $1"
	elif diff -u "$top/$1" "$out" >"$tmp/diff"; then
		echo "ok - ynl: $1 is what the spec generates"
	else
		sed 's/^/# /' "$tmp/diff"
		echo "not ok - ynl: $1 differs from what the spec generates (tools/ynl/regen.sh)"
		status=1
	fi
}

generate uapi header "$tspec" uapi/linux/gpupath_nl.h
generate kernel header "$kspec" kmod/netlink-gen.h
generate kernel source "$kspec" kmod/netlink-gen.c
for g in user-policy:nl-policy-gen names:names-gen; do
	for m in header source; do
		f=tools/lib/${g#*:}.$([ $m = header ] && echo h || echo c)
		/usr/bin/python3 "$top/tools/ynl/${g%:*}.py" "$spec" --$m "$tmp/$(basename "$f")" ||
			{ echo "error: tools/ynl/${g%:*}.py failed on $spec" >&2; exit 1; }
		compare "$f"
	done
done
# kmod/family.c defines the family and its groups (netlink-gen.c is an object
# of its own): each group of the spec must be there.
missing=$(sed -n 's/^#define \(GPUPATH_MCGRP_[A-Z0-9_]*\)\t.*/\1/p' "$top/uapi/linux/gpupath_nl.h" |
	while read -r g; do grep -qw "$g" "$top/kmod/family.c" || echo "$g"; done)
if [ -z "$missing" ]; then
	echo "ok - ynl: kmod/family.c has every multicast group of the spec"
else
	echo "not ok - ynl: kmod/family.c lacks the multicast groups" $missing
	status=1
fi
exit $status
