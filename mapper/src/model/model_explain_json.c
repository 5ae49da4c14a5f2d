/* SPDX-License-Identifier: Apache-2.0 */
/* model_explain_json.c - the explain report as JSON (rankmap-explain/1). */
#include "model/model_int.h"

#include <math.h>
#include <string.h>

static void json_num(rm_buf *b, const char *k, double v, bool comma)
{
	rm_buf_printf(b, "\"%s\": %.10g%s", k, isfinite(v) ? v : 0.0,
		       comma ? ", " : "");
}

/* The memory floor (model_floor.c): each pp priced, the smallest that
 * fits, where this layout's pp and tp sit against it and the NVLink
 * domain. */
static void floor_json(rm_buf *b, const rm_model *m, const rm_hw *hw,
		       const rm_train *t, const rm_estimate *e)
{
	rmi_floor f;
	rmi_mem_floor(m, hw, t, e, &f);
	uint32_t tp = e->layout.size[RM_AXIS_TP], pp = e->layout.size[RM_AXIS_PP];
	rm_buf_printf(b, "\"memory_floor\": {\"tp\": %u, \"cp\": %u, \"pp\": %u, "
		       "\"pp_times_dp\": %llu, \"pp_min\": %u, \"place\": \"%s\", "
		       "\"rows\": [", tp, e->layout.size[RM_AXIS_CP], pp,
		       (unsigned long long)f.rest, f.pp_min,
		       rmi_floor_place(&f, pp));
	for (size_t i = 0; i < f.nrow; i++) {
		const rmi_floor_row *r = &f.row[i];
		rm_buf_printf(b, "%s{\"pp\": %u, \"stage\": %u, \"layers\": %u, ",
			       i ? ", " : "", r->pp, r->stage, r->layers);
		json_num(b, "mem_peak", r->mem, true);
		json_num(b, "weights", r->weights, true);
		json_num(b, "grads", r->grads, true);
		json_num(b, "optimizer", r->optim, true);
		json_num(b, "activations", r->act, true);
		json_num(b, "inflight", r->inflight, true);
		json_num(b, "other", r->other, true);
		rm_buf_printf(b, "\"fits\": %s}", r->fits ? "true" : "false");
	}
	rm_buf_puts(b, "], \"not_priced\": [");
	for (size_t i = 0; i < f.nskipped && i < 8; i++) {
		rm_buf_printf(b, "%s{\"pp\": %u, \"why\": ", i ? ", " : "",
			       f.skipped[i]);
		rm_buf_json_str(b, f.skip_why[i]);
		rm_buf_puts(b, "}");
	}
	rm_buf_printf(b, "], \"tp_max\": %u, \"tp_place\": \"%s\"}", f.tp_max,
		       tp == f.tp_max ? "at" : tp < f.tp_max ? "inside" : "past");
}

void rmi_explain_json_head(rm_buf *b, const char *schema, const rm_model *m,
			   const rm_hw *hw, const rm_estimate *e)
{
	char lay[128];
	rm_layout_format(&e->layout, lay, sizeof(lay));
	rm_buf_printf(b, "{\"schema\": \"%s\", \"model\": ", schema);
	rm_buf_json_str(b, m->name);
	rm_buf_puts(b, ", \"hardware\": ");
	rm_buf_json_str(b, hw->name);
	rm_buf_puts(b, ", \"layout\": ");
	rm_buf_json_str(b, lay);
	rm_buf_printf(b, ", \"gpus\": %llu", (unsigned long long)e->gpus);
}

void rmi_explain_json(rm_buf *b, const rm_model *m, const rm_hw *hw,
		     const rm_train *t, const rm_estimate *e)
{
	rmi_explain_json_head(b, "rankmap-explain/1", m, hw, e);
	rm_buf_printf(b, ", \"params\": %.6g, \"active_params\": %.6g,\n "
		       "\"training\": {", m->params, rmi_model_active(m));
	rm_buf_printf(b, "\"batch_tokens\": %llu, \"seq_len\": %u, \"micro_batch\": %u, "
		       "\"schedule\": \"%s\", \"vchunks\": %u, \"recompute\": \"%s\", "
		       "\"sharding\": \"%s\", ",
		       (unsigned long long)t->batch_tokens, rmi_seq(m, t),
		       t->micro_batch, rm_schedule_name(t->schedule), e->vchunks,
		       rm_recompute_name(t->recompute), rm_sharding_name(t->sharding));
	rmi_cal kc;
	rmi_cal_of(hw, t, &kc);
	json_num(b, "grad_bytes", t->grad_bytes, true);
	json_num(b, "gemm_eff", kc.gemm_eff, true);
	json_num(b, "gemm_dim0", kc.gemm_dim0, true);
	json_num(b, "attn_eff", kc.attn_eff, true);
	json_num(b, "hbm_eff", kc.hbm_eff, true);
	json_num(b, "nvlink_eff", kc.nvlink_eff, true);
	json_num(b, "net_eff", kc.net_eff, true);
	json_num(b, "dp_overlap", t->dp_overlap, true);
	json_num(b, "tp_overlap", kc.tp_overlap, true);
	rm_buf_printf(b, "\"flash\": %s, \"seq_parallel\": %s, ",
		       t->flash ? "true" : "false",
		       t->seq_parallel ? "true" : "false");
	json_num(b, "fail_per_gpu_day", t->fail_per_gpu_day, true);
	json_num(b, "ckpt_write_s", t->ckpt_write_s, true);
	json_num(b, "restart_s", t->restart_s, true);
	json_num(b, "moe_overlap", t->moe_overlap, true);
	json_num(b, "moe_imbalance", t->moe_imbalance, true);
	rm_buf_printf(b, "\"fp8\": \"%s\", \"fp8_recipe\": \"%s\", "
		       "\"fp8_params\": %s, \"fp8_dispatch\": %s, ",
		       rmi_fp8_name(t->fp8), rmi_fp8_recipe_name(t->fp8_recipe),
		       t->fp8_params ? "true" : "false",
		       t->fp8_dispatch ? "true" : "false");
	json_num(b, "mem_reserve_bytes", t->mem_reserve_bytes, false);
	rm_buf_printf(b, "},\n \"micro_batches\": %llu, \"layers_per_stage\": %u, ",
		       (unsigned long long)e->m, e->layers_stage);
	rm_buf_puts(b, "\"memory\": {");
	json_num(b, "weights", e->weights, true);
	json_num(b, "grads", e->grads, true);
	json_num(b, "optimizer", e->optim, true);
	json_num(b, "activations_first", e->act_first, true);
	json_num(b, "activations_last", e->act_last, true);
	json_num(b, "inflight_first", e->inflight_first, true);
	json_num(b, "inflight_last", e->inflight_last, true);
	json_num(b, "recompute_work", e->act_work, true);
	json_num(b, "logits", e->logits, true);
	json_num(b, "reserve", e->reserve, true);
	/* the terms each column adds up from (with bytes_per_param) */
	json_num(b, "params_first_stage", e->params_col, true);
	json_num(b, "params_last_stage", e->params_last, true);
	rm_buf_printf(b, "\"bytes_per_param\": [%.10g, %.10g, %.10g], ",
		       e->bytes_per_param[0], e->bytes_per_param[1],
		       e->bytes_per_param[2]);
	json_num(b, "gathered", e->gathered, true);
	json_num(b, "logits_first_stage", e->logits_first, true);
	/* "first_stage" is the fullest stage before the last, this one */
	rm_buf_printf(b, "\"first_stage_index\": %u, ", e->stage_first_col);
	json_num(b, "first_stage", e->mem_first, true);
	json_num(b, "last_stage", e->mem_last, true);
	json_num(b, "peak", e->mem_peak, true);
	json_num(b, "hbm", e->hbm, true);
	rm_buf_printf(b, "\"fits\": %s},\n ", e->fits ? "true" : "false");
	floor_json(b, m, hw, t, e);
	rm_buf_puts(b, ",\n \"compute\": {");
	json_num(b, "flops_per_token", e->flops_token, true);
	json_num(b, "hw_flops_per_token", e->hw_flops_token, true);
	json_num(b, "flops_per_step", e->flops_step, true);
	json_num(b, "flops_per_gpu", e->flops_gpu, true);
	json_num(b, "seconds_at_peak", e->t_peak, true);
	json_num(b, "imbalance", e->imbalance, true);
	json_num(b, "gemm_flops_layer", e->gemm_flops, true);
	json_num(b, "gemm_seconds_layer", e->t_gemm, true);
	json_num(b, "attn_flops_layer", e->attn_flops, true);
	json_num(b, "attn_seconds_layer", e->t_attn, true);
	json_num(b, "mem_bytes_layer", e->mem_bytes, true);
	json_num(b, "mem_seconds_layer", e->t_mem, true);
	json_num(b, "fp8_cast_bytes_layer", e->cast_bytes, true);
	json_num(b, "fp8_cast_seconds_layer", e->t_cast, true);
	json_num(b, "fwd_seconds_layer", e->t_fwd, true);
	json_num(b, "bwd_seconds_layer", e->t_bwd, true);
	json_num(b, "wgrad_seconds_layer", e->t_wgrad, true);
	json_num(b, "recompute_seconds_layer", e->t_recomp, true);
	json_num(b, "head_seconds", e->t_head, true);
	json_num(b, "stage_seconds", e->t_stage, true);
	json_num(b, "optimizer_seconds", e->t_optim, true);
	json_num(b, "seconds", e->t_compute, false);
	rm_buf_puts(b, "},\n \"axes\": [");
	bool first = true;
	for (int a = 0; a < RM_NAXES; a++) {
		const rm_axis_cost *c = &e->axis[a];
		if (!c->used)
			continue;
		rm_buf_printf(b, "%s\n  {\"axis\": \"%s\", \"group\": %u, \"collective\": ",
			       first ? "" : ",", rm_axis_name((rm_axis)a), c->group);
		rm_buf_json_str(b, c->collective);
		rm_buf_puts(b, ", \"link\": ");
		rm_buf_json_str(b, c->link);
		rm_buf_puts(b, ", ");
		json_num(b, "bytes", c->bytes, true);
		json_num(b, "calls", c->calls, true);
		json_num(b, "gbytes_per_s", c->gbytes_per_s, true);
		json_num(b, "seconds", c->seconds, true);
		json_num(b, "exposed", c->exposed, true);
		json_num(b, "off_nvlink", c->off_nvlink, true);
		json_num(b, "off_leaf", c->off_leaf, true);
		rm_buf_printf(b, "\"overlappable\": %s}", c->overlappable ? "true" : "false");
		first = false;
	}
	rm_buf_puts(b, "],\n \"bubble\": {");
	json_num(b, "fraction", e->bubble_frac, true);
	json_num(b, "seconds", e->t_bubble, false);
	rm_buf_puts(b, "},\n \"schedules\": [");
	char name[24];
	const char *f;
	bool chosen, first_row = true;
	rm_estimate x;
	rm_error xe;
	for (uint32_t i = 0; rmi_variant(m, hw, t, e, i, name, &f, &chosen, &x, &xe); i++) {
		if (xe.code)
			continue;
		rm_buf_printf(b, "%s\n  {\"schedule\": \"%s\", \"formula\": \"%s\", ",
			       first_row ? "" : ",", name, f);
		json_num(b, "fraction", x.bubble_frac, true);
		json_num(b, "bubble_seconds", x.t_bubble, true);
		json_num(b, "step_seconds", x.t_step, true);
		json_num(b, "mfu", x.mfu, true);
		json_num(b, "mem_peak", x.mem_peak, true);
		rm_buf_printf(b, "\"fits\": %s, \"chosen\": %s}",
			       x.fits ? "true" : "false", chosen ? "true" : "false");
		first_row = false;
	}
	rm_buf_puts(b, "],\n \"swaps\": [");
	first_row = true;
	const rm_layout *l = &e->layout;
	unsigned pos[RM_NAXES], n = rmi_used_nest(l, pos);
	for (unsigned k = 0; k + 1 < n; k++) {
		rm_layout sw = *l;
		sw.nest[pos[k]] = l->nest[pos[k + 1]];
		sw.nest[pos[k + 1]] = l->nest[pos[k]];
		if (rmi_estimate_run(m, hw, t, &sw, &x, NULL))
			continue;
		rm_buf_printf(b, "%s\n  {\"inner\": \"%s\", \"outer\": \"%s\", ",
			       first_row ? "" : ",", rm_axis_name(l->nest[pos[k]]),
			       rm_axis_name(l->nest[pos[k + 1]]));
		json_num(b, "step_seconds", x.t_step, true);
		json_num(b, "delta_seconds", x.t_step - e->t_step, true);
		rm_buf_printf(b, "\"tie\": %s}",
			       rmi_tie(x.t_step, e->t_step) ? "true" : "false");
		first_row = false;
	}
	rm_buf_puts(b, "],\n ");
	json_num(b, "step_seconds", e->t_step, true);
	json_num(b, "mfu", e->mfu, true);
	json_num(b, "mfu_causal", e->mfu_causal, true);
	rm_buf_puts(b, "\"mfu_convention\": \"non-causal\", ");
	json_num(b, "tokens_per_s", e->tokens_per_s, true);
	rmi_budget_json(b, m, t, e);
	rm_buf_puts(b, "\"at_scale\": {");
	json_num(b, "latency_seconds", e->t_lat, true);
	json_num(b, "latency_path_seconds", e->t_lat_path, true);
	json_num(b, "straggler_seconds", e->t_jitter, true);
	json_num(b, "data_seconds", e->t_data, false);
	rm_buf_puts(b, "}, ");
	rm_buf_puts(b, "\"goodput\": {");
	json_num(b, "interruptions_per_day", e->fails_per_day, true);
	json_num(b, "checkpoint_interval_s", e->ckpt_interval_s, true);
	json_num(b, "fraction", e->goodput, false);
	rm_buf_puts(b, "}, ");
	if (e->plan[0]) {
		rm_buf_puts(b, "\"plan\": ");
		rm_buf_json_str(b, e->plan);
		rm_buf_puts(b, ", ");
	}
	rm_buf_puts(b, "\"note\": ");
	rm_buf_json_str(b, e->note);
	rm_buf_puts(b, "}\n");
}
