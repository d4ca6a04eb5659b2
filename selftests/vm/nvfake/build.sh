#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build nvfake.ko, the NVIDIA peer-memory test double, out of a copy of its
# source and gpupath's declarations of the API (kmod/nv-p2p.h):
#
#   build.sh KDIR OUTDIR [make arguments, e.g. W=1 C=1]
#
# Fails on any compiler or sparse warning.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
MODULE_SRC="$here/nvfake.c $here/nvfake.h $here/Kbuild $top/kmod/nv-p2p.h" \
	exec "$top/selftests/vm/build-module.sh" "$@"
