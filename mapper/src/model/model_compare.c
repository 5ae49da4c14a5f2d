/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_compare.c - one run priced on two maps (rankmap's plan against
 * Slurm's order, or against a map a job used) with one model and one
 * calibration: what the placement is worth in seconds and GPU-hours.
 */
#include "model/model_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void rm_estimate_compare(const rm_estimate *a, const rm_estimate *b,
			 rm_compare *out)
{
	memset(out, 0, sizeof(*out));
	const rm_estimate *e[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		double t = e[i]->t_step;
		out->steps_day[i] = t > 0 ? 86400.0 / t : 0;
		out->gpu_h_1000[i] = (double)e[i]->gpus * t * 1000.0 / 3600.0;
	}
	out->dt_step = b->t_step - a->t_step;
	out->rel = a->t_step > 0 ? out->dt_step / a->t_step : 0;
	double slow = fmax(a->t_step, b->t_step);
	out->gpu_h_day = slow > 0 ? (double)b->gpus * 24.0 * out->dt_step / slow
				  : 0;
	out->same = fabs(out->rel) < RM_COMPARE_RESOLUTION;
}

/* Seconds of an axis that can hold up a step: what the two maps differ in
 * (compute, memory and the bubble's share are the same layout's). */
static double axis_s(const rm_estimate *e, int a)
{
	return e->axis[a].used ? e->axis[a].exposed : 0;
}

/* "dp +0.310 s (pod)": the axes where `x` costs more than `y`, for the
 * verdict's trade; false when there is none. */
static bool costlier(rm_buf *b, const rm_estimate *x, const rm_estimate *y)
{
	bool any = false;
	for (int a = 0; a < RM_NAXES; a++) {
		double d = axis_s(x, a) - axis_s(y, a);
		if (d < 5e-4)
			continue;
		rm_buf_printf(b, "%s%s +%.3f s (%s, not %s)", any ? ", " : "",
			       rm_axis_name((rm_axis)a), d, x->axis[a].link,
			       y->axis[a].link);
		any = true;
	}
	return any;
}

/* The verdict's sentence with each map's phrase as it stands in it ("the
 * plan", "a sorted hostfile") and what a tie leaves rankmap ("for this
 * job", "beyond sorting"). */
void rmi_compare_say(rm_buf *b, const rm_estimate *a, const char *the_a,
		     const rm_estimate *e, const char *the_b,
		     const char *beyond, const rm_compare *c)
{
	if (c->same) {
		rm_buf_printf(b, "%s is within %.2f %% of %s here: rankmap "
			       "changes nothing %s (the model tells apart "
			       "%.0f %%)", the_b, 100 * fabs(c->rel), the_a,
			       beyond, 100 * RM_COMPARE_RESOLUTION);
		return;
	}
	const char *slow = c->dt_step > 0 ? the_b : the_a;
	const char *fast = c->dt_step > 0 ? the_a : the_b;
	double dt = fabs(c->dt_step);
	rm_buf_printf(b, "%s is %.1f %% slower than %s: %+.3f s per step, "
		       "%.0f GPU-hours more per 1,000 steps, %.0f of the "
		       "%.0f GPU-hours of each day (%llu GPUs around the clock)",
		       slow, 100 * dt / (c->dt_step > 0 ? a->t_step : e->t_step),
		       fast, dt, fabs(c->gpu_h_1000[1] - c->gpu_h_1000[0]),
		       fabs(c->gpu_h_day), (double)e->gpus * 24.0,
		       (unsigned long long)e->gpus);
	/* The faster map may still pay somewhere: name what it trades. */
	const rm_estimate *f = c->dt_step > 0 ? a : e;
	const rm_estimate *s = c->dt_step > 0 ? e : a;
	rm_buf pay;
	rm_buf_init(&pay);
	if (costlier(&pay, f, s) && pay.data)
		rm_buf_printf(b, "; %s trades %s for it", fast, pay.data);
	rm_buf_clear(&pay);
}

static void verdict(rm_buf *b, const rm_estimate *a, const char *na,
		    const rm_estimate *e, const char *nb, const rm_compare *c)
{
	char the_a[96], the_b[96];
	snprintf(the_a, sizeof(the_a), "the %s", na);
	snprintf(the_b, sizeof(the_b), "the %s", nb);
	rmi_compare_say(b, a, the_a, e, the_b, "for this job", c);
}

void rm_estimate_compare_verdict(rm_buf *b, const rm_estimate *a,
				 const char *name_a, const rm_estimate *e,
				 const char *name_b)
{
	rm_compare c;
	rm_estimate_compare(a, e, &c);
	verdict(b, a, name_a, e, name_b, &c);
}

static void row(rm_buf *b, const char *what, double x, double y,
		const char *unit)
{
	rm_buf_printf(b, "  %-24s %10.3f %-7s %10.3f %-7s %+9.3f %s\n", what,
		       x, unit, y, unit, y - x, unit);
}

static void put_text(rm_buf *b, const rm_model *m, const rm_hw *hw,
		     const rm_estimate *a, const char *na,
		     const rm_estimate *e, const char *nb, const rm_compare *c)
{
	char lay[128];
	rm_layout_format(&a->layout, lay, sizeof(lay));
	rm_buf_printf(b, "rankmap explain: %s on %llu x %s, layout %s, two "
		       "maps priced by one model\n(s = seconds per step; "
		       "exposed = on the critical path, with the link tier "
		       "it runs on)\n\n",
		       m->name, (unsigned long long)a->gpus, hw->name, lay);
	rm_buf_printf(b, "  %-24s %10s %-7s %10s %-7s %9s\n", "", na, "", nb, "",
		       "difference");
	rm_buf_printf(b, "  %-24s %10.3f %-7s %10.3f %-7s %+9.3f s (%+.1f %%)\n",
		       "step", a->t_step, "s", e->t_step, "s", c->dt_step,
		       100 * c->rel);
	rm_buf_printf(b, "  %-24s %10.1f %-7s %10.1f %-7s %+9.1f points\n",
		       "MFU", 100 * a->mfu, "%", 100 * e->mfu, "%",
		       100 * (e->mfu - a->mfu));
	row(b, "compute", a->t_compute, e->t_compute, "s");
	for (int x = 0; x < RM_NAXES; x++) {
		if (!a->axis[x].used && !e->axis[x].used)
			continue;
		char what[32];
		snprintf(what, sizeof(what), "%s exposed", rm_axis_name((rm_axis)x));
		rm_buf_printf(b, "  %-24s %10.3f %-7s %10.3f %-7s %+9.3f s\n",
			       what, axis_s(a, x), a->axis[x].link,
			       axis_s(e, x), e->axis[x].link,
			       axis_s(e, x) - axis_s(a, x));
	}
	row(b, "bubble", a->t_bubble, e->t_bubble, "s");
	rm_buf_printf(b, "  %-24s %10.0f %-7s %10.0f %-7s %+9.0f\n",
		       "steps per day", c->steps_day[0], "", c->steps_day[1], "",
		       c->steps_day[1] - c->steps_day[0]);
	rm_buf_printf(b, "  %-24s %10.0f %-7s %10.0f %-7s %+9.0f\n\n",
		       "GPU-hours / 1,000 steps", c->gpu_h_1000[0], "",
		       c->gpu_h_1000[1], "", c->gpu_h_1000[1] - c->gpu_h_1000[0]);
	/* Where each figure came from: a map without a fabric, or a site
	 * without tier figures, is priced on assumed links - say so. */
	rm_buf_printf(b, "%s: %s\n", na, a->note);
	if (strcmp(a->note, e->note))
		rm_buf_printf(b, "%s: %s\n", nb, e->note);
	if (a->plan[0])
		rm_buf_printf(b, "%s: %s\n", na, a->plan);
	if (e->plan[0])
		rm_buf_printf(b, "%s: %s\n", nb, e->plan);
	rm_buf_puts(b, "\nverdict: ");
	verdict(b, a, na, e, nb, c);
	rm_buf_puts(b, "\n");
}

void rmi_compare_json_map(rm_buf *b, const char *name, const rm_estimate *e,
			  double steps_day, double gpu_h_1000)
{
	rm_buf_puts(b, "{\"name\": ");
	rm_buf_json_str(b, name);
	rm_buf_printf(b, ", \"step_s\": %.10g, \"mfu\": %.10g, "
		       "\"compute_s\": %.10g, \"bubble_s\": %.10g, "
		       "\"steps_per_day\": %.10g, "
		       "\"gpu_hours_per_1000_steps\": %.10g, \"axes\": [",
		       e->t_step, e->mfu, e->t_compute, e->t_bubble, steps_day,
		       gpu_h_1000);
	bool first = true;
	for (int x = 0; x < RM_NAXES; x++) {
		const rm_axis_cost *a = &e->axis[x];
		if (!a->used)
			continue;
		rm_buf_printf(b, "%s{\"axis\": \"%s\", \"link\": ",
			       first ? "" : ", ", rm_axis_name((rm_axis)x));
		rm_buf_json_str(b, a->link);
		rm_buf_printf(b, ", \"gbytes_per_s\": %.10g, \"seconds\": %.10g, "
			       "\"exposed_s\": %.10g}", a->gbytes_per_s,
			       a->seconds, a->exposed);
		first = false;
	}
	rm_buf_puts(b, "], \"note\": ");
	rm_buf_json_str(b, e->note);
	if (e->plan[0]) {
		rm_buf_puts(b, ", \"plan\": ");
		rm_buf_json_str(b, e->plan);
	}
	rm_buf_puts(b, "}");
}

void rmi_compare_json_diff(rm_buf *b, const rm_compare *c)
{
	rm_buf_printf(b, "{\"step_s\": %.10g, \"relative\": %.10g, "
		       "\"gpu_hours_per_1000_steps\": %.10g, "
		       "\"gpu_hours_per_day\": %.10g, \"same\": %s, "
		       "\"resolution\": %.10g}",
		       c->dt_step, c->rel, c->gpu_h_1000[1] - c->gpu_h_1000[0],
		       c->gpu_h_day, c->same ? "true" : "false",
		       RM_COMPARE_RESOLUTION);
}

static void put_json(rm_buf *b, const rm_model *m, const rm_hw *hw,
		     const rm_estimate *a, const char *na,
		     const rm_estimate *e, const char *nb, const rm_compare *c)
{
	rmi_explain_json_head(b, "rankmap-explain-compare/1", m, hw, a);
	rm_buf_puts(b, ",\n \"maps\": [");
	rmi_compare_json_map(b, na, a, c->steps_day[0], c->gpu_h_1000[0]);
	rm_buf_puts(b, ",\n  ");
	rmi_compare_json_map(b, nb, e, c->steps_day[1], c->gpu_h_1000[1]);
	rm_buf_puts(b, "],\n \"difference\": ");
	rmi_compare_json_diff(b, c);
	rm_buf_puts(b, ",\n \"verdict\": ");
	rm_buf v;
	rm_buf_init(&v);
	verdict(&v, a, na, e, nb, c);
	rm_buf_json_str(b, v.data);
	b->oom |= v.oom;
	rm_buf_clear(&v);
	rm_buf_puts(b, "}\n");
}

rm_status rm_estimate_compare_write(const rm_model *m, const rm_hw *hw,
				    const rm_train *t, const rm_estimate *a,
				    const char *name_a, const rm_estimate *e,
				    const char *name_b, rm_format fmt,
				    char **out, size_t *len, rm_error *err)
{
	RMI_TRAIN_ARG(t, err);
	RMI_MODEL_HW_ARG(m, hw, err);
	(void)t;
	*out = NULL;
	if (!rm_layout_equal(&a->layout, &e->layout) || a->gpus != e->gpus)
		return rmi_err(err, RM_EINPUT, "the two maps must have the "
			       "same layout and GPU count to be compared");
	rm_compare c;
	rm_estimate_compare(a, e, &c);
	rm_buf b;
	rm_buf_init(&b);
	if (fmt == RM_FMT_JSON)
		put_json(&b, m, hw, a, name_a, e, name_b, &c);
	else if (fmt == RM_FMT_TEXT)
		put_text(&b, m, hw, a, name_a, e, name_b, &c);
	else
		return rmi_err(err, RM_EUNSUPPORTED,
			       "explain writes text or json only");
	/* NULL (the buffer freed) when it ran out of memory */
	*out = rm_buf_take(&b, len);
	return *out ? RM_OK : rmi_err(err, RM_ENOMEM, "out of memory");
}
