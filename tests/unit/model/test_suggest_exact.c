/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_suggest_exact.c - suggest times only what its report can show
 * (model_suggest_order.c); the report must be the reference search's,
 * byte for byte, in text and JSON. make check runs the matrix's smaller
 * searches under ASan (the reference search of 16,384 GPUs takes
 * seconds there) plus the MoE case `make bench` times; bench_model runs
 * all 24 (4 models x 512, 2,048, 16,384 GPUs x H100, GB200), and so
 * does this test with RM_SUGGEST_EXACT=all.
 */
#include "model/model_int.h"
#include "test.h"
#include "suggest_exact.h"

#include <stdio.h>
#include <stdlib.h>

static void matrix(void)
{
	bool all = getenv("RM_SUGGEST_EXACT") != NULL;
	size_t n = 0;
	for (size_t i = 0; i < 4; i++)
		for (size_t g = 0; g < 3; g++)
			for (size_t h = 0; h < 2; h++) {
				/* the subset: up to 2,048 GPUs on H100,
				 * and bench's deepseek-v3 on 16,384 */
				bool part = h == 0 && (exact_gpus[g] <= 2048 ||
						       i == 1);
				if (!all && !part)
					continue;
				const char *d = suggest_exact(exact_models[i],
							      exact_hw[h],
							      exact_gpus[g]);
				if (d[0])
					printf("  %s, %llu x %s: %s differs\n",
					       exact_models[i],
					       (unsigned long long)exact_gpus[g],
					       exact_hw[h], d);
				CHECK(!d[0]);
				n++;
			}
	printf("  %zu of 24 searches compared\n", n);
}

int main(void)
{
	RUN("suggest_exact", matrix);
	TEST_EXIT();
}
