/* SPDX-License-Identifier: Apache-2.0 */
/* model_explain.c - the explain report as a table to check by hand. */
#include "model/model_int.h"

#include <math.h>
#include <string.h>

#define GIB(x) ((x) / RMI_GIB)

static void put_inputs(rm_buf *b, const rm_model *m, const rm_hw *hw,
		       const rm_train *t, const rm_estimate *e)
{
	rm_buf_printf(b,
		"model     %s: layers L=%u, hidden h=%u, ffn f=%u (%s), heads a=%u, "
		"kv_heads %u, head_dim %u, vocab V=%u, seq s=%u\n",
		m->name, m->layers, m->hidden, m->ffn,
		m->swiglu ? "gated, 3 matrices" : "2 matrices", m->heads,
		m->kv_heads, m->head_dim, m->vocab, rmi_seq(m, t));
	double lp = rmi_model_layer_params(m);
	rm_buf_printf(b,
		"params    N = %.4e %s = L x %.5e per layer + embedding %.5e + "
		"head/norm %.5e\n",
		m->params, m->params_given ? "(given)" : "(derived)", lp,
		rmi_model_edge_params(m, true), rmi_model_edge_params(m, false));
	if (m->experts) {
		double d, r;
		rmi_layer_split(m, &d, &r);
		rm_buf_printf(b,
			"experts   %u MoE layers of %u (%u dense first, every %u "
			"after): %u routed (top %u) of FFN %u + %u shared of %u, "
			"%s\n"
			"          per layer %.5e routed + %.5e the rest; "
			"active N_a = %.4e per token\n",
			rmi_moe_layers(m), m->layers, m->dense_layers,
			m->moe_every ? m->moe_every : 1, m->experts, m->top_k,
			m->expert_ffn, m->shared_experts,
			m->shared_ffn ? m->shared_ffn : m->expert_ffn,
			m->capacity > 0 ? "capacity factor set" : "dropless",
			r, d, rmi_model_active(m));
	}
	if (m->kv_lora_rank)
		rm_buf_printf(b,
			"attention MLA: q_lora_rank %u, kv_lora_rank %u, qk "
			"%u nope + %u rope, v %u per head\n",
			m->q_lora_rank, m->kv_lora_rank, m->qk_nope_dim,
			m->qk_rope_dim, m->v_head_dim);
	rm_buf_printf(b,
		"hardware  %s: HBM %.1f GiB, %.0f TFLOP/s dense bf16, NVLink "
		"%.0f GB/s per direction x %u GPUs, NIC %.0f GB/s\n",
		hw->name, GIB(hw->hbm_bytes), hw->peak_flops / 1e12,
		hw->nvlink_gbytes_per_s, hw->nvl_domain, hw->nic_gbytes_per_s);
	for (size_t i = 0; i < hw->ntiers; i++) {
		char span[24];
		if (hw->tier[i].span_gpus >= RM_MAX_WORLD)
			snprintf(span, sizeof(span), "all");
		else
			snprintf(span, sizeof(span), "%llu",
				 (unsigned long long)hw->tier[i].span_gpus);
		rm_buf_printf(b, "          tier %-6s %8s GPUs per switch, %.0f GB/s per GPU, "
			       "oversubscription %.3g:1\n", hw->tier[i].name, span,
			       hw->tier[i].gbytes_per_s,
			       hw->tier[i].oversubscription);
	}
	rm_buf_printf(b,
		"training  batch %llu tokens = %llu seqs x %u; micro-batch b=%u; "
		"m = %llu / (dp %u x b %u) = %llu micro-batches\n",
		(unsigned long long)t->batch_tokens,
		(unsigned long long)e->seqs, rmi_seq(m, t), t->micro_batch,
		(unsigned long long)e->seqs, rm_layout_dp(&e->layout),
		t->micro_batch, (unsigned long long)e->m);
	char rl[24];
	rm_buf_printf(b,
		"          schedule %s", rm_schedule_name(t->schedule));
	if (t->schedule == RM_SCHED_INTERLEAVED)
		rm_buf_printf(b, ":%u", t->vchunks);
	rm_buf_printf(b,
		", recompute %s, sharding %s, grad_bytes %g, flash %s, "
		"seq_parallel %s\n"
		"          layers per stage: first %u, last %u, fullest %u%s; "
		"dp_overlap %.2f, tp_overlap %.2f, mem_reserve %.1f GiB\n",
		rmi_recompute_label(t->recompute, t->recompute_layers, rl),
		rm_sharding_name(t->sharding),
		t->grad_bytes, t->flash ? "on" : "off",
		t->seq_parallel ? "on" : "off", e->layers_first,
		e->layers_last, e->layers_stage,
		t->first_layers || t->last_layers ? " (set apart)" : "",
		t->dp_overlap, rmi_tp_overlap(hw, t), GIB(t->mem_reserve_bytes));
	if (m->experts)
		rm_buf_printf(b,
			"          moe: routed tokens on the busiest GPU x%.2f "
			"the mean (%s), all-to-alls hidden %.2f (moe_overlap)\n",
			rmi_routed_factor(m, t), m->capacity > 0 ?
			"the capacity factor" : "moe_imbalance, assumed",
			t->moe_overlap);
	rmi_fp8_explain(b, hw, t);
	rmi_cal c;
	rmi_cal_of(hw, t, &c);
	rm_buf_printf(b,
		"calibration (%s; --set overrides): gemm_eff %.3g, gemm_dim0 %.4g, "
		"attn_eff %.3g, hbm_eff %.3g, nvlink_eff %.3g, net_eff %.3g; "
		"HBM %.0f GB/s\n\n",
		hw->name, c.gemm_eff, c.gemm_dim0, c.attn_eff, c.hbm_eff,
		c.nvlink_eff, c.net_eff, hw->hbm_gbytes_per_s);
}

/* Every row of a column is a term of that column's total (the estimate's
 * params_col, gathered and logits_first say which), so each column adds
 * up to its total to the printed rounding. */
static void put_memory(rm_buf *b, const rm_model *m, const rm_train *t,
		       const rm_estimate *e)
{
	const double *bp = e->bytes_per_param;
	const rm_layout *l = &e->layout;
	uint32_t lc = e->stage_first_col > 0 ?
		      rmi_stage_layers(m, t, l->size[RM_AXIS_PP], e->stage_first_col) :
		      e->layers_first;
	rm_buf_printf(b, "memory per GPU (GiB)                      first stage  last stage\n");
	rm_buf_printf(b, "  parameters (%2u, %2u layers/tp + edge/tp) %11.4e %11.4e\n",
		       lc, e->layers_last, e->params_col, e->params_last);
	rm_buf_printf(b, "  weights    %6.3f B/param                %11.2f %11.2f\n",
		       bp[0], GIB(e->params_col * bp[0]), GIB(e->params_last * bp[0]));
	rm_buf_printf(b, "  gradients  %6.3f B/param                %11.2f %11.2f\n",
		       bp[1], GIB(e->params_col * bp[1]), GIB(e->params_last * bp[1]));
	rm_buf_printf(b, "  optimizer  %6.3f B/param                %11.2f %11.2f\n",
		       bp[2], GIB(e->params_col * bp[2]), GIB(e->params_last * bp[2]));
	if (e->gathered > 0)
		rm_buf_printf(b, "  gathered layer + prefetch (fsdp)         %11.2f %11.2f\n",
			       GIB(e->gathered), GIB(e->gathered));
	rm_buf_printf(b, "  activations: %.4f GiB per layer and micro-batch, %.2f / %.2f "
		       "micro-batches in flight%s\n"
		       "                                           %11.2f %11.2f\n",
		       GIB(e->act_layer), e->inflight_first, e->inflight_last,
		       e->inflight_w > 0 ? ", + one pending W" : "",
		       GIB(e->act_first), GIB(e->act_last));
	if (e->act_work > 0)
		rm_buf_printf(b, "  recomputed layer (all its tensors)       %11.2f %11.2f\n",
			       GIB(e->act_work), GIB(e->act_work));
	rm_buf_printf(b, "  logits 6 x b*s*V/t                       %11.2f %11.2f\n",
		       GIB(e->logits_first), GIB(e->logits));
	rm_buf_printf(b, "  reserve (context, NCCL, fragmentation)   %11.2f %11.2f\n",
		       GIB(e->reserve), GIB(e->reserve));
	rm_buf_printf(b, "  total                                    %11.2f %11.2f\n",
		       GIB(e->mem_first), GIB(e->mem_last));
	if (e->stage_first_col > 0)
		rm_buf_printf(b, "  (first column: stage %u, %u layers and no embedding, "
			       "%.2f micro-batches in flight, holds more than the "
			       "first)\n", e->stage_first_col, lc, e->inflight_first);
	if (e->fits)
		rm_buf_printf(b, "  HBM %.1f GiB: fits, %.1f GiB to spare\n\n",
			       GIB(e->hbm), GIB(e->hbm - e->mem_peak));
	else
		rm_buf_printf(b, "  HBM %.1f GiB: DOES NOT FIT, short by %.1f GiB\n\n",
			       GIB(e->hbm), GIB(e->mem_peak - e->hbm));
}

static void put_floor_row(rm_buf *b, const rmi_floor_row *r, double hbm)
{
	rm_buf_printf(b, "  pp %3u: stage %u (%u layers) holds %.2f GiB %s %.1f GiB HBM%s\n"
		       "          = state %.2f (weights %.2f + gradients %.2f + "
		       "optimizer %.2f) + activations %.2f (%.2f micro-batches in "
		       "flight) + rebuilt layer, logits and reserve %.2f\n",
		       r->pp, r->stage, r->layers, GIB(r->mem),
		       r->fits ? "<=" : ">", GIB(hbm),
		       r->fits ? ": fits" : ": does not fit",
		       GIB(r->weights + r->grads + r->optim), GIB(r->weights),
		       GIB(r->grads), GIB(r->optim), GIB(r->act), r->inflight,
		       GIB(r->other));
}

/* What forces each model-parallel degree: pp up to the first that fits
 * (priced by the model itself at every pp the GPUs allow), tp within the
 * NVLink domain its blocking collectives need. */
static void put_floor(rm_buf *b, const rm_model *m, const rm_hw *hw,
		      const rm_train *t, const rm_estimate *e)
{
	const rm_layout *l = &e->layout;
	uint32_t tp = l->size[RM_AXIS_TP], pp = l->size[RM_AXIS_PP];
	rmi_floor f;
	rmi_mem_floor(m, hw, t, e, &f);
	char rl[24], sc[24];
	rmi_schedule_label(t->schedule, t->vchunks, sc);
	rm_buf_printf(b, "memory floor (tp %u, cp %u, sharding %s, recompute %s, %s, "
		       "mb %u; pp over the divisors of %llu GPUs / (tp x cp) = %llu, "
		       "at most the %u layers)\n",
		       tp, l->size[RM_AXIS_CP], rm_sharding_name(t->sharding),
		       rmi_recompute_label(t->recompute, t->recompute_layers, rl),
		       sc, t->micro_batch, (unsigned long long)e->gpus,
		       (unsigned long long)f.rest, m->layers);
	const rmi_floor_row *under = NULL, *at = rmi_floor_find(&f, f.pp_min);
	for (size_t i = 0; i < f.nrow; i++)
		if (f.pp_min ? f.row[i].pp < f.pp_min :
		    !under || f.row[i].mem < under->mem)
			under = &f.row[i];
	if (under)
		put_floor_row(b, under, e->hbm);
	if (at)
		put_floor_row(b, at, e->hbm);
	/* the pp these settings cannot price, grouped by why */
	size_t ns = f.nskipped < 8 ? f.nskipped : 8;
	for (size_t i = 0; i < ns; i++) {
		bool head = !i || strcmp(f.skip_why[i], f.skip_why[i - 1]);
		bool tail = i + 1 == ns || strcmp(f.skip_why[i], f.skip_why[i + 1]);
		rm_buf_printf(b, "%s%u", !i ? "  not priced: pp " :
			       head ? "; pp " : ", ", f.skipped[i]);
		if (tail)
			rm_buf_printf(b, " (%s)", f.skip_why[i]);
	}
	if (ns)
		rm_buf_printf(b, "%s\n", f.nskipped > ns ? "; ..." : "");
	const char *place = rmi_floor_place(&f, pp);
	if (!f.pp_min)
		rm_buf_printf(b, "  no pp fits at these settings: %s\n",
			       under && under->weights + under->grads + under->optim >
			       e->hbm - e->reserve ?
			       "weights, gradients and optimizer alone exceed HBM" :
			       "the activations in flight keep every one over");
	else if (f.pp_min == 1)
		rm_buf_printf(b, "  so pp >= 1: no pipeline is needed to fit; this "
			       "layout's pp %u is %s\n", pp,
			       pp == 1 ? "at the floor" :
			       "above it: memory needs none of its stages");
	else
		rm_buf_printf(b, "  so pp >= %u: with fewer stages %s exceed HBM; "
			       "this layout's pp %u is %s\n", f.pp_min,
			       under && under->weights + under->grads + under->optim +
			       under->other > e->hbm ?
			       "the weights, gradients and optimizer state alone" :
			       "the state and the activations in flight", pp,
			       !strcmp(place, "at") ? "at the floor" :
			       !strcmp(place, "above") ?
			       "above the floor: memory does not need its extra stages" :
			       "below the floor: it does not fit");
	const rm_axis_cost *c = &e->axis[RM_AXIS_TP];
	if (tp > 1)
		rm_buf_printf(b, "  tp <= %u: the NVLink domain of %s, which TP's %.0f "
			       "blocking collectives a step need; tp %u is %s (its "
			       "groups on %s)\n\n", f.tp_max, hw->name, c->calls, tp,
			       tp == f.tp_max ? "at that bound" :
			       tp < f.tp_max ? "inside it" : "past it",
			       c->link);
	else
		rm_buf_printf(b, "  tp <= %u: the NVLink domain of %s; tp 1 uses none "
			       "of it\n\n", f.tp_max, hw->name);
}

static void put_compute(rm_buf *b, const rm_model *m, const rm_hw *hw,
			const rm_train *t, const rm_estimate *e)
{
	char rl[24];
	rmi_cal c;
	rmi_cal_of(hw, t, &c);
	double N = rmi_model_active(m);
	double attn = e->flops_token - 6.0 * N;
	double tp = e->layout.size[RM_AXIS_TP], cp = e->layout.size[RM_AXIS_CP];
	double T = (double)e->micro_batch * rmi_seq(m, t) / cp;
	double layer = e->t_fwd + e->t_bwd + e->t_recomp;
	double fw = rmi_ffn_width(m, rmi_routed_factor(m, t));
	rm_buf_printf(b, "compute\n");
	if (m->experts)
		rm_buf_printf(b, "  FFN of a token (layers averaged): dense %u, or shared "
			       "+ top_k x routed x%.2f = %.1f wide\n",
			       m->ffn, rmi_routed_factor(m, t), fw);
	bool plain = !m->experts && !m->kv_lora_rank;
	rm_buf_printf(b, "  model FLOPs per token 6N%s + %s = %.4e + %.4e = %.4e\n",
		       m->experts ? "_a" : "", plain ? "12*L*a*(h/a)*s" :
		       "6*L*a*(qk+v)*s", 6.0 * N, attn, e->flops_token);
	rm_buf_printf(b, "  causal (what the GPU runs under the mask) 6N%s + %s = %.4e\n",
		       m->experts ? "_a" : "", plain ? "6*L*a*(h/a)*s" :
		       "3*L*a*(qk+v)*s", e->flops_token_causal);
	rm_buf_printf(b, "  per step x %.0f tokens = %.4e; per GPU / %llu = %.4e; "
		       "at peak %.3f s\n",
		       (double)e->seqs * rmi_seq(m, t), e->flops_step,
		       (unsigned long long)e->gpus, e->flops_gpu, e->t_peak);
	rm_buf_printf(b, "  one layer, one micro-batch (T = b*s/cp = %.0f tokens), "
		       "forward:\n", T);
	rm_buf_printf(b, "    GEMMs  %.4e FLOPs, m x n x k: %.0fx%.0fx%u, %.0fx%ux%.0f, "
		       "%.0fx%.0fx%u, %.0fx%ux%.0f\n"
		       "           each at %s x m/(m+d0) x n/(n+d0) x k/(k+d0): "
		       "%.4f ms (%.1f%% of %speak)\n",
		       e->gemm_flops, T, m->kv_lora_rank ?
		       rmi_attn_in_params(m) / m->hidden / tp :
		       (m->heads / tp + 2.0 * (m->kv_heads >= tp ? m->kv_heads / tp : 1)) * m->head_dim,
		       m->hidden, T, m->hidden, rmi_attn_out_dim(m) / tp,
		       T, (m->swiglu ? 2.0 : 1.0) * fw / tp, m->hidden, T,
		       m->hidden, fw / tp, t->fp8 ? "fp8_eff" : "gemm_eff",
		       1e3 * e->t_gemm,
		       100 * e->gemm_flops / (e->t_gemm * rmi_linear_peak(hw, t)),
		       t->fp8 ? "the FP8 " : "");
	rm_buf_printf(b, "    attention %s%s = %.4e FLOPs at "
		       "attn_eff: %.4f ms\n", m->kv_lora_rank ?
		       "2*b*(s/cp)*s*(a/t)*(qk+v)" : "4*b*(s/cp)*s*(a/t)*(h/a)",
		       t->flash ? " x 1/2 (flash, causal)" : "", e->attn_flops,
		       1e3 * e->t_attn);
	rm_buf_printf(b, "    elementwise %.4e bytes (norms, residuals 20h%s, "
		       "activation %s)%s at HBM x hbm_eff: %.4f ms\n",
		       e->mem_bytes, t->seq_parallel ? "/t" : "",
		       m->swiglu ? "6f/t" : "4f/t",
		       t->flash ? "" : " + s x s scores 6 B each", 1e3 * e->t_mem);
	if (e->cast_bytes > 0)
		rm_buf_printf(b, "    fp8 casts %.4e bytes (forward inputs, "
			       "backward output gradients%s; %.3g B an element) "
			       "at HBM x hbm_eff: %.4f ms\n", e->cast_bytes,
			       t->fp8_params ? "" : ", weights once a step",
			       rmi_fp8_cast_per_elem(t), 1e3 * e->t_cast);
	rm_buf_printf(b, "  forward %.4f + backward %.4f (weight gradients %.4f) + "
		       "recompute %s %.4f = %.4f ms per layer\n",
		       1e3 * e->t_fwd, 1e3 * e->t_bwd, 1e3 * e->t_wgrad,
		       rmi_recompute_label(t->recompute, t->recompute_layers, rl),
		       1e3 * e->t_recomp,
		       1e3 * layer);
	rm_buf_printf(b, "  output layer (logits GEMM x3 + fp32 loss) %.4f ms on the "
		       "last stage; embedding %.4f ms on the first\n",
		       1e3 * e->t_head, 1e3 * e->t_embed);
	rm_buf_printf(b, "  slowest stage (first %u, last %u, fullest %u layers) %.4f ms "
		       "per micro-batch, imbalance %.4f; x m %llu = %.3f s\n",
		       e->layers_first, e->layers_last, e->layers_stage,
		       1e3 * e->t_stage, e->imbalance, (unsigned long long)e->m,
		       e->t_compute);
	rm_buf_printf(b, "  optimizer step (%s): %.4e params x (%.0f + grad_bytes) B "
		       "at HBM x hbm_eff = %.3f s\n\n",
		       rm_sharding_name(t->sharding),
		       t->sharding == RM_SHARD_NONE ? rmi_params_peak(m, e) :
		       rmi_params_peak(m, e) / rmi_shard_eff(m, &e->layout),
		       26.0, e->t_optim);
}

static void put_axes(rm_buf *b, const rm_hw *hw, const rm_train *t,
		     const rm_estimate *e)
{
	rm_buf_printf(b, "per axis, per GPU per step\n");
	rm_buf_printf(b, "  axis  size collective                          bytes     calls  link     GB/s    time  exposed  hops off NVLink/leaf\n");
	for (int a = 0; a < RM_NAXES; a++) {
		const rm_axis_cost *c = &e->axis[a];
		if (!c->used)
			continue;
		rm_buf_printf(b, "  %-4s %5u %-32s %8.2f GB %7.0f  %-7s %5.0f %7.3f %7.3f  %3.0f%%/%3.0f%%  %s\n",
			       rm_axis_name((rm_axis)a), c->group, c->collective,
			       c->bytes / 1e9, c->calls, c->link, c->gbytes_per_s,
			       c->seconds, c->exposed, 100 * c->off_nvlink,
			       100 * c->off_leaf,
			       c->overlappable ? "overlaps" : "critical path");
	}
	rm_buf_puts(b,
		"  tp: (10 sequence parallel, 8 not; +4 full recompute) x 2 B x b*s*h*(t-1)/t x layers x m\n"
		"  cp: (3, +1 with full recompute) x (cp-1) x K,V block 2 x 2 B x b*s/cp*kv_dim/t x layers x m\n"
		"  pp: 2 directions x 2 B x b*s*h/t x m x chunks\n"
		"  dp: none 2(d-1)/d x P x grad_bytes; zero1 (d-1)/d x P x (grad_bytes+2);"
		" zero2 (d-1)/d x P x (m grad_bytes+2); fsdp (d-1)/d x P x (4+grad_bytes) m;"
		" d = dp x cp\n");
	const rm_axis_cost *ep = &e->axis[RM_AXIS_EP];
	if (ep->used) {
		rm_buf_puts(b,
			"  ep: (4, +2 full recompute) x b*s/(cp*t) x top_k x h x 2 B x routed"
			" x (ep-1)/ep x MoE layers of the stage x m; peers in the NVLink"
			" domain over NVLink, the rest over the network\n");
		if (ep->etp_bytes > 0)
			rm_buf_printf(b, "      + etp gathers %.2f GB on %s at %.0f GB/s: "
				       "(4, +2) x the same x (etp-1), no /ep\n",
				       ep->etp_bytes / 1e9, ep->etp_link,
				       ep->etp_gbps);
		rmi_cal cal;
		rmi_cal_of(hw, t, &cal);
		double net = hw->nic_gbytes_per_s * cal.net_eff;
		double nvl = hw->nvlink_gbytes_per_s * cal.nvlink_eff;
		double up = ep->off_nvlink > 0 ? nvl : net;
		rm_buf_printf(b, "      one tier %s (%s, %.0f GB/s): %.3f s instead of "
			       "%.3f s\n", ep->off_nvlink > 0 ? "in" : "out",
			       ep->off_nvlink > 0 ? "every peer over NVLink" :
			       "every peer over the network",
			       up, ep->bytes / (up * 1e9), ep->bytes /
			       (ep->gbytes_per_s * 1e9));
	}
	rm_buf_puts(b, "\n");
}

bool rmi_variant(const rm_model *m, const rm_hw *hw, const rm_train *t,
		    const rm_estimate *e, uint32_t i, char name[24],
		    const char **formula, bool *chosen, rm_estimate *x,
		    rm_error *xe)
{
	rm_train v = *t;
	uint32_t vc = 1;
	if (i >= 4 + 6)
		return false;
	if (i == 0) { v.schedule = RM_SCHED_1F1B; *formula = "(p-1)/m"; }
	else if (i == 1) { v.schedule = RM_SCHED_ZBH1; *formula = "(p-1)(F+B-W)/((F+B+W)m)"; }
	else if (i == 2) { v.schedule = RM_SCHED_ZBH2; *formula = "(p-1)max(0,F+B-2W)/((F+B+W)m)"; }
	else if (i == 3) { v.schedule = RM_SCHED_ZBV; *formula = "(p-1)max(0,F+B-2W)/(2(F+B+W)m)"; }
	else { v.schedule = RM_SCHED_INTERLEAVED; vc = 1u << (i - 3); *formula = "(p-1)/(v*m)"; }
	v.vchunks = vc;
	if (vc > 1)
		snprintf(name, 24, "%s:%u", rm_schedule_name(v.schedule), vc);
	else
		snprintf(name, 24, "%s", rm_schedule_name(v.schedule));
	*chosen = v.schedule == t->schedule &&
		  (vc == t->vchunks || v.schedule != RM_SCHED_INTERLEAVED);
	memset(xe, 0, sizeof(*xe));
	if (v.schedule == RM_SCHED_INTERLEAVED && vc > e->layers_stage) {
		rmi_err(xe, RM_EINPUT, "more chunks than layers per stage");
		return true;
	}
	if (rmi_estimate_run(m, hw, &v, &e->layout, x, xe))
		return true;
	/* keep the links of the estimate shown (a planned map's) */
	for (int a = 0; a < RM_NAXES; a++)
		if (x->axis[a].used) {
			x->axis[a].gbytes_per_s = e->axis[a].gbytes_per_s;
			memcpy(x->axis[a].link, e->axis[a].link,
			       sizeof(x->axis[a].link));
		}
	rmi_estimate_times(m, hw, &v, NULL, x);
	return true;
}

static void put_bubble(rm_buf *b, const rm_model *m, const rm_hw *hw,
		       const rm_train *t, const rm_estimate *e)
{
	uint32_t p = e->layout.size[RM_AXIS_PP];
	rm_buf_printf(b, "pipeline bubble (p=%u, m=%llu)\n", p,
		       (unsigned long long)e->m);
	if (p < 2) {
		rm_buf_puts(b, "  no pipeline (pp=1): no bubble\n\n");
		return;
	}
	rm_buf_printf(b, "  F, B, W per layer (forward; input gradient + recompute; weight gradient): %.4f, %.4f, %.4f ms\n",
		       1e3 * e->t_fwd, 1e3 * (e->t_bwd - e->t_wgrad + e->t_recomp),
		       1e3 * e->t_wgrad);
	rm_buf_printf(b, "  schedule         formula                              fraction  bubble s  step s    MFU  peak GiB\n");
	char name[24];
	const char *f;
	bool chosen;
	rm_estimate x;
	rm_error xe;
	for (uint32_t i = 0; rmi_variant(m, hw, t, e, i, name, &f, &chosen, &x, &xe); i++) {
		if (i >= 4 && xe.code && (1u << (i - 3)) > e->layers_stage)
			continue;
		if (xe.code) {
			rm_buf_printf(b, "  %c %-14s %-36s not here: %s\n",
				       chosen ? '*' : ' ', name, f, xe.msg);
			continue;
		}
		rm_buf_printf(b, "  %c %-14s %-36s %8.4f %9.3f %7.3f %5.1f%% %8.1f%s\n",
			       chosen ? '*' : ' ', name, f, x.bubble_frac,
			       x.t_bubble, x.t_step, 100 * x.mfu, GIB(x.mem_peak),
			       x.fits ? "" : " does not fit");
	}
	rm_buf_puts(b, "\n");
}

static void put_step(rm_buf *b, const rm_hw *hw, const rm_train *t,
		     const rm_estimate *e)
{
	double path = e->t_compute + e->axis[RM_AXIS_TP].exposed +
		      e->axis[RM_AXIS_CP].exposed + e->axis[RM_AXIS_PP].exposed +
		      e->axis[RM_AXIS_EP].exposed + e->t_lat_path;
	rm_buf_printf(b, "step\n  critical path: compute %.3f + tp %.3f + cp %.3f + pp %.3f",
		       e->t_compute, e->axis[RM_AXIS_TP].exposed,
		       e->axis[RM_AXIS_CP].exposed, e->axis[RM_AXIS_PP].exposed);
	if (e->axis[RM_AXIS_EP].used)
		rm_buf_printf(b, " + ep %.3f", e->axis[RM_AXIS_EP].exposed);
	if (e->t_lat_path > 0)
		rm_buf_printf(b, " + latency %.3f", e->t_lat_path);
	rm_buf_printf(b, " = %.3f s\n", path);
	rm_buf_printf(b, "  bubble %.4f x %.3f = %.3f s; dp exposed %.3f s; optimizer %.3f s\n",
		       e->bubble_frac, path, e->t_bubble,
		       e->axis[RM_AXIS_DP].exposed, e->t_optim);
	rmi_put_scale(b, t, e);
	rm_buf_printf(b, "  step %.3f s; MFU = %.4e / (%.3f x %.4g) = %.1f%%; %.0f tokens/s\n",
		       e->t_step, e->flops_gpu, e->t_step, hw->peak_flops,
		       100 * e->mfu, e->tokens_per_s);
	rm_buf_printf(b, "  MFU %.1f%% non-causal (attention counted whole, as Megatron-LM "
		       "and PaLM count it); %.1f%% causal (the attention the GPU runs)\n\n",
		       100 * e->mfu, 100 * e->mfu_causal);
	rm_buf_printf(b, "goodput (Young/Daly)\n"
		       "  %.3g interruptions per GPU per day x %llu GPUs = %.2f per day "
		       "(MTBF %.2f h)\n",
		       t->fail_per_gpu_day, (unsigned long long)e->gpus,
		       e->fails_per_day,
		       e->fails_per_day > 0 ? 24.0 / e->fails_per_day : 0.0);
	if (e->fails_per_day > 0)
		rm_buf_printf(b, "  checkpoint every sqrt(2 x %.0f s x MTBF) = %.0f s "
			       "(%.0f steps); restart %.0f s\n"
			       "  effective training fraction %.1f%% "
			       "(writes %.1f%%, lost work and restarts %.1f%%)\n\n",
			       t->ckpt_write_s, e->ckpt_interval_s,
			       e->ckpt_interval_s / e->t_step, t->restart_s,
			       100 * e->goodput,
			       100 * t->ckpt_write_s / (e->ckpt_interval_s + t->ckpt_write_s),
			       100 * (1 - e->goodput) - 100 * t->ckpt_write_s /
			       (e->ckpt_interval_s + t->ckpt_write_s));
	else
		rm_buf_puts(b, "  no failures assumed: effective training fraction 100%\n\n");
}

/* Size-1 axes in between change no stride: only the others move. */
unsigned rmi_used_nest(const rm_layout *l, unsigned pos[RM_NAXES])
{
	unsigned n = 0;
	for (unsigned i = 0; i < l->naxes && i < RM_NAXES; i++)
		if (l->size[l->nest[i]] > 1)
			pos[n++] = i;
	return n;
}

/* Why this nesting: the axis that would lose most on the network goes
 * innermost; every adjacent swap is priced by the same model. */
static void put_order(rm_buf *b, const rm_model *m, const rm_hw *hw,
		      const rm_train *t, const rm_estimate *e)
{
	rmi_cal cal;
	rmi_cal_of(hw, t, &cal);
	rm_buf_printf(b, "axis order\n  on the network (NIC %.0f GB/s x %.2f) each axis would cost:\n",
		       hw->nic_gbytes_per_s, cal.net_eff);
	for (int a = 0; a < RM_NAXES; a++) {
		const rm_axis_cost *c = &e->axis[a];
		if (!c->used)
			continue;
		double s = c->bytes / (hw->nic_gbytes_per_s * cal.net_eff * 1e9);
		rm_buf_printf(b, "    %-3s %9.2f GB in %6.0f calls = %.3f s/step, %s\n",
			       rm_axis_name((rm_axis)a), c->bytes / 1e9, c->calls,
			       s, c->overlappable ?
			       "latency-tolerant, overlaps compute" :
			       "blocking, latency-sensitive");
	}
	rm_buf_puts(b, "  so: blocking axes with most bytes innermost (NVLink), "
			"the overlappable once-per-step dp outermost\n"
			"  each adjacent swap, priced with ideal nesting:\n");
	const rm_layout *l = &e->layout;
	unsigned pos[RM_NAXES], n = rmi_used_nest(l, pos), k;
	for (k = 0; k + 1 < n; k++) {
		rm_layout s = *l;
		rm_axis a0 = l->nest[pos[k]], a1 = l->nest[pos[k + 1]];
		s.nest[pos[k]] = a1;
		s.nest[pos[k + 1]] = a0;
		rm_estimate x;
		if (rmi_estimate_run(m, hw, t, &s, &x, NULL))
			continue;
		/* a swap under the model's 1 % resolution does not justify
		 * the order: the rule above does, and the line says so */
		bool tie = rmi_tie(x.t_step, e->t_step);
		rm_buf_printf(b, "  swap %s<->%s: step %.3f s (%+.3f s, %+.2f %%)%s; "
			       "%s moves %s -> %s, %s moves %s -> %s\n",
			       rm_axis_name(a0), rm_axis_name(a1), x.t_step,
			       x.t_step - e->t_step,
			       100 * (x.t_step - e->t_step) / e->t_step,
			       tie ? ": tie within 1 %, this order is the rule's, "
				     "not the price's" : "",
			       rm_axis_name(a0),
			       e->axis[a0].link, x.axis[a0].link,
			       rm_axis_name(a1), e->axis[a1].link,
			       x.axis[a1].link);
	}
	if (n < 2)
		rm_buf_puts(b, "  (one axis only: nothing to swap)\n");
	if (e->plan[0])
		rm_buf_printf(b, "\nplan: %s", e->plan);
	rm_buf_printf(b, "\nnote: %s\n", e->note);
}

rm_status rm_estimate_write(const rm_model *m, const rm_hw *hw,
			    const rm_train *t, const rm_estimate *e,
			    rm_format fmt, char **out, size_t *len,
			    rm_error *err)
{
	RMI_TRAIN_ARG(t, err);
	RMI_MODEL_HW_ARG(m, hw, err);
	rm_buf b;
	rm_buf_init(&b);
	*out = NULL;
	if (fmt == RM_FMT_JSON) {
		rmi_explain_json(&b, m, hw, t, e);
	} else if (fmt == RM_FMT_TEXT) {
		char lay[128];
		rm_layout_format(&e->layout, lay, sizeof(lay));
		rm_buf_printf(&b, "rankmap explain: %s on %llu x %s, layout %s\n"
			       "(GB = 1e9 bytes, GiB = 2^30 bytes, s = seconds per step)\n\n",
			       m->name, (unsigned long long)e->gpus, hw->name, lay);
		put_inputs(&b, m, hw, t, e);
		put_memory(&b, m, t, e);
		put_floor(&b, m, hw, t, e);
		put_compute(&b, m, hw, t, e);
		put_axes(&b, hw, t, e);
		put_bubble(&b, m, hw, t, e);
		put_step(&b, hw, t, e);
		rmi_put_budget(&b, m, t, e);
		put_order(&b, m, hw, t, e);
	} else {
		return rmi_err(err, RM_EUNSUPPORTED,
			       "explain writes text or json only");
	}
	/* NULL (the buffer freed) when it ran out of memory */
	*out = rm_buf_take(&b, len);
	return *out ? RM_OK : rmi_err(err, RM_ENOMEM, "out of memory");
}
