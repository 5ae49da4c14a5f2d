/* SPDX-License-Identifier: Apache-2.0 */
/* model_time.c - compute, per-axis communication, bubble, step time. */
#include "model/model_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t rmi_seq(const rm_model *m, const rm_train *t)
{
	return t->seq_len ? t->seq_len : m->seq_len;
}

/*
 * Narayanan et al. 2021: 1F1B (p-1)/m, interleaved (p-1)/(v m). Qi et al.
 * 2024 split the backward into B (input gradient) and W (weight gradient):
 * per micro-batch the 1F1B bubble is (p-1)(F+B+W); ZB-H1 leaves
 * (p-1)(F+B-W), ZB-H2 (p-1)(F+B-2W) (at least 0); ZB-V runs two chunks of
 * half a stage each in a V, so its residue is half of ZB-H2's. With F = B
 * = W (e NULL) that is (p-1)/(3m) for ZB-H1 and 0 for ZB-H2 and ZB-V;
 * recomputation lengthens B and leaves some bubble.
 */
double rmi_bubble_frac(rm_schedule s, uint32_t v, double p, double m,
		       const rm_estimate *e)
{
	if (p <= 1 || m <= 0)
		return 0;
	double F = 1, B = 1, W = 1;
	if (e && e->t_fwd > 0) {
		F = e->t_fwd;
		W = e->t_wgrad;
		B = e->t_bwd - e->t_wgrad + e->t_recomp;
	}
	double full = F + B + W;
	switch (s) {
	case RM_SCHED_1F1B: return (p - 1) / m;
	case RM_SCHED_INTERLEAVED: return (p - 1) / (v * m);
	case RM_SCHED_ZBH1: return (p - 1) * (F + B - W) / (full * m);
	case RM_SCHED_ZBH2: return (p - 1) * fmax(0, F + B - 2 * W) / (full * m);
	case RM_SCHED_ZBV:
		return (p - 1) * fmax(0, F + B - 2 * W) / (2 * full * m);
	}
	return 0;
}

static uint64_t units(uint64_t stride, uint64_t n, uint64_t span)
{
	if (n <= 1)
		return 1;
	if (stride >= span)
		return n;
	return (n - 1) * stride / span + 1;
}

/*
 * A ring is as fast as its slowest hop. Inside one NVLink domain that is
 * NVLink. Otherwise every tier the group spans several units of carries
 * k of its n hops; with every GPU of the job in one such group, a tier
 * oversubscribed o:1 slows those hops by o*k/n when that exceeds 1.
 * below[0]: the NVLink domains the group spans, below[i+1] the units of
 * tier i.
 */
/* snprintf(dst, n, "%s%s%s", a, b, c) without its cost (NULL: none):
 * suggest times a layout at every variant it tries, and formatting
 * these names was a sixth of its time. */
static void put_name3(char *dst, size_t n, const char *a, const char *b,
		      const char *c)
{
	const char *part[3] = { a, b, c };
	size_t k = 0;
	/* whole parts at a time: the note every estimate ends with is
	 * some 130 bytes, and copied byte by byte it was a tenth of a
	 * MoE search's instructions */
	for (int i = 0; i < 3 && k + 1 < n; i++) {
		if (!part[i])
			continue;
		size_t len = strnlen(part[i], n - 1 - k);
		memcpy(dst + k, part[i], len);
		k += len;
	}
	dst[k] = '\0';
}

static void put_name(char *dst, size_t n, const char *a, const char *b)
{
	put_name3(dst, n, a, b, NULL);
}

static void walk_tiers(const rm_hw *hw, const rm_train *t, uint64_t n,
		       const uint64_t *below, char link[32], double *gbps)
{
	rmi_cal c;
	rmi_cal_of(hw, t, &c);
	/* link NULL: the bandwidth alone (a floor's, which names nothing) */
	if (below[0] <= 1) {
		if (link)
			put_name(link, 32, "nvlink", NULL);
		*gbps = hw->nvlink_gbytes_per_s * c.nvlink_eff;
		return;
	}
	double bw = hw->nic_gbytes_per_s * c.net_eff;
	if (link)
		put_name(link, 32, "network", NULL);
	for (size_t i = 0; i < hw->ntiers; i++) {
		const rm_hw_tier *tr = &hw->tier[i];
		double share = tr->oversubscription * (double)below[i] / (double)n;
		double tb = tr->gbytes_per_s * c.net_eff / (share > 1 ? share : 1);
		if (tb < bw)
			bw = tb;
		if (link)
			put_name(link, 32, tr->name, NULL);
		if (below[i + 1] <= 1)
			break;
	}
	*gbps = bw;
}

void rmi_group_link(const rm_hw *hw, const rm_train *t, uint64_t stride,
		    uint64_t n, char link[32], double *gbps)
{
	uint64_t below[RM_MAX_TIERS + 1];
	below[0] = units(stride, n, hw->nvl_domain);
	for (size_t i = 0; i < hw->ntiers; i++)
		below[i + 1] = units(stride, n, hw->tier[i].span_gpus);
	walk_tiers(hw, t, n, below, link, gbps);
}

static uint64_t stride_of(const rm_layout *l, rm_axis a)
{
	uint64_t s = 1;
	for (unsigned i = 0; i < l->naxes && l->nest[i] != a; i++)
		s *= l->size[l->nest[i]];
	return s;
}

/* coll NULL: nothing named (a floor, model_suggest_bound.c) */
static void axis_set(rm_axis_cost *c, const rm_hw *hw, const rm_train *t,
		     const rm_layout *l, rm_axis place, uint32_t group,
		     const char *coll, double bytes, double calls)
{
	c->used = true;
	c->group = group;
	if (coll)
		put_name(c->collective, sizeof(c->collective), coll, NULL);
	c->bytes = bytes;
	c->calls = calls;
	uint64_t stride = stride_of(l, place), n = l->size[place];
	rmi_group_link(hw, t, stride, n, coll ? c->link : NULL,
		       &c->gbytes_per_s);
	/* a ring over k units has k hops leaving them */
	uint64_t kn = units(stride, n, hw->nvl_domain);
	uint64_t kl = hw->ntiers ? units(stride, n, hw->tier[0].span_gpus) : kn;
	c->off_nvlink = n > 1 && kn > 1 ? (double)kn / n : 0;
	c->off_leaf = n > 1 && kl > 1 ? (double)kl / n : 0;
}

/* Units of `span` GPUs the sorted places pos[0..n) touch, and the share
 * of ordered pairs of them in different units. */
static uint64_t spread(const uint64_t *pos, uint32_t n, uint64_t span,
		       double *apart)
{
	uint64_t k = 0, same = 0, run = 0, end = 0;
	for (uint32_t i = 0; i < n; i++) {
		/* sorted: a member before the unit's end is in it (one
		 * division per unit, not two per member) */
		if (i && pos[i] < end) {
			run++;
			continue;
		}
		end = (pos[i] / span + 1) * span;
		same += run * (run - 1);
		run = 1;
		k++;
	}
	same += run * (run - 1);
	if (apart)
		*apart = n > 1 ? 1.0 - (double)same / ((double)n * (n - 1)) : 0;
	return k;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * The first group of an expert kind, placed as the ideal packing places
 * ranks (each placement axis at its nesting's stride): the framework
 * numbers EP right before DP whatever the nesting, so its members are
 * found through their coordinates. Fills the links as walk_tiers does,
 * and the shares of member pairs beyond NVLink and the leaf.
 */
static void expert_link(const rm_hw *hw, const rm_train *t,
			const rm_layout *l, rm_group_kind k, char link[32],
			double *gbps, double *off_nvl, double *off_leaf)
{
	uint32_t n = rmi_kind_size(l, k);
	uint64_t pos[1024], below[RM_MAX_TIERS + 1];
	rm_order o;
	rmi_coord c;
	rm_order_from_nest(l, &o);
	if (n > 1024 || rmi_coord_prep(l, &o, k, &c, NULL) || c.n != 1) {
		/* Megatron-Core's own order: ETP innermost, EP next */
		uint64_t st = k == RM_GROUP_EP ? rm_layout_etp(l) : 1;
		n = n < 1024 ? n : 1024;
		for (uint32_t j = 0; j < n; j++)
			pos[j] = j * st;
	} else {
		for (uint32_t j = 0; j < n; j++) {
			uint32_t co[RM_NAXES];
			rm_rank_decode(l, &o, (uint32_t)(j * c.stride[0]), co);
			pos[j] = 0;
			for (int a = 0; a < RM_NAXES; a++)
				pos[j] += co[a] * stride_of(l, (rm_axis)a);
		}
		qsort(pos, n, sizeof(pos[0]), cmp_u64);
	}
	below[0] = spread(pos, n, hw->nvl_domain, off_nvl);
	*off_leaf = 0;
	for (size_t i = 0; i < hw->ntiers; i++)
		below[i + 1] = spread(pos, n, hw->tier[i].span_gpus,
				      i ? NULL : off_leaf);
	walk_tiers(hw, t, n, below, link, gbps);
}

double rmi_a2a_gbps(const rm_hw *hw, const rm_train *t, double off,
		    double net_gbps)
{
	rmi_cal c;
	rmi_cal_of(hw, t, &c);
	double nvl = hw->nvlink_gbytes_per_s * c.nvlink_eff;
	return off > 0 ? 1.0 / ((1 - off) / nvl + off / net_gbps) : nvl;
}

/*
 * Expert parallelism, per MoE layer and micro-batch: every GPU sends the
 * tokens it holds (b s / (cp t), sequence parallel) to their top_k
 * experts and takes the results back, forward (dispatch, combine) and
 * backward (their gradients): 4 all-to-alls of tokens x top_k x h x 2 B,
 * (ep-1)/ep of it to other GPUs, 2 more where a full recomputation
 * repeats the forward; a capacity factor pads every expert to it, a
 * dropless router leaves the busiest GPU moe_imbalance x the mean. With
 * etp > 1 each expert's FFN is split like TP's: the routed tokens are
 * gathered over the etp group before it and reduce-scattered after it.
 */
static void ep_traffic(const rm_model *m, const rm_hw *hw, const rm_train *t,
		       const rm_layout *l, rmi_ep_memo *memo, bool named,
		       rm_estimate *e)
{
	double tp = l->size[RM_AXIS_TP], cp = l->size[RM_AXIS_CP];
	double ep = rm_layout_ep(l), etp = rm_layout_etp(l);
	double tok = e->micro_batch * (double)rmi_seq(m, t) / cp / tp;
	double unit = tok * m->top_k * m->hidden * 2.0 *
		      rmi_routed_factor(m, t);
	double per = 4.0 + 2.0 * rmi_full_share(t, e->layers_stage);
	double n = (double)e->layers_stage * rmi_moe_layers(m) / m->layers *
		   (double)e->m;
	rm_axis_cost *c = &e->axis[RM_AXIS_EP];
	c->used = true;
	c->group = (uint32_t)ep;
	if (named)
		put_name(c->collective, sizeof(c->collective),
			 etp > 1 ? "all-to-all x4 + etp gathers" :
			 "all-to-all dispatch+combine x4", NULL);
	c->bytes = per * unit * (ep - 1) / ep * n *
		   rmi_ep_bytes_factor(t, rmi_full_share(t, e->layers_stage));
	c->calls = per * n;
	/* an all-to-all sends each peer its share directly: the peers in
	 * the GPU's NVLink domain over NVLink, the rest over the network
	 * tiers the group spans, one after the other */
	rmi_ep_memo own = { 0 };
	if (!memo)
		memo = &own;
	if (!memo->set) {
		double x;
		expert_link(hw, t, l, RM_GROUP_EP, memo->link, &memo->net,
			    &memo->off_nvl, &memo->off_leaf);
		if (etp > 1)
			expert_link(hw, t, l, RM_GROUP_ETP, memo->etp_link,
				    &memo->etp_gbps, &x, &x);
		memo->set = true;
	}
	memcpy(c->link, memo->link, sizeof(c->link));
	c->off_nvlink = memo->off_nvl;
	c->off_leaf = memo->off_leaf;
	c->gbytes_per_s = rmi_a2a_gbps(hw, t, c->off_nvlink, memo->net);
	if (etp > 1) {
		c->etp_bytes = per * unit * (etp - 1) * n;
		memcpy(c->etp_link, memo->etp_link, sizeof(c->etp_link));
		c->etp_gbps = memo->etp_gbps;
	}
}

double rmi_dp_exposed(const rm_train *t, const rm_estimate *e,
		      double seconds)
{
	double mb = (double)e->m, ls = e->layers_stage;
	/* Gradients of a stage are final once its last micro-batch's
	 * backward runs: that backward is the window to hide in.
	 * Sharded gradients (zero2, fsdp) are reduce-scattered after
	 * every micro-batch's backward, each behind its own. */
	double window = t->sharding == RM_SHARD_FSDP ? e->t_compute :
		t->sharding == RM_SHARD_ZERO2 ?
		fmin(e->t_compute, mb * ls * e->t_bwd) : ls * e->t_bwd;
	/* the distributed optimizer's all-gather of the updated weights
	 * (rmi_param_bytes per parameter: 2, or 1 with fp8_params) runs
	 * in the next step's forward, chunk by chunk, as Megatron's
	 * --overlap-param-gather does; the reduce-scatter keeps the
	 * backward */
	bool zero = t->sharding == RM_SHARD_ZERO1 ||
		    t->sharding == RM_SHARD_ZERO2;
	double rs = t->sharding == RM_SHARD_ZERO2 ? t->grad_bytes * mb :
		    t->grad_bytes;
	double pb = rmi_param_bytes(t);
	double ag = zero ? seconds * pb / (rs + pb) : 0;
	double fwd = ls * e->t_fwd * mb;
	return fmax(0, seconds - ag - t->dp_overlap * window) +
	       fmax(0, ag - t->dp_overlap * fwd);
}

/* Seconds from bytes and bandwidth, and what CP and EP leave exposed:
 * all of each axis a floor reads (TP's and DP's overlaps it bounds
 * itself). */
static void axis_times(const rm_train *t, rm_estimate *e)
{
	double mb = (double)e->m, ls = e->layers_stage;
	for (int a = 0; a < RM_NAXES; a++) {
		rm_axis_cost *c = &e->axis[a];
		if (!c->used)
			continue;
		c->seconds = c->bytes / (c->gbytes_per_s * 1e9);
		c->exposed = c->seconds;
	}
	rm_axis_cost *cp = &e->axis[RM_AXIS_CP];
	if (cp->used) {
		/* ring attention hides behind the attention it feeds */
		double t_attn = e->t_attn * 3.5 * ls * mb;
		cp->exposed = fmax(0, cp->seconds - t_attn);
	}
	rm_axis_cost *ep = &e->axis[RM_AXIS_EP];
	if (ep->used) {
		/* the all-to-alls (and ETP's gathers) block the layer that
		 * waits for its tokens unless a schedule hides them behind
		 * another micro-batch's compute (moe_overlap) */
		ep->seconds += ep->etp_bytes > 0 ?
			       ep->etp_bytes / (ep->etp_gbps * 1e9) : 0;
		ep->exposed = (1 - t->moe_overlap) * ep->seconds;
	}
}

/* Seconds from bytes and bandwidth; what hides, what is exposed; step. */
void rmi_estimate_times(const rm_model *m, const rm_hw *hw, const rm_train *t,
			const rmi_shape *ks, rm_estimate *e)
{
	double mb = (double)e->m, ls = e->layers_stage;
	axis_times(t, e);
	rm_axis_cost *tpc = &e->axis[RM_AXIS_TP];
	double o = rmi_tp_overlap(hw, t);
	if (tpc->used && t->seq_parallel && o > 0 && tpc->calls > 0) {
		/* tp_overlap of the traffic goes through Transformer Engine's
		 * overlap and hides what its GEMMs can hide (rmi_tp_exposed);
		 * the rest is exposed. Without sequence parallelism nothing
		 * hides: Megatron-LM refuses --tp-comm-overlap then. */
		double unit = tpc->seconds / tpc->calls;
		rmi_shape own;
		if (!ks) {
			rmi_shape_of(m, t, &own);
			ks = &own;
		}
		double te = rmi_tp_exposed(m, hw, t, ks, e, unit) * ls * mb;
		tpc->exposed = (1 - o) * tpc->seconds + o * fmin(te, tpc->seconds);
	}
	rm_axis_cost *cp = &e->axis[RM_AXIS_CP];
	rm_axis_cost *dp = &e->axis[RM_AXIS_DP];
	if (dp->used)
		dp->exposed = rmi_dp_exposed(t, e, dp->seconds);
	rm_axis_cost *ep = &e->axis[RM_AXIS_EP];
	/* at scale (model_scale.c): latency, stragglers, data */
	e->t_lat_path = rmi_coll_latency(t, e, false, NULL);
	e->t_lat = e->t_lat_path + rmi_coll_latency(t, e, true, NULL);
	double path = e->t_compute + tpc->exposed + cp->exposed +
		      e->axis[RM_AXIS_PP].exposed + ep->exposed + e->t_lat_path;
	e->bubble_frac = rmi_bubble_frac(e->schedule, e->vchunks,
					 e->layout.size[RM_AXIS_PP], mb, e);
	e->t_bubble = e->bubble_frac * path;
	e->t_jitter = rmi_straggle(t, e->gpus) * (path + e->t_bubble);
	e->t_data = t->data_s;
	e->t_step = path + e->t_bubble + dp->exposed + e->t_optim +
		    (e->t_lat - e->t_lat_path) + e->t_jitter + e->t_data;
	e->mfu = e->flops_gpu / (e->t_step * hw->peak_flops);
	e->mfu_causal = e->mfu * e->flops_token_causal / e->flops_token;
	e->tokens_per_s = (double)e->seqs * rmi_seq(m, t) / e->t_step;
	rmi_goodput(t, e);
}

rm_status rmi_estimate_run(const rm_model *m, const rm_hw *hw,
			  const rm_train *t, const rm_layout *l,
			  rm_estimate *e, rm_error *err)
{
	return rmi_estimate_memo(m, hw, t, l, NULL, NULL, e, err);
}

rm_status rmi_estimate_memo(const rm_model *m, const rm_hw *hw,
			    const rm_train *t, const rm_layout *l,
			    const rmi_shape *ks, rmi_ep_memo *memo,
			    rm_estimate *e, rm_error *err)
{
	memset(e, 0, sizeof(*e));
	rm_status st = rm_model_check(m, err);
	if (!st)
		st = rm_hw_check(hw, err);
	rmi_shape own;
	if (!st && !ks) {            /* once for both halves */
		rmi_shape_of(m, t, &own);
		ks = &own;
	}
	if (!st)
		st = rmi_estimate_mem(m, hw, t, l, ks, e, err);
	if (!st)
		rmi_estimate_time(m, hw, t, ks, memo, e);
	return st;
}

/* floor: only what rmi_suggest_bound reads (the compute, the axes'
 * seconds and CP's and EP's exposure), nothing named: suggest takes a
 * floor of every layout that fits, most of them never timed. */
static void estimate_time(const rm_model *m, const rm_hw *hw,
			  const rm_train *t, const rmi_shape *ks,
			  rmi_ep_memo *memo, bool floor, rm_estimate *e)
{
	rmi_shape own;
	if (!ks) {
		rmi_shape_of(m, t, &own);
		ks = &own;
	}
	const rm_layout *l = &e->layout;
	uint64_t seqs = e->seqs;
	double tp = l->size[RM_AXIS_TP], pp = l->size[RM_AXIS_PP];
	double cp = l->size[RM_AXIS_CP], dp = rm_layout_dp(l);

	/* model FLOPs: PaLM appendix B, 6N + 12*L*H*Q*T per token; N is
	 * what one token uses (a MoE model's active parameters, its router
	 * included), and QK^T and PV contract over their own head dims
	 * (MLA's differ): 6*L*a*(qk + v)*s */
	double seq = rmi_seq(m, t), tokens = (double)seqs * seq;
	double N = rmi_model_active(m), hqk, hv;
	rmi_head_dims(m, &hqk, &hv);
	double attn = 6.0 * m->layers * m->heads * (hqk + hv) * seq;
	e->flops_token = 6.0 * N + attn;
	/* a causal mask leaves half of the scores to compute */
	e->flops_token_causal = 6.0 * N + attn / 2.0;
	e->flops_step = e->flops_token * tokens;
	e->flops_gpu = e->flops_step / (double)e->gpus;
	e->t_peak = e->flops_gpu / hw->peak_flops;
	rmi_compute(m, hw, t, ks, e);
	/* what the hardware runs per token: the same plus recomputation */
	double fs = rmi_full_share(t, e->layers_stage);
	e->hw_flops_token = e->flops_token + fs * (2.0 * N + attn / 3.0);
	if (t->recompute != RM_RECOMPUTE_NONE && !t->flash)
		e->hw_flops_token += (1.0 - fs) * attn / 3.0;

	double b = t->micro_batch, sl = seq / cp, h = m->hidden;
	double mb = (double)e->m, ls = e->layers_stage;
	double full = rmi_full_share(t, e->layers_stage);
	if (tp > 1) {
		/* Per layer per micro-batch, in units of one all-gather or
		 * reduce-scatter of b*s*h bf16 elements (an all-reduce is two):
		 * 4 forward, 4 backward, and with sequence parallelism the
		 * backward gathers the two column-parallel inputs again for the
		 * weight gradients (Megatron saves only the shard): 10; full
		 * recomputation repeats the forward 4. */
		double per = (t->seq_parallel ? 10.0 : 8.0) + 4.0 * full;
		/* half of that is the FFN's, which a MoE layer without shared
		 * experts does not send: its routed tokens go over EP (and
		 * ETP, priced on the ep line) instead */
		double L = m->layers, nm = rmi_moe_layers(m);
		if (nm > 0 && !m->shared_experts)
			per *= 0.5 + 0.5 * (L - nm) / L;
		double bytes = per * 2.0 * b * sl * h * (tp - 1) / tp * ls * mb;
		axis_set(&e->axis[RM_AXIS_TP], hw, t, l, RM_AXIS_TP,
			 (uint32_t)tp, floor ? NULL : t->seq_parallel ?
			 "all-gather+reduce-scatter" : "all-reduce", bytes,
			 per * ls * mb);
	}
	if (cp > 1) {
		/* ring attention: K and V blocks of the local tokens go round
		 * the ring (cp-1 steps); backward sends them again plus dK, dV */
		double kvh = m->kv_heads >= tp ? m->kv_heads / tp : 1;
		double blk = 2.0 * b * sl * kvh * m->head_dim * 2.0;
		double per = 3.0 + full;
		double bytes = per * blk * (cp - 1) * ls * mb;
		axis_set(&e->axis[RM_AXIS_CP], hw, t, l, RM_AXIS_CP,
			 (uint32_t)cp, floor ? NULL : "ring send/recv of K,V",
			 bytes,
			 per * (cp - 1) * ls * mb);
		e->axis[RM_AXIS_CP].overlappable = true;
	}
	if (pp > 1) {
		double bytes = 2.0 * (2.0 * b * sl * h / tp) * mb * e->vchunks;
		axis_set(&e->axis[RM_AXIS_PP], hw, t, l, RM_AXIS_PP,
			 (uint32_t)pp, floor ? NULL : "send/recv activations",
			 bytes,
			 2.0 * mb * e->vchunks);
	}
	if (m->experts && (rm_layout_ep(l) > 1 || rm_layout_etp(l) > 1))
		ep_traffic(m, hw, t, l, memo, !floor, e);
	double d = dp * cp;
	/* the routed experts' gradients reduce over their own data-parallel
	 * group (edp, Megatron-Core's expert data parallel), the rest over
	 * dp x cp: f weighs (k-1)/k of each by its share of the GPU's */
	double rho, lg, edp = rm_layout_edp(l);
	rmi_layer_costs(ks, l, &lg, NULL, &rho);
	double f = (1 - rho) * (d - 1) / d + (edp > 0 ? rho * (edp - 1) / edp : 0);
	if (d > 1 || f > 0) {
		double P = rmi_params_peak_at(e, lg), pb = rmi_param_bytes(t);
		double bytes, calls;
		const char *coll;
		switch (t->sharding) {
		case RM_SHARD_NONE:
			bytes = 2 * f * P * t->grad_bytes;
			calls = 1;
			coll = "all-reduce grads";
			break;
		case RM_SHARD_FSDP:
			/* weights gathered for every micro-batch's forward
			 * and backward, its gradients scattered after it */
			bytes = f * P * (2.0 * pb + t->grad_bytes) * mb;
			calls = 3 * mb;
			coll = "all-gather params+reduce-scatter";
			break;
		case RM_SHARD_ZERO2:
			/* gradients are kept sharded, so each micro-batch's
			 * are scattered after its backward (DeepSpeed's
			 * stage 2 with accumulation); weights gathered once */
			bytes = f * P * (t->grad_bytes * mb + pb);
			calls = mb + 1;
			coll = "reduce-scatter x m+all-gather";
			break;
		default:
			bytes = f * P * (t->grad_bytes + pb);
			calls = 2;
			coll = "reduce-scatter+all-gather";
			break;
		}
		/* the dp rings carry the gradients; where the expert blocks
		 * span all of dp (size[DP] 1), the ep placement axis holds it */
		rm_axis g = l->size[RM_AXIS_DP] > 1 ? RM_AXIS_DP :
			    l->size[RM_AXIS_EP] > 1 ? RM_AXIS_EP :
			    cp > 1 ? RM_AXIS_CP : RM_AXIS_DP;
		axis_set(&e->axis[RM_AXIS_DP], hw, t, l, g, (uint32_t)d,
			 floor ? NULL : coll, bytes, calls);
		e->axis[RM_AXIS_DP].overlappable = true;
	}
	if (floor) {
		axis_times(t, e);
		return;
	}
	rmi_estimate_times(m, hw, t, ks, e);
	put_name3(e->note, sizeof(e->note),
		  "no fabric given: ideal nesting assumed (axes packed in the "
		  "layout's order, innermost first, on ", hw->name,
		  "'s tiers)");
}

void rmi_estimate_time(const rm_model *m, const rm_hw *hw, const rm_train *t,
		       const rmi_shape *ks, rmi_ep_memo *memo, rm_estimate *e)
{
	estimate_time(m, hw, t, ks, memo, false, e);
}

void rmi_estimate_floor(const rm_model *m, const rm_hw *hw, const rm_train *t,
			const rmi_shape *ks, rmi_ep_memo *memo, rm_estimate *e)
{
	estimate_time(m, hw, t, ks, memo, true, e);
}
