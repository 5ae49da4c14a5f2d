/* SPDX-License-Identifier: Apache-2.0 */
/* model_setup.h - what the cost model's tests set up again and again: a
 * preset model on a preset GPU, the training setup at its defaults. */
#ifndef RANKMAP_TEST_MODEL_SETUP_H
#define RANKMAP_TEST_MODEL_SETUP_H

#include "model/model_int.h"
#include "test.h"

static inline void model_setup(const char *model, const char *gpu,
			       rm_model *m, rm_hw *hw, rm_train *t)
{
	CHECK_INT(rm_model_preset(model, m, NULL), RM_OK);
	CHECK_INT(rmi_hw_preset(gpu, hw, NULL), RM_OK);
	rm_train_init(t, RM_TRAIN_VERSION);
}

#endif
