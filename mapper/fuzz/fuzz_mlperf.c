/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_mlperf.c - an MLPerf result log (:::MLLOG lines) for calibrate
 * from arbitrary bytes: read with the layout from the log and with one
 * given; a read that succeeds says a step time that is one. */
#include "internal.h"
#include "model/model_int.h"
#include "rankmap_priv.h"
#include "fuzz.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, 1 << 18);
	if (!s)
		return 0;
	static rm_cal_step st;
	rm_model m = RM_MODEL_INIT;
	rm_train t;
	rm_layout l;
	rm_error e;
	if (rm_model_preset("llama3-8b", &m, NULL) != RM_OK ||
	    rm_train_init(&t, RM_TRAIN_VERSION) != RM_OK ||
	    rm_layout_parse("tp=2,cp=1,dp=16,pp=2", &l, NULL) != RM_OK)
		abort();
	for (int with = 0; with < 2; with++)
		if (rm_cal_mlperf_log(s, size, "f.log", &m, &t, with ? &l : NULL,
				      &st, &e) == RM_OK &&
		    (!(st.seconds > 0) || !isfinite(st.seconds) || !st.samples))
			abort();
	free(s);
	return 0;
}
