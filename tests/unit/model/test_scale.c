/* SPDX-License-Identifier: Apache-2.0 */
/* test_scale.c - what production adds (docs/explain.md, "Running at
 * scale"): rm_train version 4's settings. */
#include "model/model_int.h"
#include "test.h"

#include <math.h>

/* Version 4's keys set their fields; a version-3 struct refuses them
 * and keeps working otherwise; the token budget is decimal. */
static void train_v4_keys(void)
{
	rm_train t;
	CHECK_INT(rm_train_init(&t, RM_TRAIN_VERSION), RM_OK);
	CHECK(t.coll_base_us == 0 && t.jitter == 0 && t.tokens == 0);
	CHECK_INT(rm_train_set(&t, "coll_base_us", "12.5", NULL), RM_OK);
	CHECK_INT(rm_train_set(&t, "coll_hop_us", "2", NULL), RM_OK);
	CHECK_INT(rm_train_set(&t, "jitter", "0.05", NULL), RM_OK);
	CHECK_INT(rm_train_set(&t, "data_s", "0.1", NULL), RM_OK);
	CHECK_INT(rm_train_set(&t, "tokens", "15.6T", NULL), RM_OK);
	CHECK(t.coll_base_us == 12.5 && t.coll_hop_us == 2 &&
	      t.jitter == 0.05 && t.data_s == 0.1);
	CHECK(fabs(t.tokens - 15.6e12) < 1);
	CHECK_INT(rm_train_set(&t, "tokens", "2M", NULL), RM_OK);
	CHECK(t.tokens == 2e6);
	CHECK_INT(rm_train_set(&t, "tokens", "0", NULL), RM_EINPUT);
	CHECK_INT(rm_train_set(&t, "tokens", "3X", NULL), RM_EINPUT);
	CHECK_INT(rm_train_set(&t, "jitter", "2", NULL), RM_EINPUT);
	rm_train v3;
	CHECK_INT(rm_train_init(&v3, 3), RM_OK);
	CHECK_INT(rm_train_set(&v3, "jitter", "0.05", NULL), RM_EUNSUPPORTED);
	CHECK_INT(rm_train_set(&v3, "fp8", "hybrid", NULL), RM_OK);
	rm_train v2;
	CHECK_INT(rm_train_init(&v2, 2), RM_OK);
	CHECK_INT(rm_train_set(&v2, "jitter", "0.05", NULL), RM_EUNSUPPORTED);
	CHECK_INT(rm_train_set(&v2, "tokens", "1T", NULL), RM_EUNSUPPORTED);
	CHECK_INT(rm_train_set(&v2, "moe_overlap", "0.5", NULL), RM_OK);
	rm_train v1;
	CHECK_INT(rm_train_init(&v1, 1), RM_OK);
	CHECK_INT(rm_train_set(&v1, "moe_overlap", "0.5", NULL),
		  RM_EUNSUPPORTED);
	CHECK_INT(rm_train_init(&v1, RM_TRAIN_VERSION + 1), RM_EUNSUPPORTED);
}

int main(void)
{
	RUN("scale", train_v4_keys);
	TEST_EXIT();
}
