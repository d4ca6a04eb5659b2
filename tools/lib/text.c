// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Text from outside (cgroup paths any user names, discovery log pages and
 * mDNS names from the network) on its way to a terminal, a log line, JSON
 * or a Prometheus exposition: valid UTF-8 goes through, every other byte,
 * and every control character, is written as the four characters \xNN.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

size_t gpupath_utf8_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len, i;
	unsigned int c;

	if (!n)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

void gpupath_utf8_cut(char *s)
{
	size_t n = strlen(s), i = n, need;
	unsigned char c;

	/* The last byte that is no continuation, at most 3 back. */
	while (i && n - i < 4 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (!i)
		return;
	c = s[--i];
	need = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
	       c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	/* A character begun and not finished; anything else is left to show. */
	if (need > n - i)
		s[i] = 0;
}

/*
 * The text of the character at @s (@n bytes left) into @out, NUL-ended;
 * returns the bytes it took. With @special, the characters in it get a
 * backslash before them, and so does the \xNN of a byte that is no text
 * (JSON's and Prometheus's escaped backslash).
 */
static size_t piece(const char *s, size_t n, const char *special, char out[8])
{
	size_t len = gpupath_utf8_len(s, n);

	if (len > 1) {
		memcpy(out, s, len);
		out[len] = 0;
		return len;
	}
	if (len && (unsigned char)*s >= 0x20 && *s != 0x7f) {
		snprintf(out, 8, "%s%c", special && strchr(special, *s) ? "\\" : "", *s);
		return 1;
	}
	snprintf(out, 8, "%s\\x%02x", special ? "\\" : "", (unsigned char)*s);
	return 1;
}

void gpupath_fputs_text(FILE *f, const char *s, const char *special)
{
	size_t n = strlen(s), len;
	char out[8];

	for (; n; s += len, n -= len) {
		len = piece(s, n, special, out);
		fputs(out, f);
	}
}

size_t gpupath_escape(char *dst, size_t size, const char *s)
{
	size_t n = strlen(s), len, used = 0, w;
	char out[8];

	if (!size)
		return 0;
	for (; n; s += len, n -= len) {
		len = piece(s, n, NULL, out);
		w = strlen(out);
		if (used + w >= size)
			break;
		memcpy(dst + used, out, w);
		used += w;
	}
	dst[used] = 0;
	return used;
}
