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
 *
 * The same place keeps namespaces out of a scan that asks for controllers
 * only (libnvme_scan_ctrls_only): libnvme 1.3 (Debian 12's) opens every namespace
 * it scans and sends it an Identify, a command per namespace and per scan
 * on the daemon's loop (with 128 namespaces under emulation, a pass took
 * 15 s, and one on a busy host outlasted the watchdog). gpupathd reads the
 * namespaces it needs from sysfs (ctrl_namespaces() in paths.c).
 */
#define _GNU_SOURCE	/* scandir64() */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "libnvme-fix.h"

static __thread bool ctrls_only;

void libnvme_scan_ctrls_only(bool on)
{
	ctrls_only = on;
}

/* @p past its leading digits, NULL if it has none. */
static const char *digits(const char *p)
{
	size_t n = strspn(p, "0123456789");

	return n ? p + n : NULL;
}

/* "nvme0n1", "nvme0c1n2": a namespace's block device, or a path to one. */
bool libnvme_is_namespace(const char *name)
{
	const char *p = strncmp(name, "nvme", 4) ? NULL : digits(name + 4);

	if (p && *p == 'c')
		p = digits(p + 1);
	if (!p || *p != 'n')
		return false;
	p = digits(p + 1);
	return p && !*p;
}

/* In a controllers-only scan, @list without namespaces; their new count. */
#define DROP_NAMESPACES(list, n)						do {											int i_, k_ = 0;																			for (i_ = 0; ctrls_only && i_ < (n); i_++) {						if (libnvme_is_namespace((*(list))[i_]->d_name))					free((*(list))[i_]);							else											(*(list))[k_++] = (*(list))[i_];				}										if (ctrls_only && (n) > 0)								(n) = k_;							} while (0)

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
	DROP_NAMESPACES(list, n);						\
	return n;								\
}

SCANDIR(scandir, dirent)
SCANDIR(scandir64, dirent64)
