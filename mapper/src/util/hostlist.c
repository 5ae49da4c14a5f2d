/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hostlist.c - Slurm hostlist expressions: parse ("r[0-3]n[00-15]") and
 * expand, with the size of the expansion known before anything is
 * allocated for it.
 */
#include "util/util.h"
#include "util/hostname.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct range {
	uint64_t lo, hi;
	unsigned width;              /* digits of the lower bound as written */
};

struct part {
	const char *lit;             /* literal text, or NULL for a group */
	size_t litlen;
	size_t r0, nr;               /* group: ranges[r0 .. r0+nr) */
	uint64_t count;              /* group: values it yields */
};

struct elem {
	size_t p0, np;
	uint64_t count;
};

struct plan {
	struct range *r;
	size_t nr, capr;
	struct part *p;
	size_t np, capp;
	struct elem *e;
	size_t ne, cape;
	uint64_t total;
	uint64_t bytes;              /* bound on the expanded names */
};

/* A hostlist is refused before expansion when its names would take more
 * than this (1,048,576 hosts of 63 bytes): a one-line list of long names
 * must not cost seconds and gigabytes to turn away. */
#define MAX_NAME_BYTES ((uint64_t)64 << 20)

static void plan_free(struct plan *pl)
{
	free(pl->r);
	free(pl->p);
	free(pl->e);
}

/* Error body and column; the callers add where the expression came from. */
static rm_status bad(rm_error *err, size_t *col, size_t at, const char *what,
		     const char *s, size_t len)
{
	char q[96];
	*col = at + 1;
	if (s)
		return rmi_err(err, RM_EINPUT, "%s %s", what,
			       rm_quote(s, len, q, sizeof(q)));
	return rmi_err(err, RM_EINPUT, "%s", what);
}

/* A decimal at x[*i]; `item` is where the range item began, for quoting. */
static rm_status read_num(const char *x, size_t end, size_t *i, size_t item,
			  uint64_t *v, unsigned *width, rm_error *err,
			  size_t *col)
{
	size_t s = *i;
	while (*i < end && isdigit((unsigned char)x[*i]))
		(*i)++;
	size_t n = *i - s;
	if (n == 0) {
		size_t stop = *i;
		while (stop < end && x[stop] != ',' && x[stop] != ']')
			stop++;
		if (*i < end && x[*i] != ',' && x[*i] != ']' && x[*i] != '-')
			return bad(err, col, *i, "non-digit in range",
				   x + item, stop - item);
		return bad(err, col, s, "empty range in brackets", NULL, 0);
	}
	if (n > RMI_HOST_MAX_DIGITS)
		return bad(err, col, s, "number too long in range", x + s, n);
	uint64_t acc = 0;
	for (size_t k = s; k < *i; k++)
		acc = acc * 10 + (uint64_t)(x[k] - '0');
	*v = acc;
	*width = (unsigned)n;
	return RM_OK;
}

/* "[1,3,5-9]" starting at x[*i] == '['; leaves *i after the ']'. */
static rm_status parse_group(const char *x, size_t len, size_t *i,
			     struct plan *pl, struct part *pt, rm_error *err,
			     size_t *col)
{
	size_t open = *i;
	size_t end = open + 1;
	while (end < len && x[end] != ']') {
		if (x[end] == '[')
			return bad(err, col, end, "nested '[' inside brackets",
				   NULL, 0);
		end++;
	}
	if (end >= len)
		return bad(err, col, open, "unbalanced '[': no matching ']' for",
			   x + open, len - open);
	pt->lit = NULL;
	pt->r0 = pl->nr;
	pt->nr = 0;
	pt->count = 0;
	size_t k = open + 1;
	for (;;) {
		struct range r;
		size_t s = k;
		rm_status st = read_num(x, end, &k, s, &r.lo, &r.width, err, col);
		if (st)
			return st;
		r.hi = r.lo;
		if (k < end && x[k] == '-') {
			k++;
			unsigned w2;
			st = read_num(x, end, &k, s, &r.hi, &w2, err, col);
			if (st)
				return st;
			if (r.hi < r.lo)
				return bad(err, col, s, "reversed range",
					   x + s, k - s);
		}
		if (k < end && x[k] != ',') {
			size_t stop = k;
			while (stop < end && x[stop] != ',')
				stop++;
			return bad(err, col, k, "non-digit in range", x + s,
				   stop - s);
		}
		uint64_t c = r.hi - r.lo + 1;
		if (c > RM_MAX_HOSTS || pt->count + c > RM_MAX_HOSTS)
			return bad(err, col, s,
				   "range expands to more than 1048576 hosts:",
				   x + s, k - s);
		pt->count += c;
		if (!rmi_grow((void **)&pl->r, &pl->capr, pl->nr + 1,
			      sizeof(*pl->r)))
			return rmi_err(err, RM_ENOMEM, "out of memory");
		pl->r[pl->nr++] = r;
		pt->nr++;
		if (k >= end)
			break;
		k++; /* ',' */
		if (k >= end)
			return bad(err, col, k, "empty range in brackets",
				   NULL, 0);
	}
	*i = end + 1;
	return RM_OK;
}

/* One element "r[0-3]n[00-15]-ib" spanning x[s .. e). */
static rm_status parse_elem(const char *x, size_t s, size_t e,
			    struct plan *pl, rm_error *err, size_t *col)
{
	struct elem el = { pl->np, 0, 1 };
	size_t maxlen = 0;
	size_t i = s;
	while (i < e) {
		struct part pt;
		if (!rmi_grow((void **)&pl->p, &pl->capp, pl->np + 1,
			      sizeof(*pl->p)))
			return rmi_err(err, RM_ENOMEM, "out of memory");
		if (x[i] == '[') {
			rm_status st = parse_group(x, e, &i, pl, &pt, err, col);
			if (st)
				return st;
			unsigned w = 0;
			for (size_t r = pt.r0; r < pt.r0 + pt.nr; r++) {
				unsigned d = rmi_ndigits(pl->r[r].hi);
				if (pl->r[r].width > d)
					d = pl->r[r].width;
				if (d > w)
					w = d;
			}
			maxlen += w;
			if (el.count * pt.count > RM_MAX_HOSTS)
				return bad(err, col, s,
					   "expands to more than 1048576 hosts:",
					   x + s, e - s);
			el.count *= pt.count;
		} else if (x[i] == ']') {
			return bad(err, col, i, "unbalanced ']'", NULL, 0);
		} else {
			size_t b = i;
			while (i < e && x[i] != '[' && x[i] != ']') {
				if (!rmi_host_char((unsigned char)x[i]))
					return bad(err, col, i,
						   "character not allowed in a host name:",
						   x + i, 1);
				i++;
			}
			pt.lit = x + b;
			pt.litlen = i - b;
			pt.r0 = pt.nr = 0;
			pt.count = 1;
			maxlen += pt.litlen;
		}
		pl->p[pl->np++] = pt;
		el.np++;
		if (maxlen > RM_MAX_HOSTNAME)
			return bad(err, col, s,
				   "host name longer than 255 bytes in",
				   x + s, e - s);
	}
	pl->total += el.count;
	if (pl->total > RM_MAX_HOSTS)
		return bad(err, col, s,
			   "hostlist expands to more than 1048576 hosts at",
			   x + s, e - s);
	pl->bytes += el.count * (maxlen + 1);
	if (pl->bytes > MAX_NAME_BYTES) {
		char what[160];
		snprintf(what, sizeof(what),
			 "hostlist expands to %llu hosts of up to %zu bytes, "
			 "more than the 64 MiB of names allowed, at",
			 (unsigned long long)pl->total, maxlen);
		return bad(err, col, s, what, x + s, e - s);
	}
	if (!rmi_grow((void **)&pl->e, &pl->cape, pl->ne + 1, sizeof(*pl->e)))
		return rmi_err(err, RM_ENOMEM, "out of memory");
	pl->e[pl->ne++] = el;
	return RM_OK;
}

/* Elements are separated by commas outside brackets or by blanks. */
static rm_status plan_parse(const char *x, size_t len, struct plan *pl,
			    rm_error *err, size_t *col)
{
	size_t i = 0, comma = 0;
	bool after_comma = false;
	for (;;) {
		while (i < len && isspace((unsigned char)x[i]))
			i++;
		if (i >= len) {
			if (after_comma)
				return bad(err, col, comma,
					   "empty element after the last ','",
					   NULL, 0);
			break;
		}
		if (x[i] == ',')
			return bad(err, col, i, "empty element before ','",
				   NULL, 0);
		size_t s = i;
		int depth = 0;
		while (i < len) {
			char c = x[i];
			if (c == '[')
				depth = 1;
			else if (c == ']')
				depth = 0;
			else if (!depth && (c == ',' || isspace((unsigned char)c)))
				break;
			i++;
		}
		rm_status st = parse_elem(x, s, i, pl, err, col);
		if (st)
			return st;
		while (i < len && isspace((unsigned char)x[i]))
			i++;
		after_comma = false;
		if (i < len && x[i] == ',') {
			after_comma = true;
			comma = i++;
		}
	}
	if (pl->total == 0)
		return bad(err, col, 0, "empty hostlist", NULL, 0);
	return RM_OK;
}

static rm_status expand(const struct plan *pl, rm_hostlist *out,
			rm_error *err)
{
	char **host = calloc((size_t)pl->total, sizeof(*host));
	if (!host)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	size_t n = 0;
	/* Odometer per group part: current range and value. */
	size_t *ri = NULL;
	uint64_t *val = NULL;
	size_t maxparts = 0;
	for (size_t e = 0; e < pl->ne; e++)
		if (pl->e[e].np > maxparts)
			maxparts = pl->e[e].np;
	ri = calloc(maxparts + 1, sizeof(*ri));
	val = calloc(maxparts + 1, sizeof(*val));
	if (!ri || !val)
		goto oom;
	for (size_t e = 0; e < pl->ne; e++) {
		const struct elem *el = &pl->e[e];
		const struct part *p = pl->p + el->p0;
		for (size_t k = 0; k < el->np; k++) {
			ri[k] = p[k].r0;
			val[k] = p[k].lit ? 0 : pl->r[p[k].r0].lo;
		}
		for (uint64_t c = 0; c < el->count; c++) {
			char name[RM_MAX_HOSTNAME + 24];
			size_t o = 0;
			for (size_t k = 0; k < el->np; k++) {
				if (p[k].lit) {
					memcpy(name + o, p[k].lit, p[k].litlen);
					o += p[k].litlen;
				} else {
					o += rmi_put_num(name + o, val[k],
						     pl->r[ri[k]].width);
				}
			}
			name[o] = '\0';
			host[n] = malloc(o + 1);
			if (!host[n])
				goto oom;
			memcpy(host[n++], name, o + 1);
			/* Rightmost group varies fastest, as in Slurm. */
			for (size_t k = el->np; k-- > 0;) {
				if (p[k].lit)
					continue;
				if (val[k] < pl->r[ri[k]].hi) {
					val[k]++;
					break;
				}
				if (ri[k] + 1 < p[k].r0 + p[k].nr) {
					ri[k]++;
					val[k] = pl->r[ri[k]].lo;
					break;
				}
				ri[k] = p[k].r0;
				val[k] = pl->r[ri[k]].lo;
			}
		}
	}
	free(ri);
	free(val);
	out->host = host;
	out->n = n;
	return RM_OK;
oom:
	free(ri);
	free(val);
	for (size_t k = 0; k < n; k++)
		free(host[k]);
	free(host);
	return rmi_err(err, RM_ENOMEM, "out of memory expanding a hostlist");
}

rm_status rmi_hostlist_parse_n(const char *expr, size_t len, rm_hostlist *out,
			       size_t *col, rm_error *err)
{
	size_t dummy;
	if (!col)
		col = &dummy;
	*col = 0;
	out->host = NULL;
	out->n = 0;
	struct plan pl;
	memset(&pl, 0, sizeof(pl));
	rm_status st = plan_parse(expr, len, &pl, err, col);
	if (!st)
		st = expand(&pl, out, err);
	plan_free(&pl);
	return st;
}

rm_status rm_hostlist_parse(const char *expr, rm_hostlist *out, rm_error *err)
{
	if (!out)
		return rmi_err(err, RM_EINPUT, "hostlist: no output given");
	out->host = NULL;
	out->n = 0;
	if (!expr)
		return rmi_err(err, RM_EINPUT, "hostlist: none given");
	size_t len = strlen(expr), col = 0;
	rm_error e;
	rm_status st = rmi_hostlist_parse_n(expr, len, out, &col, &e);
	if (st) {
		char q[96];
		if (col)
			return rmi_err(err, st, "hostlist %s, column %zu: %s",
				       rm_quote(expr, len, q, sizeof(q)), col,
				       e.msg);
		return rmi_err(err, st, "hostlist %s: %s",
			       rm_quote(expr, len, q, sizeof(q)), e.msg);
	}
	return RM_OK;
}

void rm_hostlist_clear(rm_hostlist *hl)
{
	if (!hl)
		return;
	for (size_t i = 0; i < hl->n; i++)
		free(hl->host[i]);
	free(hl->host);
	hl->host = NULL;
	hl->n = 0;
}
