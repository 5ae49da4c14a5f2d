/* SPDX-License-Identifier: Apache-2.0 */
/* model_compute.c - compute time from GEMM shapes, attention and HBM traffic. */
#include "model/model_int.h"

#include <math.h>

void rmi_cal_of(const rm_hw *hw, const rm_train *t, rmi_cal *c)
{
	c->gemm_eff = t->gemm_eff > 0 ? t->gemm_eff : hw->gemm_eff;
	c->gemm_dim0 = t->gemm_dim0 >= 0 ? t->gemm_dim0 : hw->gemm_dim0;
	c->attn_eff = t->attn_eff > 0 ? t->attn_eff : hw->attn_eff;
	c->hbm_eff = t->hbm_eff > 0 ? t->hbm_eff : hw->hbm_eff;
	c->nvlink_eff = t->nvlink_eff > 0 ? t->nvlink_eff : hw->nvlink_eff;
	c->net_eff = t->net_eff > 0 ? t->net_eff : hw->net_eff;
	c->tp_overlap = rmi_tp_overlap(hw, t);
}

double rmi_tp_overlap(const rm_hw *hw, const rm_train *t)
{
	return t->tp_overlap >= 0 ? t->tp_overlap : hw->tp_overlap;
}

/*
 * A GEMM with an m x n output and inner dimension k: 2mnk FLOPs at
 * gemm_eff x m/(m+d0) x n/(n+d0) x k/(k+d0) of peak. Small dimensions fill
 * fewer tiles and waves of the tensor cores; the factor per dimension is
 * the simplest curve that is 1/2 at d0 and tends to 1.
 */
static double gemm_s(const rmi_cal *c, double peak, double m, double n,
		     double k)
{
	double d0 = c->gemm_dim0;
	double eff = c->gemm_eff * m / (m + d0) * n / (n + d0) * k / (k + d0);
	return 2.0 * m * n * k / (peak * eff);
}

/*
 * Megatron's four linears of a layer on one GPU, column- then
 * row-parallel (qkv, proj, fc1, fc2), as m x n x k of their forward GEMM:
 * m = the tokens of the micro-batch (all of them, sequence parallel or
 * not). rmi_compute prices them, rmi_tp_exposed hides TP traffic behind
 * them.
 */
enum { LIN_QKV, LIN_PROJ, LIN_FC1, LIN_FC2, NLIN };
static void linears(const rm_model *m, const rm_train *t, const rmi_shape *ks,
		    const rm_estimate *e, double shape[NLIN][3])
{
	const rm_layout *l = &e->layout;
	double tp = l->size[RM_AXIS_TP], cp = l->size[RM_AXIS_CP];
	double T = e->micro_batch * rmi_seq(m, t) / cp;
	/* a MoE layer's FFN: each token's shared and top_k routed experts
	 * (the busiest GPU's share, rmi_routed_factor), averaged over the
	 * layers; MLA's Q, K, V projections as one GEMM of their width */
	double h = m->hidden, hd = m->head_dim;
	double f = rmi_shape_ffn(ks, m, t);
	double q = rmi_attn_out_dim(m);
	double kvh = m->kv_heads >= tp ? m->kv_heads / tp : 1;
	double qkv = m->kv_lora_rank ? ks->attn_in / h / tp :
		     q / tp + 2.0 * kvh * hd;
	double fc1 = (m->swiglu ? 2.0 : 1.0) * f / tp;
	const double s[NLIN][3] = {
		{ T, qkv, h }, { T, h, q / tp },
		{ T, fc1, h }, { T, h, f / tp },
	};
	memcpy(shape, s, sizeof(s));
}

/* Forward, input gradient (m x k output) and weight gradient (k x n):
 * the same three dimensions in another order, so the same FLOPs at the
 * same efficiency (a product over the dimensions); priced once, as its
 * divisions were a tenth of a MoE search's time. */
static void gemm3(const rmi_cal *c, double peak, double m, double n, double k,
		  double *fwd, double *dgrad, double *wgrad, double *flops)
{
	double s = gemm_s(c, peak, m, n, k);
	*fwd += s;
	*dgrad += s;
	*wgrad += s;
	*flops += 2.0 * m * n * k;
}

/*
 * TP traffic Transformer Engine's userbuffers overlap hides (Megatron-LM's
 * --tp-comm-overlap, which needs sequence parallelism), per layer and
 * micro-batch, from its default methods (TE pytorch/module/base.py,
 * initialize_ub): every all-gather or reduce-scatter of one linear runs
 * beside a GEMM of its own. Ring exchange (qkv and fc1 forward, proj and
 * fc2 input gradients) splits the GEMM in tp chunks and sends one chunk
 * while the previous one multiplies: tp-1 transfers hide behind tp-1 of
 * the tp chunks. Pipeline (proj and fc2 forward) splits in 4 and
 * reduce-scatters each chunk after it is computed: the last quarter's
 * transfer has nothing left to hide behind. Bulk (qkv and fc1 in the
 * backward: the input gathered again for the weight gradient beside the
 * input-gradient GEMM, that gradient reduce-scattered beside the weight
 * gradient) hides a transfer behind one whole independent GEMM. A full
 * recomputation's forward overlaps as the forward does. `unit`: seconds
 * of one all-gather or reduce-scatter; returns the exposed seconds. The
 * split GEMMs are priced as the whole one, and the SMs the pipeline and
 * bulk kernels take from the GEMM beside them (16 by default) are not.
 */
double rmi_tp_exposed(const rm_model *m, const rm_hw *hw, const rm_train *t,
		      const rmi_shape *ks, const rm_estimate *e, double unit)
{
	rmi_cal c;
	double peak;
	rmi_cal_of(hw, t, &c);
	rmi_linear_cal(hw, t, &c, &peak);
	double tp = e->layout.size[RM_AXIS_TP];
	double g[NLIN][3];           /* forward, input and weight gradient */
	double sh[NLIN][3];
	linears(m, t, ks, e, sh);
	for (int i = 0; i < NLIN; i++) {
		g[i][0] = g[i][1] = g[i][2] = 0;
		double fl = 0;
		gemm3(&c, peak, sh[i][0], sh[i][1], sh[i][2], &g[i][0],
		      &g[i][1], &g[i][2], &fl);
	}
	double qkv_f = g[LIN_QKV][0], qkv_d = g[LIN_QKV][1];
	double qkv_w = g[LIN_QKV][2], proj_f = g[LIN_PROJ][0];
	double proj_d = g[LIN_PROJ][1], fc1_f = g[LIN_FC1][0];
	double fc1_d = g[LIN_FC1][1], fc1_w = g[LIN_FC1][2];
	double fc2_f = g[LIN_FC2][0], fc2_d = g[LIN_FC2][1];
	double ring = (tp - 1) / tp;
#define RING(g) fmax(0, unit - (g) * ring)
#define PIPE(g) (unit / 4 + fmax(0, (unit - (g)) * 3 / 4))
#define BULK(g) fmax(0, unit - (g))
	double fwd = RING(qkv_f) + RING(fc1_f) + PIPE(proj_f) + PIPE(fc2_f);
	double bwd = RING(proj_d) + RING(fc2_d) + BULK(qkv_d) + BULK(fc1_d) +
		     BULK(qkv_w) + BULK(fc1_w);
#undef RING
#undef PIPE
#undef BULK
	return fwd * (1.0 + rmi_full_share(t, e->layers_stage)) + bwd;
}

void rmi_stages_of(const rm_model *m, const rm_train *t, uint32_t p,
		   rmi_stages *s)
{
	*s = (rmi_stages){ .p = p, .layers = m->layers,
			   .f = t->first_layers, .l = t->last_layers };
	/* the rest shared evenly by the stages not set apart; what does not
	 * divide goes to the middle ones, so the first and last stage (which
	 * also hold the embedding and the head) get fewer, as Llama 3 did */
	s->lo = s->f ? 1 : 0;
	s->n = p - s->lo - (s->l ? 1 : 0);
	uint64_t rest = (uint64_t)m->layers - s->f - s->l;
	if (p <= 1 || s->n == 0)
		return;
	s->base = rest / s->n;
	s->extra = rest % s->n;
	s->from = (s->n - s->extra) / 2;
}

uint32_t rmi_stage_layers(const rm_model *m, const rm_train *t, uint32_t p,
			  uint32_t i)
{
	rmi_stages s;
	rmi_stages_of(m, t, p, &s);
	return rmi_stage_at(&s, i);
}

uint32_t rmi_largest_stage(const rm_model *m, const rm_train *t, uint32_t p)
{
	if (p <= 1)
		return m->layers;
	/* rmi_stage_layers' stages: the first and last where set apart,
	 * the rest base or base + 1 layers (one of them base + 1 when
	 * any does not divide) */
	rmi_stages s;
	rmi_stages_of(m, t, p, &s);
	uint32_t ls = s.n ? (uint32_t)(s.base + (s.extra != 0)) : 0;
	ls = s.f > ls ? s.f : ls;
	return s.l > ls ? s.l : ls;
}

void rmi_compute(const rm_model *m, const rm_hw *hw, const rm_train *t,
		 const rmi_shape *ks, rm_estimate *e)
{
	rmi_cal c;
	rmi_cal_of(hw, t, &c);
	const rm_layout *l = &e->layout;
	double tp = l->size[RM_AXIS_TP], cp = l->size[RM_AXIS_CP];
	double peak = hw->peak_flops, bw = hw->hbm_gbytes_per_s * 1e9 * c.hbm_eff;
	double s = rmi_seq(m, t), b = e->micro_batch, T = b * s / cp;
	double h = m->hidden, f = rmi_shape_ffn(ks, m, t);
	double hqk, hv;
	rmi_head_dims(m, &hqk, &hv);
	double fwd = 0, dgrad = 0, wgrad = 0, flops = 0;
	double sh[NLIN][3];
	linears(m, t, ks, e, sh);
	/* the linears in FP8 where fp8 is on (model_fp8.c), the rest BF16 */
	rmi_cal lc = c;
	double lpeak;
	rmi_linear_cal(hw, t, &lc, &lpeak);
	for (int i = 0; i < NLIN; i++)
		gemm3(&lc, lpeak, sh[i][0], sh[i][1], sh[i][2], &fwd, &dgrad,
		      &wgrad, &flops);
	double cast_f, cast_b;
	rmi_fp8_casts(t, (const double (*)[3])sh, NLIN, (double)e->m, &cast_f,
		      &cast_b);
	e->cast_bytes = cast_f + cast_b;
	e->t_cast = e->cast_bytes / bw;
	e->gemm_flops = flops;
	e->t_gemm = fwd;

	/* Attention core, QK^T and PV: 4 b (s/c) s q / t FLOPs; a flash kernel
	 * skips the causally masked half and its backward is 2.5 forwards
	 * (it recomputes the scores). Without it the s x s scores go through
	 * HBM: QK^T writes them (2 B), the fused softmax reads them and writes
	 * the probabilities (4 B); the backward moves twice that. */
	double heads_gpu = m->heads / tp;
	double scores = b * heads_gpu * (s / cp) * s;
	e->attn_flops = 2.0 * scores * (hqk + hv) * (t->flash ? 0.5 : 1.0);
	/* like a GEMM, the kernel fills its tiles less on short blocks: with
	 * CP each ring step is (s/2c) x (s/2c) (causal halves balanced) */
	double blk = cp > 1 ? s / (2.0 * cp) : s;
	double d0 = c.gemm_dim0;
	e->t_attn = e->attn_flops /
		    (peak * c.attn_eff * blk / (blk + d0) * blk / (blk + d0));
	double score_s = t->flash ? 0.0 : scores * 6.0 / bw;

	/* Elementwise, per token: two norms (read 2h, write 2h each), two
	 * residual adds (read 4h, write 2h each): 20h bytes, sharded by TP
	 * under sequence parallelism; the FFN activation reads its input and
	 * writes its output, GeLU 4f/t, SwiGLU 6f/t bytes. */
	double sp = t->seq_parallel ? tp : 1.0;
	e->mem_bytes = T * (20.0 * h / sp + (m->swiglu ? 6.0 : 4.0) * f / tp);
	e->t_mem = e->mem_bytes / bw + score_s;

	e->t_fwd = fwd + e->t_attn + e->t_mem + cast_f / bw;
	e->t_wgrad = wgrad;
	e->t_bwd = dgrad + wgrad + (t->flash ? 2.5 : 2.0) * e->t_attn +
		   2.0 * e->t_mem + cast_b / bw;
	/* Korthikanti's selective recompute redoes the attention core (a
	 * flash kernel already does inside its backward); full repeats the
	 * forward, on the share of the stage's layers it covers */
	double full = rmi_full_share(t, e->layers_stage);
	double sel = t->recompute != RM_RECOMPUTE_NONE && !t->flash ?
		     e->t_attn + score_s : 0.0;
	e->t_recomp = full * e->t_fwd + (1.0 - full) * sel;

	/* Output layer on the last stage: logits GEMM (T x V/t x h) three
	 * times, the loss reading and writing fp32 logits (16 B each, forward
	 * and backward); the embedding gathers rows forward and adds them back
	 * (12 h bytes per token) on the first. */
	double v = m->vocab, hf = 0, hdg = 0, hw_ = 0, hfl = 0;
	gemm3(&c, peak, T, v / tp, h, &hf, &hdg, &hw_, &hfl);
	e->t_head = hf + hdg + hw_ + T * v / tp * 16.0 / bw;
	e->t_embed = T * 12.0 * h / tp / bw;

	double layer = e->t_fwd + e->t_bwd + e->t_recomp;
	uint32_t p = l->size[RM_AXIS_PP];
	rmi_stages sl;
	rmi_stages_of(m, t, p, &sl);
	e->layers_first = rmi_stage_at(&sl, 0);
	e->layers_last = rmi_stage_at(&sl, p - 1);
	double first = e->layers_first * layer + e->t_embed;
	double last = e->layers_last * layer + e->t_head;
	double sum = 0, worst = p > 1 ? fmax(first, last) : first + e->t_head;
	for (uint32_t i = 0; i < p; i++) {
		double st = rmi_stage_at(&sl, i) * layer;
		if (i == 0)
			st += e->t_embed;
		if (i == p - 1)
			st += e->t_head;
		sum += st;
		if (st > worst)
			worst = st;
	}
	e->t_stage = worst;
	e->imbalance = sum > 0 ? worst * p / sum : 1.0;
	e->t_compute = (double)e->m * worst;

	/* Adam step, memory-bound: per parameter it updates, read the gradient,
	 * read and write fp32 master, m and v (24 B), write bf16 weights (2) */
	double lg, d;
	rmi_layer_costs(ks, l, &lg, &d, NULL);
	double P = rmi_params_peak_at(e, lg);
	double upd = t->sharding == RM_SHARD_NONE ? P : P / d;
	e->t_optim = upd * (24.0 + rmi_param_bytes(t) + t->grad_bytes) / bw;
}

/*
 * Failures arrive at rate lambda = per-GPU rate x GPUs. Checkpointing every
 * tau seconds (writes of delta seconds) loses delta/(tau+delta) to writes
 * and, per failure, the restart R plus on average half an interval.
 * Young's interval tau = sqrt(2 delta / lambda) minimises that loss.
 */
void rmi_goodput(const rm_train *t, rm_estimate *e)
{
	double lambda = t->fail_per_gpu_day * (double)e->gpus / 86400.0;
	double delta = t->ckpt_write_s;
	e->fails_per_day = lambda * 86400.0;
	if (!(lambda > 0)) {
		e->ckpt_interval_s = 0;
		e->goodput = 1.0;
		return;
	}
	double tau = sqrt(2.0 * delta / lambda);
	if (tau < e->t_step)
		tau = e->t_step;
	e->ckpt_interval_s = tau;
	double useful = tau / (tau + delta);
	double lost = lambda * (t->restart_s + (tau + delta) / 2.0);
	e->goodput = useful * (lost < 1 ? 1 - lost : 0);
}
