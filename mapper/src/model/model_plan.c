/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_plan.c - where a model is known, the plan is the fastest of the
 * planner's map and the baselines' maps as the model prices them.
 *
 * The planner minimises PP pairs leaving a leaf; the price also charges
 * DP traffic over an oversubscribed spine, which on three-tier trees can
 * make a sorted hostfile faster than the fewest crossings. Choosing by
 * the price itself makes the plan the price's optimum over the maps a
 * user could get, so no baseline explain shows beside it is faster.
 */
#include "model/model_int.h"

#include <stdio.h>
#include <string.h>

/* A candidate is one the plan may be: the same layout, every must-rule
 * kept (a baseline may split TP across NVLink domains). */
static bool may_be_plan(const rm_map *plan, const rm_map *m)
{
	return rm_layout_equal(&plan->layout, &m->layout) &&
	       rm_report_count(rm_map_report(m), RM_REPORT_MUST_OK) == 1;
}

rm_status rm_plan_priced(const rm_model *model, const rm_hw *hw,
			 const rm_train *t, const rm_plan_options *opts,
			 const char *fabric_digest, rm_map **out,
			 rm_estimate **est, unsigned *ncand, rm_error *err)
{
	rm_map *best = NULL;
	rm_estimate *be = NULL;
	*out = NULL;
	*est = NULL;
	*ncand = 0;
	rm_status st = rm_plan_with_digest(opts, fabric_digest, &best, err);
	if (!st)
		st = rm_estimate_map(model, hw, t, best, opts->fabric, &be,
				     err);
	if (st) {
		rm_map_free(best);
		return st;
	}
	unsigned n = 1;
	const char *won = NULL;
	for (int k = 0; !st && k < RM_BASELINE_COUNT; k++) {
		rm_plan_options bo = *opts;
		bo.baseline = true;
		bo.baseline_kind = (rm_baseline)k;
		rm_map *m = NULL;
		rm_estimate *e = NULL;
		rm_error ignore;
		/* a baseline the allocation cannot build is no candidate */
		if (rm_plan_with_digest(&bo, fabric_digest, &m, &ignore) ||
		    !may_be_plan(best, m)) {
			rm_map_free(m);
			continue;
		}
		n++;
		st = rm_estimate_map(model, hw, t, m, opts->fabric, &e, err);
		/* the planner's map on a tie: first wins */
		if (!st && rm_estimate_step_seconds(e) <
				   rm_estimate_step_seconds(be)) {
			rm_map *tm = best;
			rm_estimate *te = be;
			best = m;
			be = e;
			m = tm;
			e = te;
			won = rm_baseline_name((rm_baseline)k);
		}
		rm_map_free(m);
		rm_estimate_free(e);
	}
	if (st) {
		rm_map_free(best);
		rm_estimate_free(be);
		return st;
	}
	size_t used = strlen(be->note);
	snprintf(be->note + used, sizeof(be->note) - used,
		 "; the plan is the fastest of %u candidates as priced (%s%s)", n,
		 won ? won : "the planner's placement", won ? " order" : "");
	*out = best;
	*est = be;
	*ncand = n;
	return RM_OK;
}
