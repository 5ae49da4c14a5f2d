/* SPDX-License-Identifier: Apache-2.0 */
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
#include "place/place_pack.h"

#include <stdlib.h>
#include <string.h>

int rmi_key3_cmp(const void *x, const void *y)
{
	const rmi_key3 *p = x, *q = y;
	int c;
	if ((c = RMI_CMP(p->a, q->a)) || (c = RMI_CMP(p->b, q->b)) ||
	    (c = RMI_CMP(p->c, q->c)))
		return c;
	return RMI_CMP(p->ix, q->ix);
}

/* One stable counting pass of src into dst by the field f picks. */
static void count_pass(const rmi_key3 *src, rmi_key3 *dst, uint64_t n,
		       uint64_t *cnt, uint64_t range, int f)
{
	memset(cnt, 0, (range + 1) * sizeof(*cnt));
	for (uint64_t i = 0; i < n; i++)
		cnt[f == 0 ? src[i].a : f == 1 ? src[i].b : src[i].c]++;
	for (uint64_t v = 0, sum = 0; v <= range; v++) {
		uint64_t t = cnt[v];
		cnt[v] = sum;
		sum += t;
	}
	for (uint64_t i = 0; i < n; i++)
		dst[cnt[f == 0 ? src[i].a : f == 1 ? src[i].b : src[i].c]++] =
			src[i];
}

/*
 * Sort keys built in ix order by (a, b, c, ix): the fields of cells are
 * ids bounded by the hosts and switches, so three counting passes do in
 * linear time what qsort does in n log n; other keys go to qsort.
 */
void rmi_key3_sort(rmi_key3 *k, uint64_t n)
{
	uint64_t ma = 0, mb = 0, mc = 0, lim = 4 * n + 1024;
	bool lin = true;
	for (uint64_t i = 0; i < n && lin; i++) {
		lin = !i || k[i].ix > k[i - 1].ix;
		ma = k[i].a > ma ? k[i].a : ma;
		mb = k[i].b > mb ? k[i].b : mb;
		mc = k[i].c > mc ? k[i].c : mc;
	}
	uint64_t range = ma > mb ? ma : mb;
	range = mc > range ? mc : range;
	rmi_key3 *t = lin && range <= lim ? malloc((n + 1) * sizeof(*t)) : NULL;
	uint64_t *cnt = t ? malloc((range + 2) * sizeof(*cnt)) : NULL;
	if (!cnt) {
		free(t);
		qsort(k, n, sizeof(*k), rmi_key3_cmp);
		return;
	}
	count_pass(k, t, n, cnt, mc, 2);
	count_pass(t, k, n, cnt, mb, 1);
	count_pass(k, t, n, cnt, ma, 0);
	memcpy(k, t, n * sizeof(*k));
	free(t);
	free(cnt);
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
	rmi_key3 *k = malloc(((size_t)n + 1) * sizeof(*k));
	if (!k) {
		rmi_cells_free(out);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < n; i++)
		k[i] = (rmi_key3){ info[i].dom, info[i].loc, i, i };
	qsort(k, n, sizeof(*k), rmi_key3_cmp);
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
			    bool by_top, rm_error *err)
{
	uint64_t n = cells->ncell;
	rmi_key3 *k = malloc((n + 1) * sizeof(*k));
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
		k[i] = (rmi_key3){ info[h].top, info[h].loc, h, (uint32_t)i };
	}
	rmi_key3_sort(k, n);
	for (uint64_t i = 0; i < n; i++)
		p->ord[i] = k[i].ix;
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i;
		/* a run is a leaf, or a whole subtree when pods come first */
		while (j < n && k[j].a == k[i].a && (by_top || k[j].b == k[i].b))
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
		k[t] = (rmi_key3){ UINT64_MAX - p->tops[t].whole,
			       (uint32_t)(UINT32_MAX - (p->tops[t].cells >
							UINT32_MAX - 1 ?
						UINT32_MAX - 1 :
						p->tops[t].cells)),
			       p->tops[t].id, (uint32_t)t };
	qsort(k, p->ntop, sizeof(*k), rmi_key3_cmp);
	for (uint64_t t = 0; t < p->ntop; t++) {
		p->top_by_rank[t] = k[t].ix;
		p->tops[k[t].ix].rank = (uint32_t)t;
	}
	free(k);
	return RM_OK;
}

rm_status rmi_pack(const rmi_hostinfo *info, const rmi_cells *cells,
		   uint64_t need, uint64_t unit_cells, bool by_top,
		   uint32_t *seq, uint64_t *nseq, rm_error *err)
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
	rm_status st = build_runs(&p, info, cells, unit_cells, by_top, err);
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
	st = rmi_fill_split(&p, need, unit_cells, err);
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
		/* a short unit stays last: anywhere else it would shift the
		 * replicas after it off their unit boundaries */
		uk[u][0] = p.units[u].len < unit_cells ? UINT64_MAX
						       : p.pos[p.units[u].off];
		uk[u][1] = u;
	}
	qsort(uk, p.nunit, sizeof(*uk), cmp_unit_first);
	uint64_t w = 0;
	for (uint64_t i = 0; i < p.nunit; i++) {
		const unit *un = &p.units[uk[i][1]];
		for (uint64_t c = 0; c < un->len; c++)
			seq[w++] = p.ord[p.pos[un->off + c]];
	}
	*nseq = w;
	free(uk);
	packer_free(&p);
	return RM_OK;
}
