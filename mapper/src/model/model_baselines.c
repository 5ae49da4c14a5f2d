/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_baselines.c - one run priced on the plan and on every baseline
 * asked for (rm_baseline: Slurm's order, a sorted hostfile, Slurm's
 * switch ranks) by one model, with a verdict against the strongest of
 * them: what rankmap is worth beyond the best a user gets without it.
 */
#include "model/model_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* How the verdict names each baseline, and what a tie with it leaves
 * rankmap. */
static const char *noun(rm_baseline k)
{
	switch (k) {
	case RM_BASELINE_SORTED: return "a sorted hostfile";
	case RM_BASELINE_SWITCH_RANK: return "Slurm's switch-rank order";
	default: return "Slurm's order";
	}
}

static const char *beyond(rm_baseline k)
{
	switch (k) {
	case RM_BASELINE_SORTED: return "beyond sorting";
	case RM_BASELINE_SWITCH_RANK: return "beyond ranking nodes by switch";
	default: return "for this job";
	}
}

/* The fastest baseline; the first given on a tie. */
static size_t strongest(const rm_estimate *const *e, size_t n)
{
	size_t best = 0;
	for (size_t i = 1; i < n; i++)
		if (e[i]->t_step < e[best]->t_step)
			best = i;
	return best;
}

void rm_estimate_baselines_verdict(rm_buf *b, const rm_estimate *a,
				   const char *name_a,
				   const rm_estimate *const *base,
				   const rm_baseline *kind, size_t n)
{
	if (!n)
		return;
	size_t s = strongest(base, n);
	rm_compare c;
	rm_estimate_compare(a, base[s], &c);
	char the_a[96];
	snprintf(the_a, sizeof(the_a), "the %s", name_a);
	rmi_compare_say(b, a, the_a, base[s], noun(kind[s]), beyond(kind[s]),
			&c);
	if (n < 2)
		return;
	rm_buf_printf(b, "; the strongest of %zu baselines (", n);
	for (size_t i = 0, k = 0; i < n; i++) {
		if (i == s)
			continue;
		double rel = a->t_step > 0
				     ? (base[i]->t_step - a->t_step) / a->t_step
				     : 0;
		rm_buf_printf(b, "%s%s %+.1f %%", k++ ? ", " : "",
			       noun(kind[i]), 100 * rel);
	}
	rm_buf_puts(b, ")");
}

static double axis_s(const rm_estimate *e, int a)
{
	return e->axis[a].used ? e->axis[a].exposed : 0;
}

static void put_text(rm_buf *b, const rm_model *m, const rm_hw *hw,
		     const rm_estimate *const *e, const char *const *name,
		     size_t n, const rm_estimate *const *base,
		     const rm_baseline *kind)
{
	char lay[128];
	rm_layout_format(&e[0]->layout, lay, sizeof(lay));
	rm_buf_printf(b, "rankmap explain: %s on %llu x %s, layout %s, %zu "
		       "maps priced by one model\n(s = seconds per step; "
		       "exposed = on the critical path, with the link tier "
		       "it runs on)\n\n  %-24s", m->name,
		       (unsigned long long)e[0]->gpus, hw->name, lay, n, "");
	for (size_t i = 0; i < n; i++)
		rm_buf_printf(b, " %17s", name[i]);
	rm_buf_printf(b, "\n  %-24s", "step");
	for (size_t i = 0; i < n; i++)
		rm_buf_printf(b, " %15.3f s", e[i]->t_step);
	rm_buf_printf(b, "\n  %-24s %17s", "against the plan", "");
	for (size_t i = 1; i < n; i++)
		rm_buf_printf(b, " %+15.1f %%", e[0]->t_step > 0
				? 100 * (e[i]->t_step - e[0]->t_step) /
					  e[0]->t_step : 0);
	rm_buf_printf(b, "\n  %-24s", "MFU");
	for (size_t i = 0; i < n; i++)
		rm_buf_printf(b, " %15.1f %%", 100 * e[i]->mfu);
	rm_buf_printf(b, "\n  %-24s", "compute");
	for (size_t i = 0; i < n; i++)
		rm_buf_printf(b, " %15.3f s", e[i]->t_compute);
	for (int x = 0; x < RM_NAXES; x++) {
		bool used = false;
		for (size_t i = 0; i < n; i++)
			used |= e[i]->axis[x].used;
		if (!used)
			continue;
		char what[32];
		snprintf(what, sizeof(what), "%s exposed",
			 rm_axis_name((rm_axis)x));
		rm_buf_printf(b, "\n  %-24s", what);
		for (size_t i = 0; i < n; i++)
			rm_buf_printf(b, " %10.3f %6s", axis_s(e[i], x),
				       e[i]->axis[x].link);
	}
	rm_buf_printf(b, "\n  %-24s", "bubble");
	for (size_t i = 0; i < n; i++)
		rm_buf_printf(b, " %15.3f s", e[i]->t_bubble);
	rm_buf_printf(b, "\n  %-24s", "steps per day");
	for (size_t i = 0; i < n; i++)
		rm_buf_printf(b, " %17.0f", e[i]->t_step > 0
				? 86400.0 / e[i]->t_step : 0);
	rm_buf_printf(b, "\n  %-24s", "GPU-hours / 1,000 steps");
	for (size_t i = 0; i < n; i++)
		rm_buf_printf(b, " %17.0f",
			       (double)e[i]->gpus * e[i]->t_step / 3.6);
	rm_buf_printf(b, "\n\n%s: %s\n", name[0], e[0]->note);
	for (size_t i = 1; i < n; i++)
		if (strcmp(e[0]->note, e[i]->note))
			rm_buf_printf(b, "%s: %s\n", name[i], e[i]->note);
	for (size_t i = 0; i < n; i++)
		if (e[i]->plan[0])
			rm_buf_printf(b, "%s: %s\n", name[i], e[i]->plan);
	rm_buf_puts(b, "\nverdict: ");
	rm_estimate_baselines_verdict(b, e[0], name[0], base, kind, n - 1);
	rm_buf_puts(b, "\n");
}

static void put_json(rm_buf *b, const rm_model *m, const rm_hw *hw,
		     const rm_estimate *const *e, const char *const *name,
		     size_t n, const rm_estimate *const *base,
		     const rm_baseline *kind)
{
	rmi_explain_json_head(b, "rankmap-explain-compare/1", m, hw, e[0]);
	rm_buf_puts(b, ",\n \"maps\": [");
	for (size_t i = 0; i < n; i++) {
		rm_compare c;
		rm_estimate_compare(e[0], e[i], &c);
		if (i)
			rm_buf_puts(b, ",\n  ");
		rmi_compare_json_map(b, name[i], e[i], c.steps_day[1],
				     c.gpu_h_1000[1]);
	}
	rm_buf_puts(b, "],\n \"baselines\": [");
	size_t s = strongest(base, n - 1);
	for (size_t i = 0; i + 1 < n; i++) {
		rm_compare c;
		rm_estimate_compare(e[0], base[i], &c);
		rm_buf_printf(b, "%s\n  {\"kind\": \"%s\", \"map\": ", i ? "," : "",
			       rm_baseline_name(kind[i]));
		rm_buf_json_str(b, name[i + 1]);
		rm_buf_puts(b, ", \"difference\": ");
		rmi_compare_json_diff(b, &c);
		rm_buf_puts(b, "}");
	}
	rm_compare c;
	rm_estimate_compare(e[0], base[s], &c);
	rm_buf_printf(b, "],\n \"strongest\": \"%s\",\n \"difference\": ",
		       rm_baseline_name(kind[s]));
	rmi_compare_json_diff(b, &c);
	rm_buf_puts(b, ",\n \"verdict\": ");
	rm_buf v;
	rm_buf_init(&v);
	rm_estimate_baselines_verdict(&v, e[0], name[0], base, kind, n - 1);
	rm_buf_json_str(b, v.data);
	b->oom |= v.oom;
	rm_buf_clear(&v);
	rm_buf_puts(b, "}\n");
}

rm_status rm_estimate_baselines_write(const rm_model *m, const rm_hw *hw,
				      const rm_train *t, const rm_estimate *a,
				      const char *name_a,
				      const rm_estimate *const *base,
				      const rm_baseline *kind, size_t nbase,
				      rm_format fmt, char **out, size_t *len,
				      rm_error *err)
{
	RMI_TRAIN_ARG(t, err);
	RMI_MODEL_HW_ARG(m, hw, err);
	(void)t;
	*out = NULL;
	if (nbase < 1 || nbase > RM_BASELINE_COUNT)
		return rmi_err(err, RM_EINPUT, "%zu baselines: give 1 to %d",
			       nbase, RM_BASELINE_COUNT);
	const rm_estimate *e[RM_BASELINE_COUNT + 1] = { a };
	const char *name[RM_BASELINE_COUNT + 1] = { name_a };
	for (size_t i = 0; i < nbase; i++) {
		if (!rm_baseline_name(kind[i]))
			return rmi_err(err, RM_EINPUT, "baseline kind %u is "
				       "not one of slurm, sorted, switch-rank",
				       (unsigned)kind[i]);
		if (!rm_layout_equal(&a->layout, &base[i]->layout) ||
		    a->gpus != base[i]->gpus)
			return rmi_err(err, RM_EINPUT, "the maps must have the "
				       "same layout and GPU count to be "
				       "compared");
		e[i + 1] = base[i];
		name[i + 1] = rm_baseline_name(kind[i]);
	}
	rm_buf b;
	rm_buf_init(&b);
	if (fmt == RM_FMT_JSON)
		put_json(&b, m, hw, e, name, nbase + 1, base, kind);
	else if (fmt == RM_FMT_TEXT)
		put_text(&b, m, hw, e, name, nbase + 1, base, kind);
	else
		return rmi_err(err, RM_EUNSUPPORTED,
			       "explain writes text or json only");
	*out = rm_buf_take(&b, len);
	return *out ? RM_OK : rmi_err(err, RM_ENOMEM, "out of memory");
}
