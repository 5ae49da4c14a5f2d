/* SPDX-License-Identifier: Apache-2.0 */
/* model_suggest_text.c - the suggest report (text table or JSON). */
#include "model/model_int.h"
#include "model/model_suggest.h"

#include <math.h>
#include <string.h>

static void row(rm_buf *b, const char *tag, const rm_estimate *e,
		const rm_estimate *best)
{
	char lay[96], sc[24];
	rm_layout_format(&e->layout, lay, sizeof(lay));
	rmi_schedule_label(e->schedule, e->vchunks, sc);
	char rl[24];
	rm_buf_printf(b, "  %-6s %-26s %3u %-14s %-9s %5llu %8.3f %+6.1f%% %6.3f %5.1f%% %7.1f\n",
		       tag, lay, e->micro_batch, sc,
		       rmi_recompute_label(e->recompute, e->recompute_layers, rl),
		       (unsigned long long)e->m,
		       e->t_step, 100 * (e->t_step / best->t_step - 1),
		       e->bubble_frac, 100 * e->mfu, e->mem_peak / RMI_GIB);
}

static void cand_json(rm_buf *b, const rm_candidate *c)
{
	char lay[96], sc[24], rl[24];
	const rm_estimate *e = &c->est;
	rm_layout_format(&e->layout, lay, sizeof(lay));
	rmi_schedule_label(e->schedule, e->vchunks, sc);
	rm_buf_puts(b, "{\"layout\": ");
	rm_buf_json_str(b, lay);
	rm_buf_printf(b, ", \"tp\": %u, \"cp\": %u, \"pp\": %u, \"dp\": %u, "
		       "\"ep\": %u, \"etp\": %u, \"micro_batch\": %u, \"schedule\": \"%s\", \"recompute\": \"%s\", "
		       "\"micro_batches\": %llu, \"step_seconds\": %.10g, "
		       "\"bubble\": %.10g, \"mfu\": %.10g, \"mfu_causal\": %.10g, "
		       "\"mem_peak\": %.10g, \"fits\": %s",
		       e->layout.size[RM_AXIS_TP], e->layout.size[RM_AXIS_CP],
		       e->layout.size[RM_AXIS_PP], rm_layout_dp(&e->layout),
		       rm_layout_ep(&e->layout), rm_layout_etp(&e->layout),
		       e->micro_batch, sc,
		       rmi_recompute_label(e->recompute, e->recompute_layers, rl),
		       (unsigned long long)e->m, e->t_step,
		       e->bubble_frac, e->mfu, e->mfu_causal, e->mem_peak,
		       e->fits ? "true" : "false");
	if (c->label[0]) {
		rm_buf_puts(b, ", \"neighbour\": ");
		rm_buf_json_str(b, c->label);
	}
	if (c->why[0]) {
		rm_buf_puts(b, ", \"why\": ");
		rm_buf_json_str(b, c->why);
	}
	rm_buf_puts(b, "}");
}

static void put_json(rm_buf *b, const rm_model *m, const rm_hw *hw,
		     const rm_train *t, const rm_suggest_options *o,
		     const rm_suggestion *s, size_t top)
{
	rm_buf_puts(b, "{\"schema\": \"rankmap-suggest/1\", \"model\": ");
	rm_buf_json_str(b, m->name);
	rm_buf_puts(b, ", \"hardware\": ");
	rm_buf_json_str(b, hw->name);
	rm_buf_printf(b, ", \"gpus\": %llu, \"batch_tokens\": %llu, "
		       "\"recompute\": \"%s\", \"sharding\": \"%s\", "
		       "\"considered\": %zu, \"rejected_memory\": %zu, "
		       "\"rejected_other\": %zu,\n \"ranked\": [",
		       (unsigned long long)o->gpus,
		       (unsigned long long)t->batch_tokens,
		       rm_recompute_name(t->recompute),
		       rm_sharding_name(t->sharding), s->considered,
		       s->rejected_mem, s->rejected_other);
	for (size_t i = 0; i < top; i++) {
		rm_buf_puts(b, i ? ",\n  " : "\n  ");
		cand_json(b, &s->ranked[i]);
	}
	rm_buf_printf(b, "],\n \"base_rank\": %zu, ", s->base_rank);
	if (o->around_source) {
		rm_buf_puts(b, "\"base_published\": ");
		rm_buf_json_str(b, o->around_source);
		rm_buf_puts(b, ", ");
	}
	rm_buf_puts(b, "\"base\": ");
	cand_json(b, &s->base);
	if (s->unbounded_rank) {
		rm_buf_printf(b, ",\n \"unbounded_rank\": %zu, \"unbounded\": ",
			       s->unbounded_rank);
		cand_json(b, &s->unbounded);
	}
	rm_buf_puts(b, ",\n \"neighbours\": [");
	for (size_t i = 0; i < s->nneighbour; i++) {
		rm_buf_puts(b, i ? ",\n  " : "\n  ");
		cand_json(b, &s->neighbour[i]);
	}
	if (s->needs) {
		const rm_suggestion *n = s->needs;
		rm_buf_puts(b, "],\n \"needs\": {\"settings\": ");
		rm_buf_json_str(b, s->needs_what);
		rm_buf_printf(b, ", \"base_rank\": %zu, \"ranked\": %zu, \"base\": ",
			       n->base_rank, n->nfit);
		cand_json(b, &n->base);
		rm_buf_puts(b, ", \"best\": ");
		cand_json(b, &n->ranked[0]);
		rm_buf_puts(b, ", \"neighbours\": [");
		for (size_t i = 0; i < n->nneighbour; i++) {
			rm_buf_puts(b, i ? ",\n  " : "\n  ");
			cand_json(b, &n->neighbour[i]);
		}
		rm_buf_puts(b, "]}");
	}
	rm_buf_puts(b, s->needs ? ",\n \"rejected\": [" : "],\n \"rejected\": [");
	for (size_t i = 0; i < s->nrejected && i < RMI_REJECTS_SHOWN; i++) {
		rm_buf_puts(b, i ? ",\n  " : "\n  ");
		rm_candidate c = s->rejected[i];
		snprintf(c.why, sizeof(c.why), "short by %.1f GiB",
			 (c.est.mem_peak - c.est.hbm) / RMI_GIB);
		cand_json(b, &c);
	}
	rm_buf_puts(b, "]}\n");
}

/* What the compared layout needs to run as it would with more memory,
 * where it ranks then, and its neighbours priced the same way. */
static void put_needs(rm_buf *b, const rm_suggestion *s)
{
	const rm_suggestion *n = s->needs;
	char lay[96];
	rm_layout_format(&n->base.est.layout, lay, sizeof(lay));
	rm_buf_printf(b, "\nwhat %s needs to run as it would with more memory: "
		       "%s\n", lay, s->needs_what);
	rm_buf_printf(b, "  then it fits (%.1f GiB) and ranks #%zu of the %zu "
		       "layouts that fit so, %.3f s per step", n->base.est.mem_peak /
		       RMI_GIB, n->base_rank, n->nfit, n->base.est.t_step);
	if (n->base_rank == 1)
		rm_buf_puts(b, "\n");
	else
		rm_buf_printf(b, ", %+.3f s behind #1 there\n",
			       n->base.est.t_step - n->ranked[0].est.t_step);
	row(b, "it", &n->base.est, &n->ranked[0].est);
	if (n->base_rank != 1)
		row(b, "#1", &n->ranked[0].est, &n->ranked[0].est);
	rm_buf_printf(b, "  its neighbours priced so, and why they lose to it\n");
	for (size_t i = 0; i < n->nneighbour; i++) {
		const rm_candidate *c = &n->neighbour[i];
		rm_layout_format(&c->est.layout, lay, sizeof(lay));
		rm_buf_printf(b, "  %-6s %-26s mb %-3u %s\n", c->label, lay,
			       c->est.micro_batch, c->why);
	}
}

rm_status rm_suggestion_write(const rm_model *m, const rm_hw *hw,
			      const rm_train *t, const rm_suggest_options *o,
			      const rm_suggestion *s, rm_format fmt,
			      char **out, size_t *len, rm_error *err)
{
	RMI_TRAIN_ARG(t, err);
	RMI_MODEL_HW_ARG(m, hw, err);
	RMI_SUGGEST_ARG(o, err);
	rm_buf b;
	rm_buf_init(&b);
	*out = NULL;
	size_t top = o->top ? o->top : 10;
	if (top > s->nranked)
		top = s->nranked;
	if (fmt == RM_FMT_JSON) {
		put_json(&b, m, hw, t, o, s, top);
	} else if (fmt == RM_FMT_TEXT) {
		rmi_cal k;
		rmi_cal_of(hw, t, &k);
		rm_buf_printf(&b,
			"rankmap suggest: %s on %llu x %s, batch %llu tokens of %u\n"
			"recompute %s, sharding %s, grad_bytes %g, flash %s, "
			"seq_parallel %s, tp_overlap %.2g; calibration of %s: gemm_eff %.3g, "
			"gemm_dim0 %.4g, attn_eff %.3g, hbm_eff %.3g, nvlink_eff "
			"%.3g, net_eff %.3g (rankmap explain prints every term)\n"
			"%zu layouts x micro-batches considered: %zu layouts fit, "
			"%zu do not fit memory, %zu do not split the batch or the model\n"
			"nesting tp, cp, %spp, dp innermost first; best micro-batch, "
			"schedule and recompute per layout\n\n",
			m->name, (unsigned long long)o->gpus, hw->name,
			(unsigned long long)t->batch_tokens, rmi_seq(m, t),
			rm_recompute_name(t->recompute), rm_sharding_name(t->sharding),
			t->grad_bytes, t->flash ? "on" : "off",
			t->seq_parallel ? "on" : "off", k.tp_overlap, hw->name,
			k.gemm_eff,
			k.gemm_dim0, k.attn_eff, k.hbm_eff, k.nvlink_eff, k.net_eff,
			s->considered, s->nfit, s->rejected_mem,
			s->rejected_other, m->experts ? "ep, " : "");
		rm_buf_puts(&b, "  rank   layout                      mb schedule       recompute     m   step s   vs #1 bubble   MFU  peak GiB\n");
		for (size_t i = 0; i < top; i++) {
			char tag[24];
			snprintf(tag, sizeof(tag), "%zu", i + 1);
			row(&b, tag, &s->ranked[i].est, &s->ranked[0].est);
		}
		rm_buf_printf(&b, "  MFU counts attention whole (non-causal, as Megatron-LM "
			       "and PaLM do); causal, #1 is at %.1f%%\n",
			       100 * s->ranked[0].est.mfu_causal);
		/* the model is good to a few per cent (docs/explain.md,
		 * "Accuracy"): closer than 1 % is a tie, said so */
		size_t tie = 1;
		while (tie < s->nranked && rmi_tie(s->ranked[tie].est.t_step,
						   s->ranked[0].est.t_step))
			tie++;
		if (tie > 1)
			rm_buf_printf(&b, "  #1 to #%zu are within 1 %% of each other: "
				       "a tie at this model's accuracy\n", tie);
		/* held out, the model's mean error on published runs is 3-9 %
		 * (unit/loso): rows closer than 5 % are not told apart by it */
		size_t near = tie;
		while (near < s->nranked && s->ranked[near].est.t_step <=
		       1.05 * s->ranked[0].est.t_step)
			near++;
		if (near > tie)
			rm_buf_printf(&b, "  #1 to #%zu are within 5 %%, about the model's "
				       "held-out error on published runs: measure before choosing "
				       "among them\n", near);
		if (s->base_rank == 1) {
			rm_buf_puts(&b, "\nneighbours of #1 and why they lost\n");
		} else {
			char lay[96];
			rm_layout_format(&s->base.est.layout, lay, sizeof(lay));
			if (o->around_source)
				rm_buf_printf(&b, "\n%s is the layout published for "
					       "this model on %llu GPUs (%s): where it "
					       "ranks, what it needs and why its "
					       "neighbours lose (--around)",
					       lay, (unsigned long long)o->gpus,
					       o->around_source);
			if (s->base_rank)
				rm_buf_printf(&b, "\n%s ranks #%zu, %+.3f s per step behind #1%s%s\n",
					       lay, s->base_rank,
					       s->base.est.t_step - s->ranked[0].est.t_step,
					       s->base.why[0] ? "; " : "", s->base.why);
			else
				rm_buf_printf(&b, "\n%s is not ranked: %s\n", lay,
					       s->base.why);
			row(&b, "it", &s->base.est, &s->ranked[0].est);
			if (s->unbounded_rank) {
				const rm_estimate *u = &s->unbounded.est;
				rm_buf_printf(&b, "  with more memory it would rank #%zu: "
					       "it needs %.1f GiB, %.1f GiB over HBM, as\n",
					       s->unbounded_rank, u->mem_peak / RMI_GIB,
					       (u->mem_peak - u->hbm) / RMI_GIB);
				row(&b, "then", u, &s->ranked[0].est);
			}
			rm_buf_printf(&b, "\nneighbours of %s%s and why they lose to it\n",
				       lay, s->unbounded_rank ?
				       " (as it would run with more memory)" : "");
		}
		for (size_t i = 0; i < s->nneighbour; i++) {
			const rm_candidate *c = &s->neighbour[i];
			char lay[96];
			rm_layout_format(&c->est.layout, lay, sizeof(lay));
			rm_buf_printf(&b, "  %-6s %-26s mb %-3u %s\n", c->label,
				       lay, c->est.micro_batch, c->why);
		}
		if (s->nrejected) {
			rm_buf_puts(&b, "\nclosest layouts that do not fit memory\n");
			for (size_t i = 0; i < s->nrejected &&
					   i < RMI_REJECTS_SHOWN; i++) {
				const rm_estimate *e = &s->rejected[i].est;
				char lay[96];
				rm_layout_format(&e->layout, lay, sizeof(lay));
				rm_buf_printf(&b, "  %-26s needs %.1f GiB > %.1f GiB HBM "
					       "(state %.1f GiB: %.4e params x %.3g B)\n",
					       lay, e->mem_peak / RMI_GIB,
					       e->hbm / RMI_GIB,
					       (e->weights + e->grads + e->optim) / RMI_GIB,
					       fmax(e->params_first, e->params_last),
					       e->bytes_per_param[0] + e->bytes_per_param[1] +
					       e->bytes_per_param[2]);
			}
		}
		if (s->needs)
			put_needs(&b, s);
	} else {
		return rmi_err(err, RM_EUNSUPPORTED,
			       "suggest writes text or json only");
	}
	*out = rm_buf_take(&b, len);
	return *out ? RM_OK : rmi_err(err, RM_ENOMEM, "out of memory");
}
