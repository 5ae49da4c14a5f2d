/* SPDX-License-Identifier: Apache-2.0 */
/* model_cal_site.h - calibrate's tests: a site's step time, what a log
 * reader said. */
#ifndef RANKMAP_TEST_MODEL_CAL_SITE_H
#define RANKMAP_TEST_MODEL_CAL_SITE_H

#include "model/model_int.h"
#include "rankmap_priv.h"
#include "test.h"
#include "model_setup.h"

#include <stdbool.h>
#include <string.h>

/* The step time a site with gemm_eff `eff` (else H100's preset) gets for
 * llama3-8b on 64 GPUs, tp=2,pp=2,dp=16, mb 1, 512 x 8192, recompute
 * selective, as the logs of the tests say. */
static inline double site_step(double eff, const char *overlap)
{
	rm_model m;
	rm_hw hw;
	rm_train t;
	rm_layout l;
	rm_estimate e;
	model_setup("llama3-8b", "h100-sxm-80gb", &m, &hw, &t);
	hw.gemm_eff = eff;
	CHECK_INT(rm_train_set(&t, "batch", "4194304", NULL), RM_OK);
	CHECK_INT(rm_train_set(&t, "recompute", "selective", NULL), RM_OK);
	CHECK_INT(rm_train_set(&t, "tp_overlap", overlap, NULL), RM_OK);
	CHECK_INT(rm_layout_parse("tp=2,cp=1,dp=16,pp=2", &l, NULL), RM_OK);
	CHECK_INT(rmi_estimate_run(&m, &hw, &t, &l, &e, NULL), RM_OK);
	return e.t_step;
}

/* A warning (warn) or note of the step that contains `what`. */
static inline bool said(const rm_cal_step *s, bool warn, const char *what)
{
	size_t n = warn ? s->nwarn : s->nnote;
	for (size_t i = 0; i < n; i++)
		if (strstr(warn ? s->warn[i] : s->note[i], what))
			return true;
	return false;
}

#endif
