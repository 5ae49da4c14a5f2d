/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_budget.c - a token budget priced (explain --tokens): the total
 * training compute, the steps it takes and the days at the priced step.
 *
 * FLOPs = model FLOPs per token x tokens, three ways: attention counted
 * whole (Megatron-LM's and PaLM's convention, what MFU here counts),
 * causal (what the GPU runs under the mask) and 6N alone (Kaplan et al.
 * 2020, the figure budgets are usually quoted in: Meta's 3.8e25 for Llama
 * 3 405B on 15.6T tokens). Steps = tokens / batch; days = steps x the
 * step time, and over the goodput above (Young/Daly: checkpoints, lost
 * work and restarts) the wall-clock days it would take.
 */
#include "model/model_int.h"

#include <math.h>

typedef struct {
	double whole, causal, six_n, steps, train_s, wall_s, gpu_hours;
} budget;

static void budget_of(const rm_model *m, const rm_train *t,
		      const rm_estimate *e, budget *o)
{
	double T = t->tokens;
	o->whole = e->flops_token * T;
	o->causal = e->flops_token_causal * T;
	o->six_n = 6.0 * rmi_model_active(m) * T;
	o->steps = T / (double)t->batch_tokens;
	o->train_s = o->steps * e->t_step;
	o->wall_s = e->goodput > 0 ? o->train_s / e->goodput : o->train_s;
	o->gpu_hours = o->train_s / 3600.0 * (double)e->gpus;
}

void rmi_put_budget(rm_buf *b, const rm_model *m, const rm_train *t,
		    const rm_estimate *e)
{
	if (!(t->tokens > 0) || !t->batch_tokens)
		return;
	budget x;
	budget_of(m, t, e, &x);
	rm_buf_printf(b, "training budget (%.4g tokens)\n"
		       "  FLOPs = model FLOPs per token x tokens: %.4e x %.4g = "
		       "%.4e (attention whole); causal %.4e; 6N alone %.4e\n",
		       t->tokens, e->flops_token, t->tokens, x.whole, x.causal,
		       x.six_n);
	rm_buf_printf(b, "  steps = tokens / batch = %.4g / %llu = %.0f\n",
		       t->tokens, (unsigned long long)t->batch_tokens,
		       floor(x.steps + 0.5));
	rm_buf_printf(b, "  at %.3f s per step: %.0f s = %.1f days of training, "
		       "%.4g GPU-hours on %llu GPUs\n",
		       e->t_step, x.train_s, x.train_s / 86400, x.gpu_hours,
		       (unsigned long long)e->gpus);
	rm_buf_printf(b, "  at the effective training fraction %.1f%% "
		       "(goodput above): %.1f days of wall clock\n\n",
		       100 * (e->goodput > 0 ? e->goodput : 1), x.wall_s / 86400);
}

void rmi_budget_json(rm_buf *b, const rm_model *m, const rm_train *t,
		     const rm_estimate *e)
{
	if (!(t->tokens > 0) || !t->batch_tokens)
		return;
	budget x;
	budget_of(m, t, e, &x);
	rm_buf_printf(b, "\"budget\": {\"tokens\": %.10g, \"flops\": %.10g, "
		       "\"flops_causal\": %.10g, \"flops_6n\": %.10g, "
		       "\"steps\": %.10g, \"train_days\": %.10g, "
		       "\"wall_days\": %.10g, \"gpu_hours\": %.10g}, ",
		       t->tokens, x.whole, x.causal, x.six_n, x.steps,
		       x.train_s / 86400, x.wall_s / 86400, x.gpu_hours);
}
