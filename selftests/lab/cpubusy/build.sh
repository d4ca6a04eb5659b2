#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build cpubusy.ko, the performance lab's busy-time counter, out of a copy of
# its source:
#
#   build.sh KDIR OUTDIR [make arguments, e.g. W=1 C=1]
#
# Fails on any compiler or sparse warning.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
MODULE_SRC="$here/cpubusy.c $here/Kbuild" exec "$top/selftests/vm/build-module.sh" "$@"
