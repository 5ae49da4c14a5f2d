/* SPDX-License-Identifier: Apache-2.0 */
/* The clock and the median every bench in bench/ reports with (their
 * random fabrics come from tests/unit/xorshift.h, shared with the tests). */
#ifndef RM_BENCH_CLOCK_H
#define RM_BENCH_CLOCK_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Milliseconds on clock c. */
static inline double clock_ms(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time by default: on a shared machine wall time mostly measures the
 * neighbours. BENCH_WALL=1 switches to the wall clock. */
static inline double now_ms(void)
{
	return clock_ms(getenv("BENCH_WALL") ? CLOCK_MONOTONIC
					     : CLOCK_PROCESS_CPUTIME_ID);
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of n runs; sorts v. */
static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* "median (min-max)" of n runs with prec decimals, into buf; sorts v.
 * Every figure make bench prints is one of these, so that one slow or
 * lucky run cannot pass for the typical one. */
static inline const char *mmm(char *buf, size_t len, double *v, int n,
			      int prec)
{
	double med = median(v, n);
	snprintf(buf, len, "%.*f (%.*f-%.*f)", prec, med, prec, v[0], prec,
		 v[n - 1]);
	return buf;
}

/* Keeps the compiler from dropping work whose result is only p's
 * memory (a copy made to be timed, then freed). */
static inline void keep(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}
#endif
