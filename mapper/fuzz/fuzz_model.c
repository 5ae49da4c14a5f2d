/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_model.c - model and hardware YAML from arbitrary bytes; whatever
 * parses must give a finite estimate and a report without crashing. */
#include "model/model_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 16384)
		return 0;
	const char *text = (const char *)data;
	rm_model m;
	rm_hw hw;
	rm_error e;
	bool got_m = rm_model_parse_yaml(text, size, "fuzz.yaml", &m, &e) == RM_OK;
	bool got_h = rm_hw_parse_yaml(text, size, "fuzz.yaml", &hw, &e) == RM_OK;
	if (!got_m && rm_model_preset("llama3-8b", &m, &e) != RM_OK)
		abort();
	if (!got_h && rmi_hw_preset("h100-sxm-80gb", &hw, &e) != RM_OK)
		abort();
	if (!got_m && !got_h)
		return 0;
	rm_train t;
	rm_train_init(&t, RM_TRAIN_VERSION);
	t.batch_tokens = (uint64_t)m.seq_len * 8;
	rm_layout l;
	if (rm_layout_parse("tp=1,pp=2,dp=4", &l, &e) != RM_OK)
		abort();
	rm_estimate est;
	if (rmi_estimate_run(&m, &hw, &t, &l, &est, &e) == RM_OK) {
		if (!isfinite(est.t_step) || !isfinite(est.mem_peak) ||
		    est.t_step <= 0)
			abort();
		char *out = NULL;
		size_t len = 0;
		if (rm_estimate_write(&m, &hw, &t, &est, RM_FMT_JSON, &out,
				      &len, &e) != RM_OK || !len)
			abort();
		free(out);
	}
	return 0;
}
