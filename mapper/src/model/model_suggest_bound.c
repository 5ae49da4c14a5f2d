/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_suggest_bound.c - a floor under a layout's step time that costs
 * a compute estimate, not the whole time model: suggest times a layout
 * only while its floor could still place it in the report.
 */
#include "model/model_suggest.h"

#include <math.h>
#include <string.h>

/* The fewest bubble any allowed schedule leaves at pp stages of ls
 * layers and mb micro-batches: 1f1b's, or interleaved's with the most
 * chunks that divide ls; 0 where a zero-bubble schedule is allowed (its
 * bubble shrinks with the W pass, which the floor does not know). */
static double least_bubble(unsigned allowed, uint32_t pp, uint32_t ls,
			   double mb)
{
	if (pp <= 1 || mb <= 0)
		return 0;
	if (allowed & ((1u << RM_SCHED_ZBH1) | (1u << RM_SCHED_ZBH2) |
		       (1u << RM_SCHED_ZBV)))
		return 0;
	uint32_t v = 1;
	if (allowed & (1u << RM_SCHED_INTERLEAVED))
		for (uint32_t c = 2; c <= 64 && c <= ls; c++)
			if (ls % c == 0)
				v = c;
	return (pp - 1) / (v * mb);
}

/*
 * At one micro-batch every variant's step is at least what the same
 * layout steps with no recomputation under 1f1b, less what recomputation
 * or a schedule can take away. Recomputation only adds (to the compute,
 * rmi_compute's t_recomp, and to the tp, cp and ep bytes); chunks only
 * add pp bytes (1f1b has one); TP's overlap hides at most tp_overlap of
 * its traffic; the bubble is at least the fewest any allowed schedule
 * leaves. The optimizer step depends on the layout and sharding alone.
 * The layout's floor is the least over the micro-batches that fit.
 *
 * The time model runs at the largest of them only: the tp, cp, pp, ep
 * and dp bytes above do not change with the micro-batch (they go as
 * micro-batch x micro-batches, or not at all; so does the attention cp
 * hides behind), so the others take them from it with their own
 * compute (rmi_compute alone). The data-parallel tail hides behind the
 * backward and forward, which recomputation does not change, except
 * under sharded gradients (zero2, fsdp: it hides behind the compute,
 * which recomputation lengthens; not counted then).
 */
double rmi_suggest_bound(const rmi_search *q, const rm_layout *l,
			 unsigned mask, rmi_ep_memo *memo, rmi_bound_keep *keep)
{
	rm_train t = *q->t;
	t.recompute = RM_RECOMPUTE_NONE;
	t.recompute_layers = 0;
	t.schedule = RM_SCHED_1F1B;
	t.vchunks = 1;
	unsigned allowed = q->o->schedules ? q->o->schedules :
			   (1u << RM_SCHED_1F1B) | (1u << RM_SCHED_INTERLEAVED);
	double o = rmi_tp_overlap(q->hw, &t);
	bool tail = t.sharding != RM_SHARD_ZERO2 &&
		    t.sharding != RM_SHARD_FSDP;
	double lo = HUGE_VAL, comm = 0, dps = 0;
	rm_estimate e;
	bool first = true;
	/* a micro-batch past keep's arrays: every term from scratch */
	if (mask >> RMI_BOUND_MBS)
		keep = NULL;
	bool take = keep && keep->set;
	for (int k = 31; k >= 0; k--) {
		uint32_t mb = 1u << k;
		if (!(mask & (1u << k)) || mb > q->max_mb)
			continue;
		t.micro_batch = mb;
		if (first) {
			/* 1f1b takes any micro-batch that splits the
			 * batch, which every variant that fits needs */
			if (rmi_estimate_mem(q->m, q->hw, &t, l, &q->shape,
					     &e, NULL))
				return 0;
			rmi_estimate_floor(q->m, q->hw, &t, &q->shape, memo,
					   &e);
			const rm_axis_cost *a = e.axis;
			comm = (a[RM_AXIS_TP].used ?
				(1 - o) * a[RM_AXIS_TP].seconds : 0) +
			       a[RM_AXIS_CP].exposed + a[RM_AXIS_PP].exposed +
			       a[RM_AXIS_EP].exposed;
			dps = tail && a[RM_AXIS_DP].used ?
			      a[RM_AXIS_DP].seconds : 0;
			first = false;
			/* the kept terms hold while the largest micro-batch's
			 * compute and DP tail are as they were kept */
			take = take && keep->dps == dps &&
			       keep->compute[k] == e.t_compute &&
			       keep->optim[k] == e.t_optim;
		} else if (take) {
			double f = (keep->compute[k] + comm) * keep->bubble[k] +
				   keep->dp[k] + keep->optim[k];
			lo = f < lo ? f : lo;
			continue;
		} else {
			/* the compute reads the layout's parameters,
			 * which no micro-batch changes, and these */
			e.micro_batch = mb;
			e.m = e.seqs / (rm_layout_dp(l) * (uint64_t)mb);
			rmi_compute(q->m, q->hw, &t, &q->shape, &e);
		}
		double dp = dps > 0 ? rmi_dp_exposed(&t, &e, dps) : 0;
		double b = 1 + least_bubble(allowed, l->size[RM_AXIS_PP],
					    e.layers_stage, (double)e.m);
		double f = (e.t_compute + comm) * b + dp + e.t_optim;
		lo = f < lo ? f : lo;
		if (keep && !keep->set) {
			keep->compute[k] = e.t_compute;
			keep->bubble[k] = b;
			keep->dp[k] = dp;
			keep->optim[k] = e.t_optim;
		}
	}
	if (keep && !keep->set && lo < HUGE_VAL) {
		keep->dps = dps;
		keep->set = true;
	}
	return lo;
}

/* EP links no faster than any link of hw: the floor with them is a
 * floor still, without the walk over an EP group's members that finds
 * the real ones (the dearest part of a MoE layout's floor). An
 * all-to-all's rate is a mean of NVLink's and the network's, and the
 * network's is no more than a NIC's. */
void rmi_suggest_fast_links(const rmi_search *q, rmi_ep_memo *memo)
{
	rmi_cal c;
	rmi_cal_of(q->hw, q->t, &c);
	double nvl = q->hw->nvlink_gbytes_per_s * c.nvlink_eff;
	double net = q->hw->nic_gbytes_per_s * c.net_eff;
	memset(memo, 0, sizeof(*memo));
	memcpy(memo->link, "nvlink", 7);
	memcpy(memo->etp_link, "nvlink", 7);
	memo->off_nvl = net > nvl ? 1 : 0;
	memo->net = net > nvl ? net : nvl;
	memo->etp_gbps = memo->net;
	memo->set = true;
}
