/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_suggest_around.c - the compared layout of suggest (#1, or the one
 * the user names): where it ranks or why it is not ranked, what memory
 * costs it, and its neighbours one step away on each axis, each told why
 * it loses to it.
 */
#include "model/model_suggest.h"

#include <stdio.h>
#include <string.h>

/* The hardware with as much HBM as rm_hw_check takes: what a layout would
 * do if memory did not hold it back. */
static rm_hw unlimited(const rm_hw *hw)
{
	rm_hw big = *hw;
	big.hbm_bytes = 1e15;
	return big;
}

/* The 1-based place a layout stepping in t_step would take in the ranking. */
static size_t rank_of(const rm_suggestion *s, double t_step)
{
	size_t k = 0;
	while (k < s->nranked && s->ranked[k].est.t_step < t_step)
		k++;
	return k + 1;
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

/* One part of a step that a neighbour loses on; axis -1: not an axis. */
typedef struct loss {
	const char *what;
	double d;
	int axis;
} loss;

/* The part n loses most on against w (compute, bubble or an axis). */
static loss biggest_loss(const rm_estimate *w, const rm_estimate *n)
{
	const loss part[] = {
		{ "compute", n->t_compute - w->t_compute, -1 },
		{ "bubble", n->t_bubble - w->t_bubble, -1 },
		{ "tp", n->axis[RM_AXIS_TP].exposed - w->axis[RM_AXIS_TP].exposed, RM_AXIS_TP },
		{ "cp", n->axis[RM_AXIS_CP].exposed - w->axis[RM_AXIS_CP].exposed, RM_AXIS_CP },
		{ "pp", n->axis[RM_AXIS_PP].exposed - w->axis[RM_AXIS_PP].exposed, RM_AXIS_PP },
		{ "dp", n->axis[RM_AXIS_DP].exposed - w->axis[RM_AXIS_DP].exposed, RM_AXIS_DP },
		{ "ep", n->axis[RM_AXIS_EP].exposed - w->axis[RM_AXIS_EP].exposed, RM_AXIS_EP },
	};
	size_t k = 0;
	for (size_t i = 1; i < sizeof(part) / sizeof(part[0]); i++)
		if (part[i].d > part[k].d)
			k = i;
	return part[k];
}

/* The parenthesis after the loss: the link an axis crosses, the bubble's
 * terms, the recomputation memory forces, or the stage imbalance. */
static void loss_detail(const rm_hw *hw, const rm_estimate *w,
			const rm_estimate *n, loss p, char *out, size_t sz)
{
	if (p.axis >= 0) {
		const rm_axis_cost *c = &n->axis[p.axis];
		char link[32];
		memcpy(link, c->link, sizeof(link));
		link[sizeof(link) - 1] = '\0';
		bool left = strcmp(link, "nvlink") != 0;
		snprintf(out, sz, " (%u ranks on %s at %.0f GB/s%s)", c->group,
			 link, c->gbytes_per_s,
			 left && c->group <= hw->nvl_domain * 64 &&
			 (p.axis == RM_AXIS_TP || p.axis == RM_AXIS_EP) ?
			 ", outside the NVLink domain" : "");
	} else if (!strcmp(p.what, "bubble")) {
		snprintf(out, sz, " (%.3f of ideal: pp=%u, %llu micro-batches, %s)",
			 n->bubble_frac, n->layout.size[RM_AXIS_PP],
			 (unsigned long long)n->m, rm_schedule_name(n->schedule));
	} else if (n->recompute != w->recompute ||
		   n->recompute_layers != w->recompute_layers) {
		char rl[24];
		snprintf(out, sz, " (recompute %s: what fits its memory)",
			 rmi_recompute_label(n->recompute, n->recompute_layers, rl));
	} else {
		snprintf(out, sz, " (stage imbalance %.3f)", n->imbalance);
	}
}

/* Name the biggest loss of `n` against the winner `w`; `u` (NULL: not
 * known) is n's layout with unlimited HBM: when what memory costs n is
 * more than any part, memory is named as the reason. */
static void why_lost(const rm_hw *hw, const rm_estimate *w,
		     const rm_estimate *n, const rm_estimate *u, char *out,
		     size_t sz)
{
	loss p = biggest_loss(w, n);
	double dt = n->t_step - w->t_step;
	/* closer than the model's resolution: a tie, said before the
	 * reason so that the reason is not read as a verdict */
	if (rmi_tie(n->t_step, w->t_step)) {
		int o = snprintf(out, sz, "tie within 1 %% (%+.1f %%): ",
				 100 * dt / w->t_step);
		if (o < 0 || (size_t)o >= sz)
			return;
		out += o;
		sz -= (size_t)o;
	}
	if (dt <= 0) {
		snprintf(out, sz, "%.2f s per step faster: it beats the layout "
			 "it is a neighbour of", -dt);
		return;
	}
	char mr[200];
	if (u && n->t_step - u->t_step > p.d &&
	    mem_reason(n, u, mr, sizeof(mr))) {
		snprintf(out, sz, "%+.2f s per step; most of it memory %+.2f s: %s",
			 dt, n->t_step - u->t_step, mr);
		return;
	}
	int o = snprintf(out, sz, "%+.2f s per step; most of it %s %+.2f s",
			 dt, p.what, p.d);
	if (o >= 0 && (size_t)o < sz)
		loss_detail(hw, w, n, p, out + o, sz - (size_t)o);
}

/* The steps to a neighbour: a degree (tp, cp, pp, the micro-batch, or a
 * MoE model's ep) doubled or halved. */
enum { D_TP, D_CP, D_PP, D_MB, D_EP, ND };
static const struct step {
	const char *label;
	int deg;
	int mul;
} steps[] = {
	{ "tp x2", D_TP, 2 }, { "tp /2", D_TP, -2 },
	{ "pp x2", D_PP, 2 }, { "pp /2", D_PP, -2 },
	{ "cp x2", D_CP, 2 }, { "cp /2", D_CP, -2 },
	{ "mb x2", D_MB, 2 }, { "mb /2", D_MB, -2 },
	{ "ep x2", D_EP, 2 }, { "ep /2", D_EP, -2 },
};

/* The layout and micro-batch one step from w; false when the step does
 * not halve evenly or the GPUs do not split into it. An etp equal to tp
 * follows tp; a smaller one stays. */
static bool step_from(const rmi_search *q, const rm_estimate *w,
		      const struct step *st, rm_layout *l, uint32_t *mb)
{
	const rm_layout *wl = &w->layout;
	uint32_t d[ND] = {
		[D_TP] = wl->size[RM_AXIS_TP], [D_CP] = wl->size[RM_AXIS_CP],
		[D_PP] = wl->size[RM_AXIS_PP], [D_MB] = w->micro_batch,
		[D_EP] = rm_layout_ep(wl),
	};
	uint32_t etp = rm_layout_etp(wl);
	bool follow = etp == d[D_TP];
	if (st->deg == D_EP && (!q->m->experts ||
				(st->mul > 0 && q->m->experts % (2 * d[D_EP]))))
		return false;
	uint32_t *v = &d[st->deg];
	if (st->mul < 0) {
		if (*v < 2 || *v % 2)
			return false;
		*v /= 2;
	} else {
		*v *= 2;
	}
	*mb = d[D_MB];
	uint64_t inner = (uint64_t)d[D_TP] * d[D_CP] * d[D_PP];
	if (q->gpus % inner)
		return false;
	return rmi_suggest_layout_ep(l, d[D_TP], d[D_CP], d[D_PP],
				     (uint32_t)(q->gpus / inner), d[D_EP],
				     follow ? d[D_TP] : etp);
}

/* The layouts one step away from `w` on each axis, priced and told why they
 * lose to it (w: the compared layout, or what it would do with more HBM). */
static void neighbours(const rmi_search *q, const rm_estimate *w,
		       rm_suggestion *s)
{
	const rm_suggest_options *o = q->o;
	rm_hw big = unlimited(q->hw);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		rm_layout l;
		uint32_t mb;
		if (!step_from(q, w, &steps[i], &l, &mb))
			continue;
		rm_candidate *c = &s->neighbour[s->nneighbour++];
		rmi_best_schedule(q->m, q->hw, q->t, &l, mb, o->schedules,
				  o->recomputes, c);
		c->est.layout = l;
		c->est.micro_batch = mb;
		snprintf(c->label, sizeof(c->label), "%s", steps[i].label);
		if (!c->valid)
			continue;
		/* the same layout and micro-batch with unlimited HBM: what
		 * memory costs this neighbour (recompute, interleaving) */
		rm_candidate u;
		bool roomy = rmi_best_schedule(q->m, &big, q->t, &l, mb,
					       o->schedules, o->recomputes, &u);
		if (roomy)
			u.est.hbm = q->hw->hbm_bytes;
		why_lost(q->hw, w, &c->est, roomy ? &u.est : NULL, c->why,
			 sizeof(c->why));
	}
}

/* A compared layout that memory holds back (it does not fit, or only with
 * recomputation) is compared as it would run with the memory: its
 * neighbours then show what each axis costs, apart from what memory costs
 * it, which the lines above them say. */
void rmi_suggest_neighbours(const rmi_search *q, rm_suggestion *s)
{
	if (s->unbounded_rank)
		neighbours(q, &s->unbounded.est, s);
	else if (s->base.valid)
		neighbours(q, &s->base.est, s);
}

/* The compared layout as if HBM were unlimited: when that is faster than
 * its best that fits, memory is what holds it back; say by how much. */
static void unbounded(const rmi_search *q, rm_suggestion *s)
{
	rm_hw big = unlimited(q->hw);
	rm_candidate best;
	if (!rmi_best_micro_batch(q, &big, &s->base.est.layout, &best, NULL,
				  NULL) ||
	    best.est.mem_peak <= q->hw->hbm_bytes ||
	    (s->base.valid && best.est.t_step >= s->base.est.t_step))
		return;
	best.est.hbm = q->hw->hbm_bytes;
	best.est.fits = false;
	s->unbounded = best;
	s->unbounded_rank = rank_of(s, best.est.t_step);
	/* a ranked layout has no why of its own: say what memory makes it
	 * run with (an unranked one keeps why it is not ranked) */
	char mr[200];
	if (s->base_rank && s->base.valid &&
	    mem_reason(&s->base.est, &best.est, mr, sizeof(mr)))
		snprintf(s->base.why, sizeof(s->base.why), "memory: %s", mr);
}

/* The compared layout when the search did not rank it (outside its
 * bounds, or nothing fits): its best micro-batch, schedule and
 * recomputation, or the first reason one fails, and the words for it. */
static rm_status price_unranked(const rmi_search *q, const rm_layout *a,
				rm_suggestion *s, rm_error *err)
{
	bool ok = false;
	rm_candidate c;
	for (uint32_t mb = 1; mb <= q->max_mb; mb *= 2)
		if (rmi_best_schedule(q->m, q->hw, q->t, a, mb, q->o->schedules,
				      q->o->recomputes, &c) &&
		    (!ok || c.est.t_step < s->base.est.t_step)) {
			s->base = c;
			ok = true;
		} else if (!ok && !s->base.why[0]) {
			s->base = c;
		}
	rm_error e2 = { 0 };
	rm_train t1 = *q->t;
	if (!ok && !s->base.why[0] &&
	    rmi_estimate_run(q->m, q->hw, &t1, a, &s->base.est, &e2))
		return rmi_err(err, e2.code, "%s", e2.msg);
	if (ok)
		snprintf(s->base.why, sizeof(s->base.why),
			 "outside the searched layouts (cp <= %u, tp <= %u, "
			 "micro-batch <= %u); it would rank #%zu", q->max_cp,
			 q->max_tp, q->max_mb, rank_of(s, s->base.est.t_step));
	else if (!s->base.why[0])
		snprintf(s->base.why, sizeof(s->base.why),
			 "no micro-batch, schedule or recomputation allowed "
			 "here splits the batch and the model");
	s->base.est.layout = *a;
	return RM_OK;
}

rm_status rmi_suggest_around(const rmi_search *q, rm_suggestion *s,
			     rm_error *err)
{
	const rm_layout *around = q->o->around;
	uint64_t w = rm_layout_world(around);
	if (w != q->gpus)
		return rmi_err(err, RM_EINPUT,
			       "layout to compare has %llu GPUs, not %llu",
			       (unsigned long long)w,
			       (unsigned long long)q->gpus);
	rm_layout a;
	if (!rmi_suggest_layout_ep(&a, around->size[RM_AXIS_TP],
				   around->size[RM_AXIS_CP],
				   around->size[RM_AXIS_PP],
				   rm_layout_dp(around), rm_layout_ep(around),
				   rm_layout_etp(around)))
		a = *around;
	s->base_rank = 0;
	memset(&s->base, 0, sizeof(s->base));
	for (size_t i = 0; i < s->nranked && !s->base_rank; i++)
		if (!memcmp(s->ranked[i].est.layout.size, a.size,
			    sizeof(a.size)) &&
		    rm_layout_ep(&s->ranked[i].est.layout) == rm_layout_ep(&a) &&
		    rm_layout_etp(&s->ranked[i].est.layout) == rm_layout_etp(&a)) {
			s->base = s->ranked[i];
			s->base_rank = i + 1;
		}
	rm_status st = s->base_rank ? RM_OK : price_unranked(q, &a, s, err);
	if (!st)
		unbounded(q, s);
	return st;
}
