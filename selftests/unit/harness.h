/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host unit tests' harness: TEST(name) { ... } bodies with EXPECT_*
 * (record and go on) and ASSERT_* (record and end the test) checks, and
 * TEST_HARNESS_MAIN, which runs every test in the order written and prints
 * TAP, one "ok N name" or "not ok N name" line each, the failed checks as
 * comments before it. The checks are spelt as kselftest_harness.h spells
 * them, so a test reads the same as the kernel's, without needing a kernel
 * source tree to build.
 */
#ifndef GPUPATH_UNIT_HARNESS_H
#define GPUPATH_UNIT_HARNESS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TH_MAX_TESTS 256

struct th_test {
	const char *name;
	void (*fn)(bool *failed);
};

static struct th_test th_tests[TH_MAX_TESTS];
static unsigned int th_count;

static inline void th_register(const char *name, void (*fn)(bool *failed))
{
	if (th_count == TH_MAX_TESTS) {
		fprintf(stderr, "harness: more than %d tests\n", TH_MAX_TESTS);
		exit(2);
	}
	th_tests[th_count].name = name;
	th_tests[th_count++].fn = fn;
}

/* Constructors run in the order the tests are written. */
#define TEST(name)								\
	static void name(bool *_th_failed);					\
	static void __attribute__((constructor)) _th_register_##name(void)	\
	{									\
		th_register(#name, name);					\
	}									\
	static void name(bool *_th_failed)

/* Integers and pointers alike are compared as intmax_t. */
#define th_val(x) ((intmax_t)(uintptr_t)(x))

static inline bool th_cmp_fail(bool ok, const char *file, int line, const char *expr,
			       intmax_t a, intmax_t b)
{
	if (!ok)
		printf("# %s:%d: %s (%jd, %#jx vs %jd, %#jx)\n", file, line, expr, a,
		       (uintmax_t)a, b, (uintmax_t)b);
	return !ok;
}

static inline bool th_str_fail(bool want_equal, const char *file, int line, const char *expr,
			       const char *a, const char *b)
{
	bool equal = a && b ? !strcmp(a, b) : a == b;

	if (equal != want_equal)
		printf("# %s:%d: %s (\"%s\" vs \"%s\")\n", file, line, expr, a ? a : "(null)",
		       b ? b : "(null)");
	return equal != want_equal;
}

#define th_cmp(a, op, b, on_fail)						\
	do {									\
		intmax_t _a = th_val(a), _b = th_val(b);			\
		if (th_cmp_fail(_a op _b, __FILE__, __LINE__, #a " " #op " " #b, _a, _b)) { \
			*_th_failed = true;					\
			on_fail;						\
		}								\
	} while (0)

#define th_str(a, eq, op, b, on_fail)						\
	do {									\
		if (th_str_fail(eq, __FILE__, __LINE__, #a " " op " " #b, (a), (b))) { \
			*_th_failed = true;					\
			on_fail;						\
		}								\
	} while (0)

#define th_bool(seen, want, on_fail)						\
	do {									\
		if ((bool)(seen) != (want)) {					\
			printf("# %s:%d: %s is %s\n", __FILE__, __LINE__, #seen,	\
			       (want) ? "false" : "true");			\
			*_th_failed = true;					\
			on_fail;						\
		}								\
	} while (0)

#define EXPECT_EQ(expected, seen)	th_cmp(expected, ==, seen, (void)0)
#define EXPECT_NE(expected, seen)	th_cmp(expected, !=, seen, (void)0)
#define EXPECT_TRUE(seen)		th_bool(seen, true, (void)0)
#define EXPECT_FALSE(seen)		th_bool(seen, false, (void)0)
#define EXPECT_STREQ(expected, seen)	th_str(expected, true, "==", seen, (void)0)
#define EXPECT_STRNE(expected, seen)	th_str(expected, false, "!=", seen, (void)0)
#define ASSERT_EQ(expected, seen)	th_cmp(expected, ==, seen, return)
#define ASSERT_NE(expected, seen)	th_cmp(expected, !=, seen, return)
#define ASSERT_TRUE(seen)		th_bool(seen, true, return)
#define ASSERT_FALSE(seen)		th_bool(seen, false, return)
#define ASSERT_STREQ(expected, seen)	th_str(expected, true, "==", seen, return)

static inline int th_main(void)
{
	unsigned int i, failures = 0;
	bool failed;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%u\n", th_count);
	for (i = 0; i < th_count; i++) {
		failed = false;
		th_tests[i].fn(&failed);
		printf("%sok %u %s\n", failed ? "not " : "", i + 1, th_tests[i].name);
		failures += failed;
	}
	printf("# %u of %u tests passed\n", th_count - failures, th_count);
	return failures ? 1 : 0;
}

#define TEST_HARNESS_MAIN							\
	int main(void)								\
	{									\
		return th_main();						\
	}

#endif
