#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict over the kernel code (the module and the test
# double selftests/vm/nvfake, the lab's selftests/lab/cpubusy) and the uapi header; fails on
# any error. The warnings left are printed: those in kmod/compat/ are its
# purpose (version checks).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/vm/lib.sh"

src=$(ksrc_dir)
cd "$top"
mapfile -t files < <(find kmod uapi selftests/vm/nvfake selftests/lab/cpubusy -name '*.[ch]' | sort)
out=$(perl "$src/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	-f "${files[@]}" 2>&1 || true)
printf '%s\n' "$out"
errors=$(printf '%s\n' "$out" | grep -c ': ERROR:' || true)
echo "checkpatch: ${#files[@]} files, $errors errors"
[ "$errors" -eq 0 ]
