/*
 * place_pack.c - choose which cells a plan uses and in which order.
 *
 * A greedy that is O(N log N) and deterministic (every sort key ends in a
 * host's rank by name, which is unique):
 *  1. cells are sorted in DFS order (top subtree, leaf, name);
 *  2. top-level subtrees are ranked by how many whole replicas their leaves
 *     hold, then by cells (biggest first), then by DFS order;
 *  3. whole replicas are cut from single leaves, subtree by subtree in that
 *     rank, until enough;
 *  4. the remaining replicas are built from leftover pieces (fill_split):
 *     the smallest surplus pieces stay spares, then subtree by subtree,
 *     best fit by size, so a split replica has few pieces that share a
 *     subtree;
 *  5. replicas are laid out in DFS order of their first cell, so
 *     neighbouring DP ranks sit close together.
 */
#include "place.h"

#include <stdlib.h>
#include <string.h>

typedef struct key3 {
	uint64_t a;
	uint32_t b, c;
	uint32_t ix;
} key3;

static int cmp_key3(const void *x, const void *y)
{
	const key3 *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	if (p->c != q->c)
		return p->c < q->c ? -1 : 1;
	return p->ix < q->ix ? -1 : p->ix > q->ix;
}

rm_status rmi_cells_build(const rmi_hostinfo *info, uint32_t n, uint32_t c,
			  rmi_cells *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	out->c = c ? c : 1;
	out->node = malloc(((size_t)n + 1) * sizeof(uint32_t));
	if (!out->node)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	if (out->c == 1) {
		for (uint32_t i = 0; i < n; i++)
			out->node[i] = i;
		out->ncell = n;
		return RM_OK;
	}
	/* Group by domain; inside one, keep leaf neighbours together. */
	key3 *k = malloc(((size_t)n + 1) * sizeof(*k));
	if (!k) {
		rmi_cells_free(out);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < n; i++)
		k[i] = (key3){ info[i].dom, info[i].loc, i, i };
	qsort(k, n, sizeof(*k), cmp_key3);
	uint64_t w = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		while (j < n && k[j].a == k[i].a)
			j++;
		uint32_t whole = (j - i) / out->c * out->c;
		for (uint32_t t = 0; t < whole; t++)
			out->node[w++] = k[i + t].ix;
		i = j;
	}
	out->ncell = w / out->c;
	free(k);
	return RM_OK;
}

void rmi_cells_free(rmi_cells *cells)
{
	free(cells->node);
	memset(cells, 0, sizeof(*cells));
}

typedef struct run {
	uint64_t start, len, used;   /* positions in the DFS-sorted cells */
	uint32_t top;
	uint64_t tix;                /* its subtree group */
	bool spare;                  /* leftover kept out of split replicas */
} run;

typedef struct topg {
	uint64_t first_run, nrun, whole, cells;
	uint32_t id, rank;
	bool used;
} topg;

typedef struct unit {
	uint64_t off, len;           /* into the position list */
} unit;

typedef struct packer {
	uint32_t *ord;               /* cell index per DFS position */
	run *runs;
	topg *tops;
	uint32_t *top_by_rank;
	uint64_t *pos;               /* chosen positions, unit by unit */
	unit *units;
	uint64_t nrun, ntop, npos, nunit;
} packer;

static void packer_free(packer *p)
{
	free(p->ord);
	free(p->runs);
	free(p->tops);
	free(p->top_by_rank);
	free(p->pos);
	free(p->units);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static int cmp_unit_first(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;
	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* Sort cells in DFS order and find the leaf runs and subtree groups. */
static rm_status build_runs(packer *p, const rmi_hostinfo *info,
			    const rmi_cells *cells, uint64_t unit_cells,
			    rm_error *err)
{
	uint64_t n = cells->ncell;
	key3 *k = malloc((n + 1) * sizeof(*k));
	p->ord = malloc((n + 1) * sizeof(*p->ord));
	p->runs = malloc((n + 1) * sizeof(*p->runs));
	p->tops = malloc((n + 1) * sizeof(*p->tops));
	p->top_by_rank = malloc((n + 1) * sizeof(*p->top_by_rank));
	if (!k || !p->ord || !p->runs || !p->tops || !p->top_by_rank) {
		free(k);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint64_t i = 0; i < n; i++) {
		uint32_t h = cells->node[i * cells->c];
		k[i] = (key3){ info[h].top, info[h].loc, h, (uint32_t)i };
	}
	qsort(k, n, sizeof(*k), cmp_key3);
	for (uint64_t i = 0; i < n; i++)
		p->ord[i] = k[i].ix;
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i;
		while (j < n && k[j].a == k[i].a && k[j].b == k[i].b)
			j++;
		p->runs[p->nrun++] =
			(run){ i, j - i, 0, (uint32_t)k[i].a, 0, false };
		i = j;
	}
	for (uint64_t r = 0; r < p->nrun;) {
		uint64_t s = r;
		topg t = { r, 0, 0, 0, p->runs[r].top, 0, false };
		while (r < p->nrun && p->runs[r].top == p->runs[s].top) {
			t.whole += p->runs[r].len / unit_cells;
			t.cells += p->runs[r].len;
			p->runs[r].tix = p->ntop;
			r++;
		}
		t.nrun = r - s;
		p->tops[p->ntop++] = t;
	}
	/* Rank subtrees: most whole replicas, most cells, DFS order. */
	for (uint64_t t = 0; t < p->ntop; t++)
		k[t] = (key3){ UINT64_MAX - p->tops[t].whole,
			       (uint32_t)(UINT32_MAX - (p->tops[t].cells >
							UINT32_MAX - 1 ?
						UINT32_MAX - 1 :
						p->tops[t].cells)),
			       p->tops[t].id, (uint32_t)t };
	qsort(k, p->ntop, sizeof(*k), cmp_key3);
	for (uint64_t t = 0; t < p->ntop; t++) {
		p->top_by_rank[t] = k[t].ix;
		p->tops[k[t].ix].rank = (uint32_t)t;
	}
	free(k);
	return RM_OK;
}

/*
 * Leftover pieces by size, with a bitmap over sizes so that the nearest
 * non-empty size is a few word scans away. Sizes are capped at one
 * replica: a bigger piece serves as a whole one.
 */
typedef struct buckets {
	uint64_t *head;              /* run + 1 per size; 0 = empty */
	uint64_t *next;              /* per run */
	uint64_t *bits;
	uint64_t cap;
} buckets;

static uint64_t rest_of(const packer *p, uint64_t r)
{
	return p->runs[r].len - p->runs[r].used;
}

static void bk_push(buckets *b, const packer *p, uint64_t r)
{
	uint64_t s = rest_of(p, r);
	if (s > b->cap)
		s = b->cap;
	b->next[r] = b->head[s];
	b->head[s] = r + 1;
	b->bits[s >> 6] |= 1ull << (s & 63);
}

static uint64_t bk_pop(buckets *b, uint64_t s)
{
	uint64_t r = b->head[s] - 1;
	b->head[s] = b->next[r];
	if (!b->head[s])
		b->bits[s >> 6] &= ~(1ull << (s & 63));
	return r;
}

/* Largest non-empty size in [1, x], 0 if none. */
static uint64_t bk_below(const buckets *b, uint64_t x)
{
	if (x > b->cap)
		x = b->cap;
	if (x == 0)
		return 0;
	uint64_t w = x >> 6;
	uint64_t m = b->bits[w] &
		     ((x & 63) == 63 ? ~0ull : (1ull << ((x & 63) + 1)) - 1);
	for (;;) {
		if (m)
			return w * 64 + 63 - (uint64_t)__builtin_clzll(m);
		if (w == 0)
			return 0;
		m = b->bits[--w];
	}
}

/* Smallest non-empty size in [x, cap], 0 if none. */
static uint64_t bk_above(const buckets *b, uint64_t x)
{
	if (x > b->cap)
		return 0;
	uint64_t w = x >> 6, nw = (b->cap >> 6) + 1;
	uint64_t m = b->bits[w] & (~0ull << (x & 63));
	for (;;) {
		if (m)
			return w * 64 + (uint64_t)__builtin_ctzll(m);
		if (++w >= nw)
			return 0;
		m = b->bits[w];
	}
}

/*
 * With more leftover cells than needed, the smallest pieces stay spares
 * (those of subtrees not in use first): small pieces are what splits a
 * replica many ways.
 */
static bool drop_small_pieces(packer *p, uint64_t left)
{
	key3 *k = malloc((p->nrun + 1) * sizeof(*k));
	if (!k)
		return false;
	uint64_t n = 0, total = 0;
	for (uint64_t r = 0; r < p->nrun; r++) {
		uint64_t rest = rest_of(p, r);
		if (!rest)
			continue;
		const topg *t = &p->tops[p->runs[r].tix];
		uint32_t pref = t->used ? UINT32_MAX - t->rank
				      : 0x7fffffffu - t->rank;
		k[n++] = (key3){ rest, pref, (uint32_t)(UINT32_MAX - r),
				 (uint32_t)r };
		total += rest;
	}
	qsort(k, n, sizeof(*k), cmp_key3);
	for (uint64_t i = 0; i < n && total - k[i].a >= left; i++) {
		total -= k[i].a;
		p->runs[k[i].ix].spare = true;
	}
	free(k);
	return true;
}

static int cmp_top_fill(const void *x, const void *y)
{
	const topg *a = *(const topg *const *)x, *b = *(const topg *const *)y;
	if (a->used != b->used)
		return a->used ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/*
 * Build the replicas that no single leaf can hold, subtree by subtree
 * (those already in use first): a replica starts with the largest piece,
 * then takes a piece that fits the remainder exactly, else the largest
 * that still fits, else cuts the smallest bigger one. Fewer, larger
 * pieces mean fewer crossings.
 */
static rm_status fill_split(packer *p, uint64_t need, uint64_t unit_cells,
			    rm_error *err)
{
	if (p->npos >= need)
		return RM_OK;
	buckets b = { 0 };
	b.cap = unit_cells;
	b.head = calloc(unit_cells + 1, sizeof(uint64_t));
	b.next = calloc(p->nrun + 1, sizeof(uint64_t));
	b.bits = calloc((unit_cells >> 6) + 1, sizeof(uint64_t));
	const topg **order = malloc((p->ntop + 1) * sizeof(*order));
	if (!b.head || !b.next || !b.bits || !order ||
	    !drop_small_pieces(p, need - p->npos)) {
		free(b.head);
		free(b.next);
		free(b.bits);
		free(order);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint64_t t = 0; t < p->ntop; t++)
		order[t] = &p->tops[t];
	qsort(order, p->ntop, sizeof(*order), cmp_top_fill);
	uint64_t left = need - p->npos;
	uint64_t rem = left < unit_cells ? left : unit_cells;
	bool fresh = true;
	for (uint64_t t = 0; t < p->ntop && left; t++) {
		const topg *tg = order[t];
		/* pushed last = popped first: DFS order within a size */
		for (uint64_t i = tg->nrun; i-- > 0;)
			if (rest_of(p, tg->first_run + i) &&
			    !p->runs[tg->first_run + i].spare)
				bk_push(&b, p, tg->first_run + i);
		while (left) {
			uint64_t sz;
			if (fresh) {
				sz = bk_below(&b, b.cap);
			} else {
				sz = b.head[rem] ? rem : bk_below(&b, rem - 1);
				if (!sz)
					sz = bk_above(&b, rem + 1);
			}
			if (!sz)
				break;
			uint64_t r = bk_pop(&b, sz);
			run *ru = &p->runs[r];
			uint64_t take = rest_of(p, r) < rem ? rest_of(p, r) : rem;
			for (uint64_t c = 0; c < take; c++)
				p->pos[p->npos++] = ru->start + ru->used++;
			if (rest_of(p, r))
				bk_push(&b, p, r);
			rem -= take;
			left -= take;
			fresh = false;
			if (rem == 0) {
				rem = left < unit_cells ? left : unit_cells;
				fresh = true;
			}
		}
	}
	free(b.head);
	free(b.next);
	free(b.bits);
	free(order);
	if (left)
		return rmi_err(err, RM_ERULE,
			       "internal: %llu cells could not be placed",
			       (unsigned long long)left);
	return RM_OK;
}

rm_status rmi_pack(const rmi_hostinfo *info, const rmi_cells *cells,
		   uint64_t need, uint64_t unit_cells, uint32_t *seq,
		   uint64_t *nseq, rm_error *err)
{
	packer p;
	memset(&p, 0, sizeof(p));
	*nseq = 0;
	if (need > cells->ncell)
		return rmi_err(err, RM_ERULE,
			       "the plan needs %llu cells, only %llu usable",
			       (unsigned long long)need,
			       (unsigned long long)cells->ncell);
	if (unit_cells == 0 || unit_cells > need)
		unit_cells = need ? need : 1;
	rm_status st = build_runs(&p, info, cells, unit_cells, err);
	if (st) {
		packer_free(&p);
		return st;
	}
	p.pos = malloc((need + 1) * sizeof(*p.pos));
	p.units = malloc((need / unit_cells + 2) * sizeof(*p.units));
	if (!p.pos || !p.units) {
		packer_free(&p);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}

	/* Whole replicas inside single leaves. */
	uint64_t total_whole = 0;
	for (uint64_t t = 0; t < p.ntop; t++)
		total_whole += p.tops[t].whole;
	uint64_t left = need / unit_cells;
	if (left > total_whole)
		left = total_whole;
	for (uint64_t r = 0; r < p.ntop && left; r++) {
		topg *t = &p.tops[p.top_by_rank[r]];
		for (uint64_t i = 0; i < t->nrun && left; i++) {
			run *ru = &p.runs[t->first_run + i];
			uint64_t b = ru->len / unit_cells;
			if (b > left)
				b = left;
			for (uint64_t u = 0; u < b; u++) {
				p.units[p.nunit++] =
					(unit){ p.npos, unit_cells };
				for (uint64_t c = 0; c < unit_cells; c++)
					p.pos[p.npos++] = ru->start + ru->used++;
			}
			if (b)
				t->used = true;
			left -= b;
		}
	}

	/* The rest from leftover pieces. */
	uint64_t b_start = p.npos;
	st = fill_split(&p, need, unit_cells, err);
	if (st) {
		packer_free(&p);
		return st;
	}
	for (uint64_t o = b_start; o < p.npos; o += unit_cells) {
		uint64_t len = p.npos - o < unit_cells ? p.npos - o : unit_cells;
		/* Pieces of a split replica run in DFS order; the number of
		 * leaf changes does not depend on their order. */
		qsort(p.pos + o, len, sizeof(*p.pos), cmp_u64);
		p.units[p.nunit++] = (unit){ o, len };
	}

	/* Replicas in DFS order of their first cell. */
	uint64_t (*uk)[2] = malloc((p.nunit + 1) * sizeof(*uk));
	if (!uk) {
		packer_free(&p);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint64_t u = 0; u < p.nunit; u++) {
		uk[u][0] = p.pos[p.units[u].off];
		uk[u][1] = u;
	}
	qsort(uk, p.nunit, sizeof(*uk), cmp_unit_first);
	uint64_t w = 0;
	for (uint64_t i = 0; i < p.nunit; i++) {
		const unit *un = &p.units[uk[i][1]];
		for (uint64_t c = 0; c < un->len; c++) {
			uint32_t cell = p.ord[p.pos[un->off + c]];
			for (uint32_t j = 0; j < cells->c; j++)
				seq[w++] = cells->node[(uint64_t)cell *
							       cells->c + j];
		}
	}
	*nseq = w;
	free(uk);
	packer_free(&p);
	return RM_OK;
}
