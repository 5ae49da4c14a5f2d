/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hostlist_format.c - natural host order and compressing a list of names
 * back into a Slurm hostlist expression.
 */
#include "util/util.h"
#include "util/hostname.h"

#include <stdlib.h>
#include <string.h>

int rm_host_cmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a;
	const unsigned char *q = (const unsigned char *)b;
	while (*p && *q) {
		if (isdigit(*p) && isdigit(*q)) {
			while (*p == '0' && isdigit(p[1]))
				p++;
			while (*q == '0' && isdigit(q[1]))
				q++;
			size_t lp = 0, lq = 0;
			while (isdigit(p[lp]))
				lp++;
			while (isdigit(q[lq]))
				lq++;
			if (lp != lq)
				return lp < lq ? -1 : 1;
			int c = memcmp(p, q, lp);
			if (c)
				return c < 0 ? -1 : 1;
			p += lp;
			q += lq;
			continue;
		}
		if (*p != *q)
			return *p < *q ? -1 : 1;
		p++;
		q++;
	}
	if (*p || *q)
		return *p ? 1 : -1;
	int c = strcmp(a, b);
	return c < 0 ? -1 : c > 0;
}

int rmi_named_cmp(const void *a, const void *b)
{
	const rmi_named *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : RMI_CMP(x->ix, y->ix);
}

int rmi_named_host_cmp(const void *a, const void *b)
{
	const rmi_named *x = a, *y = b;
	int c = rm_host_cmp(x->name ? x->name : "", y->name ? y->name : "");
	return c ? c : RMI_CMP(x->ix, y->ix);
}

/* ---- compressing names back into an expression ---- */

struct fname {
	const char *s;
	size_t len;
	size_t ds, de;               /* the last digit run, [ds, de); ds == de: none */
	uint64_t v;
	size_t idx;                  /* position in the input, for stable ties */
};

static int fname_cmp(const void *pa, const void *pb)
{
	const struct fname *a = pa, *b = pb;
	/* Same prefix and suffix first, so every range is one contiguous run. */
	int c = rmi_bytes_cmp(a->s, a->ds, b->s, b->ds);
	if (c || (c = RMI_CMP(a->de > a->ds, b->de > b->ds)))
		return c;
	c = rmi_bytes_cmp(a->s + a->de, a->len - a->de, b->s + b->de,
			  b->len - b->de);
	if (c || (c = RMI_CMP(a->v, b->v)) ||
	    (c = RMI_CMP(a->de - a->ds, b->de - b->ds)))
		return c;
	return RMI_CMP(a->idx, b->idx);
}

static bool same_group(const struct fname *a, const struct fname *b)
{
	return a->ds == b->ds && a->de > a->ds && b->de > b->ds &&
	       memcmp(a->s, b->s, a->ds) == 0 &&
	       a->len - a->de == b->len - b->de &&
	       memcmp(a->s + a->de, b->s + b->de, a->len - a->de) == 0;
}

struct group {
	size_t first, n;             /* run in the sorted names */
	const char *name;            /* its first name, for the output order */
};

static int group_cmp(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	int c = rm_host_cmp(a->name, b->name);
	return c ? c : RMI_CMP(a->first, b->first);
}

/* Whether `f` prints as itself inside a range whose lower bound has
 * `width` digits: Slurm pads every value to the lower bound's width. */
static bool fits_width(const struct fname *f, unsigned width)
{
	unsigned d = rmi_ndigits(f->v);
	return f->de - f->ds == (width > d ? width : d);
}

static void emit_group(rm_buf *b, const struct fname *f, size_t n)
{
	if (n == 1 || f[0].de == f[0].ds) {
		for (size_t i = 0; i < n; i++) {
			if (i)
				rm_buf_add(b, ",", 1);
			rm_buf_add(b, f[i].s, f[i].len);
		}
		return;
	}
	rm_buf_add(b, f[0].s, f[0].ds);
	rm_buf_add(b, "[", 1);
	for (size_t i = 0; i < n;) {
		unsigned w = (unsigned)(f[i].de - f[i].ds);
		size_t j = i + 1;
		while (j < n && f[j].v == f[j - 1].v + 1 && fits_width(&f[j], w))
			j++;
		if (i)
			rm_buf_add(b, ",", 1);
		rm_buf_add(b, f[i].s + f[i].ds, w);
		if (j - i > 1) {
			char num[24];
			rm_buf_add(b, "-", 1);
			size_t o = rmi_put_num(num, f[j - 1].v, w);
			rm_buf_add(b, num, o);
		}
		i = j;
	}
	rm_buf_add(b, "]", 1);
	rm_buf_add(b, f[0].s + f[0].de, f[0].len - f[0].de);
}

static rm_status check_name(const char *s, size_t i, size_t *len,
			    rm_error *err)
{
	char q[96];
	if (!s)
		return rmi_err(err, RM_EINPUT, "host %zu: no name", i + 1);
	size_t n = strnlen(s, RM_MAX_HOSTNAME + 1);
	if (n == 0)
		return rmi_err(err, RM_EINPUT, "host %zu: empty name", i + 1);
	if (n > RM_MAX_HOSTNAME)
		return rmi_err(err, RM_EINPUT,
			       "host %zu: name %s longer than %d bytes", i + 1,
			       rm_quote(s, n, q, sizeof(q)), RM_MAX_HOSTNAME);
	for (size_t k = 0; k < n; k++)
		if (!rmi_host_char((unsigned char)s[k]))
			return rmi_err(err, RM_EINPUT,
				       "host %zu: name %s has a character not allowed in a host name",
				       i + 1, rm_quote(s, n, q, sizeof(q)));
	*len = n;
	return RM_OK;
}

rm_status rm_hostlist_format(const char *const *host, size_t n, char **out,
			     rm_error *err)
{
	if (!out)
		return rmi_err(err, RM_EINPUT, "hostlist: no output given");
	*out = NULL;
	if (n && !host)
		return rmi_err(err, RM_EINPUT, "hostlist: no names given");
	if (n > RM_MAX_HOSTS)
		return rmi_err(err, RM_EINPUT,
			       "hostlist: %zu names, more than the limit of %u",
			       n, RM_MAX_HOSTS);
	if (n == 0) {
		*out = strdup("");
		return *out ? RM_OK : rmi_err(err, RM_ENOMEM, "out of memory");
	}
	struct fname *f = calloc(n + 1, sizeof(*f));
	struct group *g = calloc(n + 1, sizeof(*g));
	if (!f || !g) {
		free(f);
		free(g);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;
		rm_status st = check_name(host[i], i, &len, err);
		if (st) {
			free(f);
			free(g);
			return st;
		}
		struct fname *x = &f[i];
		x->s = host[i];
		x->len = len;
		x->idx = i;
		size_t de = len;
		while (de && !isdigit((unsigned char)x->s[de - 1]))
			de--;
		size_t ds = de;
		while (ds && isdigit((unsigned char)x->s[ds - 1]))
			ds--;
		if (de > ds && de - ds <= RMI_HOST_MAX_DIGITS) {
			x->ds = ds;
			x->de = de;
			for (size_t k = ds; k < de; k++)
				x->v = x->v * 10 + (uint64_t)(x->s[k] - '0');
		} else {
			/* No usable number: the whole name is the key. */
			x->ds = x->de = len;
		}
	}
	qsort(f, n, sizeof(*f), fname_cmp);
	size_t ng = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && same_group(&f[i], &f[j]))
			j++;
		g[ng].first = i;
		g[ng].name = f[i].s;
		g[ng++].n = j - i;
		i = j;
	}
	qsort(g, ng, sizeof(*g), group_cmp);
	rm_buf b;
	rm_buf_init(&b);
	for (size_t i = 0; i < ng; i++) {
		if (i)
			rm_buf_add(&b, ",", 1);
		emit_group(&b, f + g[i].first, g[i].n);
	}
	free(f);
	free(g);
	if (b.oom) {
		rm_buf_clear(&b);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	*out = rm_buf_take(&b, NULL);
	return *out ? RM_OK : rmi_err(err, RM_ENOMEM, "out of memory");
}
