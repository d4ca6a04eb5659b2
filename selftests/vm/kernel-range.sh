#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The supported kernel range is stated twice: by the #error bounds of
# kmod/compat/compat.h (what the module builds against) and by
# BUILD_EXCLUSIVE_KERNEL in dkms.conf (what DKMS tries). Check that both
# accept and refuse the same releases.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

compat=$top/kmod/compat/compat.h
# "#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)" then "#error": lowest
# supported; ">= KERNEL_VERSION(6, 13, 0)" then "#error": first refused.
bound() {
	awk -v op="$1" '
		$1 == "#if" && $2 == "LINUX_VERSION_CODE" && $3 == op { v = $0 }
		$1 == "#error" && v != "" {
			gsub(/.*KERNEL_VERSION\(|\).*/, "", v); gsub(/ /, "", v); gsub(/,/, ".", v)
			print v; exit
		}
		$1 != "#if" { v = "" }' "$compat"
}
low=$(bound "<")
high=$(bound ">=")
[ -n "$low" ] && [ -n "$high" ] || die "compat.h has no lower and upper #error bound"
regex=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$top/dkms.conf")
[ -n "$regex" ] || die "dkms.conf has no BUILD_EXCLUSIVE_KERNEL"
echo "compat.h: from $low, below $high; dkms.conf: $regex"

# KERNEL_VERSION packs a.b.c as a*65536 + b*256 + c.
code() { local IFS=.,; set -- $1; echo $(( $1 * 65536 + $2 * 256 + ${3:-0} )); }
lo=$(code "$low") hi=$(code "$high")
bad=0
for rel in 5.10.0-30-amd64 5.15.0 6.0.19 6.1.0-57-amd64 6.1.192-gpupath 6.2.1 6.5.0-1-amd64 \
	   6.8.0-49-generic 6.9.12 6.10.3 6.11.0-1-cloud-amd64 6.12.117+deb12-amd64 \
	   6.12.0-55.el10.x86_64 6.13.0 6.14.2-1-amd64 6.17.0 6.100.0 7.0.0 16.1.0; do
	ver=${rel%%[-+]*}
	c=$(code "$ver")
	want=no
	[ "$c" -ge "$lo" ] && [ "$c" -lt "$hi" ] && want=yes
	got=no
	[[ $rel =~ $regex ]] && got=yes
	printf '%-26s compat.h %-3s dkms %s\n' "$rel" "$want" "$got"
	[ $want = $got ] || bad=1
done
[ $bad = 0 ] || die "dkms.conf's range differs from compat.h's"
