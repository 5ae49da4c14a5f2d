/*
 * test.h - the smallest test harness that does the job: checks print where
 * they failed, each case ends with "PASS: suite/case" or "FAIL: suite/case",
 * and tests/run.sh counts those lines.
 */
#ifndef RM_TEST_H
#define RM_TEST_H

#include <stdio.h>
#include <string.h>

static int t_bad, t_total_bad;

#define CHECK(c)                                                           \
	do {                                                               \
		if (!(c)) {                                                \
			t_bad++;                                           \
			printf("  %s:%d: check failed: %s\n", __FILE__,    \
			       __LINE__, #c);                              \
		}                                                          \
	} while (0)

#define CHECK_INT(a, b)                                                    \
	do {                                                               \
		long long t_a = (long long)(a), t_b = (long long)(b);      \
		if (t_a != t_b) {                                          \
			t_bad++;                                           \
			printf("  %s:%d: %s == %lld, expected %lld\n",     \
			       __FILE__, __LINE__, #a, t_a, t_b);          \
		}                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                    \
	do {                                                               \
		const char *t_a = (a), *t_b = (b);                         \
		if (!t_a || !t_b || strcmp(t_a, t_b) != 0) {               \
			t_bad++;                                           \
			printf("  %s:%d: %s == \"%s\", expected \"%s\"\n", \
			       __FILE__, __LINE__, #a, t_a ? t_a : "(null)", \
			       t_b ? t_b : "(null)");                      \
		}                                                          \
	} while (0)

/* The message must mention `needle` (file:line:col, the bad value ...). */
#define CHECK_HAS(hay, needle)                                             \
	do {                                                               \
		const char *t_h = (hay), *t_n = (needle);                  \
		if (!t_h || !strstr(t_h, t_n)) {                           \
			t_bad++;                                           \
			printf("  %s:%d: \"%s\" does not contain \"%s\"\n", \
			       __FILE__, __LINE__, t_h ? t_h : "(null)",    \
			       t_n);                                       \
		}                                                          \
	} while (0)

#define RUN(suite, fn)                                                     \
	do {                                                               \
		t_bad = 0;                                                 \
		fn();                                                      \
		printf("%s: %s/%s\n", t_bad ? "FAIL" : "PASS", suite, #fn); \
		fflush(stdout);                                            \
		t_total_bad += t_bad;                                      \
	} while (0)

#define TEST_EXIT() return t_total_bad ? 1 : 0

#endif
