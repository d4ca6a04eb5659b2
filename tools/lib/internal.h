/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal to libgpupath and libgpupath-cuda, and shared with the
 * project's own programs (the CLI, gpupathd), which link libgpupath.a.
 */
#ifndef GPUPATH_INTERNAL_H
#define GPUPATH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libgpupath.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/*
 * Text from outside on its way out: valid UTF-8 passes, any other byte and
 * any control character becomes \xNN (lib/text.c).
 */
/* The bytes of the valid UTF-8 character at @s (@n left), 0: none. */
size_t gpupath_utf8_len(const char *s, size_t n);
/* Cuts @s before a character its end splits. */
void gpupath_utf8_cut(char *s);
/* @s to @f; with @special, backslashes before its characters and \\xNN. */
void gpupath_fputs_text(FILE *f, const char *s, const char *special);
/* @s as text into @dst (cut at a whole character); its length. */
size_t gpupath_escape(char *dst, size_t size, const char *s);

/* @res, or @local where the caller passed none, cleared for a new I/O. */
static inline struct gpupath_result *gpupath_result_start(struct gpupath_result *res,
							 struct gpupath_result *local)
{
	if (!res)
		res = local;
	res->mode = GPUPATH_MODE_NONE;
	res->reason = GPUPATH_REASON_NONE;
	res->len = 0;
	return res;
}

/* Moves @n bytes at @off of the caller's memory into or out of @bounce. */
typedef int (*gpupath_copy_fn)(void *bounce, uint64_t off, uint64_t n, bool to_bounce,
			       void *arg);

/*
 * @len bytes at @off of @fd through host memory of its own, @copy moving
 * each piece (up to @chunk bytes, a multiple of @al) between the caller's
 * memory and it: in whole blocks of @al (an O_DIRECT descriptor; 1 for
 * any other), reading around a partial block before writing it (one such
 * write of the process at a time; other processes' writers of the same
 * blocks are not held off) and giving a file such a write grew past the
 * request its end back. Reads stop at the end of a file. The bytes moved,
 * or -errno when none were.
 */
__attribute__((visibility("default")))	/* LIBGPUPATH_PRIVATE, for libgpupath-cufile */
int64_t gpupath_fd_bounce(int fd, uint32_t op, uint64_t off, uint64_t len, unsigned int al,
			  uint64_t chunk, gpupath_copy_fn copy, void *arg);

/*
 * Host I/O through the device's pinned bounce buffer, @copy around each
 * chunk: through the module for a block device, in whole logical blocks
 * (read around a partial one before writing it back: not atomic against
 * other writers of that block), pread()/pwrite() for a regular file, where
 * a read stops at the file's end. @moved (may be NULL)
 * gets the bytes moved.
 */
__attribute__((visibility("default")))	/* LIBGPUPATH_PRIVATE, for libgpupath-cuda */
int gpupath_bounce(struct gpupath_dev *dev, uint32_t op, int fd, uint64_t dev_off,
		   uint64_t len, gpupath_copy_fn copy, void *arg, uint64_t *moved);

/*
 * @fn is called first by gpupath_dev_close(@dev), to free the buffers of
 * @dev it keeps (one caller: libgpupath-cuda's registration cache).
 */
typedef void (*gpupath_close_fn)(struct gpupath_dev *dev);
__attribute__((visibility("default")))	/* LIBGPUPATH_PRIVATE, for libgpupath-cuda */
void gpupath_dev_atclose(struct gpupath_dev *dev, gpupath_close_fn fn);

/*
 * The alignment the module needs of @op's offsets and length on @fd: the
 * logical block size of the block device, or of a file's file system's
 * device (and for a write, at least the file system's block). -errno if
 * @fd is neither.
 */
int gpupath_io_align(int fd, uint32_t op);
/* Whether the module would refuse @op on @fd as not in its blocks. */
__attribute__((visibility("default")))	/* LIBGPUPATH_PRIVATE, for libgpupath-cuda */
bool gpupath_unaligned(int fd, uint32_t op, uint64_t buf_off, uint64_t dev_off, uint64_t len);

/*
 * The first line of sysfs attribute @name of directory @dir, without its
 * newline: 0, or -errno (-ENODATA when empty).
 */
int gpupath_sysfs_read(const char *dir, const char *name, char *buf, size_t size);

/*
 * The first address of the host on interface @iface (NULL: any) that is
 * @addr (NULL: any) of @family (AF_UNSPEC: any): its interface and address
 * into @iface_out and @addr_out (each may be NULL). Whether there is one.
 */
bool gpupath_ifaddr_find(const char *iface, const char *addr, int family, char *iface_out,
			 size_t iface_size, char *addr_out, size_t addr_size);

struct ifaddrs;
/* The same, in @ifa (a getifaddrs() list the caller keeps). */
bool gpupath_ifaddr_find_in(const struct ifaddrs *ifa, const char *iface, const char *addr,
			    int family, char *iface_out, size_t iface_size, char *addr_out,
			    size_t addr_size);

/*
 * Whether an address of the host on interface @iface (NULL: any), in @ifa,
 * has @addr (IPv4 or IPv6, as text) on its subnet; the first such
 * interface into @iface_out (may be NULL). An address of the other family
 * never does.
 */
bool gpupath_ifaddr_subnet_in(const struct ifaddrs *ifa, const char *iface, const char *addr,
			      char *iface_out, size_t iface_size);

/*
 * The value of "KEY=VALUE" in @addr, the comma-separated address attribute
 * of an NVMe controller in sysfs, into @val ("" when absent). Whether
 * there is one.
 */
bool gpupath_addr_field(const char *addr, const char *key, char *val, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* GPUPATH_INTERNAL_H */
