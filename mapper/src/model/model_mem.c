/* SPDX-License-Identifier: Apache-2.0 */
/* model_mem.c - memory per GPU: parameter state, activations, logits;
 * and an estimate's first half, the layout's checks and its memory
 * (rmi_estimate_mem), which model_time.c's time completes. */
#include "model/model_int.h"

#include <math.h>
#include <string.h>

/* Mixed-precision Adam (ZeRO paper, sec. 3.1): bf16 weights (2 bytes),
 * gradients (grad_bytes), fp32 master weights + momentum + variance (12);
 * each sharding stage divides one more of them by the sharding group. */
double rmi_shard_group(const rm_layout *l)
{
	return (double)rm_layout_dp_shard(l) * l->size[RM_AXIS_CP];
}

/* rmi_layer_gpu, rmi_routed_share and rmi_shard_eff of a layer split
 * (rmi_layer_split) already made: an estimate needs all three, and
 * split the layer six times over for them. */
static double layer_gpu_of(double d, double r, const rm_layout *l)
{
	return d / l->size[RM_AXIS_TP] +
	       r / ((double)rm_layout_ep(l) * rm_layout_etp(l));
}

static double routed_share_of(double d, double r, const rm_layout *l)
{
	double g = layer_gpu_of(d, r, l);
	return g > 0 ? r / ((double)rm_layout_ep(l) * rm_layout_etp(l)) / g : 0;
}

/* Megatron-Core's distributed optimizer shards the routed experts over
 * the expert data-parallel group (edp = tp x cp x dp / (etp x ep)), the
 * rest over dp x cp; under HSDP both over their shard part. */
static double shard_eff_of(double d, double r, const rm_layout *l)
{
	double g = rmi_shard_group(l), rho = routed_share_of(d, r, l);
	if (rho <= 0)
		return g;
	double edp = (double)rm_layout_edp(l) * rm_layout_dp_shard(l) /
		     rm_layout_dp(l);
	return 1.0 / ((1 - rho) / g + rho / (edp >= 1 ? edp : 1));
}

double rmi_layer_gpu(const rm_model *m, const rm_layout *l)
{
	double d, r;
	rmi_layer_split(m, &d, &r);
	return layer_gpu_of(d, r, l);
}

double rmi_routed_share(const rm_model *m, const rm_layout *l)
{
	double d, r;
	rmi_layer_split(m, &d, &r);
	return routed_share_of(d, r, l);
}

double rmi_shard_eff(const rm_model *m, const rm_layout *l)
{
	double d, r;
	rmi_layer_split(m, &d, &r);
	return shard_eff_of(d, r, l);
}

void rmi_layer_costs(const rmi_shape *k, const rm_layout *l, double *layer,
		     double *shard, double *rho)
{
	double d = k->dense, r = k->routed;
	if (layer)
		*layer = layer_gpu_of(d, r, l);
	if (shard)
		*shard = shard_eff_of(d, r, l);
	if (rho)
		*rho = routed_share_of(d, r, l);
}

void rmi_bytes_per_param(rm_sharding s, double grad_bytes, double d,
			 double out[3])
{
	out[0] = 2.0;
	out[1] = grad_bytes;
	out[2] = 12.0;
	switch (s) {
	case RM_SHARD_FSDP:
		out[0] /= d;
		/* fall through */
	case RM_SHARD_ZERO2:
		out[1] /= d;
		/* fall through */
	case RM_SHARD_ZERO1:
		out[2] /= d;
		break;
	case RM_SHARD_NONE:
		break;
	}
}

/*
 * Korthikanti et al. 2022 with tensor + sequence parallelism, bf16, per
 * token of one layer, everything divided by t: the attention block keeps
 * its norm's input (2h), the QKV input (2h), Q, K and V (2(q + 2 kv_dim)),
 * the attention output (2q) and a dropout mask (h); the MLP its norm's
 * input (2h), the FC1 input (2h), FC1's output (2f, gated 4f), the
 * activation's output (2f) and a dropout mask (h). For GPT (q = kv_dim =
 * h, f = 4h, dropout) that is the paper's 34; Llama 3 405B (GQA, SwiGLU,
 * no dropout) keeps 31.75. Without selective recomputation the s x s
 * scores add 5as/h (Korthikanti); full recomputation keeps the layer
 * input, 2 per token. Dropout goes with the GPT-style flag `bias`.
 */
/* f: the FFN width (rmi_shape's ffn_act) */
static double act_layer(const rm_model *m, double f, rm_recompute r,
			double b, double s, double t)
{
	double h = m->hidden, hd = m->head_dim;
	double q = m->heads * hd, kv = m->kv_heads * hd;
	double drop = m->bias ? h : 0.0;
	double per = 4.0 * h + 2.0 * (q + 2.0 * kv) + 2.0 * q + drop +
		     4.0 * h + (m->swiglu ? 4.0 : 2.0) * f + 2.0 * f + drop;
	double sb = s * b / t;
	switch (r) {
	case RM_RECOMPUTE_NONE:
		return sb * (per + 5.0 * m->heads * s);
	case RM_RECOMPUTE_SELECTIVE:
		return sb * per;
	case RM_RECOMPUTE_FULL:
		return sb * 2.0 * h;
	}
	return 0;
}

double rmi_act_layer(const rm_model *m, rm_recompute r, double b, double s,
		     double t)
{
	/* a MoE layer keeps the FFN tensors of each token's top_k routed
	 * and its shared experts (capacity-padded), averaged over layers */
	return act_layer(m, rmi_ffn_width(m, m->capacity > 0 ? m->capacity :
					  1.0), r, b, s, t);
}

/*
 * How many micro-batches' worth of its own layers pipeline rank r holds at
 * its peak. 1F1B runs p-r-1 warm-up forwards and one more before its first
 * backward: p-r (Narayanan 2021). Megatron-Core's interleaved schedule
 * warms up 2(p-r-1) + (v-1)p chunks of ls/v layers, all m*v of them when
 * that reaches the total, then holds one more in the steady state: rank 0
 * holds p + (p-1)/v (Korthikanti 2022, sec. 4.2.3), rank 1 only 2/v less.
 * Qi et al. 2024: ZB-H1 keeps 1F1B's counts; ZB-H2 warms up twice as deep,
 * 2(p-r)-1; ZB-V holds 2p chunks of half a stage, p, on every GPU (its V
 * gives each GPU a first and a last chunk).
 */
double rmi_inflight(rm_schedule s, uint32_t v, double p, double m, double r)
{
	double k;
	if (p <= 1)
		return 1;
	switch (s) {
	case RM_SCHED_INTERLEAVED: {
		double warm = 2 * (p - r - 1) + (v - 1) * p;
		k = warm >= m * v ? m : (warm + 1) / v;
		break;
	}
	case RM_SCHED_ZBV:
		k = p;
		break;
	case RM_SCHED_ZBH2:
		k = 2 * (p - r) - 1;
		break;
	case RM_SCHED_1F1B:
	case RM_SCHED_ZBH1:
	default:
		k = p - r;
		break;
	}
	return k < m ? k : m;
}

/* Weight-gradient passes a zero-bubble schedule holds back beyond what
 * its in-flight count already keeps: Qi et al. count a micro-batch in
 * flight until its W has run, so only the one pending W of the steady
 * state adds its linears' output gradients. */
static double deferred_w(rm_schedule s, double p, double m)
{
	bool zb = s == RM_SCHED_ZBH1 || s == RM_SCHED_ZBH2 || s == RM_SCHED_ZBV;
	return zb && p > 1 && m >= 1 ? 1 : 0;
}

double rmi_params_peak(const rm_model *m, const rm_estimate *e)
{
	return rmi_params_peak_at(e, rmi_layer_gpu(m, &e->layout));
}

double rmi_params_peak_at(const rm_estimate *e, double layer)
{
	double mid = e->layers_stage * layer;
	return fmax(fmax(e->params_first, e->params_last), mid);
}

void rmi_model_memory(const rm_model *m, const rm_hw *hw, const rm_train *t,
		      const rmi_shape *ks, rm_estimate *e)
{
	const rm_layout *l = &e->layout;
	double tp = l->size[RM_AXIS_TP], pp = l->size[RM_AXIS_PP];
	double cp = l->size[RM_AXIS_CP];
	double d, layer;
	rmi_layer_costs(ks, l, &layer, &d, NULL);
	double s = rmi_seq(m, t) / cp, b = e->micro_batch;
	double head = rmi_model_edge_params(m, false);
	if (m->tied_embeddings && pp > 1)
		head += (double)m->vocab * m->hidden;   /* the head's own copy */
	uint32_t p = l->size[RM_AXIS_PP];
	rmi_stages sl;
	rmi_stages_of(m, t, p, &sl);
	double lf = rmi_stage_at(&sl, 0);
	double ll = rmi_stage_at(&sl, p - 1);
	e->params_first = lf * layer + rmi_model_edge_params(m, true) / tp;
	e->params_last = ll * layer + head / tp;
	if (pp <= 1)
		e->params_first = e->params_last =
			e->params_first + head / tp;
	double worst = fmax(fmax(e->params_first, e->params_last),
			    e->layers_stage * layer);
	rmi_bytes_per_param(t->sharding, t->grad_bytes, d, e->bytes_per_param);
	/* FP8 weights (fp8_params): 1 B a parameter; the embedding and the
	 * output layer, BF16 in TE, are counted so too */
	e->bytes_per_param[0] *= rmi_param_bytes(t) / 2.0;
	e->weights = worst * e->bytes_per_param[0];
	if (t->sharding == RM_SHARD_FSDP)
		e->weights += 2.0 * layer * 2.0;   /* gathered layer + prefetch */
	e->grads = worst * e->bytes_per_param[1];
	e->optim = worst * e->bytes_per_param[2];
	double state_first = e->params_first *
			     (e->bytes_per_param[0] + e->bytes_per_param[1] +
			      e->bytes_per_param[2]);
	double state_last = e->params_last *
			    (e->bytes_per_param[0] + e->bytes_per_param[1] +
			     e->bytes_per_param[2]);
	if (t->sharding == RM_SHARD_FSDP) {
		state_first += 4.0 * layer;
		state_last += 4.0 * layer;
	}

	/* a flash kernel keeps no s x s scores, recomputed or not; without
	 * sequence parallelism the norms' and dropouts' 10 sbh are whole on
	 * every TP rank (Korthikanti: 10 + 24/t instead of 34/t) */
	/* with full recomputation on some layers only, the others keep what
	 * selective keeps: act_layer is their average over the stage */
	double full = rmi_full_share(t, e->layers_stage);
	rm_recompute r = t->recompute == RM_RECOMPUTE_FULL ?
			 RM_RECOMPUTE_SELECTIVE : t->recompute;
	if (t->flash && r == RM_RECOMPUTE_NONE)
		r = RM_RECOMPUTE_SELECTIVE;
	double kept = act_layer(m, ks->ffn_act, r, b, s, tp);
	if (!t->seq_parallel)
		kept += 10.0 * s * b * m->hidden * (1.0 - 1.0 / tp);
	e->act_layer = full * act_layer(m, ks->ffn_act, RM_RECOMPUTE_FULL, b,
					s, tp) +
		       (1.0 - full) * kept;
	/* deferred W passes keep their linears' output gradients (bf16) */
	double q = (double)m->heads * m->head_dim, kv = (double)m->kv_heads * m->head_dim;
	double outg = 2.0 * b * s * (q + 2 * kv + 2.0 * m->hidden +
				     (m->swiglu ? 2.0 : 1.0) *
				     ks->ffn_one) / tp;
	e->inflight_w = deferred_w(e->schedule, pp, (double)e->m);
	double wmem = e->inflight_w * e->layers_stage * outg;
	/* Full recomputation rebuilds one layer at a time for its backward
	 * (attention through a fused kernel: no s*s scores kept). */
	e->act_work = t->recompute == RM_RECOMPUTE_FULL ?
		      act_layer(m, ks->ffn_act, RM_RECOMPUTE_SELECTIVE, b, s,
				tp) : 0;
	/* bf16 logits plus the fp32 copy the loss is computed in */
	e->logits = b * s * m->vocab / tp * 6.0;
	e->reserve = t->mem_reserve_bytes;
	e->hbm = hw->hbm_bytes;
	double fixed = wmem + e->act_work + e->reserve;
	double bp = e->bytes_per_param[0] + e->bytes_per_param[1] +
		    e->bytes_per_param[2];
	double gathered = t->sharding == RM_SHARD_FSDP ? 4.0 * layer : 0.0;

	/* The first column is the fullest stage before the last: stage 0
	 * holds the most micro-batches and the embedding, a later one may
	 * hold more layers; the last holds the head and the logits. */
	double mf = (double)e->m;
	e->stage_first_col = 0;
	e->params_col = e->params_first;
	e->gathered = gathered;
	e->inflight_first = rmi_inflight(e->schedule, e->vchunks, pp, mf, 0);
	e->act_first = e->inflight_first * lf * e->act_layer + wmem;
	e->mem_first = state_first + e->act_first + e->act_work + e->reserve;
	/* A middle stage holds no more than an earlier one of as many
	 * layers: what it keeps in flight (rmi_inflight) never grows with
	 * its rank. So only the first of each size (they have two, base
	 * and base + 1) can be the fullest; skipping the rest saves a
	 * ninth of the memory's instructions in a MoE search. */
	double seen[2] = { -1, -1 };
	unsigned ns = 0;
	for (uint32_t i = 1; i + 1 < p; i++) {
		double n = rmi_stage_at(&sl, i);
		if (n == seen[0] || n == seen[1])
			continue;
		seen[ns++ & 1] = n;
		double k = rmi_inflight(e->schedule, e->vchunks, pp, mf, i);
		double mem = n * layer * bp + gathered + k * n * e->act_layer +
			     fixed;
		if (mem > e->mem_first) {
			e->stage_first_col = i;
			e->params_col = n * layer;
			e->inflight_first = k;
			e->act_first = k * n * e->act_layer + wmem;
			e->mem_first = mem;
		}
	}
	e->inflight_last = rmi_inflight(e->schedule, e->vchunks, pp, mf,
					pp - 1);
	e->act_last = e->inflight_last * ll * e->act_layer;
	e->mem_last = state_last + e->act_last + e->act_work + e->logits +
		      e->reserve;
	e->logits_first = 0;
	if (pp <= 1 || e->schedule == RM_SCHED_ZBV) {
		e->logits_first = e->logits;   /* the head lives here too */
		e->mem_first += e->logits;
	}
	e->mem_peak = fmax(e->mem_first, e->mem_last);
	e->fits = e->mem_peak <= e->hbm;
}

static rm_status check_layout(const rm_model *m, const rm_train *t,
			      const rm_layout *l, uint64_t *seqs, rm_error *err)
{
	uint64_t world = rm_layout_world(l);
	if (l->dp_auto || world == 0 || world > RM_MAX_WORLD)
		return rmi_err(err, RM_EINPUT,
			       "layout must be resolved to at most %u GPUs",
			       RM_MAX_WORLD);
	for (int a = 0; a < RM_NAXES; a++)
		if (l->size[a] == 0)
			return rmi_err(err, RM_EINPUT, "%s=0 in the layout",
				       rm_axis_name((rm_axis)a));
	/* ep is carved out of dp (Megatron-Core): size[EP] can be 1 with
	 * ep > 1, so ask for the degree */
	if (!m->experts && (rm_layout_ep(l) > 1 || (l->etp && l->etp !=
						      l->size[RM_AXIS_TP])))
		return rmi_err(err, RM_EUNSUPPORTED,
			       "ep=%u, etp=%u: expert parallelism needs a "
			       "mixture-of-experts model; this model is dense",
			       rm_layout_ep(l), rm_layout_etp(l));
	if (m->experts && m->experts % rm_layout_ep(l))
		return rmi_err(err, RM_EINPUT,
			       "ep=%u does not divide the %u experts",
			       rm_layout_ep(l), m->experts);
	if (m->experts && m->expert_ffn % rm_layout_etp(l))
		return rmi_err(err, RM_EINPUT,
			       "etp=%u does not divide the expert FFN of %u",
			       rm_layout_etp(l), m->expert_ffn);
	uint32_t tp = l->size[RM_AXIS_TP], pp = l->size[RM_AXIS_PP];
	uint32_t cp = l->size[RM_AXIS_CP], dp = rm_layout_dp(l);
	if (m->heads % tp)
		return rmi_err(err, RM_EINPUT,
			       "tp=%u does not divide the %u attention heads",
			       tp, m->heads);
	if (pp > m->layers)
		return rmi_err(err, RM_EINPUT,
			       "pp=%u is more stages than the %u layers", pp,
			       m->layers);
	uint32_t seq = rmi_seq(m, t);
	if (seq % cp)
		return rmi_err(err, RM_EINPUT,
			       "cp=%u does not divide the sequence of %u tokens",
			       cp, seq);
	if (t->batch_tokens % seq)
		return rmi_err(err, RM_EINPUT,
			       "batch of %llu tokens is not a whole number of "
			       "%u-token sequences",
			       (unsigned long long)t->batch_tokens, seq);
	*seqs = t->batch_tokens / seq;
	uint64_t per = (uint64_t)dp * t->micro_batch;
	if (*seqs % per)
		return rmi_err(err, RM_EINPUT,
			       "%llu sequences per step do not split into dp=%u "
			       "x micro-batch=%u",
			       (unsigned long long)*seqs, dp, t->micro_batch);
	uint64_t mbs = *seqs / per;
	uint32_t fl = t->first_layers, ll = t->last_layers;
	if (pp > 1 && ((uint64_t)fl + ll > m->layers ||
		       (pp == 2 && fl && ll && fl + ll != m->layers) ||
		       (pp > 2 && rmi_stage_layers(m, t, pp, 1) == 0)))
		return rmi_err(err, RM_EINPUT,
			       "first_layers=%u and last_layers=%u leave no "
			       "even share of the %u layers for the other %u "
			       "stages", fl, ll, m->layers, pp - 2);
	/* the fullest stage without a walk over them all: suggest checks
	 * every variant of thousands of layouts, some of 61 stages */
	uint32_t ls = rmi_largest_stage(m, t, pp);
	rm_schedule sc = t->schedule;
	if (sc != RM_SCHED_1F1B && pp < 2)
		return rmi_err(err, RM_EINPUT, "schedule %s needs pp >= 2",
			       rm_schedule_name(sc));
	if (sc == RM_SCHED_INTERLEAVED || sc == RM_SCHED_ZBV) {
		uint32_t v = sc == RM_SCHED_ZBV ? 2 : t->vchunks;
		/* Megatron-Core splits every stage into v equal chunks. The
		 * even split is its account_for_embedding/loss_in_pipeline_
		 * split: embedding and loss take a layer's slot, so the first
		 * and last stage's first and last chunk are a layer short.
		 * first_layers/last_layers are its num_layers_in_first/last_
		 * pipeline_stage, which v must divide as well. */
		if (ls % v)
			return rmi_err(err, RM_EINPUT,
				       "%u chunks per GPU do not divide the %u "
				       "layers of a stage", v, ls);
		if ((fl && fl % v) || (ll && ll % v))
			return rmi_err(err, RM_EINPUT,
				       "%u chunks per GPU do not divide the %u "
				       "layers of the %s stage", v, fl && fl % v ?
				       fl : ll, fl && fl % v ? "first" : "last");
	}
	if (sc == RM_SCHED_INTERLEAVED || sc == RM_SCHED_ZBV ||
	    sc == RM_SCHED_ZBH2) {
		/* the bubble formulas hold for m >= p (Narayanan sec. 2.2) */
		uint64_t need = pp;
		if (mbs < need)
			return rmi_err(err, RM_EINPUT,
				       "schedule %s needs at least %llu "
				       "micro-batches per step, the batch gives %llu",
				       rm_schedule_name(sc),
				       (unsigned long long)need,
				       (unsigned long long)mbs);
	}
	return RM_OK;
}

rm_status rmi_estimate_mem(const rm_model *m, const rm_hw *hw,
			   const rm_train *t, const rm_layout *l,
			   const rmi_shape *k, rm_estimate *e, rm_error *err)
{
	memset(e, 0, sizeof(*e));
	uint64_t seqs = 0;
	rm_status st = check_layout(m, t, l, &seqs, err);
	if (st)
		return st;
	e->layout = *l;
	e->schedule = t->schedule;
	e->recompute = t->recompute;
	e->recompute_layers = t->recompute == RM_RECOMPUTE_FULL ?
			      t->recompute_layers : 0;
	e->vchunks = t->schedule == RM_SCHED_INTERLEAVED ? t->vchunks :
		     t->schedule == RM_SCHED_ZBV ? 2 : 1;
	e->micro_batch = t->micro_batch;
	e->gpus = rm_layout_world(l);
	e->seqs = seqs;
	e->m = seqs / (rm_layout_dp(l) * (uint64_t)t->micro_batch);
	e->layers_stage = rmi_largest_stage(m, t, l->size[RM_AXIS_PP]);
	rmi_shape own;
	if (!k) {
		rmi_shape_of(m, t, &own);
		k = &own;
	}
	rmi_model_memory(m, hw, t, k, e);
	return RM_OK;
}
