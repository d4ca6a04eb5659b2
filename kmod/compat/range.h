/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernels gpupath builds against, and those it is tested on. One place,
 * read by compat.h (the module refuses a kernel outside the range), by the
 * CLI (gpupath show says whether the running kernel is a tested one) and by
 * selftests/vm/kernel-range.sh, which checks dkms.conf, the README and
 * install.md against it. Plain numbers: the CLI includes this file too.
 *
 * Versions are packed as KERNEL_VERSION() packs them: a.b.c is
 * a << 16 | b << 8 | c.
 *
 * - Tested: the 6.1 and 6.12 LTS series (test kernels built from Debian 12's
 *   linux-source, and Debian's stock kernels) and 7.3 (Debian 13's stock
 *   kernel from trixie-backports, and a debug build of its source). The VM
 *   suite runs whole on each.
 * - Built, not tested: the kernels between, covered by the probes of
 *   kmod/compat/Kbuild.include.
 * - Newer than the last tested series: refused by default, since the DMA,
 *   P2PDMA and block APIs gpupath uses change from release to release, and a
 *   module that builds there has not been shown to move the right bytes.
 *   `make module GPUPATH_UNTESTED_KERNEL=1` (or the same variable in the
 *   environment of `dkms build`/`dkms install`) builds it anyway, for one
 *   who will test it; DKMS's automatic builds for a new kernel never try,
 *   so installing a kernel package never fails because of gpupath.
 */
#ifndef _GPUPATH_COMPAT_RANGE_H
#define _GPUPATH_COMPAT_RANGE_H

/* The oldest kernel gpupath builds against: 6.1.0. */
#define GPUPATH_KERNEL_FIRST		0x060100
/* The first kernel refused unless GPUPATH_UNTESTED_KERNEL: 7.4.0. */
#define GPUPATH_KERNEL_REFUSED		0x070400
/* The tested series, as major << 8 | minor, and in words. */
#define GPUPATH_KERNEL_TESTED		{ 0x0601, 0x060c, 0x0703 }
#define GPUPATH_KERNEL_TESTED_TEXT	"6.1, 6.12 and 7.3"

#endif /* _GPUPATH_COMPAT_RANGE_H */
