/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_fp8.c - FP8 as Transformer Engine runs it: which GEMMs, at what
 * rate, the casts through HBM, FP8 weights and the FP8 MoE dispatch; the
 * fp8 settings (docs/explain.md, "FP8").
 */
#include "model/model_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const rmi_word fp8_words[] = {
	{ "off", RM_FP8_OFF }, { "none", RM_FP8_OFF }, { "0", RM_FP8_OFF },
	{ "false", RM_FP8_OFF }, { "hybrid", RM_FP8_HYBRID },
	{ "e4m3", RM_FP8_E4M3 }, { NULL, 0 }
};
static const rmi_word recipe_words[] = {
	{ "delayed", RM_FP8_DELAYED }, { "tensorwise", RM_FP8_CURRENT },
	{ "current", RM_FP8_CURRENT }, { "mxfp8", RM_FP8_MXFP8 },
	{ "nvfp4", RM_FP8_NVFP4 }, { NULL, 0 }
};

const char *rmi_fp8_name(rm_fp8 f)
{
	return f == RM_FP8_HYBRID ? "hybrid" : f == RM_FP8_E4M3 ? "e4m3" : "off";
}

const char *rmi_fp8_recipe_name(rm_fp8_recipe r)
{
	switch (r) {
	case RM_FP8_DELAYED: return "delayed";
	case RM_FP8_CURRENT: return "current";
	case RM_FP8_MXFP8: return "mxfp8";
	case RM_FP8_NVFP4: return "nvfp4";
	}
	return "?";
}

bool rmi_fp8_set(rm_train *t, const char *key, const char *v, rm_status *st,
		 rm_error *err)
{
	char q[96];
	int k;
	bool on;
	*st = RM_OK;
	if (!strcmp(key, "fp8")) {
		if ((k = rmi_word_find(v, fp8_words)) < 0)
			goto bad;
		t->fp8 = (rm_fp8)k;
	} else if (!strcmp(key, "fp8_recipe")) {
		if ((k = rmi_word_find(v, recipe_words)) < 0)
			goto bad;
		t->fp8_recipe = (rm_fp8_recipe)k;
	} else if (!strcmp(key, "fp8_params") || !strcmp(key, "fp8_dispatch")) {
		on = !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "on");
		if (!on && strcmp(v, "0") && strcmp(v, "false") && strcmp(v, "off"))
			goto bad;
		if (!strcmp(key, "fp8_params"))
			t->fp8_params = on;
		else
			t->fp8_dispatch = on;
	} else if (!strcmp(key, "fp8_eff")) {
		char *end;
		double x = strtod(v, &end);
		if (end == v || *end || !(x > 0 && x <= 1))
			goto bad;
		t->fp8_eff = x;
	} else {
		return false;
	}
	return true;
bad:
	*st = rmi_err(err, RM_EINPUT, "%s=%s: expected %s", key,
		      rm_quote(v, strlen(v), q, sizeof(q)),
		      !strcmp(key, "fp8") ? "off, hybrid or e4m3" :
		      !strcmp(key, "fp8_recipe") ?
		      "delayed, current, mxfp8 or nvfp4" :
		      !strcmp(key, "fp8_eff") ? "a fraction in (0, 1]" :
		      "1/true/on or 0/false/off");
	return true;
}

/* The peak the linears run at: BF16's without fp8; FP8's (twice BF16's
 * where the hardware gives none, as on Hopper and Blackwell); NVFP4's
 * where the recipe is nvfp4 (FP8's where the GPU has no FP4). */
double rmi_linear_peak(const rm_hw *hw, const rm_train *t)
{
	if (t->fp8 == RM_FP8_OFF)
		return hw->peak_flops;
	double p8 = hw->peak_fp8_flops > 0 ? hw->peak_fp8_flops :
		    2.0 * hw->peak_flops;
	if (t->fp8_recipe == RM_FP8_NVFP4 && hw->peak_fp4_flops > 0)
		return hw->peak_fp4_flops;
	return p8;
}

/* The calibration of the linears' GEMMs: gemm_eff, or under fp8 the
 * train's fp8_eff, else the hardware's, else gemm_eff. */
void rmi_linear_cal(const rm_hw *hw, const rm_train *t, rmi_cal *c,
		    double *peak)
{
	*peak = rmi_linear_peak(hw, t);
	if (t->fp8 == RM_FP8_OFF)
		return;
	if (t->fp8_eff > 0)
		c->gemm_eff = t->fp8_eff;
	else if (hw->fp8_eff > 0)
		c->gemm_eff = hw->fp8_eff;
}

/*
 * Bytes per element of one cast of a BF16 tensor for an FP8 GEMM: read it
 * (2 B), write it row-wise and column-wise (the transpose the other GEMM
 * of the backward reads), q bytes each (1; NVFP4 1/2), plus the scales
 * of each copy (MXFP8 1 B per 32 elements, NVFP4 1 B per 16); current
 * scaling and NVFP4 read the tensor once more for its amax first (2 B),
 * delayed scaling takes the amax from the history the cast kernel
 * updates.
 */
double rmi_fp8_cast_per_elem(const rm_train *t)
{
	double q = t->fp8_recipe == RM_FP8_NVFP4 ? 0.5 : 1.0;
	double scale = t->fp8_recipe == RM_FP8_MXFP8 ? 1.0 / 32 :
		       t->fp8_recipe == RM_FP8_NVFP4 ? 1.0 / 16 : 0;
	double amax = t->fp8_recipe == RM_FP8_CURRENT ||
		      t->fp8_recipe == RM_FP8_NVFP4 ? 2.0 : 0;
	return 2.0 + 2.0 * (q + scale) + amax;
}

/*
 * The casts of one layer and micro-batch: each linear (m x n x k, m the
 * tokens) casts its input (m k elements) in the forward and its output
 * gradient (m n) in the backward; the weights (n k) once a step (TE
 * keeps the FP8 copy over the micro-batches, is_first_microbatch), none
 * with fp8_params (they are FP8 already): divided over the m
 * micro-batches. *fwd and *bwd: bytes.
 */
void rmi_fp8_casts(const rm_train *t, const double shape[][3], int n,
		   double mbs, double *fwd, double *bwd)
{
	*fwd = *bwd = 0;
	if (t->fp8 == RM_FP8_OFF)
		return;
	double c = rmi_fp8_cast_per_elem(t);
	for (int i = 0; i < n; i++) {
		double M = shape[i][0], N = shape[i][1], K = shape[i][2];
		*fwd += c * M * K;
		*bwd += c * M * N;
		if (!t->fp8_params)
			*fwd += c * N * K / (mbs > 0 ? mbs : 1);
	}
}

/* Bytes per parameter the distributed optimizer all-gathers (and the
 * model's weights copy holds): 1 with FP8 parameters, else 2. */
double rmi_param_bytes(const rm_train *t)
{
	return t->fp8 != RM_FP8_OFF && t->fp8_params ? 1.0 : 2.0;
}

/*
 * The EP all-to-alls under fp8_dispatch: the forward dispatch sends the
 * tokens in FP8 (1 B) with one fp32 scale per 128 elements (4/128 B;
 * DeepEP's low-precision dispatch); the combine and both backward
 * all-to-alls stay BF16 (2 B). Of the 4 (+2 recomputed, one of them a
 * dispatch) all-to-alls: returns the bytes over the BF16 bytes.
 */
double rmi_ep_bytes_factor(const rm_train *t, double full_share)
{
	if (!t->fp8_dispatch || t->fp8 == RM_FP8_OFF)
		return 1.0;
	double d8 = 1.0 + 4.0 / 128;
	double n = 4.0 + 2.0 * full_share;       /* all-to-alls */
	double disp = 1.0 + full_share;          /* of them FP8 dispatches */
	return (disp * d8 + (n - disp) * 2.0) / (n * 2.0);
}

void rmi_fp8_explain(rm_buf *b, const rm_hw *hw, const rm_train *t)
{
	if (t->fp8 == RM_FP8_OFF)
		return;
	rmi_cal c;
	double peak;
	rmi_cal_of(hw, t, &c);
	rmi_linear_cal(hw, t, &c, &peak);
	rm_buf_printf(b,
		"          fp8 %s, recipe %s: the linears (qkv, proj, fc1, fc2, "
		"experts) at %.0f TFLOPS x fp8_eff %.3g; attention, output "
		"layer, norms, optimizer in BF16; fp8_params %s, "
		"fp8_dispatch %s\n",
		rmi_fp8_name(t->fp8), rmi_fp8_recipe_name(t->fp8_recipe),
		peak / 1e12, c.gemm_eff, t->fp8_params ? "on" : "off",
		t->fp8_dispatch ? "on" : "off");
}
