/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_cand.c - what the planner chooses among: placements as lists of
 * pieces, their crossings counted without building a map, and the
 * simple fills no plan may lose to (node order, leaf order, best fit).
 *
 * Counting on pieces is what makes trying several placements cheap: one
 * pass over world / bg pieces, where building and checking a map is
 * several passes over every GPU and a host table each.
 */
#include "place/place_pack.h"

#include <stdlib.h>
#include <string.h>

rm_status rmi_cells_blocks(uint32_t n, uint32_t g, uint32_t blk,
			   rmi_cells *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	uint32_t per = g / blk;
	out->c = 1;
	out->blk = blk;
	out->node = malloc(((size_t)n * per + 1) * sizeof(uint32_t));
	if (!out->node)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	for (uint64_t k = 0; k < (uint64_t)n * per; k++)
		out->node[k] = (uint32_t)(k / per);
	out->ncell = (uint64_t)n * per;
	return RM_OK;
}

uint64_t rmi_cells_pieces(const rmi_cells *cl, const uint32_t *cell,
			  uint64_t ncell, uint32_t g, uint32_t bg, bool snake,
			  rmi_piece *out, uint64_t cap)
{
	uint64_t w = 0, nodes = 0;
	uint32_t per = g / bg;
	for (uint64_t i = 0; i < ncell && w < cap; i++) {
		uint64_t k = cell[i];
		if (cl->blk) {
			out[w++] = (rmi_piece){ cl->node[k],
						(uint32_t)(k % (g / cl->blk)) *
							cl->blk };
			continue;
		}
		for (uint32_t j = 0; j < cl->c && w < cap; j++, nodes++) {
			uint32_t h = cl->node[k * cl->c + j];
			for (uint32_t b = 0; b < per && w < cap; b++) {
				uint32_t ob = snake && nodes % 2 ? per - 1 - b : b;
				out[w++] = (rmi_piece){ h, ob * bg };
			}
		}
	}
	return w;
}

typedef struct grouped {
	uint32_t loc, host;
} grouped;

static int cmp_grouped(const void *a, const void *b)
{
	const grouped *x = a, *y = b;
	if (x->loc != y->loc)
		return x->loc < y->loc ? -1 : 1;
	return RMI_CMP(x->host, y->host);
}

/* Piece k of a group's snake: node k / per of the group, every other
 * node's blocks reversed so that consecutive nodes meet at one offset. */
static rmi_piece snake_piece(const grouped *g, uint64_t k, uint32_t per,
			     uint32_t bg)
{
	uint64_t j = k / per;
	uint32_t b = (uint32_t)(k % per);
	return (rmi_piece){ g[j].host, (j % 2 ? per - 1 - b : b) * bg };
}

rm_status rmi_rail_snake(const rmi_hostinfo *info, uint32_t n, uint32_t per,
			 uint32_t bg, uint64_t chain, rmi_piece *out,
			 uint64_t cap, uint64_t *written, rm_error *err)
{
	*written = 0;
	grouped *v = malloc(((size_t)n + 1) * sizeof(*v));
	if (!v)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	for (uint32_t h = 0; h < n; h++)
		v[h] = (grouped){ info[h].loc, h };
	qsort(v, n, sizeof(*v), cmp_grouped);
	uint64_t w = 0;
	/* pass 0: each group's whole chains; pass 1: what each has left */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0, j; i < n && w < cap; i = j) {
			for (j = i; j < n && v[j].loc == v[i].loc; j++)
				;
			uint64_t len = (uint64_t)(j - i) * per;
			uint64_t whole = chain ? len / chain * chain : len;
			for (uint64_t k = pass ? whole : 0;
			     k < (pass ? len : whole) && w < cap; k++)
				out[w++] = snake_piece(v + i, k, per, bg);
		}
	free(v);
	*written = w;
	return RM_OK;
}

void rmi_pieces_score(const rmi_piece *p, uint64_t n, uint64_t step,
		      uint32_t pp, uint32_t bg, const rmi_hostinfo *info,
		      uint64_t *cross, uint64_t *top)
{
	*cross = *top = 0;
	if (pp <= 1 || step == 0)
		return;
	/* the stage of piece b is (b / step) % pp, kept by two counters */
	uint64_t in = 0;
	uint32_t stage = 0;
	for (uint64_t b = 0; b + step < n; b++) {
		bool last = stage == pp - 1;
		if (++in == step) {
			in = 0;
			stage = stage + 1 == pp ? 0 : stage + 1;
		}
		if (last || p[b].host == p[b + step].host)
			continue;
		const rmi_hostinfo *x = &info[p[b].host],
				   *y = &info[p[b + step].host];
		bool near = x->unit >= 0 || y->unit >= 0
				    ? x->unit == y->unit &&
					      p[b].off == p[b + step].off
				    : x->loc == y->loc;
		*cross += near ? 0 : bg;
		*top += x->top != y->top ? bg : 0;
	}
}

/* Best fit over the leaves' runs of the DFS-sorted cells: each unit goes
 * whole into the leaf with the least room that still holds it; when none
 * does, the leaf with the most room gives all it has and the rest of the
 * unit is placed the same way. */
static rm_status best_fit(const rmi_key3 *k, uint64_t ncell, uint64_t need,
			  uint64_t ucells, uint32_t *seq, rm_error *err)
{
	uint64_t nrun = 0;
	uint64_t *start = malloc((ncell + 1) * sizeof(*start));
	rmi_sizes b;
	if (!start || !rmi_sizes_init(&b, ncell, ncell)) {
		free(start);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint64_t i = 0; i < ncell; i++)
		if (!i || k[i].b != k[i - 1].b || k[i].a != k[i - 1].a)
			start[nrun++] = i;
	/* the largest leaf bounds every scan */
	b.max = 0;
	for (uint64_t r = 0; r < nrun; r++) {
		uint64_t len = (r + 1 < nrun ? start[r + 1] : ncell) - start[r];
		b.max = len > b.max ? len : b.max;
	}
	/* pushed last = popped first: DFS order within a size */
	for (uint64_t r = nrun; r-- > 0;) {
		uint64_t end = r + 1 < nrun ? start[r + 1] : ncell;
		rmi_sizes_push(&b, r, end - start[r]);
	}
	uint64_t w = 0;
	while (w < need) {
		uint64_t rem = need - w < ucells ? need - w : ucells;
		while (rem) {
			uint64_t size = rmi_sizes_above(&b, rem);
			if (!size)
				size = rmi_sizes_below(&b, b.max);
			if (!size)
				break;       /* not reached: need <= ncell */
			uint64_t r = rmi_sizes_pop(&b, size);
			uint64_t take = size < rem ? size : rem;
			for (uint64_t t = 0; t < take; t++)
				seq[w++] = k[start[r]++].ix;
			if (size > take)
				rmi_sizes_push(&b, r, size - take);
			rem -= take;
		}
		if (rem)
			break;
	}
	free(start);
	rmi_sizes_free(&b);
	if (w < need)
		return rmi_err(err, RM_ERULE,
			       "internal: best fit placed %llu of %llu cells",
			       (unsigned long long)w, (unsigned long long)need);
	return RM_OK;
}

rm_status rmi_floor_fill(const rmi_hostinfo *info, const rmi_cells *cells,
			 uint64_t need, uint64_t ucells, uint32_t *seq[3],
			 rm_error *err)
{
	uint64_t n = cells->ncell;
	if (need > n)
		return rmi_err(err, RM_ERULE,
			       "the plan needs %llu cells, only %llu usable",
			       (unsigned long long)need, (unsigned long long)n);
	rmi_key3 *k = malloc((n + 1) * sizeof(*k));
	if (!k)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	bool sorted = true;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t h = cells->node[i * cells->c];
		k[i] = (rmi_key3){ 0, 0, h, (uint32_t)i };
		sorted = sorted && (!i || h >= k[i - 1].c);
	}
	if (!sorted)
		rmi_key3_sort(k, n);
	for (uint64_t i = 0; i < need; i++)
		seq[RMI_FLOOR_NODES][i] = k[i].ix;
	/* one DFS sort for the other two */
	for (uint64_t i = 0; i < n; i++) {
		uint32_t h = cells->node[i * cells->c];
		k[i] = (rmi_key3){ info[h].top, info[h].loc, h, (uint32_t)i };
	}
	rmi_key3_sort(k, n);
	for (uint64_t i = 0; i < need; i++)
		seq[RMI_FLOOR_LEAVES][i] = k[i].ix;
	rm_status st = best_fit(k, n, need, ucells ? ucells : 1,
				seq[RMI_FLOOR_BEST_FIT], err);
	free(k);
	return st;
}
