#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The supported kernel range is stated once, in kmod/compat/range.h (which
# compat.h and the CLI include), and repeated by BUILD_EXCLUSIVE_KERNEL in
# dkms.conf (what DKMS tries, with and without GPUPATH_UNTESTED_KERNEL=1), the
# README and Documentation/install.md. Check that they all agree.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

range=$top/kmod/compat/range.h
def() { awk -v n="$1" '$1 == "#define" && $2 == n { $1 = $2 = ""; sub(/^ +/, ""); print }' "$range"; }
first=$(( $(def GPUPATH_KERNEL_FIRST) ))
refused=$(( $(def GPUPATH_KERNEL_REFUSED) ))
tested=$(def GPUPATH_KERNEL_TESTED_TEXT | tr -d '"')
[ "$first" -gt 0 ] && [ "$refused" -gt "$first" ] && [ -n "$tested" ] ||
	die "range.h has no GPUPATH_KERNEL_FIRST, GPUPATH_KERNEL_REFUSED or GPUPATH_KERNEL_TESTED_TEXT"
ver() { echo "$(( $1 >> 16 )).$(( ($1 >> 8) & 255 ))"; }
low=$(ver "$first")
last=$(ver $(( refused - 256 )))
# The compat.h bounds use range.h's names, not numbers of their own.
grep -q 'LINUX_VERSION_CODE < GPUPATH_KERNEL_FIRST' "$top/kmod/compat/compat.h" &&
	grep -q 'LINUX_VERSION_CODE >= GPUPATH_KERNEL_REFUSED' "$top/kmod/compat/compat.h" ||
	die "compat.h's #error bounds do not use range.h"

# dkms.conf is sourced by DKMS as bash; source it the same way, for a kernel
# release given on the command line as dkms build -k would.
dkms_regex() {
	env -i GPUPATH_UNTESTED_KERNEL="${1:-}" bash -c \
		'kernelver=x kernel_source_dir=x; . "$0"; echo "$BUILD_EXCLUSIVE_KERNEL"' "$top/dkms.conf"
}
regex=$(dkms_regex)
regex_untested=$(dkms_regex 1)
[ -n "$regex" ] && [ -n "$regex_untested" ] || die "dkms.conf has no BUILD_EXCLUSIVE_KERNEL"
echo "range.h: from $low to $last (tested: $tested); dkms.conf: $regex, with GPUPATH_UNTESTED_KERNEL=1: $regex_untested"

# KERNEL_VERSION packs a.b.c as a*65536 + b*256 + c.
code() { local IFS=.,; set -- $1; echo $(( $1 * 65536 + $2 * 256 + ${3:-0} )); }
bad=0
for rel in 5.10.0-30-amd64 5.15.0 6.0.19 6.1.0-57-amd64 6.1.192-gpupath 6.2.1 6.5.0-1-amd64 \
	   6.8.0-49-generic 6.9.12 6.10.3 6.11.0-1-cloud-amd64 6.12.117+deb12-amd64 \
	   6.12.0-55.el10.x86_64 6.13.0 6.14.2-1-amd64 6.17.0 6.18.3 6.100.0 7.0.0-10-generic \
	   7.2.12+deb13-amd64 7.3.4+deb13-amd64 7.3.0-gpupath 7.4.0 7.10.1 8.0.0 16.1.0; do
	c=$(code "${rel%%[-+]*}")
	want=no
	[ "$c" -ge "$first" ] && [ "$c" -lt "$refused" ] && want=yes
	got=no
	[[ $rel =~ $regex ]] && got=yes
	# With GPUPATH_UNTESTED_KERNEL=1, every kernel from the first on.
	want_u=no
	[ "$c" -ge "$first" ] && want_u=yes
	got_u=no
	[[ $rel =~ $regex_untested ]] && got_u=yes
	printf '%-26s range.h %-3s dkms %-3s untested: range.h %-3s dkms %s\n' \
		"$rel" "$want" "$got" "$want_u" "$got_u"
	[ $want = $got ] && [ $want_u = $got_u ] || bad=1
done
[ $bad = 0 ] || die "dkms.conf's range differs from range.h's"

# What users read says the same.
for doc in README.md Documentation/install.md; do
	grep -q "Linux $low to $last\b" "$top/$doc" || { echo "$doc does not say 'Linux $low to $last'"; bad=1; }
	grep -qF "$tested" "$top/$doc" || { echo "$doc does not name the tested series ($tested)"; bad=1; }
done
[ $bad = 0 ] || die "the documents state another range than range.h"
