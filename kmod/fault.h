/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_FAULT_H
#define _GPUPATH_FAULT_H

#include <linux/types.h>

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
void gpupath_fault_init(void);
void gpupath_fault_uninit(void);
bool gpupath_fault_p2p_route(void);
#else
static inline void gpupath_fault_init(void) {}
static inline void gpupath_fault_uninit(void) {}
static inline bool gpupath_fault_p2p_route(void) { return false; }
#endif

#endif /* _GPUPATH_FAULT_H */
