/* SPDX-License-Identifier: Apache-2.0 */
/* model_floor.c - what forces pp up and bounds tp: the memory floor. */
#include "model/model_int.h"

#include <string.h>

/* The fullest GPU's total as its terms, the same the memory table adds
 * up: state at its bytes per parameter (fsdp's gathered layer with the
 * weights), activations in flight, and the rest (rebuilt layer, logits,
 * reserve). */
static void row_of(const rm_model *m, const rm_train *t, const rm_estimate *x,
		   rmi_floor_row *r)
{
	uint32_t pp = x->layout.size[RM_AXIS_PP];
	bool first = x->mem_first >= x->mem_last;
	double p = first ? x->params_col : x->params_last;
	memset(r, 0, sizeof(*r));
	r->pp = pp;
	r->stage = first ? x->stage_first_col : pp - 1;
	r->layers = !first ? x->layers_last :
		    x->stage_first_col ? rmi_stage_layers(m, t, pp, x->stage_first_col) :
		    x->layers_first;
	r->mem = x->mem_peak;
	r->weights = p * x->bytes_per_param[0] + x->gathered;
	r->grads = p * x->bytes_per_param[1];
	r->optim = p * x->bytes_per_param[2];
	r->act = first ? x->act_first : x->act_last;
	r->inflight = first ? x->inflight_first : x->inflight_last;
	r->other = x->act_work + (first ? x->logits_first : x->logits) +
		   x->reserve;
	r->fits = x->fits;
}

/* The layout of e with pp stages and the data parallelism the GPUs leave
 * (an HSDP split keeps its shard group); false when that does not split. */
static bool with_pp(const rm_layout *l, uint64_t rest, uint32_t pp,
		    rm_layout *out)
{
	*out = *l;
	/* the EP placement axis is the part of dp the expert blocks span */
	uint32_t ep = l->size[RM_AXIS_EP] ? l->size[RM_AXIS_EP] : 1;
	if ((rest / pp) % ep)
		return false;
	uint32_t dp = (uint32_t)(rest / pp / ep);
	out->size[RM_AXIS_PP] = pp;
	out->size[RM_AXIS_DP] = dp;
	if (l->hsdp) {
		if (!l->dp_shard || dp % l->dp_shard)
			return false;
		out->dp_replicate = dp / l->dp_shard;
	}
	/* an axis of size 1 may be missing from the nesting: put pp before
	 * dp, where explain's order argues it goes (memory ignores nesting) */
	bool has = false;
	for (unsigned i = 0; i < out->naxes; i++)
		has |= out->nest[i] == RM_AXIS_PP;
	if (!has && out->naxes < RM_NAXES) {
		unsigned k = out->naxes;
		for (unsigned i = 0; i < out->naxes; i++)
			if (out->nest[i] == RM_AXIS_DP) {
				k = i;
				break;
			}
		memmove(&out->nest[k + 1], &out->nest[k],
			(out->naxes - k) * sizeof(out->nest[0]));
		out->nest[k] = RM_AXIS_PP;
		out->naxes++;
	}
	return true;
}

void rmi_mem_floor(const rm_model *m, const rm_hw *hw, const rm_train *t,
		   const rm_estimate *e, rmi_floor *out)
{
	const rm_layout *l = &e->layout;
	memset(out, 0, sizeof(*out));
	out->tp_max = hw->nvl_domain;
	uint64_t inner = (uint64_t)l->size[RM_AXIS_TP] * l->size[RM_AXIS_CP];
	out->rest = inner ? e->gpus / inner : 0;
	for (uint64_t pp = 1; pp <= out->rest && pp <= m->layers; pp++) {
		if (out->rest % pp)
			continue;
		rm_layout x;
		rm_estimate est;
		rm_error err;
		memset(&err, 0, sizeof(err));
		bool ok = with_pp(l, out->rest, (uint32_t)pp, &x);
		if (!ok)
			snprintf(err.msg, sizeof(err.msg), "%s",
				 l->hsdp ? "dp does not split into the hsdp "
				 "shard group" : "dp does not split into the "
				 "expert blocks (etp x ep)");
		else if (pp == l->size[RM_AXIS_PP])
			est = *e;     /* the estimate shown: the same figures */
		else
			ok = !rmi_estimate_run(m, hw, t, &x, &est, &err);
		if (!ok) {
			size_t k = out->nskipped++;
			if (k < sizeof(out->skipped) / sizeof(out->skipped[0])) {
				out->skipped[k] = (uint32_t)pp;
				snprintf(out->skip_why[k], sizeof(out->skip_why[k]),
					 "%.90s", err.msg);
			}
			continue;
		}
		if (est.fits && !out->pp_min)
			out->pp_min = (uint32_t)pp;
		if (out->nrow < RMI_FLOOR_ROWS)
			row_of(m, t, &est, &out->row[out->nrow++]);
	}
}

const rmi_floor_row *rmi_floor_find(const rmi_floor *f, uint32_t pp)
{
	for (size_t i = 0; i < f->nrow; i++)
		if (f->row[i].pp == pp)
			return &f->row[i];
	return NULL;
}

const char *rmi_floor_place(const rmi_floor *f, uint32_t pp)
{
	if (!f->pp_min)
		return "none";
	return pp < f->pp_min ? "below" : pp == f->pp_min ? "at" : "above";
}
