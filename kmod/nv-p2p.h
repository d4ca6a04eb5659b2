/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpupath's own declarations of the peer-memory ABI that the NVIDIA kernel
 * driver exports (nvidia_p2p_get_pages and friends). gpupath never links
 * against it: the functions are looked up at run time with symbol_get, so
 * gpupath builds and loads without the NVIDIA driver.
 */
#ifndef _GPUPATH_NV_P2P_H
#define _GPUPATH_NV_P2P_H

#include <linux/bits.h>
#include <linux/types.h>

/* page_size of a table of 64 KiB GPU pages, the only size gpupath takes. */
#define GPUPATH_NV_PAGE_SIZE_64KB	1
#define GPUPATH_NV_PAGE_SHIFT		16
#define GPUPATH_NV_PAGE_SIZE		BIT_ULL(GPUPATH_NV_PAGE_SHIFT)

/* The leading member of the driver's page, the one gpupath reads. */
struct nvidia_p2p_page {
	u64 physical_address;
};

/*
 * The driver's page table. Its version is major << 16 | minor: 1.2 from
 * the drivers before 580, 2.0 from 580 on, which appended @flags. gpupath
 * reads the members the two have alike (up to @entries) and takes a table
 * of major 1 or 2 only.
 */
struct nvidia_p2p_page_table {
	u32 version;
	u32 page_size;
	struct nvidia_p2p_page **pages;
	u32 entries;
	u8 *gpu_uuid;
	u32 flags;		/* 2.0 on */
};

#define GPUPATH_NV_TABLE_MAJOR(version)	((version) >> 16)

typedef int (*gpupath_nv_get_pages_t)(u64 p2p_token, u32 va_space, u64 virtual_address,
				      u64 length, struct nvidia_p2p_page_table **page_table,
				      void (*free_callback)(void *data), void *data);
typedef int (*gpupath_nv_put_pages_t)(u64 p2p_token, u32 va_space, u64 virtual_address,
				      struct nvidia_p2p_page_table *page_table);
typedef int (*gpupath_nv_free_page_table_t)(struct nvidia_p2p_page_table *page_table);

/*
 * Persistent pages (the drivers from 515 on): no free callback; the memory
 * stays allocated, even past cudaFree and the process's end, until the
 * table is given back, from any context. @flags is 0. The driver refuses
 * with -ENOTSUPP (524) where it cannot (APM, and more before 555).
 */
typedef int (*gpupath_nv_get_pages_persistent_t)(u64 virtual_address, u64 length,
						 struct nvidia_p2p_page_table **page_table,
						 u32 flags);
typedef int (*gpupath_nv_put_pages_persistent_t)(u64 virtual_address,
						 struct nvidia_p2p_page_table *page_table,
						 u32 flags);

#endif /* _GPUPATH_NV_P2P_H */
