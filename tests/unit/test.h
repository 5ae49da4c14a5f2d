/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test.h - the smallest test harness that does the job: checks print where
 * they failed, each case ends with "PASS: suite/case" or "FAIL: suite/case",
 * and tests/run.sh counts those lines.
 */
#ifndef RM_TEST_H
#define RM_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * Table-driven cases: each row's call(in) must return `want`, and then its
 * outcome must be what the row says. The CHECK lines all point into the
 * macros below, so a row that fails is also named by its input.
 */
#define T_CASES(rows, row_type, call, want, then)                          \
	do {                                                               \
		for (size_t t_i = 0; t_i < sizeof(rows) / sizeof((rows)[0]); \
		     t_i++) {                                              \
			const row_type *t_c = &(rows)[t_i];                \
			int t_before = t_bad;                              \
			CHECK_INT(call(t_c->in), want);                    \
			then;                                              \
			if (t_bad != t_before)                             \
				printf("    (the case \"%s\")\n", t_c->in); \
		}                                                          \
	} while (0)

/* An input and what its outcome must be (a parse and its canonical form). */
typedef struct {
	const char *in, *out;
} t_give;

/* Each row: call(in) returns `want` and then `got` is the row's out. */
#define CHECK_GIVES(call, want, got, rows)                                 \
	T_CASES(rows, t_give, call, want, CHECK_STR(got, t_c->out))

/* An input and up to four things its message must name (where, the bad
 * value ...). */
typedef struct {
	const char *in;
	const char *says[4];
} t_say;

static inline void t_says(const char *msg, const char *const says[4])
{
	for (int k = 0; k < 4 && says[k]; k++)
		CHECK_HAS(msg, says[k]);
}

/* Each row: call(in) returns `want` and then `msg` names all its says. */
#define CHECK_SAYS(call, want, msg, rows)                                  \
	T_CASES(rows, t_say, call, want, t_says(msg, t_c->says))

/* A fresh directory for a test's files: `prefix` and mkdtemp's six
 * random characters, into dir. false when it cannot be made. */
static inline bool t_tmpdir(char *dir, size_t size, const char *prefix)
{
	snprintf(dir, size, "%sXXXXXX", prefix);
	return mkdtemp(dir) != NULL;
}

/* Runs `call` as the case suite/name: PASS when no check in it failed. */
#define RUN_CALL(suite, name, call)                                        \
	do {                                                               \
		t_bad = 0;                                                 \
		call;                                                      \
		printf("%s: %s/%s\n", t_bad ? "FAIL" : "PASS", suite, name); \
		fflush(stdout);                                            \
		t_total_bad += t_bad;                                      \
	} while (0)

#define RUN(suite, fn) RUN_CALL(suite, #fn, fn())

#define TEST_EXIT() return t_total_bad ? 1 : 0

#endif
