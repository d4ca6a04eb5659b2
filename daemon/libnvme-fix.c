// SPDX-License-Identifier: GPL-2.0
/*
 * A fix for a bug of libnvme before 1.10 (Debian 12 has 1.3).
 *
 * A scan (nvme_scan_topology()) lists the controllers, then reads each one's directory with
 * scandir(); libnvme frees scandir()'s list even when scandir() failed and
 * left it unset (nvme_ctrl_scan_namespaces(), libnvme issue #840). A
 * controller deleted while gpupathd scans (a rail lost, "nvme disconnect"
 * at the wrong moment) then crashes gpupathd with "free(): double free".
 *
 * gpupathd's scandir() and scandir64() (libnvme's, built for 64-bit file
 * offsets) come before the C library's for libnvme too (the executable's
 * symbols are looked up first): each calls the C library's and, when that
 * fails, sets the list to NULL, so that the free does nothing.
 */
#define _GNU_SOURCE	/* scandir64() */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

/* The C library's @name, called; the list NULL when it fails. */
#define SCANDIR(name, ent)							\
int name(const char *dir, struct ent ***list, int (*sel)(const struct ent *),	\
	 int (*cmp)(const struct ent **, const struct ent **))			\
{										\
	static int (*libc)(const char *, struct ent ***,			\
			   int (*)(const struct ent *),				\
			   int (*)(const struct ent **, const struct ent **));	\
	int n;									\
										\
	if (!libc)								\
		*(void **)&libc = dlsym(RTLD_NEXT, #name);			\
	if (!libc) {								\
		*list = NULL;							\
		errno = ENOSYS;							\
		return -1;							\
	}									\
	n = libc(dir, list, sel, cmp);						\
	if (n < 0)								\
		*list = NULL;							\
	return n;								\
}

SCANDIR(scandir, dirent)
SCANDIR(scandir64, dirent64)
