/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verification pattern: byte POS of pattern SEED. Shared by
 * gpupath-bench and the test tools, so that what one lays down the others
 * recognise.
 */
#ifndef GPUPATH_PATTERN_H
#define GPUPATH_PATTERN_H

#include <stdint.h>

static inline uint64_t pattern_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline uint8_t pattern_byte(uint64_t seed, uint64_t pos)
{
	return pattern_mix(seed ^ pattern_mix(pos >> 3)) >> ((pos & 7) * 8);
}

/* @len bytes of pattern @seed from position @pos, eight at a time where aligned. */
static inline void pattern_fill(uint8_t *p, uint64_t len, uint64_t seed, uint64_t pos)
{
	uint64_t i = 0, v;
	unsigned int k;

	for (; i < len && (pos + i) % 8; i++)
		p[i] = pattern_byte(seed, pos + i);
	for (; i + 8 <= len; i += 8) {
		v = pattern_mix(seed ^ pattern_mix((pos + i) >> 3));
		for (k = 0; k < 8; k++)
			p[i + k] = v >> (k * 8);
	}
	for (; i < len; i++)
		p[i] = pattern_byte(seed, pos + i);
}

#endif /* GPUPATH_PATTERN_H */
