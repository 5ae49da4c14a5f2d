/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_suggest.c - enumerate layouts, drop what does not fit, rank the
 * rest. Pricing one layout is model_suggest_price.c's; the compared layout
 * and its neighbours are model_suggest_around.c's.
 */
#include "model/model_suggest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rmi_suggest_layout(rm_layout *l, uint32_t tp, uint32_t cp, uint32_t pp,
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

bool rmi_suggest_layout_ep(rm_layout *l, uint32_t tp, uint32_t cp,
			   uint32_t pp, uint32_t dp, uint32_t ep, uint32_t etp)
{
	rmi_suggest_layout(l, tp, cp, pp, dp);
	if (ep <= 1 && etp == tp)
		return true;
	/* Megatron-Core carves an expert block of etp x ep ranks out of
	 * tp x cp x dp; what it spans beyond tp x cp is the ep placement
	 * axis, nested right after them so the blocks stay together */
	uint64_t e = (uint64_t)ep * etp, tc = (uint64_t)tp * cp;
	uint32_t f = e > tc && e % tc == 0 ? (uint32_t)(e / tc) : 1;
	if ((tc * dp) % e || dp % f)
		return false;
	l->ep = ep;
	l->etp = etp;
	l->size[RM_AXIS_EP] = f;
	l->size[RM_AXIS_DP] = dp / f;
	/* in the nesting even at size 1, as the parser keeps a written ep:
	 * that is where the layout's text names the degree */
	if (f > 1 || ep > 1) {
		unsigned k = 0;
		while (k < l->naxes && (l->nest[k] == RM_AXIS_TP ||
					l->nest[k] == RM_AXIS_CP))
			k++;
		memmove(&l->nest[k + 1], &l->nest[k],
			(l->naxes - k) * sizeof(l->nest[0]));
		l->nest[k] = RM_AXIS_EP;
		l->naxes++;
	}
	return true;
}

/* Fastest first; on a tie (same time to 1e-6) the simpler layout: fewer
 * CP ranks, then fewer stages, then less TP, then smaller micro-batches. */
int rmi_by_time(const void *a, const void *b)
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

int rmi_by_mem(const void *a, const void *b)
{
	const rm_candidate *x = a, *y = b;
	double dx = x->est.mem_peak - x->est.hbm, dy = y->est.mem_peak - y->est.hbm;
	return dx < dy ? -1 : dx > dy;
}

bool rmi_suggest_push(rm_candidate **v, size_t *n, size_t *cap,
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

/* The suggestion being filled and its arrays' capacities; the layouts
 * enumerated, when they are priced after (lay, nlay, lcap). */
typedef struct found {
	rm_suggestion *s;
	size_t cap, rcap;
	rm_layout *lay;
	size_t nlay, lcap;
} found;

/* Layout l at its best micro-batch: ranked when one fits, kept among the
 * memory rejects when the closest only misses memory, else counted.
 * False: out of memory. */
static bool file_layout(const rmi_search *q, const rm_layout *l, found *f)
{
	rm_suggestion *s = f->s;
	if (!q->reference) {
		if (f->nlay == f->lcap) {
			size_t nc = f->lcap ? f->lcap * 2 : 256;
			rm_layout *nv = realloc(f->lay, nc * sizeof(*nv));
			if (!nv)
				return false;
			f->lay = nv;
			f->lcap = nc;
		}
		f->lay[f->nlay++] = *l;
		return true;
	}
	rm_candidate best = { 0 };
	bool mem = false;
	size_t before = s->considered;
	bool ok = rmi_best_micro_batch(q, q->hw, l, &best, &mem,
				       &s->considered);
	s->priced += s->considered - before;
	if (ok) {
		s->nfit++;
		return rmi_suggest_push(&s->ranked, &s->nranked, &f->cap, &best);
	}
	if (!mem) {
		s->rejected_other++;
		return true;
	}
	s->rejected_mem++;
	return rmi_suggest_push(&s->rejected, &s->nrejected, &f->rcap, &best);
}

/* Every pp dividing what tp x cp leave (up to one layer a stage), dp the
 * rest. */
static bool enumerate_pp(const rmi_search *q, uint32_t tp, uint32_t cp,
			 found *f)
{
	uint64_t rest = q->gpus / ((uint64_t)tp * cp);
	for (uint64_t pp = 1; pp <= rest && pp <= q->m->layers; pp++) {
		if (rest % pp)
			continue;
		uint32_t dp = (uint32_t)(rest / pp);
		/* a MoE model: ep over the powers of two dividing its
		 * experts, the experts' FFN whole (etp 1) or split as TP's */
		uint32_t E = q->m->experts ? q->m->experts : 1;
		for (uint32_t ep = 1; ep <= E && ep <= q->gpus; ep *= 2) {
			if (E % ep)
				continue;
			for (int k = 0; k < (tp > 1 && q->m->experts ? 2 : 1); k++) {
				uint32_t etp = k ? 1 : tp;
				rm_layout l;
				if (q->m->experts && q->m->expert_ffn % etp)
					continue;
				if (!rmi_suggest_layout_ep(&l, tp, cp,
							   (uint32_t)pp, dp,
							   ep, etp))
					continue;
				if (!file_layout(q, &l, f))
					return false;
			}
		}
	}
	return true;
}

/* tp and cp in powers of two: tp dividing the heads, cp within the
 * search's bound and keeping Megatron's s % 2cp == 0. */
static bool enumerate(const rmi_search *q, found *f)
{
	for (uint32_t tp = 1; tp <= q->max_tp && tp <= q->m->heads; tp *= 2) {
		if (q->m->heads % tp || q->gpus % tp)
			continue;
		for (uint32_t cp = 1; cp <= q->max_cp; cp *= 2) {
			if (q->gpus % ((uint64_t)tp * cp) ||
			    q->seq % (cp > 1 ? 2 * cp : 1))
				continue;
			if (!enumerate_pp(q, tp, cp, f))
				return false;
		}
	}
	return true;
}

static rm_status search_init(rmi_search *q, const rm_model *m,
			     const rm_hw *hw, const rm_train *t,
			     const rm_suggest_options *o, rm_error *err)
{
	rm_status st = rm_model_check(m, err);
	if (!st)
		st = rm_hw_check(hw, err);
	if (st)
		return st;
	if (o->gpus == 0 || o->gpus > RM_MAX_WORLD)
		return rmi_err(err, RM_EINPUT, "GPU count %llu is not in [1, %u]",
			       (unsigned long long)o->gpus, RM_MAX_WORLD);
	*q = (rmi_search){ .m = m, .hw = hw, .t = t, .o = o, .gpus = o->gpus,
			   .seq = rmi_seq(m, t), .max_cp = o->max_cp,
			   .max_mb = o->max_mb ? o->max_mb : 8,
			   .max_tp = hw->nvl_domain * 4 };
	rmi_shape_of(m, t, &q->shape);
	/* CP as far as the sequence allows: each rank keeps two causal halves
	 * of at least 128 tokens (Megatron needs s % 2cp == 0) */
	if (!q->max_cp)
		for (q->max_cp = 1; q->seq % (4 * q->max_cp) == 0 &&
				    q->seq / (4 * q->max_cp) >= 128;)
			q->max_cp *= 2;
	return RM_OK;
}

/* Ranks what fits, then the compared layout (#1 unless o->around names
 * one), its neighbours and what memory would take for it to run as with
 * more. */
static rm_status rank(const rmi_search *q, rm_suggestion *s, rm_error *err)
{
	if (!s->nfit)
		return rmi_err(err, RM_ERULE,
			       "no layout of %llu GPUs fits %s on %s with these "
			       "settings (try sharding=zero1, recompute=full or "
			       "more GPUs)",
			       (unsigned long long)q->gpus, q->m->name,
			       q->hw->name);
	qsort(s->ranked, s->nranked, sizeof(*s->ranked), rmi_by_time);
	if (s->nrejected)
		qsort(s->rejected, s->nrejected, sizeof(*s->rejected), rmi_by_mem);
	s->base = s->ranked[0];
	s->base_rank = 1;
	if (q->o->around) {
		rm_status st = rmi_suggest_around(q, s, err);
		if (st)
			return st;
	}
	rmi_suggest_neighbours(q, s);
	rmi_suggest_needs(q->m, q->hw, q->t, q->o, s);
	return RM_OK;
}

rm_status rm_suggest(const rm_model *m, const rm_hw *hw, const rm_train *t,
		     const rm_suggest_options *o, rm_suggestion **out,
		     rm_error *err)
{
	return rmi_suggest_reference(m, hw, t, o, false, out, err);
}

rm_status rmi_suggest_reference(const rm_model *m, const rm_hw *hw,
				const rm_train *t, const rm_suggest_options *o,
				bool reference, rm_suggestion **out,
				rm_error *err)
{
	*out = NULL;
	RMI_TRAIN_ARG(t, err);
	RMI_MODEL_HW_ARG(m, hw, err);
	RMI_SUGGEST_ARG(o, err);
	rmi_search q;
	rm_status st = search_init(&q, m, hw, t, o, err);
	if (st)
		return st;
	q.reference = reference;
	found f = { .s = calloc(1, sizeof(*f.s)) };
	if (!f.s)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	bool ok = enumerate(&q, &f) &&
		  (reference || rmi_suggest_ordered(&q, f.lay, f.nlay, f.s));
	free(f.lay);
	st = ok ? rank(&q, f.s, err) : rmi_err(err, RM_ENOMEM, "out of memory");
	if (st) {
		rm_suggestion_free(f.s);
		return st;
	}
	*out = f.s;
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
