/*
 * place_exact.c - the exact answer to "build `need` units of U cells from
 * leaf leftovers with the fewest pieces".
 *
 * Whole units come out of single leaves for free; what is left of a leaf
 * is a residue r < U. A split unit is made of residues, and a set of
 * residues put together (a "group") yields floor(sum / U) units for
 * |group| - 1 extra pieces (a forest argument: a connected set of s leaves
 * and m units needs at least s + m - 1 leaf-unit pairs, and filling the
 * units one after the other reaches it). So the fewest extra pieces is
 *   min sum(|g| - 1)  over disjoint groups with  sum floor(R_g / U) >= need,
 * a bin-packing relative. Items of equal size are interchangeable, so the
 * search runs over counts per distinct size with a memo, under two
 * symmetry cuts that lose no optimum: used items are the largest ones (a
 * bigger item never hurts a group), so each new group starts with the
 * largest item left; inside a group items are added largest first.
 * Every unit costs at least one extra piece, so a state that reaches
 * `need` is final. The memo has a fixed budget; past it the search stops
 * and says it is not exact, and callers fall back to their greedy.
 */
#include "place.h"

#include <stdlib.h>
#include <string.h>

#define INF UINT32_MAX
#define MAX_VALUES 24
#define MAX_DEPTH 4096

typedef struct xs {
	const uint64_t *val;         /* distinct sizes, descending */
	uint32_t *cnt;               /* items left per size */
	uint32_t d;
	uint64_t u, rest;            /* unit size; sum of items left */
	uint32_t *keys;              /* memo: d + 3 words per slot */
	uint32_t *cost;              /* INF - 1 = empty slot */
	size_t cap, used, budget;
	bool abort;
} xs;

#define EMPTY (INF - 1)

static size_t slot_of(xs *x, uint32_t f, uint32_t need, uint32_t j,
		      bool *found)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint32_t i = 0; i < x->d; i++)
		h = (h ^ x->cnt[i]) * 0x100000001b3ull;
	h = (h ^ f) * 0x100000001b3ull;
	h = (h ^ need) * 0x100000001b3ull;
	h = (h ^ j) * 0x100000001b3ull;
	size_t w = x->d + 3, s = (size_t)(h ^ (h >> 29)) & (x->cap - 1);
	for (;; s = (s + 1) & (x->cap - 1)) {
		uint32_t *k = x->keys + s * w;
		if (x->cost[s] == EMPTY) {
			*found = false;
			return s;
		}
		if (k[x->d] == f && k[x->d + 1] == need && k[x->d + 2] == j &&
		    memcmp(k, x->cnt, x->d * sizeof(uint32_t)) == 0) {
			*found = true;
			return s;
		}
	}
}

static uint32_t go(xs *x, uint32_t f, uint32_t need, uint32_t j,
		   uint32_t depth);

/* A new group starts with the largest item left. */
static uint32_t start(xs *x, uint32_t need, uint32_t depth)
{
	uint32_t j = 0;
	while (j < x->d && !x->cnt[j])
		j++;
	if (j == x->d)
		return INF;
	x->cnt[j]--;
	x->rest -= x->val[j];
	uint32_t c = go(x, (uint32_t)x->val[j], need, j, depth + 1);
	x->cnt[j]++;
	x->rest += x->val[j];
	return c;
}

/* Fewest extra pieces for `need` more units; f is the open group's fill
 * past its last whole unit (0: no group open), j the smallest size index
 * it may still take. */
static uint32_t go(xs *x, uint32_t f, uint32_t need, uint32_t j,
		   uint32_t depth)
{
	if (need == 0)
		return 0;
	if (x->abort || depth > MAX_DEPTH) {
		x->abort = true;
		return INF;
	}
	if (x->rest + f < (uint64_t)need * x->u)
		return INF;
	if (f == 0)
		return start(x, need, depth);
	bool found;
	size_t s = slot_of(x, f, need, j, &found);
	if (found)
		return x->cost[s];
	if (x->used >= x->budget) {
		x->abort = true;
		return INF;
	}
	uint32_t best = start(x, need, depth);   /* close this group */
	for (uint32_t k = j; k < x->d && best > need; k++) {
		if (!x->cnt[k])
			continue;
		uint64_t t = f + x->val[k];
		x->cnt[k]--;
		x->rest -= x->val[k];
		uint32_t c = go(x, (uint32_t)(t % x->u),
				need - (t >= x->u), k, depth + 1);
		x->cnt[k]++;
		x->rest += x->val[k];
		if (c != INF && c + 1 < best)
			best = c + 1;
	}
	if (x->abort)
		return INF;
	/* the table may have grown in the recursion: find the slot again */
	s = slot_of(x, f, need, j, &found);
	uint32_t *k = x->keys + s * (x->d + 3);
	memcpy(k, x->cnt, x->d * sizeof(uint32_t));
	k[x->d] = f;
	k[x->d + 1] = need;
	k[x->d + 2] = j;
	x->cost[s] = best;
	x->used++;
	return best;
}

/* Walk the memo down the optimum and write the items in group order. */
static bool trace(xs *x, uint32_t need, uint32_t *item, bool *first,
		  uint64_t *n)
{
	uint32_t f = 0, j = 0, want = 0;
	while (need) {
		bool step = false;
		if (f == 0) {
			j = 0;
			while (!x->cnt[j])
				j++;
			want = go(x, 0, need, 0, 0);
			x->cnt[j]--;
			x->rest -= x->val[j];
			first[*n] = true;
			item[(*n)++] = j;
			f = (uint32_t)x->val[j];
			continue;
		}
		if (start(x, need, 0) == want) {
			f = 0;
			continue;
		}
		if (x->abort)
			return false;
		for (uint32_t k = j; k < x->d; k++) {
			if (!x->cnt[k])
				continue;
			uint64_t t = f + x->val[k];
			x->cnt[k]--;
			x->rest -= x->val[k];
			uint32_t n2 = need - (t >= x->u);
			uint32_t c = go(x, (uint32_t)(t % x->u), n2, k, 0);
			if (c != INF && c + 1 == want) {
				first[*n] = false;
				item[(*n)++] = k;
				f = (uint32_t)(t % x->u);
				need = n2;
				j = k;
				want = c;
				step = true;
				break;
			}
			x->cnt[k]++;
			x->rest += x->val[k];
		}
		if (!step)
			return false;
	}
	return true;
}

rm_status rmi_split_exact(const uint64_t *val, const uint64_t *cnt,
			  uint32_t d, uint64_t u, uint64_t need,
			  size_t budget, rmi_xsol *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	out->cost = UINT64_MAX;
	uint64_t items = 0, sum = 0;
	for (uint32_t i = 0; i < d; i++) {
		items += cnt[i];
		sum += val[i] * cnt[i];
	}
	if (need == 0) {
		out->cost = 0;
		out->exact = true;
		return RM_OK;
	}
	if (d == 0 || d > MAX_VALUES || u >= INF || need >= INF / 2 ||
	    items >= INF / 2 || sum < need * u)
		return RM_OK;            /* not exact: the caller's greedy */
	xs x;
	memset(&x, 0, sizeof(x));
	x.val = val;
	x.d = d;
	x.u = u;
	x.rest = sum;
	x.budget = budget;
	x.cap = 16;
	while (x.cap < 2 * budget + 2)
		x.cap *= 2;
	x.cnt = malloc(d * sizeof(uint32_t));
	x.keys = malloc(x.cap * (d + 3) * sizeof(uint32_t));
	x.cost = malloc(x.cap * sizeof(uint32_t));
	out->item = malloc((items + 1) * sizeof(uint32_t));
	out->first = malloc((items + 1) * sizeof(bool));
	if (!x.cnt || !x.keys || !x.cost || !out->item || !out->first) {
		free(x.cnt);
		free(x.keys);
		free(x.cost);
		rmi_xsol_free(out);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < d; i++)
		x.cnt[i] = (uint32_t)cnt[i];
	for (size_t i = 0; i < x.cap; i++)
		x.cost[i] = EMPTY;
	uint32_t c = go(&x, 0, (uint32_t)need, 0, 0);
	if (!x.abort && c != INF) {
		out->cost = c;
		out->exact = true;
		out->traced = trace(&x, (uint32_t)need, out->item,
				    out->first, &out->nitem);
	}
	free(x.cnt);
	free(x.keys);
	free(x.cost);
	return RM_OK;
}

void rmi_xsol_free(rmi_xsol *s)
{
	free(s->item);
	free(s->first);
	memset(s, 0, sizeof(*s));
}
