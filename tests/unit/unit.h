/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal TAP harness for the C unit tests: CHECK() prints one TAP line
 * per assertion, unit_done() prints the plan and returns non-zero on any
 * failure, so a failing test can never exit 0.
 */
#ifndef SCHEDREPLAY_UNIT_H
#define SCHEDREPLAY_UNIT_H

#include <stdio.h>

static int unit_n, unit_failed;

#define CHECK(cond, ...)						\
	do {								\
		unit_n++;						\
		if (cond) {						\
			printf("ok %d - ", unit_n);			\
		} else {						\
			unit_failed++;					\
			printf("not ok %d - ", unit_n);			\
		}							\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		if (!(cond))						\
			printf("#   failed: %s (%s:%d)\n", #cond,	\
			       __FILE__, __LINE__);			\
	} while (0)

#define CHECK_EQ(a, b, ...)						\
	do {								\
		long long _a = (long long)(a), _b = (long long)(b);	\
		CHECK(_a == _b, __VA_ARGS__);				\
		if (_a != _b)						\
			printf("#   got %lld, expected %lld\n", _a, _b);	\
	} while (0)

static inline int unit_done(void)
{
	printf("1..%d\n", unit_n);
	return unit_failed ? 1 : 0;
}

#endif
