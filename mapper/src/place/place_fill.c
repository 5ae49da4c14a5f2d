/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_fill.c - the replicas no single leaf can hold, built from the
 * pieces the leaves have left: few pieces per replica (each extra piece is
 * a pipeline crossing), pieces of one replica in one subtree when they
 * can be.
 */
#include "place/place_pack.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rest_of(const packer *p, uint64_t r)
{
	return p->runs[r].len - p->runs[r].used;
}

/* Leftover pieces by size; sizes are capped at one replica (b->max): a
 * bigger piece serves as a whole one. */
static void bk_push(rmi_sizes *b, const packer *p, uint64_t r)
{
	uint64_t s = rest_of(p, r);
	rmi_sizes_push(b, r, s > b->max ? b->max : s);
}

/*
 * With more leftover cells than needed, the smallest pieces stay spares
 * (those of subtrees not in use first): small pieces are what splits a
 * replica many ways.
 */
static bool drop_small_pieces(packer *p, uint64_t left)
{
	rmi_key3 *k = malloc((p->nrun + 1) * sizeof(*k));
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
		k[n++] = (rmi_key3){ rest, pref, (uint32_t)(UINT32_MAX - r),
				 (uint32_t)r };
		total += rest;
	}
	qsort(k, n, sizeof(*k), rmi_key3_cmp);
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
			    bool drop, rm_error *err)
{
	if (p->npos >= need)
		return RM_OK;
	rmi_sizes b;
	if (!rmi_sizes_init(&b, p->nrun, unit_cells))
		return rmi_err(err, RM_ENOMEM, "out of memory");
	const topg **order = malloc((p->ntop + 1) * sizeof(*order));
	if (!order || (drop && !drop_small_pieces(p, need - p->npos))) {
		rmi_sizes_free(&b);
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
				sz = rmi_sizes_below(&b, b.max);
			} else {
				sz = b.head[rem] ? rem
						 : rmi_sizes_below(&b, rem - 1);
				if (!sz)
					sz = rmi_sizes_above(&b, rem + 1);
			}
			if (!sz)
				break;
			uint64_t r = rmi_sizes_pop(&b, sz);
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
	rmi_sizes_free(&b);
	free(order);
	if (left)
		return rmi_err(err, RM_ERULE,
			       "internal: %llu cells could not be placed",
			       (unsigned long long)left);
	return RM_OK;
}

/* Pieces in the split replicas: a new piece starts at every replica
 * boundary and wherever the run (leaf) changes. */
static uint64_t count_pieces(const packer *p, const uint32_t *run_of,
			     uint64_t from, uint64_t unit_cells)
{
	uint64_t n = 0;
	for (uint64_t i = from; i < p->npos; i++)
		if ((i - from) % unit_cells == 0 ||
		    run_of[p->pos[i]] != run_of[p->pos[i - 1]])
			n++;
	return n;
}

typedef struct vrun {
	uint64_t val;                /* leftover cells */
	uint32_t pref;               /* subtrees in use first, by rank */
	uint32_t top;
	uint64_t r;
} vrun;

static int cmp_vrun(const void *x, const void *y)
{
	const vrun *a = x, *b = y;
	if (a->val != b->val)
		return a->val > b->val ? -1 : 1;
	if (a->pref != b->pref)
		return a->pref < b->pref ? -1 : 1;
	return a->r < b->r ? -1 : a->r > b->r;
}

/* Take one leftover of size index k, from subtree `top` if one is there. */
static uint64_t pick(vrun *v, const uint64_t *off, uint32_t k, uint32_t top,
		     bool *taken)
{
	uint64_t any = UINT64_MAX;
	for (uint64_t i = off[k]; i < off[k + 1]; i++) {
		if (taken[i])
			continue;
		if (any == UINT64_MAX)
			any = i;
		if (v[i].top == top) {
			any = i;
			break;
		}
	}
	taken[any] = true;
	return any;
}

/*
 * The exact fill (place_exact.c) over the leftovers as they were before
 * the greedy ran: group by group, each group's leftovers laid end to end
 * and cut into units (the short unit, if any, first in its group and
 * last in the plan); what is past a group's last unit stays spare. Items
 * of one size are taken from the group's subtree when one has them.
 * Returns false (positions untouched) when the search gives up or does no
 * better than `greedy` extra pieces.
 */
static bool fill_exact(packer *p, const uint64_t *used0, uint64_t from,
		       uint64_t units, uint64_t short_unit,
		       uint64_t unit_cells, uint64_t greedy, bool *oom)
{
	vrun *v = malloc((p->nrun + 1) * sizeof(*v));
	uint64_t *val = malloc((p->nrun + 1) * sizeof(*val));
	uint64_t *cnt = malloc((p->nrun + 1) * sizeof(*cnt));
	uint64_t *off = malloc((p->nrun + 2) * sizeof(*off));
	uint64_t *tail = malloc((short_unit + 1) * sizeof(*tail));
	bool *taken = calloc(p->nrun + 1, sizeof(*taken));
	rmi_xsol sol = { 0 };
	bool ok = false;
	if (!v || !val || !cnt || !off || !tail || !taken) {
		*oom = true;
		goto out;
	}
	uint64_t n = 0, ntail = 0;
	uint32_t d = 0;
	for (uint64_t r = 0; r < p->nrun; r++) {
		uint64_t rest = p->runs[r].len - used0[r];
		if (!rest)
			continue;
		if (rest >= unit_cells)
			goto out;    /* whole units left: not our case */
		const topg *t = &p->tops[p->runs[r].tix];
		v[n++] = (vrun){ rest, t->used ? t->rank : 0x80000000u + t->rank,
				 p->runs[r].top, r };
	}
	qsort(v, n, sizeof(*v), cmp_vrun);
	for (uint64_t i = 0; i < n; i++) {
		if (!d || val[d - 1] != v[i].val) {
			val[d] = v[i].val;
			cnt[d] = 0;
			off[d++] = i;
		}
		cnt[d - 1]++;
	}
	off[d] = n;
	rm_error e;
	if (rmi_split_exact(val, cnt, d, unit_cells, units, short_unit,
			    RMI_EXACT_BUDGET, greedy, &sol, &e)) {
		*oom = true;
		goto out;
	}
	if (!sol.exact) {
		rmi_xsol_free(&sol);
		if (rmi_split_search(val, cnt, d, unit_cells, units, short_unit,
				     RMI_EXACT_BUDGET * 4, greedy, &sol, &e)) {
			*oom = true;
			goto out;
		}
	}
	if (!sol.traced || sol.cost >= greedy)
		goto out;
	for (uint64_t r = 0; r < p->nrun; r++)
		p->runs[r].used = used0[r];
	p->npos = from;
	for (uint64_t i = 0; i < sol.nitem;) {
		/* one group: items i..j-1 */
		uint64_t j = i + 1, total = 0;
		while (j < sol.nitem && !sol.first[j])
			j++;
		uint32_t top = UINT32_MAX;
		for (uint64_t k = i; k < j; k++)
			total += val[sol.item[k]];
		uint64_t lead = sol.first[i] == 2 ? short_unit : 0;
		uint64_t keep = lead + (total - lead) / unit_cells * unit_cells;
		for (uint64_t k = i; k < j && keep; k++) {
			uint64_t at = pick(v, off, sol.item[k], top, taken);
			run *ru = &p->runs[v[at].r];
			if (top == UINT32_MAX)
				top = v[at].top;
			uint64_t take = v[at].val < keep ? v[at].val : keep;
			for (uint64_t c = 0; c < take; c++) {
				uint64_t cell = ru->start + ru->used++;
				if (lead) {
					tail[ntail++] = cell;
					lead--;
				} else {
					p->pos[p->npos++] = cell;
				}
			}
			keep -= take;
		}
		i = j;
	}
	for (uint64_t i = 0; i < ntail; i++)
		p->pos[p->npos++] = tail[i];
	ok = true;
out:
	rmi_xsol_free(&sol);
	free(v);
	free(val);
	free(cnt);
	free(off);
	free(tail);
	free(taken);
	return ok;
}

static int cmp_u64_desc(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a > b ? -1 : a < b;
}

/*
 * A lower bound on the extra pieces of any fill: every split unit needs
 * at least k leftovers (the k largest are the fewest that add up to a
 * unit), and all of them together need at least l leftovers (the fewest
 * that hold every cell still wanted) in at most units + 1 groups. When
 * the greedy meets it, there is nothing to search for.
 */
static uint64_t fewest_extra(const packer *p, const uint64_t *used0,
			     uint64_t units, uint64_t short_unit,
			     uint64_t unit_cells)
{
	uint64_t *v = malloc((p->nrun + 1) * sizeof(*v)), n = 0;
	if (!v)
		return units;
	for (uint64_t r = 0; r < p->nrun; r++)
		if (p->runs[r].len > used0[r])
			v[n++] = p->runs[r].len - used0[r];
	qsort(v, n, sizeof(*v), cmp_u64_desc);
	uint64_t k = 0, l = 0, sum = 0;
	while (k < n && sum < unit_cells)
		sum += v[k++];
	sum = 0;
	while (l < n && sum < units * unit_cells + short_unit)
		sum += v[l++];
	free(v);
	uint64_t groups = units + (short_unit != 0);
	uint64_t a = units * (k > 1 ? k - 1 : 1);
	uint64_t b = l > groups ? l - groups : 0;
	return a > b ? a : b;
}

/*
 * With surplus cells there are two reasonable greedy fills: set the
 * smallest pieces aside first, or let the best-fit walk leave whatever it
 * leaves. Both are linear; keep the one with fewer pieces (the first on a
 * tie). When that is not provably the fewest (one extra piece per split
 * unit), the exact search gets a bounded try.
 */
rm_status rmi_fill_split(packer *p, uint64_t need, uint64_t unit_cells,
			 rm_error *err)
{
	uint64_t from = p->npos;
	uint64_t *used0 = malloc((p->nrun + 1) * sizeof(*used0));
	uint32_t *run_of = malloc((p->nrun ? p->runs[p->nrun - 1].start +
						     p->runs[p->nrun - 1].len
					   : 0) * sizeof(*run_of) + 4);
	uint64_t *pos_a = malloc((need - from + 1) * sizeof(*pos_a));
	if (!used0 || !run_of || !pos_a) {
		free(used0);
		free(run_of);
		free(pos_a);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint64_t r = 0; r < p->nrun; r++) {
		used0[r] = p->runs[r].used;
		for (uint64_t c = 0; c < p->runs[r].len; c++)
			run_of[p->runs[r].start + c] = (uint32_t)r;
	}
	rm_status st = fill_split(p, need, unit_cells, true, err);
	bool surplus = false;
	for (uint64_t r = 0; r < p->nrun && !st; r++)
		surplus |= p->runs[r].spare;
	uint64_t pa = st ? 0 : count_pieces(p, run_of, from, unit_cells);
	if (!st && surplus) {
		uint64_t na = p->npos;
		memcpy(pos_a, p->pos + from, (na - from) * sizeof(*pos_a));
		for (uint64_t r = 0; r < p->nrun; r++) {
			p->runs[r].used = used0[r];
			p->runs[r].spare = false;
		}
		p->npos = from;
		st = fill_split(p, need, unit_cells, false, err);
		uint64_t pb = st ? 0 : count_pieces(p, run_of, from, unit_cells);
		if (!st && pb >= pa) {
			memcpy(p->pos + from, pos_a,
			       (na - from) * sizeof(*pos_a));
			p->npos = na;
		} else if (!st) {
			pa = pb;
		}
	}
	uint64_t units = (need - from) / unit_cells;
	uint64_t short_unit = (need - from) % unit_cells;
	uint64_t extra = pa - units - (short_unit != 0);
	bool oom = false;
	if (!st && extra > fewest_extra(p, used0, units, short_unit, unit_cells))
		fill_exact(p, used0, from, units, short_unit, unit_cells,
			   extra, &oom);
	if (!st && oom)
		st = rmi_err(err, RM_ENOMEM, "out of memory");
	free(used0);
	free(run_of);
	free(pos_a);
	return st;
}
