/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_suggest_order.c - the search suggest runs: every layout's memory
 * first (which micro-batches fit, or why none does), then the layouts
 * that fit timed in the order of their floor (model_suggest_bound.c),
 * until the floor passes what the report can show: its top rows, the
 * rows within 5 % of #1 and the compared layout. A MoE model has some
 * 14 x a dense one's layouts and most are far behind #1; timing them
 * all was 12 x the dense search's time (issue 35). What is reported is
 * the reference search's (rmi_suggest_reference), row for row.
 */
#include "model/model_suggest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A layout that fits: its place in the enumeration, floor, micro-batches. */
typedef struct item {
	size_t idx;
	double bound;
	unsigned mask;
	bool own;                    /* bound with its own EP links */
	rmi_ep_memo memo;            /* those links, once found */
	rmi_bound_keep keep;         /* the first floor's terms, for the second */
} item;

static bool before(const item *x, const item *y)
{
	return x->bound != y->bound ? x->bound < y->bound : x->idx < y->idx;
}

/* A binary heap of places in it[], least floor on top: an item is some
 * 300 bytes, and moving them was a thirtieth of a MoE search's time. */
static void sift_down(const item *it, uint32_t *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && before(&it[h[l]], &it[h[m]]))
			m = l;
		if (l + 1 < n && before(&it[h[l + 1]], &it[h[m]]))
			m = l + 1;
		if (m == i)
			return;
		uint32_t x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

/* A timed layout and its place in the enumeration. */
typedef struct timed {
	size_t idx;
	rm_candidate c;
} timed;

static int by_idx(const void *a, const void *b)
{
	const timed *x = a, *y = b;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The k fastest steps timed so far, fastest first, and the slowest step
 * the report must rank whatever else is found (the compared layout). */
typedef struct cutoff {
	double *t;
	size_t k, n;
	double floor;
} cutoff;

static void cut_add(cutoff *c, double t)
{
	size_t i;
	if (c->n == c->k) {
		if (t >= c->t[c->k - 1])
			return;
		i = c->k - 1;
	} else {
		i = c->n++;
	}
	while (i > 0 && c->t[i - 1] > t) {
		c->t[i] = c->t[i - 1];
		i--;
	}
	c->t[i] = t;
}

/* The slowest step the report can show: the k-th fastest (its last top
 * row), 1.05 x #1 (the rows it counts as within 5 %), the compared
 * layout; unbounded while fewer than k are timed. */
static double cut_of(const cutoff *c)
{
	if (c->n < c->k)
		return HUGE_VAL;
	return fmax(fmax(c->t[c->k - 1], 1.05 * c->t[0]), c->floor);
}

/* The compared layout's step, as fits and as with unlimited memory:
 * where it ranks is counted against both (model_suggest_around.c). */
static double around_floor(const rmi_search *q)
{
	const rm_layout *o = q->o->around;
	if (!o || rm_layout_world(o) != q->gpus)
		return 0;
	rm_layout a;
	if (!rmi_suggest_layout_ep(&a, o->size[RM_AXIS_TP],
				   o->size[RM_AXIS_CP], o->size[RM_AXIS_PP],
				   rm_layout_dp(o), rm_layout_ep(o),
				   rm_layout_etp(o)))
		a = *o;
	rm_hw big = *q->hw;
	big.hbm_bytes = 1e15;
	rm_candidate c;
	double f = 0;
	if (rmi_best_micro_batch(q, q->hw, &a, &c, NULL, NULL))
		f = c.est.t_step;
	if (rmi_best_micro_batch(q, &big, &a, &c, NULL, NULL))
		f = fmax(f, c.est.t_step);
	return f;
}

/* c among the RMI_REJECTS_SHOWN nearest to fitting kept in s->rejected
 * (room for them made by the caller), in rmi_by_mem's order, the first
 * of equals first: the rows a stable sort of all of them puts on top,
 * which is what the reference lists. A MoE search rejects some 800
 * layouts, and keeping (and sorting) all of them was 4 % of its time. */
static void keep_reject(rm_suggestion *s, const rm_candidate *c)
{
	size_t n = s->nrejected, i = n;
	while (i > 0 && rmi_by_mem(c, &s->rejected[i - 1]) < 0)
		i--;
	if (i == RMI_REJECTS_SHOWN)
		return;
	if (n == RMI_REJECTS_SHOWN)
		n--;                        /* the last one drops out */
	memmove(&s->rejected[i + 1], &s->rejected[i],
		(n - i) * sizeof(*s->rejected));
	s->rejected[i] = *c;
	s->nrejected = n + 1;
}

/* Memory of every layout: counted, the nearest rejects kept (their
 * memory is all their order needs), those that fit with their floor in
 * it. */
static bool scan(const rmi_search *q, const rm_layout *lay, size_t n,
		 rm_suggestion *s, item *it, size_t *ni)
{
	s->rejected = malloc(RMI_REJECTS_SHOWN * sizeof(*s->rejected));
	if (!s->rejected)
		return false;
	rmi_ep_memo fast;
	rmi_suggest_fast_links(q, &fast);
	for (size_t i = 0; i < n; i++) {
		rmi_fit f;
		rmi_fit_scan(q, &lay[i], &f);
		s->considered += f.nmb;
		if (f.mask) {
			s->nfit++;
			item *x = &it[(*ni)++];
			memset(x, 0, sizeof(*x));
			x->idx = i;
			x->mask = f.mask;
			x->bound = rmi_suggest_bound(q, &lay[i], f.mask, &fast,
						     &x->keep);
		} else if (!f.mem) {
			s->rejected_other++;
		} else {
			s->rejected_mem++;
			/* most rejects are not among the nearest: their
			 * estimate is copied only when one is */
			if (s->nrejected == RMI_REJECTS_SHOWN &&
			    f.near.mem_peak - f.near.hbm >=
			    s->rejected[RMI_REJECTS_SHOWN - 1].est.mem_peak -
			    s->rejected[RMI_REJECTS_SHOWN - 1].est.hbm)
				continue;
			rm_candidate c;
			memset(&c, 0, sizeof(c));
			c.est = f.near;
			keep_reject(s, &c);
		}
	}
	return true;
}

/* The rejects the report lists (the five nearest to fitting, in order)
 * priced as the reference prices them. */
static void price_rejects(const rmi_search *q, rm_suggestion *s)
{
	for (size_t i = 0; i < s->nrejected; i++) {
		rm_candidate *c = &s->rejected[i];
		rm_layout l = c->est.layout;
		rmi_best_schedule(q->m, q->hw, q->t, &l, c->est.micro_batch,
				  q->o->schedules, q->o->recomputes, c);
	}
}

bool rmi_suggest_ordered(const rmi_search *q, const rm_layout *lay, size_t n,
			 rm_suggestion *s)
{
	size_t k = q->o->top ? q->o->top : 10, ni = 0, nt = 0;
	item *it = malloc((n ? n : 1) * sizeof(*it));
	uint32_t *h = malloc((n ? n : 1) * sizeof(*h));
	timed *got = malloc((n ? n : 1) * sizeof(*got));
	cutoff cut = { .t = malloc(k * sizeof(double)), .k = k,
		       .floor = around_floor(q) };
	/* places in it[] are uint32_t: the search's layouts, far fewer */
	bool ok = n <= UINT32_MAX && it && h && got && cut.t &&
		  scan(q, lay, n, s, it, &ni);
	if (ok) {
		for (size_t j = 0; j < ni; j++)
			h[j] = (uint32_t)j;
		for (size_t j = ni / 2; j-- > 0;)
			sift_down(it, h, ni, j);
		/* a layout whose floor is past the cut cannot be in the
		 * report; the margin keeps any layout not timed more than
		 * 1e-6 (by_time's tie) behind every row kept below. The
		 * floor with the fastest links comes first; the layout's
		 * own links raise it before it is timed. */
		while (ni && it[h[0]].bound <= cut_of(&cut) * (1 + 1e-4)) {
			item *x = &it[h[0]];
			if (!x->own) {
				x->bound = rmi_suggest_bound(q, &lay[x->idx],
							     x->mask,
							     &x->memo,
							     &x->keep);
				x->own = true;
				sift_down(it, h, ni, 0);
				continue;
			}
			timed *g = &got[nt];
			g->idx = x->idx;
			bool ok2 = rmi_price_fitting(q, &lay[g->idx], x->mask,
						     &x->memo, &g->c,
						     &s->priced);
			h[0] = h[--ni];
			sift_down(it, h, ni, 0);
			if (!ok2)
				continue;
			cut_add(&cut, g->c.est.t_step);
			nt++;
		}
		/* the reference's order: enumeration, then a stable sort */
		qsort(got, nt, sizeof(*got), by_idx);
		s->ranked = malloc((nt ? nt : 1) * sizeof(*s->ranked));
		ok = s->ranked != NULL;
	}
	if (ok) {
		for (size_t j = 0; j < nt; j++)
			s->ranked[j] = got[j].c;
		qsort(s->ranked, nt, sizeof(*s->ranked), rmi_by_time);
		double keep = cut_of(&cut) * (1 + 5e-5);
		while (s->nranked < nt && s->ranked[s->nranked].est.t_step <= keep)
			s->nranked++;
		price_rejects(q, s);
	}
	free(it);
	free(h);
	free(got);
	free(cut.t);
	return ok;
}
