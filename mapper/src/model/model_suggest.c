/* SPDX-License-Identifier: Apache-2.0 */
/* model_suggest.c - enumerate layouts, drop what does not fit, rank the rest. */
#include "model/model_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void make_layout(rm_layout *l, uint32_t tp, uint32_t cp, uint32_t pp,
			uint32_t dp)
{
	memset(l, 0, sizeof(*l));
	for (int a = 0; a < RM_NAXES; a++)
		l->size[a] = 1;
	l->size[RM_AXIS_TP] = tp;
	l->size[RM_AXIS_CP] = cp;
	l->size[RM_AXIS_PP] = pp;
	l->size[RM_AXIS_DP] = dp;
	/* the nesting the explain report argues for: tp, cp, pp, dp */
	const rm_axis order[] = { RM_AXIS_TP, RM_AXIS_CP, RM_AXIS_PP,
				  RM_AXIS_DP };
	for (size_t i = 0; i < 4; i++)
		if (l->size[order[i]] > 1 || order[i] == RM_AXIS_DP)
			l->nest[l->naxes++] = order[i];
}

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
			const rm_layout *l, uint32_t ls, rm_estimate *best)
{
	ls /= rmi_chunks(t);           /* layers of one chunk */
	uint32_t lo = 1, hi = ls;      /* hi fits (all layers) */
	rm_estimate x;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		t->recompute_layers = mid;
		if (!rm_estimate_run(m, hw, t, l, &x, NULL) && x.fits)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (hi < ls) {
		t->recompute_layers = hi;
		if (!rm_estimate_run(m, hw, t, l, &x, NULL) && x.fits)
			*best = x;
	}
	t->recompute_layers = 0;
}

/* Fastest valid schedule and recomputation (of those allowed) for one
 * layout and micro-batch; `why` gets the reason when none is valid
 * (memory first: it is the usual one). */
static bool best_schedule(const rm_model *m, const rm_hw *hw,
			  const rm_train *base, const rm_layout *l, uint32_t mb,
			  unsigned allowed, unsigned recomputes,
			  rm_candidate *out)
{
	rm_train t = *base;
	t.micro_batch = mb;
	bool found = false, mem = false;
	rm_candidate c;
	memset(out, 0, sizeof(*out));
	if (!allowed)
		allowed = MEGATRON_SCHEDULES;
	if (!recomputes)
		recomputes = 1u << base->recompute;
	uint32_t pp = l->size[RM_AXIS_PP], ls = 0;
	for (uint32_t i = 0; i < pp; i++) {
		uint32_t n = rmi_stage_layers(m, base, pp, i);
		ls = n > ls ? n : ls;
	}
	for (int r = 0; r <= RM_RECOMPUTE_FULL; r++) {
		if (!(recomputes & (1u << r)))
			continue;
		t.recompute = (rm_recompute)r;
		for (uint32_t i = 0; sched_variant(i, pp, ls, &t); i++) {
			if (!(allowed & (1u << t.schedule)) ||
			    (t.schedule == RM_SCHED_INTERLEAVED && ls % t.vchunks))
				continue;
			memset(&c, 0, sizeof(c));
			rm_error err = { 0 };
			t.recompute_layers = 0;
			if (rm_estimate_run(m, hw, &t, l, &c.est, &err)) {
				if (!found && !mem)
					snprintf(out->why, sizeof(out->why), "%.250s",
						 err.msg);
				continue;
			}
			if (r == RM_RECOMPUTE_FULL && c.est.fits && ls > 1)
				fewest_full(m, hw, &t, l, ls, &c.est);
			c.est.recompute = t.recompute;
			if (!c.est.fits) {
				if (!found && (!mem || c.est.mem_peak < out->est.mem_peak)) {
					out->est = c.est;
					double state = c.est.weights + c.est.grads +
						       c.est.optim;
					snprintf(out->why, sizeof(out->why),
						 "does not fit: %.1f GiB per GPU (%s, "
						 "recompute %s, mb=%u) > %.1f GiB HBM, "
						 "short by %.1f GiB%s",
						 c.est.mem_peak / RMI_GIB,
						 rm_schedule_name(c.est.schedule),
						 rm_recompute_name(t.recompute), mb,
						 c.est.hbm / RMI_GIB,
						 (c.est.mem_peak - c.est.hbm) / RMI_GIB,
						 state > c.est.hbm - c.est.reserve ?
						 "; below the memory floor: weights, "
						 "gradients and optimizer alone exceed HBM" : "");
					mem = true;
				}
				continue;
			}
			if (!found || c.est.t_step < out->est.t_step) {
				out->est = c.est;
				out->valid = true;
				out->why[0] = '\0';
				found = true;
			}
		}
	}
	if (!found && mem)
		out->est.fits = false;
	return found;
}

/* Fastest first; on a tie (same time to 1e-6) the simpler layout: fewer
 * CP ranks, then fewer stages, then less TP, then smaller micro-batches. */
static int by_time(const void *a, const void *b)
{
	const rm_estimate *x = &((const rm_candidate *)a)->est;
	const rm_estimate *y = &((const rm_candidate *)b)->est;
	if (fabs(x->t_step - y->t_step) > 1e-6 * fmax(x->t_step, y->t_step))
		return x->t_step < y->t_step ? -1 : 1;
	static const rm_axis key[] = { RM_AXIS_CP, RM_AXIS_PP, RM_AXIS_TP };
	for (size_t i = 0; i < 3; i++)
		if (x->layout.size[key[i]] != y->layout.size[key[i]])
			return x->layout.size[key[i]] < y->layout.size[key[i]] ? -1 : 1;
	return (x->micro_batch > y->micro_batch) - (x->micro_batch < y->micro_batch);
}

static int by_mem(const void *a, const void *b)
{
	const rm_candidate *x = a, *y = b;
	double dx = x->est.mem_peak - x->est.hbm, dy = y->est.mem_peak - y->est.hbm;
	return dx < dy ? -1 : dx > dy;
}

static bool push(rm_candidate **v, size_t *n, size_t *cap,
		 const rm_candidate *c)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		rm_candidate *nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return false;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = *c;
	return true;
}

/*
 * What memory makes `n` run with, against `u`, the same layout's best with
 * unlimited HBM: its recomputation, schedule and micro-batch where they
 * differ ("recompute full:1 and interleaved:4"), and u's ("interleaved:8
 * and recompute selective"). False when nothing differs.
 */
static bool mem_forced(const rm_estimate *n, const rm_estimate *u,
		       char *nv, char *uv, size_t sz)
{
	char a[3][32], b[3][32], rl[24];
	size_t k = 0;
	if (n->recompute != u->recompute ||
	    n->recompute_layers != u->recompute_layers) {
		snprintf(a[k], sizeof(a[k]), "recompute %s",
			 rmi_recompute_label(n->recompute, n->recompute_layers, rl));
		snprintf(b[k++], sizeof(b[0]), "recompute %s",
			 rmi_recompute_label(u->recompute, u->recompute_layers, rl));
	}
	if (n->schedule != u->schedule || n->vchunks != u->vchunks) {
		snprintf(a[k], sizeof(a[k]), "%s",
			 rmi_schedule_label(n->schedule, n->vchunks, rl));
		snprintf(b[k++], sizeof(b[0]), "%s",
			 rmi_schedule_label(u->schedule, u->vchunks, rl));
	}
	if (n->micro_batch != u->micro_batch) {
		snprintf(a[k], sizeof(a[k]), "micro-batch %u", n->micro_batch);
		snprintf(b[k++], sizeof(b[0]), "micro-batch %u", u->micro_batch);
	}
	if (!k)
		return false;
	const char *sep[3][3] = { { "", "", "" }, { "", " and ", "" },
				  { "", ", ", " and " } };
	int on = 0, ou = 0;
	nv[0] = uv[0] = '\0';
	for (size_t i = 0; i < k; i++) {
		if (on >= 0 && (size_t)on < sz)
			on += snprintf(nv + on, sz - (size_t)on, "%s%s",
				       sep[k - 1][i], a[i]);
		if (ou >= 0 && (size_t)ou < sz)
			ou += snprintf(uv + ou, sz - (size_t)ou, "%s%s",
				       sep[k - 1][i], b[i]);
	}
	return true;
}

/* "memory: needs X to fit H GiB (Y would need M GiB)" when `u` (the same
 * layout with unlimited HBM) runs faster than `n`; false otherwise. */
static bool mem_reason(const rm_estimate *n, const rm_estimate *u, char *out,
		       size_t sz)
{
	char nv[96], uv[96];
	if (!u || u->t_step >= n->t_step || !mem_forced(n, u, nv, uv, sizeof(nv)))
		return false;
	snprintf(out, sz, "needs %s to fit %.1f GiB (%s would need %.1f GiB)",
		 nv, n->hbm / RMI_GIB, uv, u->mem_peak / RMI_GIB);
	return true;
}

/* Name the biggest loss of `n` against the winner `w`; `u` (NULL: not
 * known) is n's layout with unlimited HBM: when what memory costs n is
 * more than any part, memory is named as the reason. */
static void why_lost(const rm_hw *hw, const rm_estimate *w,
		     const rm_estimate *n, const rm_estimate *u, char *out,
		     size_t sz)
{
	struct { const char *what; double d; int axis; } part[] = {
		{ "compute", n->t_compute - w->t_compute, -1 },
		{ "bubble", n->t_bubble - w->t_bubble, -1 },
		{ "tp", n->axis[RM_AXIS_TP].exposed - w->axis[RM_AXIS_TP].exposed, RM_AXIS_TP },
		{ "cp", n->axis[RM_AXIS_CP].exposed - w->axis[RM_AXIS_CP].exposed, RM_AXIS_CP },
		{ "pp", n->axis[RM_AXIS_PP].exposed - w->axis[RM_AXIS_PP].exposed, RM_AXIS_PP },
		{ "dp", n->axis[RM_AXIS_DP].exposed - w->axis[RM_AXIS_DP].exposed, RM_AXIS_DP },
	};
	size_t k = 0;
	for (size_t i = 1; i < sizeof(part) / sizeof(part[0]); i++)
		if (part[i].d > part[k].d)
			k = i;
	double dt = n->t_step - w->t_step;
	if (dt <= 0) {
		snprintf(out, sz, "%.2f s per step faster: it beats the layout "
			 "it is a neighbour of", -dt);
		return;
	}
	char mr[200];
	if (u && n->t_step - u->t_step > part[k].d &&
	    mem_reason(n, u, mr, sizeof(mr))) {
		snprintf(out, sz, "%+.2f s per step; most of it memory %+.2f s: %s",
			 dt, n->t_step - u->t_step, mr);
		return;
	}
	int o = snprintf(out, sz, "%+.2f s per step; most of it %s %+.2f s",
			 dt, part[k].what, part[k].d);
	if (o < 0 || (size_t)o >= sz)
		return;
	if (part[k].axis >= 0) {
		const rm_axis_cost *c = &n->axis[part[k].axis];
		char link[32];
		memcpy(link, c->link, sizeof(link));
		link[sizeof(link) - 1] = '\0';
		bool left = strcmp(link, "nvlink") != 0;
		snprintf(out + o, sz - (size_t)o,
			 " (%u ranks on %s at %.0f GB/s%s)", c->group, link,
			 c->gbytes_per_s,
			 left && c->group <= hw->nvl_domain * 64 &&
			 part[k].axis == RM_AXIS_TP ?
			 ", outside the NVLink domain" : "");
	} else if (!strcmp(part[k].what, "bubble")) {
		snprintf(out + o, sz - (size_t)o,
			 " (%.3f of ideal: pp=%u, %llu micro-batches, %s)",
			 n->bubble_frac, n->layout.size[RM_AXIS_PP],
			 (unsigned long long)n->m, rm_schedule_name(n->schedule));
	} else if (n->recompute != w->recompute ||
		   n->recompute_layers != w->recompute_layers) {
		char rl[24];
		snprintf(out + o, sz - (size_t)o,
			 " (recompute %s: what fits its memory)",
			 rmi_recompute_label(n->recompute, n->recompute_layers, rl));
	} else {
		snprintf(out + o, sz - (size_t)o,
			 " (stage imbalance %.3f)", n->imbalance);
	}
}

/* The layouts one step away from `w` on each axis, priced and told why they
 * lose to it (w: the compared layout, or what it would do with more HBM). */
static void neighbours(const rm_model *m, const rm_hw *hw, const rm_train *t,
		       uint64_t gpus, unsigned allowed, unsigned recomputes,
		       const rm_estimate *w, rm_suggestion *s)
{
	const rm_layout *wl = &w->layout;
	rm_hw big = *hw;
	big.hbm_bytes = 1e15;   /* the most rm_hw_check takes */
	static const struct { const char *label; int axis; int mul; } nb[] = {
		{ "tp x2", RM_AXIS_TP, 2 }, { "tp /2", RM_AXIS_TP, -2 },
		{ "pp x2", RM_AXIS_PP, 2 }, { "pp /2", RM_AXIS_PP, -2 },
		{ "cp x2", RM_AXIS_CP, 2 }, { "cp /2", RM_AXIS_CP, -2 },
		{ "mb x2", -1, 2 }, { "mb /2", -1, -2 },
	};
	for (size_t i = 0; i < sizeof(nb) / sizeof(nb[0]); i++) {
		uint32_t sz[RM_NAXES];
		memcpy(sz, wl->size, sizeof(sz));
		uint32_t mb = w->micro_batch;
		uint32_t *v = nb[i].axis >= 0 ? &sz[nb[i].axis] : &mb;
		if (nb[i].mul < 0) {
			if (*v < 2 || *v % 2)
				continue;
			*v /= 2;
		} else {
			*v *= 2;
		}
		uint64_t inner = (uint64_t)sz[RM_AXIS_TP] * sz[RM_AXIS_CP] *
				 sz[RM_AXIS_PP];
		if (gpus % inner)
			continue;
		rm_layout l;
		make_layout(&l, sz[RM_AXIS_TP], sz[RM_AXIS_CP], sz[RM_AXIS_PP],
			    (uint32_t)(gpus / inner));
		rm_candidate *c = &s->neighbour[s->nneighbour++];
		best_schedule(m, hw, t, &l, mb, allowed, recomputes, c);
		c->est.layout = l;
		c->est.micro_batch = mb;
		snprintf(c->label, sizeof(c->label), "%s", nb[i].label);
		if (!c->valid)
			continue;
		/* the same layout and micro-batch with unlimited HBM: what
		 * memory costs this neighbour (recompute, interleaving) */
		rm_candidate u;
		bool free = best_schedule(m, &big, t, &l, mb, allowed,
					  recomputes, &u);
		if (free)
			u.est.hbm = hw->hbm_bytes;
		why_lost(hw, w, &c->est, free ? &u.est : NULL, c->why,
			 sizeof(c->why));
	}
}

/* The compared layout as if HBM were unlimited: when that is faster than
 * its best that fits, memory is what holds it back; say by how much. */
static void unbounded(const rm_model *m, const rm_hw *hw, const rm_train *t,
		      const rm_suggest_opts *o, uint32_t max_mb,
		      rm_suggestion *s)
{
	rm_hw big = *hw;
	big.hbm_bytes = 1e15;   /* the most rm_hw_check takes */
	rm_candidate c, best;
	bool any = false;
	for (uint32_t mb = 1; mb <= max_mb; mb *= 2)
		if (best_schedule(m, &big, t, &s->base.est.layout, mb,
				  o->schedules, o->recomputes, &c) &&
		    (!any || c.est.t_step < best.est.t_step)) {
			best = c;
			any = true;
		}
	if (!any || best.est.mem_peak <= hw->hbm_bytes ||
	    (s->base.valid && best.est.t_step >= s->base.est.t_step))
		return;
	best.est.hbm = hw->hbm_bytes;
	best.est.fits = false;
	size_t k = 0;
	while (k < s->nranked && s->ranked[k].est.t_step < best.est.t_step)
		k++;
	s->unbounded = best;
	s->unbounded_rank = k + 1;
	/* a ranked layout has no why of its own: say what memory makes it
	 * run with (an unranked one keeps why it is not ranked) */
	char mr[200];
	if (s->base_rank && s->base.valid &&
	    mem_reason(&s->base.est, &best.est, mr, sizeof(mr)))
		snprintf(s->base.why, sizeof(s->base.why), "memory: %s", mr);
}

rm_status rm_suggest(const rm_model *m, const rm_hw *hw, const rm_train *t,
		     const rm_suggest_opts *o, rm_suggestion **out,
		     rm_error *err)
{
	*out = NULL;
	rm_status st = rm_model_check(m, err);
	if (!st)
		st = rm_hw_check(hw, err);
	if (st)
		return st;
	uint64_t gpus = o->gpus;
	if (gpus == 0 || gpus > RM_MAX_WORLD)
		return rmi_err(err, RM_EINPUT, "GPU count %llu is not in [1, %u]",
			       (unsigned long long)gpus, RM_MAX_WORLD);
	/* CP as far as the sequence allows: each rank keeps two causal halves
	 * of at least 128 tokens (Megatron needs s % 2cp == 0) */
	uint32_t seq = rmi_seq(m, t), max_cp = o->max_cp;
	if (!max_cp)
		for (max_cp = 1; seq % (4 * max_cp) == 0 && seq / (4 * max_cp) >= 128;)
			max_cp *= 2;
	uint32_t max_mb = o->max_mb ? o->max_mb : 8;
	uint32_t max_tp = hw->nvl_domain * 4;
	rm_suggestion *s = calloc(1, sizeof(*s));
	if (!s)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	size_t cap = 0, rcap = 0;
	rm_candidate c;
	for (uint32_t tp = 1; tp <= max_tp && tp <= m->heads; tp *= 2) {
		if (m->heads % tp || gpus % tp)
			continue;
		for (uint32_t cp = 1; cp <= max_cp; cp *= 2) {
			if (gpus % ((uint64_t)tp * cp) || seq % (cp > 1 ? 2 * cp : 1))
				continue;
			uint64_t rest = gpus / ((uint64_t)tp * cp);
			for (uint64_t pp = 1; pp <= rest && pp <= m->layers; pp++) {
				if (rest % pp)
					continue;
				rm_layout l;
				make_layout(&l, tp, cp, (uint32_t)pp,
					    (uint32_t)(rest / pp));
				bool any = false, mem = false;
				rm_candidate best = { 0 };
				for (uint32_t mb = 1; mb <= max_mb; mb *= 2) {
					s->considered++;
					if (!best_schedule(m, hw, t, &l, mb, o->schedules, o->recomputes, &c)) {
						if (!c.est.fits && c.est.mem_peak > 0 &&
						    !mem && !any) {
							best = c;
							mem = true;
						}
						continue;
					}
					if (!any || c.est.t_step < best.est.t_step)
						best = c;
					any = true;
				}
				bool ok = true;
				if (any)
					ok = push(&s->ranked, &s->nranked, &cap, &best);
				else if (mem) {
					s->rejected_mem++;
					ok = push(&s->rejected, &s->nrejected,
						  &rcap, &best);
				} else
					s->rejected_other++;
				if (!ok) {
					rm_suggestion_free(s);
					return rmi_err(err, RM_ENOMEM,
						       "out of memory");
				}
			}
		}
	}
	if (!s->nranked) {
		rm_suggestion_free(s);
		return rmi_err(err, RM_ERULE,
			       "no layout of %llu GPUs fits %s on %s with these "
			       "settings (try sharding=zero1, recompute=full or "
			       "more GPUs)",
			       (unsigned long long)gpus, m->name, hw->name);
	}
	qsort(s->ranked, s->nranked, sizeof(*s->ranked), by_time);
	if (s->nrejected)
		qsort(s->rejected, s->nrejected, sizeof(*s->rejected), by_mem);
	s->base = s->ranked[0];
	s->base_rank = 1;
	if (o->around) {
		rm_layout a;
		uint64_t w = rm_layout_world(o->around);
		if (w != gpus) {
			rm_suggestion_free(s);
			return rmi_err(err, RM_EINPUT,
				       "layout to compare has %llu GPUs, not %llu",
				       (unsigned long long)w,
				       (unsigned long long)gpus);
		}
		make_layout(&a, o->around->size[RM_AXIS_TP],
			    o->around->size[RM_AXIS_CP],
			    o->around->size[RM_AXIS_PP],
			    o->around->size[RM_AXIS_DP]);
		s->base_rank = 0;
		memset(&s->base, 0, sizeof(s->base));
		for (size_t i = 0; i < s->nranked; i++)
			if (!memcmp(s->ranked[i].est.layout.size, a.size,
				    sizeof(a.size))) {
				s->base = s->ranked[i];
				s->base_rank = i + 1;
				break;
			}
		if (!s->base_rank) {
			/* outside the searched space, or nothing fits: its best
			 * micro-batch, schedule and recomputation, and why */
			rm_error e2 = { 0 };
			rm_train t1 = *t;
			bool ok = false;
			rm_candidate c2;
			for (uint32_t mb = 1; mb <= max_mb; mb *= 2)
				if (best_schedule(m, hw, t, &a, mb, o->schedules,
						  o->recomputes, &c2) &&
				    (!ok || c2.est.t_step < s->base.est.t_step)) {
					s->base = c2;
					ok = true;
				} else if (!ok && !s->base.why[0]) {
					s->base = c2;
				}
			if (!ok && !s->base.why[0] &&
			    rm_estimate_run(m, hw, &t1, &a, &s->base.est, &e2)) {
				rm_suggestion_free(s);
				return rmi_err(err, e2.code, "%s", e2.msg);
			}
			if (ok) {
				size_t k = 0;
				while (k < s->nranked &&
				       s->ranked[k].est.t_step < s->base.est.t_step)
					k++;
				snprintf(s->base.why, sizeof(s->base.why),
					 "outside the searched layouts (cp <= %u, "
					 "tp <= %u, micro-batch <= %u); it would "
					 "rank #%zu", max_cp, max_tp, max_mb, k + 1);
			} else if (!s->base.why[0]) {
				snprintf(s->base.why, sizeof(s->base.why),
					 "no micro-batch, schedule or recomputation "
					 "allowed here splits the batch and the model");
			}
			s->base.est.layout = a;
		}
	}
	if (o->around)
		unbounded(m, hw, t, o, max_mb, s);
	/* a compared layout that memory holds back (it does not fit, or
	 * only with recomputation) is compared as it would run with the
	 * memory: its neighbours then show what each axis costs, apart from
	 * what memory costs it, which the lines above it say */
	if (s->unbounded_rank)
		neighbours(m, hw, t, gpus, o->schedules, o->recomputes,
			   &s->unbounded.est, s);
	else if (s->base.valid)
		neighbours(m, hw, t, gpus, o->schedules, o->recomputes,
			   &s->base.est, s);
	rmi_suggest_needs(m, hw, t, o, s);
	*out = s;
	return RM_OK;
}

void rm_suggestion_free(rm_suggestion *s)
{
	if (!s)
		return;
	free(s->ranked);
	free(s->rejected);
	rm_suggestion_free(s->needs);
	free(s);
}
