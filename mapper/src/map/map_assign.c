/* SPDX-License-Identifier: Apache-2.0 */
/*
 * map_assign.c - rm_map_read_assignment: a user's own rank -> (host, GPU)
 * table, e.g. what their current launch script does, turned into an rm_map
 * so that `rankmap check` can score it like one of ours.
 *
 *   # rank host local_gpu        (whitespace or commas; '#' comments)
 *   0 node1 0
 *   1,node1,1
 *
 * A header line starting with "rank" may come first; with a header, extra
 * columns are ignored, so the csv output of `rankmap plan` reads back.
 */
#include "map/mapio.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_GPUS_PER_NODE 1024

typedef struct rec {
	uint32_t rank, node, gpu;
	unsigned long line, col;     /* of the record, for later errors */
} rec;

typedef struct hosts {
	char **name;
	uint32_t n, cap;
	uint32_t *slot;              /* open addressing: index + 1 */
	uint32_t slots;              /* power of two */
} hosts;

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static bool grow(hosts *h)
{
	uint32_t slots = h->slots ? h->slots * 2 : 64;
	uint32_t *s = calloc(slots, sizeof(*s));
	if (!s)
		return false;
	for (uint32_t i = 0; i < h->n; i++) {
		uint64_t k = hash(h->name[i], strlen(h->name[i])) & (slots - 1);
		while (s[k])
			k = (k + 1) & (slots - 1);
		s[k] = i + 1;
	}
	free(h->slot);
	h->slot = s;
	h->slots = slots;
	return true;
}

/* Index of the host, adding it when new; -1 when out of memory. */
static int64_t host_id(hosts *h, const char *s, size_t n)
{
	if ((uint64_t)(h->n + 1) * 2 > h->slots && !grow(h))
		return -1;
	uint64_t k = hash(s, n) & (h->slots - 1);
	while (h->slot[k]) {
		const char *x = h->name[h->slot[k] - 1];
		if (strlen(x) == n && !memcmp(x, s, n))
			return h->slot[k] - 1;
		k = (k + 1) & (h->slots - 1);
	}
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 64;
		char **p = realloc(h->name, cap * sizeof(*p));
		if (!p)
			return -1;
		h->name = p;
		h->cap = cap;
	}
	char *copy = strndup(s, n);
	if (!copy)
		return -1;
	h->name[h->n] = copy;
	h->slot[k] = h->n + 1;
	return h->n++;
}

typedef struct field {
	const char *s;
	size_t len;
	unsigned long col;
} field;

typedef struct ctx {
	const char *file;
	rm_error *err;
} ctx;

static rm_status number(ctx *c, unsigned long line, const field *f,
			const char *what, uint64_t max, uint32_t *out)
{
	char q[96];
	uint64_t v = 0;
	bool ok = f->len > 0 && f->len <= 10;
	for (size_t i = 0; ok && i < f->len; i++) {
		ok = f->s[i] >= '0' && f->s[i] <= '9';
		v = v * 10 + (uint64_t)(f->s[i] - '0');
	}
	if (!ok)
		return rmi_err_at(c->err, RM_EINPUT, c->file, line, f->col,
				  "%s %s is not a whole number", what,
				  rm_quote(f->s, f->len, q, sizeof(q)));
	if (v > max)
		return rmi_err_at(c->err, RM_EINPUT, c->file, line, f->col,
				  "%s %llu is out of range (at most %llu)",
				  what, (unsigned long long)v,
				  (unsigned long long)max);
	*out = (uint32_t)v;
	return RM_OK;
}

/* Split one line (comment already cut) into at most `max` fields; a run of
 * spaces, tabs and at most one comma separates two fields. */
static rm_status split(ctx *c, unsigned long line, const char *s, size_t n,
		       field *f, size_t max, size_t *nf)
{
	size_t i = 0, k = 0;
	*nf = 0;
	while (i < n) {
		unsigned commas = 0;
		size_t sep = i;
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
				 s[i] == ','))
			commas += s[i++] == ',';
		if (commas > 1 || (commas && (k == 0 || i == n)))
			return rmi_err_at(c->err, RM_EINPUT, c->file, line,
					  sep + 1, "empty field");
		if (i == n)
			break;
		size_t start = i;
		while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' &&
		       s[i] != ',')
			i++;
		if (k < max)
			f[k] = (field){ s + start, i - start, start + 1 };
		k++;
	}
	*nf = k;
	return RM_OK;
}

static int cmp_slot(const void *a, const void *b)
{
	const rec *x = a, *y = b;
	int c;
	if ((c = RMI_CMP(x->node, y->node)) || (c = RMI_CMP(x->gpu, y->gpu)))
		return c;
	return RMI_CMP(x->line, y->line);
}

static rm_status parse(ctx *c, const char *text, size_t len,
		       uint32_t gpus_per_node, hosts *h, rec **recs,
		       size_t *nrec)
{
	size_t cap = 0;
	bool header_ok = true, header = false;
	unsigned long line = 0;
	char q[96];
	for (size_t pos = 0; pos < len;) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + 1;
		line++;
		const char *hash_at = memchr(s, '#', n);
		if (hash_at)
			n = (size_t)(hash_at - s);
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)s[i] < 0x20 && s[i] != '\t' &&
			    s[i] != '\r')
				return rmi_err_at(c->err, RM_EINPUT, c->file,
						  line, i + 1,
						  "control byte 0x%02x: not a "
						  "text file",
						  (unsigned char)s[i]);
		field f[3];
		size_t nf;
		rm_status st = split(c, line, s, n, f, 3, &nf);
		if (st)
			return st;
		if (!nf)
			continue;
		if (header_ok && f[0].len == 4 && !strncasecmp(f[0].s, "rank", 4)) {
			header_ok = false;
			header = true;
			continue;
		}
		header_ok = false;
		if (nf < 3 || (nf > 3 && !header))
			return rmi_err_at(c->err, RM_EINPUT, c->file, line, 1,
					  "expected 3 fields (rank host "
					  "local_gpu), found %zu", nf);
		if (*nrec >= RM_MAX_WORLD)
			return rmi_err_at(c->err, RM_EINPUT, c->file, line, 1,
					  "more than %u ranks", RM_MAX_WORLD);
		rec r = { .line = line, .col = 1 };
		if ((st = number(c, line, &f[0], "rank", RM_MAX_WORLD - 1,
				 &r.rank)) ||
		    (st = number(c, line, &f[2], "local_gpu",
				 gpus_per_node - 1, &r.gpu)))
			return st;
		if (f[1].len > RM_MAX_HOSTNAME)
			return rmi_err_at(c->err, RM_EINPUT, c->file, line,
					  f[1].col, "host name longer than %d "
					  "bytes", RM_MAX_HOSTNAME);
		for (size_t i = 0; i < f[1].len; i++)
			if ((unsigned char)f[1].s[i] >= 0x7f || f[1].s[i] == '"' ||
			    f[1].s[i] == '\'' || f[1].s[i] == '\\')
				return rmi_err_at(c->err, RM_EINPUT, c->file,
						  line, f[1].col + i,
						  "host %s: unexpected "
						  "character",
						  rm_quote(f[1].s, f[1].len, q,
							    sizeof(q)));
		if (h->n >= RM_MAX_HOSTS)
			return rmi_err_at(c->err, RM_EINPUT, c->file, line,
					  f[1].col, "more than %u hosts",
					  RM_MAX_HOSTS);
		int64_t id = host_id(h, f[1].s, f[1].len);
		if (id < 0)
			return rmi_err(c->err, RM_ENOMEM, "out of memory");
		r.node = (uint32_t)id;
		if (*nrec == cap) {
			cap = cap ? cap * 2 : 256;
			rec *p = realloc(*recs, cap * sizeof(*p));
			if (!p)
				return rmi_err(c->err, RM_ENOMEM,
					       "out of memory");
			*recs = p;
		}
		(*recs)[(*nrec)++] = r;
	}
	if (!*nrec)
		return rmi_err_at(c->err, RM_EINPUT, c->file, 0, 0,
				  "no rank records");
	return RM_OK;
}

/* Line of the first record for `rank`, for a "again" message. */
static unsigned long first_line(const rec *r, size_t n, uint32_t rank)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].rank == rank)
			return r[i].line;
	return 0;
}

/* Every rank once, exactly world of them, one rank per GPU. */
static rm_status verify(ctx *c, rec *r, size_t n, uint32_t world,
			const hosts *h, const char *layout)
{
	unsigned char *seen = calloc((size_t)world + 1, 1);
	if (!seen)
		return rmi_err(c->err, RM_ENOMEM, "out of memory");
	rm_status st = RM_OK;
	for (size_t i = 0; i < n && st == RM_OK; i++) {
		if (r[i].rank >= world)
			st = rmi_err_at(c->err, RM_EINPUT, c->file, r[i].line,
					r[i].col, "rank %u is outside the world "
					"of %u ranks (%s)", r[i].rank, world,
					layout);
		else if (seen[r[i].rank])
			st = rmi_err_at(c->err, RM_EINPUT, c->file, r[i].line,
					r[i].col, "rank %u again (first on "
					"line %lu)", r[i].rank,
					first_line(r, i, r[i].rank));
		else
			seen[r[i].rank] = 1;
	}
	if (st == RM_OK && n != world) {
		uint32_t first = 0;
		while (first < world && seen[first])
			first++;
		st = rmi_err_at(c->err, RM_EINPUT, c->file, 0, 0,
				"%zu ranks given, %s needs %u; rank %u is "
				"missing", n, layout, world, first);
	}
	free(seen);
	if (st)
		return st;
	qsort(r, n, sizeof(*r), cmp_slot);
	for (size_t i = 1; i < n; i++)
		if (r[i].node == r[i - 1].node && r[i].gpu == r[i - 1].gpu)
			return rmi_err_at(c->err, RM_EINPUT, c->file, r[i].line,
					  r[i].col, "rank %u and rank %u (line "
					  "%lu) both on GPU %u of %s",
					  r[i].rank, r[i - 1].rank,
					  r[i - 1].line, r[i].gpu,
					  h->name[r[i].node]);
	return RM_OK;
}

static rm_status build(ctx *c, const rm_layout *l, const rm_order *o,
		       uint32_t gpus_per_node, hosts *h, rec *r, size_t n,
		       const char *text, size_t len, rm_map **out)
{
	rm_map *m = calloc(1, sizeof(*m));
	if (!m)
		return rmi_err(c->err, RM_ENOMEM, "out of memory");
	m->layout = *l;
	m->order = *o;
	m->world = (uint32_t)n;
	m->gpus_per_node = gpus_per_node;
	m->rank = calloc(n + 1, sizeof(rm_rank));
	m->host_leaf = calloc((size_t)h->n + 1, sizeof(char *));
	m->host_unit = calloc((size_t)h->n + 1, sizeof(char *));
	m->spare = calloc(1, sizeof(char *));
	m->host = calloc((size_t)h->n + 1, sizeof(char *));
	if (!m->rank || !m->host_leaf || !m->host_unit || !m->spare ||
	    !m->host) {
		rm_map_free(m);
		return rmi_err(c->err, RM_ENOMEM, "out of memory");
	}
	/* The names move into the map. */
	memcpy(m->host, h->name, (size_t)h->n * sizeof(char *));
	m->nhost = h->n;
	h->n = 0;
	for (size_t i = 0; i < n; i++) {
		rm_rank *rk = &m->rank[r[i].rank];
		rk->node = r[i].node;
		rk->local_gpu = r[i].gpu;
		rm_rank_decode(&m->layout, &m->order, r[i].rank, rk->coord);
	}
	rm_sha256_hex(text, len, m->inputs_sha256);
	*out = m;
	return RM_OK;
}

rm_status rmi_map_parse_assignment(const char *text, size_t len,
				   const char *name, const rm_layout *l,
				   const rm_order *o, uint32_t gpus_per_node,
				   rm_map **out, rm_error *err)
{
	*out = NULL;
	ctx c = { name, err };
	if (!l || !o)
		return rmi_err(err, RM_EINPUT, "%s: a layout and an order are "
			       "needed to read an assignment", name);
	if (gpus_per_node == 0 || gpus_per_node > MAX_GPUS_PER_NODE)
		return rmi_err(err, RM_EINPUT, "gpus per node %u is out of "
			       "range (1 to %u)", gpus_per_node,
			       MAX_GPUS_PER_NODE);
	if (len > RM_MAX_INPUT)
		return rmi_err_at(err, RM_EINPUT, name, 0, 0, "input is %zu "
				  "bytes, more than the %u allowed", len,
				  RM_MAX_INPUT);
	hosts h;
	memset(&h, 0, sizeof(h));
	rec *r = NULL;
	size_t n = 0;
	rm_layout lay = *l;
	char ltext[256];
	rm_status st = parse(&c, text, len, gpus_per_node, &h, &r, &n);
	/* dp=auto: the file says how many ranks there are. */
	if (st == RM_OK && lay.dp_auto)
		st = rm_layout_resolve(&lay, n, true, err);
	if (st == RM_OK) {
		rm_layout_format(&lay, ltext, sizeof(ltext));
		st = verify(&c, r, n, (uint32_t)rm_layout_world(&lay), &h,
			    ltext);
	}
	if (st == RM_OK)
		st = build(&c, &lay, o, gpus_per_node, &h, r, n, text, len,
			   out);
	rmi_strv_free(h.name, h.n);
	free(h.slot);
	free(r);
	return st;
}

rm_status rm_map_read_assignment(const char *path, const rm_layout *l,
				 const rm_order *o, uint32_t gpus_per_node,
				 rm_map **out, rm_error *err)
{
	*out = NULL;
	char *text = NULL;
	size_t len = 0;
	rm_status st = rm_file_read(path, &text, &len, err);
	if (st)
		return st;
	st = rmi_map_parse_assignment(text, len, path, l, o, gpus_per_node,
				      out, err);
	free(text);
	return st;
}
