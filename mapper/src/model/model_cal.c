/* SPDX-License-Identifier: Apache-2.0 */
/* model_cal.c - a site's calibration fitted to its own step times and
 * link bandwidths (`rankmap calibrate`), and written as a hardware file. */
#include "model/model_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The keys step times can fit, each with the range it is searched in. */
static const struct {
	const char *key;
	double lo, hi;
	size_t off;
} step_keys[] = {
	{ "gemm_eff", 0.05, 1, offsetof(rm_hw, gemm_eff) },
	{ "attn_eff", 0.05, 1, offsetof(rm_hw, attn_eff) },
	{ "hbm_eff", 0.05, 1, offsetof(rm_hw, hbm_eff) },
	{ "gemm_dim0", 0, 4096, offsetof(rm_hw, gemm_dim0) },
	/* an FP8 run's linears (model_fp8.c) */
	{ "fp8_eff", 0.05, 1, offsetof(rm_hw, fp8_eff) },
};
#define NSTEP_KEYS (sizeof(step_keys) / sizeof(step_keys[0]))

static double *hw_key(rm_hw *h, size_t k)
{
	return (double *)((char *)h + step_keys[k].off);
}

/* One step's run priced on hw with the hardware's calibration. */
static rm_status price(const rm_hw *hw, const rm_cal_step *s, rm_estimate *e,
		       rm_error *err)
{
	rm_train t = s->train;
	/* the fit is the hardware's: no per-run override */
	t.gemm_eff = t.attn_eff = t.hbm_eff = t.fp8_eff = 0;
	t.nvlink_eff = t.net_eff = 0;
	t.gemm_dim0 = -1;    /* (0 is a value of its own) */
	rm_error e2;
	if (rmi_estimate_run(&s->model, hw, &t, &s->layout, e, &e2))
		return rmi_err(err, RM_EINPUT, "%s: %s", s->what, e2.msg);
	return RM_OK;
}

/* The model's seconds for every step on hw; -1 when one cannot be priced. */
static double misfit(const rm_hw *hw, const rm_cal_step *steps, size_t ns,
		     double *pred, rm_error *err)
{
	double sum = 0;
	for (size_t i = 0; i < ns; i++) {
		rm_estimate e;
		if (price(hw, &steps[i], &e, err))
			return -1;
		pred[i] = e.t_step;
		double r = log(e.t_step / steps[i].seconds);
		sum += r * r;
	}
	return sum;
}

/*
 * A run that ran fits its GPUs. One the model puts over HBM by more than
 * its memory is known to err was read wrong (the log does not say its
 * recomputation, its sharding ...): fitting it would put that error into
 * the calibration. Within the margin it is fitted, and said.
 */
static rm_status check_memory(const rm_hw *hw, const rm_cal_step *steps,
			      size_t ns, double *over, rm_error *err)
{
	for (size_t i = 0; i < ns; i++) {
		rm_estimate e;
		if (price(hw, &steps[i], &e, err))
			return RM_EINPUT;
		over[i] = e.fits ? 0 : e.mem_peak - e.hbm;
		char rc[24];
		if (over[i] > RM_CAL_MEM_SLACK * e.hbm)
			return rmi_err(err, RM_EINPUT, "%s: does not fit: the "
				       "model puts %.1f GiB on its fullest GPU, "
				       "%.1f GiB (%.0f %%) over the %.1f GiB of "
				       "HBM, with recompute %s, sharding %s, "
				       "micro-batch %u; a run that ran fits, so "
				       "the log does not say how it ran: say it "
				       "(calibrate --set recompute=full, "
				       "sharding=...) rather than fit this",
				       steps[i].what, e.mem_peak / RMI_GIB,
				       over[i] / RMI_GIB, 100 * over[i] / e.hbm,
				       e.hbm / RMI_GIB,
				       rmi_recompute_label(steps[i].train.recompute,
							   steps[i].train.recompute_layers,
							   rc),
				       rm_sharding_name(steps[i].train.sharding),
				       e.micro_batch);
	}
	return RM_OK;
}

/* One key by golden-section search on [lo, hi], the others held. */
static int fit_one(rm_hw *hw, size_t k, const rm_cal_step *steps, size_t ns,
		   double *pred, rm_error *err)
{
	const double g = (sqrt(5.0) - 1) / 2;
	double a = step_keys[k].lo, b = step_keys[k].hi;
	double *v = hw_key(hw, k);
	for (int it = 0; it < 60 && b - a > 1e-7 * (1 + fabs(b)); it++) {
		double c = b - g * (b - a), d = a + g * (b - a);
		*v = c;
		double fc = misfit(hw, steps, ns, pred, err);
		*v = d;
		double fd = misfit(hw, steps, ns, pred, err);
		if (fc < 0 || fd < 0)
			return -1;
		if (fc <= fd)
			b = d;
		else
			a = c;
	}
	*v = (a + b) / 2;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * What one link of a kind can carry at most. A NIC: its nominal figure
 * (nic_gbps is per GPU, and a multi-host measurement's busbw is per GPU
 * already divided, rm_cal_nccl_tests). NVLink: a ring moves each GPU's
 * buffer 2(n-1)/n times and nccl-tests' busBw counts that, so a ring
 * stops at nvlink_gbps; with NVLink SHARP (NVLS, what NCCL picks on H100
 * and later) the switch does the reduction and the buffer crosses each
 * GPU's links about once each way, so busBw reaches up to twice it.
 */
static double link_ceiling(double nominal, bool network)
{
	return network ? nominal : 2 * nominal;
}

/* The median share of nominal of the links of one kind, at most 1 (the
 * model prices NVLink as a ring: NVLS's surplus is not one it can use);
 * 0 for none. */
static rm_status link_eff(const rm_cal_link *links, size_t nl, bool network,
			  double nominal, double *eff, double *shares,
			  rm_error *err)
{
	double v[RM_CAL_MAX];
	size_t n = 0;
	*eff = 0;
	for (size_t i = 0; i < nl; i++) {
		/* each link's share of its own kind's nominal only: the other
		 * kind's call must not overwrite it */
		if (links[i].network != network)
			continue;
		if (!(links[i].gbps > 0))
			return rmi_err(err, RM_EINPUT, "%s: no bandwidth",
				       links[i].what);
		shares[i] = links[i].gbps / nominal;
		if (links[i].gbps > link_ceiling(nominal, network))
			return rmi_err(err, RM_EINPUT, "%s: %.2f GB/s is more than "
				       "%s can carry (%.2f GB/s%s): give the "
				       "right figure (%s) in the base hardware",
				       links[i].what, links[i].gbps, network ?
				       "a GPU's NIC" : "NVLink",
				       link_ceiling(nominal, network), network ?
				       ", nic_gbps" : ", twice nvlink_gbps with "
				       "NVLink SHARP", network ? "nic_gbps" :
				       "nvlink_gbps");
		v[n++] = fmin(1, shares[i]);
	}
	if (n) {
		qsort(v, n, sizeof(*v), cmp_double);
		*eff = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	return RM_OK;
}

rm_status rm_calibrate(const rm_hw *base, const rm_cal_step *steps, size_t ns,
		       const rm_cal_link *links, size_t nl,
		       const char *const *fit, rm_cal_fit *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	out->hw = *base;
	if (ns > RM_CAL_MAX || nl > RM_CAL_MAX)
		return rmi_err(err, RM_EINPUT, "at most %d step times and %d "
			       "link measurements", RM_CAL_MAX, RM_CAL_MAX);
	bool want[NSTEP_KEYS] = { false }, nvl = false, net = false;
	size_t nstep = 0;
	static const char *const def[] = { "gemm_eff", "nvlink_eff", "net_eff",
					   NULL };
	/* runs that all ran FP8 fit their linears' fp8_eff instead */
	static const char *const def8[] = { "fp8_eff", "nvlink_eff", "net_eff",
					    NULL };
	bool all8 = ns > 0;
	for (size_t i = 0; i < ns; i++)
		all8 &= steps[i].train.fp8 != RM_FP8_OFF;
	bool given = fit && fit[0];
	for (const char *const *k = given ? fit : all8 ? def8 : def; *k; k++) {
		bool known = false;
		for (size_t j = 0; j < NSTEP_KEYS; j++)
			if (!strcmp(*k, step_keys[j].key)) {
				known = true;
				if (!want[j] && (given || ns))
					want[j] = true, nstep++;
			}
		bool is_nvl = !strcmp(*k, "nvlink_eff"), is_net = !strcmp(*k, "net_eff");
		if (!known && !is_nvl && !is_net)
			return rmi_err(err, RM_EINPUT, "calibrate cannot fit %.40s "
				       "(it fits gemm_eff, attn_eff, hbm_eff, "
				       "gemm_dim0, fp8_eff from step times, "
				       "nvlink_eff and "
				       "net_eff from links)", *k);
		bool have = false;
		for (size_t i = 0; i < nl; i++)
			have |= links[i].network == is_net;
		if ((is_nvl || is_net) && given && !have)
			return rmi_err(err, RM_EINPUT, "%s needs a measurement of "
				       "%s (nccl-tests or rankmap-nccl-check)", *k,
				       is_net ? "a network link" : "an NVLink link");
		nvl |= is_nvl && have;
		net |= is_net && have;
	}
	if (nstep > ns)
		return rmi_err(err, RM_EINPUT, "%zu step-time constants to fit "
			       "from %zu step time%s: give at least as many runs "
			       "as constants", nstep, ns, ns == 1 ? "" : "s");
	if (!nstep && !nvl && !net)
		return rmi_err(err, RM_EINPUT, "nothing to fit: no step time and no "
			       "link measurement");
	rm_status mst = check_memory(base, steps, ns, out->mem_over, err);
	if (mst)
		return mst;
	double eff;
	if (nvl) {
		rm_status st = link_eff(links, nl, false,
					base->nvlink_gbytes_per_s, &eff,
					out->link_eff, err);
		if (st)
			return st;
		out->hw.nvlink_eff = eff;
		out->keys[out->nkeys++] = "nvlink_eff";
	}
	if (net) {
		rm_status st = link_eff(links, nl, true, base->nic_gbytes_per_s,
					&eff, out->link_eff, err);
		if (st)
			return st;
		out->hw.net_eff = eff;
		out->keys[out->nkeys++] = "net_eff";
	}
	if (!nvl && !net)
		for (size_t i = 0; i < nl; i++)
			out->link_eff[i] = links[i].gbps /
				(links[i].network ? base->nic_gbytes_per_s :
				 base->nvlink_gbytes_per_s);
	for (size_t j = 0; j < NSTEP_KEYS; j++)
		if (want[j])
			out->keys[out->nkeys++] = step_keys[j].key;
	/* coordinate descent, a few passes: the keys barely interact */
	for (int pass = 0; nstep && pass < 6; pass++)
		for (size_t j = 0; j < NSTEP_KEYS; j++)
			if (want[j] && fit_one(&out->hw, j, steps, ns,
					       out->step_pred, err))
				return RM_EINPUT;
	if (ns && misfit(&out->hw, steps, ns, out->step_pred, err) < 0)
		return RM_EINPUT;
	/* a key at an end of its range is where the search stopped, not a
	 * fit: the model cannot reach the times with it */
	for (size_t j = 0; j < NSTEP_KEYS && nstep; j++) {
		double v = *hw_key(&out->hw, j), lo = step_keys[j].lo,
		       hi = step_keys[j].hi, worst = 0;
		if (!want[j] || (v - lo > 1e-3 * (hi - lo) &&
				 hi - v > 1e-3 * (hi - lo)))
			continue;
		for (size_t i = 0; i < ns; i++) {
			double r = out->step_pred[i] / steps[i].seconds - 1;
			worst = fabs(r) > fabs(worst) ? r : worst;
		}
		if (out->nwarn < sizeof(out->warn) / sizeof(out->warn[0]))
			snprintf(out->warn[out->nwarn++], RM_CAL_NOTE_LEN,
				 "%s stopped at %g, an end of the range it is "
				 "fitted in [%g, %g], %+.1f %% off on the worst "
				 "run: the model cannot reach the measured times; "
				 "a run's settings are likely not what ran",
				 step_keys[j].key, v, lo, hi, 100 * worst);
	}
	return rm_hw_check(&out->hw, err);
}

double rm_cal_key_value(const rm_hw *h, const char *key)
{
	if (!strcmp(key, "nvlink_eff"))
		return h->nvlink_eff;
	if (!strcmp(key, "net_eff"))
		return h->net_eff;
	if (!strcmp(key, "hbm_gbps"))
		return h->hbm_gbytes_per_s;
	if (!strcmp(key, "tp_overlap"))
		return h->tp_overlap;
	for (size_t j = 0; j < NSTEP_KEYS; j++)
		if (!strcmp(key, step_keys[j].key))
			return *hw_key((rm_hw *)h, j);
	return 0;
}

/* Every figure, calibration key and tier of the fitted hardware: a file
 * of its own, for a fit that started from a file (whose base, if it had
 * one, the loaded hardware no longer names). */
static void write_full(rm_buf *b, const rm_cal_fit *f)
{
	static const char *const cal[] = { "hbm_gbps", "gemm_eff",
					   "gemm_dim0", "attn_eff", "hbm_eff",
					   "nvlink_eff", "net_eff",
					   "tp_overlap", "fp8_eff", NULL };
	const rm_hw *h = &f->hw;
	rm_buf_puts(b, "name: ");
	rm_buf_json_str(b, h->name);
	rm_buf_printf(b, "\nhbm_gb: %.12g\npeak_tflops: %.12g\nnvlink_gbps: "
		       "%.12g\nnvlink_domain: %u\nnic_gbps: %.12g\n",
		       h->hbm_bytes / 1e9, h->peak_flops / 1e12,
		       h->nvlink_gbytes_per_s, h->nvl_domain, h->nic_gbytes_per_s);
	if (h->peak_fp8_flops > 0)
		rm_buf_printf(b, "peak_fp8_tflops: %.12g\n",
			       h->peak_fp8_flops / 1e12);
	if (h->peak_fp4_flops > 0)
		rm_buf_printf(b, "peak_fp4_tflops: %.12g\n",
			       h->peak_fp4_flops / 1e12);
	for (size_t i = 0; cal[i]; i++) {
		bool fitted = false;
		if (!strcmp(cal[i], "fp8_eff") && !(h->fp8_eff > 0))
			continue;             /* none: gemm_eff's */
		for (size_t k = 0; k < f->nkeys; k++)
			fitted |= !strcmp(f->keys[k], cal[i]);
		rm_buf_printf(b, fitted ? "%s: %.4g\n" : "%s: %.12g\n", cal[i],
			       rm_cal_key_value(h, cal[i]));
	}
	rm_buf_puts(b, "tiers:\n");
	for (size_t i = 0; i < h->ntiers; i++) {
		rm_buf_puts(b, "  - {name: ");
		rm_buf_json_str(b, h->tier[i].name);
		rm_buf_printf(b, ", gpus: %llu, gbps: %.12g, oversubscription: "
			       "%.12g}\n", (unsigned long long)h->tier[i].span_gpus,
			       h->tier[i].gbytes_per_s, h->tier[i].oversubscription);
	}
}

rm_status rm_cal_write(const rm_cal_fit *f, const char *base,
		       const rm_cal_step *steps, size_t ns,
		       const rm_cal_link *links, size_t nl, char **out,
		       size_t *len, rm_error *err)
{
	rm_buf b;
	rm_buf_init(&b);
	rm_buf_printf(&b, "# rankmap calibrate: %zu key%s fitted to %zu step "
		       "time%s and %zu link measurement%s\n", f->nkeys,
		       f->nkeys == 1 ? "" : "s", ns, ns == 1 ? "" : "s", nl,
		       nl == 1 ? "" : "s");
	for (size_t i = 0; i < ns; i++) {
		rm_buf_printf(&b, "#   %s\n#     measured %.3f s (median of %zu), "
			       "model %.3f s, residual %+.1f %%\n", steps[i].what,
			       steps[i].seconds, steps[i].samples, f->step_pred[i],
			       100 * (f->step_pred[i] / steps[i].seconds - 1));
		for (size_t k = 0; k < steps[i].nnote; k++)
			rm_buf_printf(&b, "#     read: %s\n", steps[i].note[k]);
		for (size_t k = 0; k < steps[i].nwarn; k++)
			rm_buf_printf(&b, "#     warning: %s\n", steps[i].warn[k]);
		if (f->mem_over[i] > 0)
			rm_buf_printf(&b, "#     warning: %.1f GiB over HBM as the "
				       "model prices it\n", f->mem_over[i] / RMI_GIB);
	}
	for (size_t i = 0; i < nl; i++)
		rm_buf_printf(&b, "#   %s: %.3f of nominal\n", links[i].what,
			       f->link_eff[i]);
	for (size_t i = 0; i < f->nwarn; i++)
		rm_buf_printf(&b, "# warning: %s\n", f->warn[i]);
	if (base) {
		rm_buf_puts(&b, "name: ");
		rm_buf_puts(&b, f->hw.name);
		rm_buf_puts(&b, "-site\nbase: ");
		rm_buf_puts(&b, base);
		rm_buf_puts(&b, "\n");
		for (size_t k = 0; k < f->nkeys; k++)
			rm_buf_printf(&b, "%s: %.4g\n", f->keys[k],
				       rm_cal_key_value(&f->hw, f->keys[k]));
	} else {
		write_full(&b, f);
	}
	*out = rm_buf_take(&b, len);
	return *out ? RM_OK : rmi_err(err, RM_ENOMEM, "out of memory");
}
