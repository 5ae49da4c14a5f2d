/* SPDX-License-Identifier: Apache-2.0 */
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
#include "place/place.h"

#include <stdlib.h>
#include <string.h>

#define INF UINT32_MAX
#define MAX_VALUES 24
#define MAX_DEPTH 4096

/* A search state. The short unit (p cells, when the cells needed are not
 * a whole number of units) belongs to one group and comes first in it:
 * such a group starts with a phantom fill of u - p, so its first wrap
 * completes the short unit. */
typedef struct st {
	uint32_t f;                  /* fill past the last whole unit */
	uint32_t need;               /* full units still to build */
	uint32_t j;                  /* smallest size index still allowed */
	uint32_t pb;                 /* 1: short unit not built yet */
	uint32_t pin;                /* 1: ... and this group builds it */
} st;

typedef struct xs {
	const uint64_t *val;         /* distinct sizes, descending */
	uint32_t *cnt;               /* items left per size */
	uint32_t d;
	uint64_t u, p, rest;         /* unit, short unit, sum of items left */
	uint32_t *keys;              /* memo: d + 4 words per slot */
	uint32_t *fail;              /* memo: 1 + largest budget that failed */
	size_t cap, used;
	uint64_t steps, limit;
	uint32_t *item;              /* the path being tried */
	uint8_t *first;
	uint64_t n;
	bool abort;
} xs;

#define KW(x) ((x)->d + 4)

static size_t slot_of(xs *x, const st *a, bool *found)
{
	uint32_t tail[4] = { a->f, a->need, a->j, a->pb | a->pin << 1 };
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint32_t i = 0; i < x->d; i++)
		h = (h ^ x->cnt[i]) * 0x100000001b3ull;
	for (int i = 0; i < 4; i++)
		h = (h ^ tail[i]) * 0x100000001b3ull;
	size_t s = (size_t)(h ^ (h >> 29)) & (x->cap - 1);
	for (;; s = (s + 1) & (x->cap - 1)) {
		uint32_t *k = x->keys + s * KW(x);
		if (x->fail[s] == 0) {
			*found = false;
			return s;
		}
		if (memcmp(k + x->d, tail, sizeof(tail)) == 0 &&
		    memcmp(k, x->cnt, x->d * sizeof(uint32_t)) == 0) {
			*found = true;
			return s;
		}
	}
}

static void take(xs *x, uint32_t k, int sign)
{
	x->cnt[k] -= (uint32_t)sign;
	x->rest -= (uint64_t)sign * x->val[k];
}

/* Add an item of size index k to the open group (fill f, plus the
 * phantom when pin). */
static st add(const xs *x, st a, uint32_t k)
{
	uint64_t t = a.f + x->val[k];
	a.j = k;
	if (t >= x->u) {
		if (a.pin)
			a.pin = a.pb = 0;
		else
			a.need--;
		t -= x->u;
	}
	a.f = (uint32_t)t;
	return a;
}

/*
 * A lower bound on the extra pieces still to come from state a. Every
 * full unit is completed by an item added to an open group, one piece
 * each. And the pieces still to come are (items still used) - (groups
 * still started); at most one new group per unit still wanted (a group
 * that builds nothing is never worth its pieces), and the items must
 * cover the cells still wanted, so they are at least as many as the
 * largest items that cover them. The second bound is what makes fabrics
 * with many small leftovers quick to prove.
 */
/* Most disjoint pairs of items left that add up to a unit: the smallest
 * item goes with the largest while they reach it, else is dropped. */
static uint64_t pairs(const xs *x)
{
	uint64_t n = 0;
	uint32_t lo = x->d, hi = 0;
	uint64_t lo_left = 0, hi_left = 0;
	while (true) {
		while (!lo_left && lo > 0)
			lo_left = x->cnt[--lo];
		while (!hi_left && hi < x->d)
			hi_left = x->cnt[hi++];
		if (!lo_left || !hi_left || hi - 1 > lo)
			break;
		if (hi - 1 == lo) {          /* one size left: pair within it */
			uint64_t k = lo_left + hi_left - x->cnt[lo];
			if (2 * x->val[lo] >= x->u)
				n += k / 2;
			break;
		}
		if (x->val[lo] + x->val[hi - 1] >= x->u) {
			uint64_t k = lo_left < hi_left ? lo_left : hi_left;
			n += k;
			lo_left -= k;
			hi_left -= k;
		} else {
			lo_left = 0;
		}
	}
	return n;
}

static uint32_t lower(const xs *x, const st *a)
{
	uint64_t want = (uint64_t)a->need * x->u +
			(a->pin ? x->u : a->pb ? x->p : 0);
	uint64_t rem = want > a->f ? want - a->f : 0, items = 0;
	for (uint32_t k = 0; k < x->d && rem; k++) {
		uint64_t all = x->cnt[k] * x->val[k];
		if (all < rem) {
			items += x->cnt[k];
			rem -= all;
		} else {
			items += (rem + x->val[k] - 1) / x->val[k];
			rem = 0;
		}
	}
	if (rem)
		return INF;
	uint64_t groups = (uint64_t)a->need, q = pairs(x);
	if (q > items / 2)
		q = items / 2;
	/* a new group of two items must be one of the disjoint pairs that
	 * reach a unit; any other has three or more */
	if (q + (items - 2 * q) / 3 < groups)
		groups = q + (items - 2 * q) / 3;
	groups += a->pb && !a->pin;  /* the short unit may be one item */
	uint64_t b = items > groups ? items - groups : 0;
	return (uint32_t)(b > a->need ? b : a->need);
}

static bool dfs(xs *x, st a, uint32_t budget);

static uint32_t first_left(const xs *x)
{
	uint32_t j = 0;
	while (j < x->d && !x->cnt[j])
		j++;
	return j;
}

static bool push(xs *x, st a, uint32_t k, uint8_t first, uint32_t budget)
{
	take(x, k, 1);
	x->first[x->n] = first;
	x->item[x->n++] = k;
	if (dfs(x, add(x, a, k), budget))
		return true;
	x->n--;
	take(x, k, -1);
	return false;
}

/* A new group starts with the largest item left, carrying the short
 * unit or not. */
static bool start(xs *x, st a, uint32_t budget)
{
	uint32_t j = first_left(x);
	if (j == x->d)
		return false;
	st b = { 0, a.need, 0, a.pb, 0 };
	if (push(x, b, j, 1, budget))
		return true;
	if (!a.pb)
		return false;
	b.f = (uint32_t)(x->u - x->p);
	b.pin = 1;
	return push(x, b, j, 2, budget);
}

/* Can state a be finished with at most `budget` extra pieces? On yes,
 * x->item/first hold the path. */
static bool dfs(xs *x, st a, uint32_t budget)
{
	if (a.need == 0 && !a.pb)
		return true;
	if (x->abort || ++x->steps > x->limit || x->n >= MAX_DEPTH) {
		x->abort = true;
		return false;
	}
	if (lower(x, &a) > budget)
		return false;
	bool found;
	size_t s = slot_of(x, &a, &found);
	if (found && x->fail[s] > budget)
		return false;
	bool ok;
	if (a.f == 0 && !a.pin) {
		ok = start(x, a, budget);
	} else {
		/* close this group (a group carrying the short unit must
		 * build it first), or add a not larger item */
		/* best fit first: the items that complete a unit, least
		 * waste first, then the others, largest first, then close */
		uint64_t gap = x->u - a.f;
		uint32_t kc = a.j;
		while (kc < x->d && x->val[kc] >= gap)
			kc++;
		ok = false;
		for (uint32_t k = kc; k-- > a.j && !ok && budget;)
			if (x->cnt[k])
				ok = push(x, a, k, 0, budget - 1);
		ok = ok || (!a.pin && start(x, a, budget));
		for (uint32_t k = kc; k < x->d && !ok && budget; k++)
			if (x->cnt[k])
				ok = push(x, a, k, 0, budget - 1);
	}
	if (ok || x->abort)
		return ok;
	/* the table may have changed in the recursion: find the slot again */
	s = slot_of(x, &a, &found);
	if (!found) {
		if (x->used + 1 >= x->cap / 2)
			return false;        /* full: remember nothing new */
		uint32_t *k = x->keys + s * KW(x);
		memcpy(k, x->cnt, x->d * sizeof(uint32_t));
		k[x->d] = a.f;
		k[x->d + 1] = a.need;
		k[x->d + 2] = a.j;
		k[x->d + 3] = a.pb | a.pin << 1;
		x->used++;
	}
	if (x->fail[s] < budget + 1)
		x->fail[s] = budget + 1;
	return false;
}

/*
 * What both searches share: the leftovers' total, and whether the input is
 * one they handle at all (otherwise the caller keeps its greedy fill).
 */
static bool xs_init(xs *x, const uint64_t *val, const uint64_t *cnt,
		    uint32_t d, uint64_t u, uint64_t need, uint64_t p,
		    uint64_t *items)
{
	uint64_t n = 0, sum = 0;
	for (uint32_t i = 0; i < d; i++) {
		n += cnt[i];
		sum += val[i] * cnt[i];
	}
	*items = n;
	memset(x, 0, sizeof(*x));
	if (d == 0 || u >= INF / 2 || p >= u || need >= INF / 2 ||
	    n >= INF / 2 || sum < need * u + p)
		return false;
	x->val = val;
	x->d = d;
	x->u = u;
	x->p = p;
	x->rest = sum;
	return true;
}

static uint32_t *cnt_copy(const uint64_t *cnt, uint32_t d)
{
	uint32_t *c = malloc(d * sizeof(uint32_t));
	for (uint32_t i = 0; c && i < d; i++)
		c[i] = (uint32_t)cnt[i];
	return c;
}

/*
 * Iterative deepening from the lower bound: try to finish with c extra
 * pieces for c = bound, bound + 1, ... below `ub`; the first c that
 * works is the optimum, and every c that fails raises the proven bound.
 * The memo keeps, per state, the largest budget it failed with, so the
 * rounds share their work.
 */
rm_status rmi_split_exact(const uint64_t *val, const uint64_t *cnt,
			  uint32_t d, uint64_t u, uint64_t need, uint64_t p,
			  size_t budget, uint64_t ub, rmi_xsol *out,
			  rm_error *err)
{
	memset(out, 0, sizeof(*out));
	out->cost = UINT64_MAX;
	if (need == 0 && p == 0) {
		out->cost = 0;
		out->exact = out->traced = true;
		return RM_OK;
	}
	xs x;
	uint64_t items;
	if (!xs_init(&x, val, cnt, d, u, need, p, &items) || d > MAX_VALUES)
		return RM_OK;            /* not exact: the caller's greedy */
	x.limit = (uint64_t)budget * 16;
	x.cap = 16;
	while (x.cap < 2 * budget + 2)
		x.cap *= 2;
	x.cnt = cnt_copy(cnt, d);
	x.keys = malloc(x.cap * KW(&x) * sizeof(uint32_t));
	x.fail = calloc(x.cap, sizeof(uint32_t));
	out->item = malloc((items + 1) * sizeof(uint32_t));
	out->first = malloc((items + 1) * sizeof(uint8_t));
	x.item = out->item;
	x.first = out->first;
	if (!x.cnt || !x.keys || !x.fail || !out->item || !out->first) {
		free(x.cnt);
		free(x.keys);
		free(x.fail);
		rmi_xsol_free(out);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	st a0 = { 0, (uint32_t)need, 0, p != 0, 0 };
	uint64_t c = lower(&x, &a0);
	if (ub > items)
		ub = items + 1;      /* no fill costs more than its items */
	for (; c < ub; c++) {
		if (dfs(&x, a0, (uint32_t)c)) {
			out->cost = c;
			out->exact = out->traced = true;
			out->nitem = x.n;
			break;
		}
		if (x.abort)
			break;
	}
	out->lower = c;
	if (!out->exact && !x.abort && c == ub && ub <= items) {
		out->cost = ub;          /* nothing below ub: ub is the optimum */
		out->exact = true;
	}
	free(x.cnt);
	free(x.keys);
	free(x.fail);
	return RM_OK;
}

/*
 * When the memo passes its budget, a plain depth-first search with the
 * same moves still looks for a fill better than the caller's (cost below
 * `ub`): every unit still needed costs at least one more piece, which
 * cuts most branches. What it finds is better, not proven best.
 */
typedef struct bb {
	xs *x;
	uint32_t ub;                 /* best cost so far (exclusive bound) */
	uint32_t *item, *best_item;
	uint8_t *first, *best_first;
	uint64_t n, best_n, steps, limit;
} bb;

static void bb_go(bb *b, st a, uint32_t cost);

static void bb_start(bb *b, st a, uint32_t cost, bool pin)
{
	xs *x = b->x;
	uint32_t j = first_left(x);
	if (j == x->d)
		return;
	a.f = pin ? (uint32_t)(x->u - x->p) : 0;
	a.pin = pin;
	take(x, j, 1);
	b->first[b->n] = pin ? 2 : 1;
	b->item[b->n++] = j;
	bb_go(b, add(x, a, j), cost);
	b->n--;
	take(x, j, -1);
}

static void bb_go(bb *b, st a, uint32_t cost)
{
	xs *x = b->x;
	if (a.need == 0 && !a.pb) {
		if (cost < b->ub) {
			b->ub = cost;
			b->best_n = b->n;
			memcpy(b->best_item, b->item, b->n * sizeof(*b->item));
			memcpy(b->best_first, b->first, b->n * sizeof(*b->first));
		}
		return;
	}
	if (++b->steps > b->limit || b->n >= MAX_DEPTH ||
	    (uint64_t)cost + lower(x, &a) >= b->ub)
		return;
	if (a.f == 0 && !a.pin) {
		bb_start(b, (st){ 0, a.need, 0, a.pb, 0 }, cost, false);
		if (a.pb)
			bb_start(b, (st){ 0, a.need, 0, a.pb, 0 }, cost, true);
		return;
	}
	for (uint32_t k = a.j; k < x->d; k++) {
		if (!x->cnt[k])
			continue;
		take(x, k, 1);
		b->first[b->n] = 0;
		b->item[b->n++] = k;
		bb_go(b, add(x, a, k), cost + 1);
		b->n--;
		take(x, k, -1);
	}
	if (!a.pin) {
		st c = { 0, a.need, 0, a.pb, 0 };
		bb_start(b, c, cost, false);
		if (a.pb)
			bb_start(b, c, cost, true);
	}
}

rm_status rmi_split_search(const uint64_t *val, const uint64_t *cnt,
			   uint32_t d, uint64_t u, uint64_t need, uint64_t p,
			   uint64_t steps, uint64_t ub, rmi_xsol *out,
			   rm_error *err)
{
	memset(out, 0, sizeof(*out));
	out->cost = UINT64_MAX;
	xs x;
	uint64_t items;
	if (!xs_init(&x, val, cnt, d, u, need, p, &items) || ub > INF / 2)
		return RM_OK;
	bb b = { &x, (uint32_t)ub, NULL, NULL, NULL, NULL, 0, 0, 0, steps };
	x.cnt = cnt_copy(cnt, d);
	b.item = malloc((items + 1) * sizeof(uint32_t));
	b.best_item = malloc((items + 1) * sizeof(uint32_t));
	b.first = malloc(items + 1);
	b.best_first = malloc(items + 1);
	if (!x.cnt || !b.item || !b.best_item || !b.first || !b.best_first) {
		free(x.cnt);
		free(b.item);
		free(b.best_item);
		free(b.first);
		free(b.best_first);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	bb_go(&b, (st){ 0, (uint32_t)need, 0, p != 0, 0 }, 0);
	free(x.cnt);
	free(b.item);
	free(b.first);
	if (b.ub < ub) {
		out->cost = b.ub;
		out->traced = true;
		out->item = b.best_item;
		out->first = b.best_first;
		out->nitem = b.best_n;
	} else {
		free(b.best_item);
		free(b.best_first);
	}
	return RM_OK;
}

void rmi_xsol_free(rmi_xsol *s)
{
	free(s->item);
	free(s->first);
	memset(s, 0, sizeof(*s));
}
