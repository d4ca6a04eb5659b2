# SPDX-License-Identifier: GPL-2.0
# Today's CLI against the module of the last release before the YNL spec
# (/out/old/gpupath.ko): compat.sh's session the other way round.
COMPAT_OLD_MODULE=1 . /src/selftests/vm/tests/compat.sh
