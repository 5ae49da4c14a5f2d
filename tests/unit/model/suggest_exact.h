/* SPDX-License-Identifier: Apache-2.0 */
/*
 * suggest_exact.h - suggest's report against the reference search's
 * (rmi_suggest_reference: every layout x micro-batch timed), text and
 * JSON byte for byte, set up as `rankmap suggest` sets up: selective and
 * full recomputation, the top 10, the layout published for the model on
 * this many GPUs compared where there is one. test_suggest_exact runs a
 * part of the matrix in make check, bench_model all of it.
 */
#ifndef RANKMAP_TEST_SUGGEST_EXACT_H
#define RANKMAP_TEST_SUGGEST_EXACT_H

#include "model/model_int.h"

#include <stdlib.h>
#include <string.h>

/* The 4 models x 3 GPU counts x 2 GPUs of the matrix. */
static const char *const exact_models[] = { "llama3-405b", "deepseek-v3",
					    "mixtral-8x22b",
					    "qwen3-235b-a22b" };
static const uint64_t exact_gpus[] = { 512, 2048, 16384 };
static const char *const exact_hw[] = { "h100-sxm-80gb", "gb200-nvl72" };

/* "" when the two reports agree (or both searches fail alike), else
 * what differs: "text", "json", "status" or "setup". */
static inline const char *suggest_exact(const char *model, const char *gpu,
					uint64_t gpus)
{
	rm_model m;
	rm_hw hw;
	rm_train t;
	rm_layout around;
	if (rm_model_preset(model, &m, NULL) ||
	    rmi_hw_preset(gpu, &hw, NULL))
		return "setup";
	rm_train_init(&t, RM_TRAIN_VERSION);
	rm_suggest_options o = RM_SUGGEST_OPTIONS_INIT;
	o.gpus = gpus;
	o.top = 10;
	o.recomputes = (1u << RM_RECOMPUTE_SELECTIVE) |
		       (1u << RM_RECOMPUTE_FULL);
	const char *src = NULL;
	const char *pub = rm_model_published_layout(&m, gpus, &src);
	if (pub && !rm_layout_parse(pub, &around, NULL) &&
	    !rm_layout_resolve(&around, gpus, true, NULL)) {
		o.around = &around;
		o.around_source = src;
	}
	const char *bad = "";
	char *out[2][2] = { { NULL, NULL }, { NULL, NULL } };
	rm_status st[2];
	for (int r = 0; r < 2; r++) {
		rm_suggestion *s = NULL;
		rm_error e;
		size_t len;
		st[r] = rmi_suggest_reference(&m, &hw, &t, &o, r, &s, &e);
		if (st[r]) {
			out[r][0] = strdup(e.msg);
			continue;
		}
		for (int f = 0; f < 2; f++)
			if (rm_suggestion_write(&m, &hw, &t, &o, s,
						f ? RM_FMT_JSON : RM_FMT_TEXT,
						&out[r][f], &len, &e))
				bad = "status";
		rm_suggestion_free(s);
	}
	if (st[0] != st[1])
		bad = "status";
	for (int f = 0; f < 2 && !bad[0]; f++)
		if ((out[0][f] || out[1][f]) &&
		    (!out[0][f] || !out[1][f] || strcmp(out[0][f], out[1][f])))
			bad = f ? "json" : "text";
	for (int r = 0; r < 2; r++)
		for (int f = 0; f < 2; f++)
			free(out[r][f]);
	return bad;
}

#endif
