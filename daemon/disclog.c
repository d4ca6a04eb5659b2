// SPDX-License-Identifier: GPL-2.0
/*
 * The records of a discovery log page (disclog.h).
 */
#include <stdio.h>
#include <string.h>

#include "disclog.h"
#include "internal.h"
#include "private.h"

/*
 * A field: fixed width, padded with spaces or NULs, into @dst. False when
 * it does not fit @size (a value cut short is never used).
 */
static bool field(char *dst, size_t size, const char *src, size_t len)
{
	size_t n = strnlen(src, len);
	bool fits;

	while (n && src[n - 1] == ' ')
		n--;
	fits = n < size;
	if (!fits)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
	return fits;
}

/* Why @what '@val' is refused, @val quoted as text. */
static bool refuse(char *why, size_t size, const char *what, const char *val, bool fits,
		   const char *is_not)
{
	char text[128];

	gpupath_escape(text, sizeof(text), val);
	snprintf(why, size, "%s '%s'%s is not %s", what, text, fits ? "" : "...", is_not);
	return false;
}

bool disc_record(const struct nvmf_disc_log_entry *e, struct target *t, char *why, size_t size)
{
	char svc[NVMF_TRSVCID_SIZE + 1], err[128];
	bool fits;

	memset(t, 0, sizeof(*t));
	fits = field(t->nqn, sizeof(t->nqn), e->subnqn, sizeof(e->subnqn));
	if (!fits || !gpupath_valid_nqn(t->nqn))
		return refuse(why, size, "subsystem NQN", t->nqn, fits,
			      "an NVMe qualified name (printable, no ',')");
	fits = field(t->traddr, sizeof(t->traddr), e->traddr, sizeof(e->traddr));
	if (!fits || !gpupath_valid_addr(t->traddr))
		return refuse(why, size, "address", t->traddr, fits, "an IPv4 or IPv6 address");
	field(svc, sizeof(svc), e->trsvcid, sizeof(e->trsvcid));
	if (gpupath_parse_u32("port", svc, 1, 65535, &t->trsvcid, err, sizeof(err)))
		return refuse(why, size, "port", svc, true, "a number from 1 to 65535");
	return true;
}
