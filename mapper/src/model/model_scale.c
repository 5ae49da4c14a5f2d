/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_scale.c - what production adds to a step at scale (issue 40.2),
 * each a stated formula with a knob (rm_train version 3, --set):
 *
 *   collective latency: every collective call whose group leaves NVLink
 *     pays coll_base_us once and coll_hop_us per ring step (g - 1 for a
 *     ring collective of g ranks, 1 for PP's send/recv). The blocking
 *     axes' (tp, cp, pp, ep) is on the critical path, so the bubble
 *     scales it; DP's is exposed once (its few calls end the step).
 *   stragglers: each GPU's step varies with spread `jitter` (standard
 *     deviation / mean); a synchronous step waits for the slowest of N,
 *     whose expected excess over the mean is about sqrt(2 ln N) standard
 *     deviations for N normal draws: jitter x sqrt(2 ln N) x (critical
 *     path + bubble).
 *   data loading exposed per step: data_s.
 *
 * The optimizer step is priced already (model_compute.c, t_optim). The
 * defaults are 0: fitted leave-one-source-out, no value of these terms
 * lowers the held-out error of the gated sources (docs/explain.md,
 * "Running at scale").
 */
#include "model/model_int.h"

#include <math.h>
#include <string.h>

static double ring_steps(int a, const rm_axis_cost *c)
{
	if (a == RM_AXIS_PP)
		return 1;
	return c->group > 1 ? c->group - 1 : 0;
}

double rmi_coll_latency(const rm_train *t, const rm_estimate *e, bool dp,
			double *calls)
{
	double s = 0, n = 0;
	for (int a = 0; a < RM_NAXES; a++) {
		const rm_axis_cost *c = &e->axis[a];
		if (!c->used || (a == RM_AXIS_DP) != dp ||
		    !strcmp(c->link, "nvlink"))
			continue;
		n += c->calls;
		s += c->calls * (t->coll_base_us + t->coll_hop_us *
				 ring_steps(a, c)) * 1e-6;
	}
	if (calls)
		*calls = n;
	return s;
}

double rmi_straggle(const rm_train *t, uint64_t gpus)
{
	return gpus > 1 ? t->jitter * sqrt(2 * log((double)gpus)) : 0;
}

void rmi_put_scale(rm_buf *b, const rm_train *t, const rm_estimate *e)
{
	double nb, nd;
	double lb = rmi_coll_latency(t, e, false, &nb);
	double ld = rmi_coll_latency(t, e, true, &nd);
	rm_buf_printf(b, "  at scale: collective latency (coll_base_us %g + "
		       "coll_hop_us %g x ring steps) x calls off NVLink: "
		       "blocking %.0f calls %.3f s (in the path), dp %.0f "
		       "calls %.3f s\n", t->coll_base_us, t->coll_hop_us, nb, lb,
		       nd, ld);
	rm_buf_printf(b, "  stragglers jitter %g x sqrt(2 ln %llu) x (path + "
		       "bubble) = %.3f s; data loading data_s %.3f s\n",
		       t->jitter, (unsigned long long)e->gpus, e->t_jitter,
		       t->data_s);
}
