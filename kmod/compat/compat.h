/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels gpupath builds against lives here or
 * in kmod/compat/Kbuild.include; the rest of the module tests the macros and
 * helpers defined here, never LINUX_VERSION_CODE.
 */
#ifndef _GPUPATH_COMPAT_H
#define _GPUPATH_COMPAT_H

#include <linux/module.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "gpupath needs Linux 6.1 or later"
#endif

/* vm_flags became read-only behind helpers in 6.3. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
#include <linux/mm_types.h>
static inline void gpupath_compat_vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags |= flags;
}
#else
#define gpupath_compat_vm_flags_set vm_flags_set
#endif

#endif /* _GPUPATH_COMPAT_H */
