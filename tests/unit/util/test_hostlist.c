/* SPDX-License-Identifier: Apache-2.0 */
/* test_hostlist.c - Slurm hostlist expressions, both ways. */
#include "internal.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>

static rm_hostlist H;
static rm_error E;

static rm_status parse(const char *s)
{
	rm_hostlist_clear(&H);
	memset(&E, 0, sizeof(E));
	return rm_hostlist_parse(s, &H, &E);
}

/* The expansion joined with spaces, for compact expectations. */
static const char *joined(void)
{
	static char buf[4096];
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < H.n && o < sizeof(buf) - 300; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s",
				      i ? " " : "", H.host[i]);
	return buf;
}

/* A list too long to spell out: its length and one host of it. */
static void expands_to(const char *in, size_t n, size_t at, const char *host)
{
	CHECK_INT(parse(in), RM_OK);
	CHECK_INT(H.n, n);
	CHECK_STR(H.n > at ? H.host[at] : "(too few)", host);
}

static void simple(void)
{
	expands_to("gpu[0001-2048]", 2048, 2047, "gpu2048");
	CHECK_STR(H.host[998], "gpu0999");
	static const t_give expands[] = {
		{ "node1", "node1" },
		{ "a[1,3,5-9],b7", "a1 a3 a5 a6 a7 a8 a9 b7" },
		{ "gpu[0001-0003]", "gpu0001 gpu0002 gpu0003" },
		/* suffix after the bracket, blanks as separators, duplicates kept */
		{ " n[1-2]-ib , x.y_z  n1-ib ", "n1-ib n2-ib x.y_z n1-ib" },
		{ "[7-8]", "7 8" },
	};
	CHECK_GIVES(parse, RM_OK, joined(), expands);
}

static void cartesian(void)
{
	/* leftmost bracket varies slowest, like Slurm */
	static const t_give expands[] = {
		{ "r[0-1]n[00-02]", "r0n00 r0n01 r0n02 r1n00 r1n01 r1n02" },
		{ "a[1,3]b[5,7-8]c", "a1b5c a1b7c a1b8c a3b5c a3b7c a3b8c" },
	};
	CHECK_GIVES(parse, RM_OK, joined(), expands);
	expands_to("r[0-3]n[00-15]", 64, 17, "r1n01");
	CHECK_INT(parse("a[1,3]b[x]"), RM_EINPUT);
}

static void widths(void)
{
	/* the lower bound's width pads every value of the range */
	static const t_give expands[] = {
		{ "n[8-10]", "n8 n9 n10" },
		{ "n[08-10]", "n08 n09 n10" },
		{ "n[008-10]", "n008 n009 n010" },
		{ "n[7,007]", "n7 n007" },
	};
	CHECK_GIVES(parse, RM_OK, joined(), expands);
	expands_to("n[1-010]", 10, 9, "n10");
}

static void bad(void)
{
	static const t_say refused[] = {
		{ "a[1-3",
		  { "column 2", "unbalanced '['" } },
		{ "a1-3]",
		  { "column 5", "unbalanced ']'" } },
		{ "a[]",
		  { "column 3", "empty range" } },
		{ "a[1,]",
		  { "empty range" } },
		{ "a[9-5]",
		  { "column 3", "reversed range '9-5'" } },
		{ "a[1-x]",
		  { "column 5", "non-digit in range '1-x'" } },
		{ "a[1a]",
		  { "'1a'" } },
		{ "a[[1]]",
		  { "nested" } },
		{ "a,,b",
		  { "column 3", "empty element" } },
		{ ",a",
		  { "column 1" } },
		{ "a,",
		  { "column 2" } },
		{ "",
		  { "empty hostlist" } },
		{ "  ",
		  { NULL } },
		{ "node/1",
		  { "column 5", "'/'" } },
		{ "a\x7f",
		  { "\\x7f" } },
		{ "a[1-10:2]",
		  { NULL } },
		{ "a[1234567890123456789]",
		  { "too long" } },
	};
	CHECK_SAYS(parse, RM_EINPUT, E.msg, refused);
	CHECK_INT(rm_hostlist_parse(NULL, &H, &E), RM_EINPUT);
	CHECK_INT(H.n, 0);


	char name[300];
	memset(name, 'h', 256);
	name[256] = '\0';
	CHECK_INT(parse(name), RM_EINPUT);
	CHECK_HAS(E.msg, "longer than 255");
	memset(name, 'h', 250);
	strcpy(name + 250, "[1-100000]");
	CHECK_INT(parse(name), RM_EINPUT);
	CHECK_HAS(E.msg, "longer than 255");
	memset(name, 'h', 250);
	strcpy(name + 250, "[1-9]");
	CHECK_INT(parse(name), RM_OK);
}

/* A few bytes must not be able to ask for gigabytes. */
static void bombs(void)
{
	CHECK_INT(parse("a[0-99999999999]"), RM_EINPUT);
	CHECK_HAS(E.msg, "more than 1048576");
	CHECK_INT(parse("a[0-9999]b[0-9999]"), RM_EINPUT);
	CHECK_HAS(E.msg, "more than 1048576");
	CHECK_INT(parse("a[0-999]b[0-999]c[0-999]d[0-999]e[0-999]"),
		  RM_EINPUT);
	CHECK_INT(parse("a[0-999999],b[0-999999]"), RM_EINPUT);
	CHECK_HAS(E.msg, "more than 1048576");
	CHECK_INT(parse("a[0-524287],b[0-524287]"), RM_OK);
	CHECK_INT(H.n, 1048576);
	CHECK_INT(parse("a[0-524287],b[0-524288]"), RM_EINPUT);
	/* A million long names (240 bytes each) is refused before anything
	 * is expanded; 64 MiB of names is the limit. */
	char longname[300];
	memset(longname, 'x', 240);
	strcpy(longname + 240, "[0000000-1048575]");
	CHECK_INT(parse(longname), RM_EINPUT);
	CHECK_HAS(E.msg, "1048576 hosts of up to 247 bytes, more than the "
			 "64 MiB of names allowed");
	CHECK_INT(H.n, 0);
	/* 300,000 names of 254 bytes are over it, 100,000 well under */
	memset(longname, 'x', 248);
	strcpy(longname + 248, "[000000-299999]");
	CHECK_INT(parse(longname), RM_EINPUT);
	strcpy(longname + 248, "[00000-99999]");
	CHECK_INT(parse(longname), RM_OK);
	CHECK_INT(H.n, 100000);
}

static void natural(void)
{
	CHECK(rm_host_cmp("n2", "n10") < 0);
	CHECK(rm_host_cmp("n10", "n2") > 0);
	CHECK(rm_host_cmp("n02", "n10") < 0);
	CHECK(rm_host_cmp("n2", "n02") != 0);
	CHECK(rm_host_cmp("n02", "n02") == 0);
	CHECK(rm_host_cmp("n", "n1") < 0);
	CHECK(rm_host_cmp("a9b", "a10a") < 0);
	CHECK(rm_host_cmp("r1n10", "r2n1") < 0);
	CHECK(rm_host_cmp("r1n10", "r1n9") > 0);
	CHECK(rm_host_cmp("ab", "b") < 0);
	CHECK(rm_host_cmp("n00000000000000000000000009",
			  "n10") < 0);
	/* antisymmetric on a tie broken by strcmp */
	CHECK(rm_host_cmp("n2", "n02") == -rm_host_cmp("n02", "n2"));
}

static char *format_list(const char *const *names, size_t n)
{
	char *out = NULL;
	rm_status st = rm_hostlist_format(names, n, &out, &E);
	CHECK_INT(st, RM_OK);
	return out;
}

static void format(void)
{
	const char *a[] = { "n3", "n1", "n2", "n10", "m5" };
	char *s = format_list(a, 5);
	CHECK_STR(s, "m5,n[1-3,10]");
	free(s);
	const char *b[] = { "n08", "n09", "n10", "n8" };
	s = format_list(b, 4);
	CHECK_STR(s, "n[8,08-10]");
	free(s);
	const char *c[] = { "r0n1", "r0n2", "r1n1", "login", "n1-ib", "n2-ib" };
	s = format_list(c, 6);
	CHECK_STR(s, "login,n[1-2]-ib,r0n[1-2],r1n1");
	free(s);
	const char *d[] = { "x1", "x1", "x2" };
	s = format_list(d, 3);
	CHECK_STR(s, "x[1,1-2]");
	free(s);
	s = format_list(NULL, 0);
	CHECK_STR(s, "");
	free(s);
	const char *bad1[] = { "ok", "a,b" };
	CHECK_INT(rm_hostlist_format(bad1, 2, &s, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "host 2");
	CHECK_HAS(E.msg, "'a,b'");
	CHECK(s == NULL);
	const char *bad2[] = { "" };
	CHECK_INT(rm_hostlist_format(bad2, 1, &s, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "empty");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* parse(format(x)) is x as a multiset, on lists shaped like real ones. */
static void round_trip(void)
{
	const char *exprs[] = {
		"gpu[0001-2048]",
		"r[0-3]n[00-15],login[1-2],x",
		"a[1,3,5-9],b7,a3,n[8-12],n[08-12],c[98-102]",
		"h[1-5]x,h[1-5]y,h7,h07,h007,h0",
		"node[000-999]-ib,zz[5-1000]",
	};
	for (size_t k = 0; k < sizeof(exprs) / sizeof(exprs[0]); k++) {
		CHECK_INT(parse(exprs[k]), RM_OK);
		size_t n = H.n;
		char **orig = malloc(n * sizeof(*orig));
		memcpy(orig, H.host, n * sizeof(*orig));
		char *s = format_list((const char *const *)H.host, n);
		rm_hostlist back = { 0 };
		CHECK_INT(rm_hostlist_parse(s ? s : "", &back, &E), RM_OK);
		CHECK_INT(back.n, n);
		if (back.n == n) {
			qsort(orig, n, sizeof(*orig), cmp_str);
			qsort(back.host, n, sizeof(*back.host), cmp_str);
			for (size_t i = 0; i < n; i++)
				CHECK_STR(back.host[i], orig[i]);
		}
		rm_hostlist_clear(&back);
		free(orig);
		free(s);
	}
	/* a compressed input comes back as itself */
	CHECK_INT(parse("gpu[0001-2048]"), RM_OK);
	char *s = format_list((const char *const *)H.host, H.n);
	CHECK_STR(s, "gpu[0001-2048]");
	free(s);
	CHECK_INT(parse("r[0-1]n[00-15]"), RM_OK);
	s = format_list((const char *const *)H.host, H.n);
	CHECK_STR(s, "r0n[00-15],r1n[00-15]");
	free(s);
}

int main(void)
{
	RUN("hostlist", simple);
	RUN("hostlist", cartesian);
	RUN("hostlist", widths);
	RUN("hostlist", bad);
	RUN("hostlist", bombs);
	RUN("hostlist", natural);
	RUN("hostlist", format);
	RUN("hostlist", round_trip);
	rm_hostlist_clear(&H);
	TEST_EXIT();
}
