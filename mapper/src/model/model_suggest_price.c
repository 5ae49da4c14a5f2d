/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_suggest_price.c - pricing for suggest: one layout's fastest valid
 * schedule, recomputation and micro-batch, or why none is valid.
 */
#include "model/model_suggest.h"

#include <stdio.h>
#include <string.h>

/* Megatron-LM's own pipeline schedules: 1F1B and interleaved 1F1B. */
#define MEGATRON_SCHEDULES ((1u << RM_SCHED_1F1B) | (1u << RM_SCHED_INTERLEAVED))

/* Schedule variant i of a stage with ls layers: 0 1f1b, 1 zb-h1, 2 zb-h2,
 * 3 zb-v, 4.. interleaved with v = i - 2 chunks. False past the end. */
static bool sched_variant(uint32_t i, uint32_t pp, uint32_t ls, rm_train *t)
{
	uint32_t last = pp > 1 ? 4 + (ls > 64 ? 64 : ls) - 2 : 0;
	if (i > last)
		return false;
	t->schedule = i == 0 ? RM_SCHED_1F1B : i == 1 ? RM_SCHED_ZBH1 :
		      i == 2 ? RM_SCHED_ZBH2 : i == 3 ? RM_SCHED_ZBV :
		      RM_SCHED_INTERLEAVED;
	t->vchunks = i >= 4 ? i - 2 : t->schedule == RM_SCHED_ZBV ? 2 : 1;
	return true;
}

/* Full recomputation of every layer fits: recompute the fewest layers per
 * chunk that still fit (memory falls, time rises with their number), the
 * rest selective - Megatron's --recompute-num-layers, which counts in each
 * model chunk: with v chunks a stage recomputes a multiple of v. */
static void fewest_full(const rm_model *m, const rm_hw *hw, rm_train *t,
			const rm_layout *l, uint32_t ls, const rmi_shape *ks,
			rmi_ep_memo *memo, rm_estimate *best)
{
	ls /= rmi_chunks(t);           /* layers of one chunk */
	uint32_t lo = 1, hi = ls;      /* hi fits (all layers) */
	rm_estimate x;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		t->recompute_layers = mid;
		if (!rmi_estimate_memo(m, hw, t, l, ks, memo, &x, NULL) &&
		    x.fits)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (hi < ls) {
		t->recompute_layers = hi;
		if (!rmi_estimate_memo(m, hw, t, l, ks, memo, &x, NULL) &&
		    x.fits)
			*best = x;
	}
	t->recompute_layers = 0;
}

/* The layers of the largest stage: interleaving needs its chunks to
 * divide them, and the schedules tried grow with them. */
static uint32_t largest_stage(const rm_model *m, const rm_train *t,
			      uint32_t pp)
{
	return rmi_largest_stage(m, t, pp);
}

/* What rmi_best_schedule keeps between variants: the fastest valid one
 * (found), else the one that misses memory by least (mem), else the
 * first error. */
typedef struct pricing {
	rm_candidate *out;
	rmi_ep_memo *memo;
	const rmi_shape *shape;      /* the search's, or NULL */
	bool found, mem;
	/* the micro-batch is known to fit: a variant that does not is
	 * not timed, found from its memory alone (rmi_estimate_mem) */
	bool fit_first;
	uint32_t mb, ls;
} pricing;

/* The memory reason, worded for a user who will change one setting: the
 * floor (state alone over HBM) says no setting but sharding helps. */
static void why_not_fit(rm_candidate *out, const rm_estimate *e,
			rm_recompute r, uint32_t mb)
{
	double state = e->weights + e->grads + e->optim;
	snprintf(out->why, sizeof(out->why),
		 "does not fit: %.1f GiB per GPU (%s, recompute %s, mb=%u) > "
		 "%.1f GiB HBM, short by %.1f GiB%s",
		 e->mem_peak / RMI_GIB, rm_schedule_name(e->schedule),
		 rm_recompute_name(r), mb, e->hbm / RMI_GIB,
		 (e->mem_peak - e->hbm) / RMI_GIB,
		 state > e->hbm - e->reserve ?
		 "; below the memory floor: weights, gradients and optimizer "
		 "alone exceed HBM" : "");
}

/* Prices the schedule and recomputation in t and keeps it in p as above. */
static void price_variant(const rm_model *m, const rm_hw *hw, rm_train *t,
			  const rm_layout *l, pricing *p)
{
	rm_estimate e;
	memset(&e, 0, sizeof(e));
	rm_error err = { 0 };
	t->recompute_layers = 0;
	if (p->fit_first) {
		/* a variant that fits is what this micro-batch returns, so
		 * one that does not (or is invalid) changes nothing */
		if (rmi_estimate_mem(m, hw, t, l, p->shape, &e, NULL) ||
		    !e.fits)
			return;
		rmi_estimate_time(m, hw, t, p->shape, p->memo, &e);
	} else if (rmi_estimate_memo(m, hw, t, l, p->shape, p->memo, &e,
				     &err)) {
		if (!p->found && !p->mem)
			snprintf(p->out->why, sizeof(p->out->why), "%.250s",
				 err.msg);
		return;
	}
	if (t->recompute == RM_RECOMPUTE_FULL && e.fits && p->ls > 1)
		fewest_full(m, hw, t, l, p->ls, p->shape, p->memo, &e);
	e.recompute = t->recompute;
	if (!e.fits) {
		if (!p->found && (!p->mem || e.mem_peak < p->out->est.mem_peak)) {
			p->out->est = e;
			why_not_fit(p->out, &e, t->recompute, p->mb);
			p->mem = true;
		}
		return;
	}
	if (!p->found || e.t_step < p->out->est.t_step) {
		p->out->est = e;
		p->out->valid = true;
		p->out->why[0] = '\0';
		p->found = true;
	}
}

/* rmi_best_schedule with the layout's EP links in memo (NULL: found
 * afresh for every variant). */
static bool best_schedule(const rm_model *m, const rm_hw *hw,
			  const rm_train *base, const rm_layout *l, uint32_t mb,
			  unsigned allowed, unsigned recomputes,
			  const rmi_shape *ks, rmi_ep_memo *memo,
			  bool fit_first, rm_candidate *out)
{
	rm_train t = *base;
	t.micro_batch = mb;
	memset(out, 0, sizeof(*out));
	if (!allowed)
		allowed = MEGATRON_SCHEDULES;
	if (!recomputes)
		recomputes = 1u << base->recompute;
	uint32_t pp = l->size[RM_AXIS_PP];
	pricing p = { .out = out, .memo = memo, .shape = ks, .mb = mb,
		      .fit_first = fit_first,
		      .ls = largest_stage(m, base, pp) };
	for (int r = 0; r <= RM_RECOMPUTE_FULL; r++) {
		if (!(recomputes & (1u << r)))
			continue;
		t.recompute = (rm_recompute)r;
		for (uint32_t i = 0; sched_variant(i, pp, p.ls, &t); i++)
			if ((allowed & (1u << t.schedule)) &&
			    !(t.schedule == RM_SCHED_INTERLEAVED &&
			      p.ls % t.vchunks))
				price_variant(m, hw, &t, l, &p);
	}
	if (!p.found && p.mem)
		out->est.fits = false;
	return p.found;
}

/* Memory first in out->why: it is the usual reason and the one a user
 * can act on. */
bool rmi_best_schedule(const rm_model *m, const rm_hw *hw,
		       const rm_train *base, const rm_layout *l, uint32_t mb,
		       unsigned allowed, unsigned recomputes, rm_candidate *out)
{
	rmi_ep_memo memo = { 0 };
	return best_schedule(m, hw, base, l, mb, allowed, recomputes, NULL,
			     &memo, false, out);
}

/* Weights, gradients and optimizer state of the fullest stage, with the
 * reserve, over HBM: they do not vary with the micro-batch, schedule or
 * recomputation (rmi_model_memory takes them from the layout and the
 * sharding) and every variant's peak holds them, so no variant of this
 * layout fits at any micro-batch. A hair of slack for rounding: the peak
 * sums the same bytes in another order. */
static bool above_floor(const rm_estimate *e)
{
	double state = e->weights + e->grads + e->optim + e->reserve;
	return state > e->hbm * (1 + 1e-9);
}

/* When none is valid, *best is the first micro-batch that failed for
 * memory alone (mem_peak known): the report lists it among the closest
 * layouts that do not fit. */
bool rmi_best_micro_batch(const rmi_search *q, const rm_hw *hw,
			  const rm_layout *l, rm_candidate *best, bool *mem,
			  size_t *considered)
{
	bool any = false, mem_seen = false;
	rm_candidate c;
	rmi_ep_memo memo = { 0 };
	for (uint32_t mb = 1; mb <= q->max_mb; mb *= 2) {
		if (considered)
			++*considered;
		if (!best_schedule(q->m, hw, q->t, l, mb, q->o->schedules,
				   q->o->recomputes,
				   q->reference ? NULL : &q->shape,
				   q->reference ? NULL : &memo,
				   false, &c)) {
			if (!c.est.fits && c.est.mem_peak > 0 && !mem_seen &&
			    !any) {
				*best = c;
				mem_seen = true;
			}
			if (!q->reference && !c.est.fits && c.est.mem_peak > 0 &&
			    above_floor(&c.est)) {
				/* no larger micro-batch can fit: counted, not
				 * priced */
				for (mb *= 2; mb <= q->max_mb; mb *= 2)
					if (considered)
						++*considered;
				break;
			}
			continue;
		}
		if (!any || c.est.t_step < best->est.t_step)
			*best = c;
		any = true;
	}
	if (mem)
		*mem = mem_seen;
	return any;
}

bool rmi_price_fitting(const rmi_search *q, const rm_layout *l, unsigned mask,
		       rmi_ep_memo *memo, rm_candidate *best, size_t *priced)
{
	bool any = false;
	rm_candidate c;
	for (uint32_t mb = 1, k = 0; mb <= q->max_mb; mb *= 2, k++) {
		if (!(mask & (1u << k)))
			continue;
		++*priced;
		if (!best_schedule(q->m, q->hw, q->t, l, mb, q->o->schedules,
				   q->o->recomputes, &q->shape, memo, true, &c))
			continue;
		if (!any || c.est.t_step < best->est.t_step)
			*best = c;
		any = true;
	}
	return any;
}

/* The variants of a fit scan, and the settings they share. */
typedef struct fitting {
	const rmi_search *q;
	const rm_layout *l;
	unsigned allowed, recomputes;
	uint32_t pp, ls;
	rm_train t;
} fitting;

/* Whether a variant of f->l fits at micro-batch mb, tried as
 * best_schedule tries them: the first that fits settles it; else
 * *near is the one nearest to fitting (the first of equals; *miss when
 * any was valid), what the report would list. With `hopeless`, a
 * first try above the memory floor ends it (*miss, *near that try). */
static bool mb_fits(fitting *f, uint32_t mb, bool hopeless,
		    rm_estimate *near, bool *miss)
{
	rm_train *t = &f->t;
	rm_estimate e;
	t->micro_batch = mb;
	*miss = false;
	/* full recomputation under 1f1b keeps the least: when it fits,
	 * that settles the micro-batch at once */
	if ((f->recomputes & (1u << RM_RECOMPUTE_FULL)) &&
	    (f->allowed & (1u << RM_SCHED_1F1B))) {
		t->recompute = RM_RECOMPUTE_FULL;
		sched_variant(0, f->pp, f->ls, t);
		if (!rmi_estimate_mem(f->q->m, f->q->hw, t, f->l,
				      &f->q->shape, &e, NULL)) {
			if (e.fits)
				return true;
			if (hopeless && above_floor(&e)) {
				*near = e;
				*miss = true;
				return false;
			}
		}
	}
	for (int r = 0; r <= RM_RECOMPUTE_FULL; r++) {
		if (!(f->recomputes & (1u << r)))
			continue;
		t->recompute = (rm_recompute)r;
		for (uint32_t i = 0; sched_variant(i, f->pp, f->ls, t); i++) {
			if (!(f->allowed & (1u << t->schedule)) ||
			    (t->schedule == RM_SCHED_INTERLEAVED &&
			     f->ls % t->vchunks) ||
			    rmi_estimate_mem(f->q->m, f->q->hw, t, f->l,
					     &f->q->shape, &e, NULL))
				continue;
			if (e.fits)
				return true;
			if (!*miss || e.mem_peak < near->mem_peak) {
				*near = e;
				near->recompute = t->recompute;
				*miss = true;
			}
		}
	}
	return false;
}

/*
 * What fits at micro-batch b fits at b/2: the checks that pass at b pass
 * at b/2 (the batch splits into more micro-batches), and no variant's
 * peak grows when b halves: activations, logits and the work buffer go
 * as b, the micro-batches in flight as min(k, m) (rmi_inflight), so in
 * flight x b does not grow when m doubles and b halves; weights and
 * optimizer state stay. So the largest micro-batch that fits is looked
 * for from the top, and the rest are known. Where none fits, the scan
 * the reference makes (from 1 up, to the first that misses memory)
 * finds why.
 */
void rmi_fit_scan(const rmi_search *q, const rm_layout *l, rmi_fit *out)
{
	/* near is the scratch of the variants missed, read only where mem
	 * says so: clearing or copying its 2 kB for each of a MoE model's
	 * thousands of layouts cost more than the few that miss use */
	out->mask = 0;
	out->nmb = 0;
	out->mem = false;
	out->mem_mb = 0;
	fitting f = { .q = q, .l = l, .t = *q->t,
		      .allowed = q->o->schedules ? q->o->schedules :
				 MEGATRON_SCHEDULES,
		      .recomputes = q->o->recomputes ? q->o->recomputes :
				    1u << q->t->recompute,
		      .pp = l->size[RM_AXIS_PP] };
	f.ls = largest_stage(q->m, q->t, f.pp);
	f.t.recompute_layers = 0;
	int top = -1;
	for (uint32_t mb = 1; mb <= q->max_mb; mb *= 2) {
		out->nmb++;
		top++;
	}
	bool miss;
	for (int k = top; k >= 0; k--) {
		if (mb_fits(&f, 1u << k, true, &out->near, &miss)) {
			out->mask = (2u << k) - 1;
			return;
		}
		if (miss && above_floor(&out->near))
			break;
	}
	for (uint32_t mb = 1; mb <= q->max_mb; mb *= 2) {
		if (mb_fits(&f, mb, false, &out->near, &miss) || !miss)
			continue;
		out->mem = true;
		out->mem_mb = mb;
		/* what misses memory at mb misses it above mb too */
		break;
	}
}
