/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_calib_mlperf.c - `rankmap calibrate --mlperf-log`: MLPerf Training
 * result logs as mlcommons/logging's mllog writes them (':::MLLOG {json}',
 * mllog.py's LOG_TEMPLATE; keys from its constants.py).
 *
 * Real logs, trimmed (tests/model/mlperf/, each naming its source):
 *  - gpt3_eos_n64_v4.0.log: NVIDIA's GPT-3 175B on 512 H100, from
 *    https://github.com/mlcommons/training_results_v4.0 at
 *    6fe954378efe4a1a1bd665550b18ff8f26018def,
 *    NVIDIA/results/eos_n64_ngc24.04_nemo/gpt3/result_0.txt: blocks
 *    counted in tokens, no parallelism keys (the layout is given);
 *  - llama31_405b_gb200_n2560_v5.1.log: NVIDIA's Llama 3.1 405B on 2560
 *    GB200, from https://github.com/mlcommons/training_results_v5.1 at
 *    441d65f4445cd59687466533fd9f55399136e7a4,
 *    NVIDIA/results/hsg_ngpu2560_ngc25.09_nemo/llama31_405b/result_0.txt:
 *    tracked_stats train_step_time, gradient_accumulation_steps "24.0";
 *  - llama2_70b_lora_eos_n128_v4.0.log: NVIDIA's Llama 2 70B LoRA on
 *    1024 H100, same v4.0 commit,
 *    NVIDIA/results/eos_n128_ngc24.04_nemo/llama2_70b_lora/result_0.txt:
 *    tracked_stats throughput (samples a second), no max_sequence_length.
 * Then a log with mllog's parallelism keys (constants.py since 2026-04)
 * for a site at a known gemm_eff, which the fit must find again, and
 * hostile logs, each refused with where.
 */
#include "model/model_int.h"
#include "rankmap_priv.h"
#include "test.h"
#include "model_setup.h"
#include "model_cal_site.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b, tol)                                                    \
	CHECK(fabs((double)(a) - (double)(b)) <= (tol) * (fabs((double)(b)) + 1e-12))

static char *read_data(const char *name, size_t *len)
{
	const char *root = getenv("RM_ROOT");
	char path[512];
	snprintf(path, sizeof(path), "%s/tests/model/mlperf/%s",
		 root ? root : ".", name);
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return NULL;
	static char buf[1 << 17];
	*len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* rm_cal_mlperf_log of a real log of tests/model/mlperf/ as `file`:
 * `model`, the run's `layout` (NULL: none given) and the settings `sets`
 * ("key=value", NULL-ended) over the defaults. */
static rm_status read_real(const char *name, const char *file,
			   const char *model, const char *layout,
			   const char *const *sets, rm_cal_step *st,
			   rm_error *err)
{
	rm_model m;
	rm_train t;
	rm_layout l;
	size_t len = 0;
	CHECK_INT(rm_model_preset(model, &m, NULL), RM_OK);
	rm_train_init(&t, RM_TRAIN_VERSION);
	if (layout)
		CHECK_INT(rm_layout_parse(layout, &l, NULL), RM_OK);
	for (; sets && *sets; sets++) {
		char key[32];
		const char *eq = strchr(*sets, '=');
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *sets), *sets);
		CHECK_INT(rm_train_set(&t, key, eq + 1, NULL), RM_OK);
	}
	const char *text = read_data(name, &len);
	return text ? rm_cal_mlperf_log(text, len, file, &m, &t,
					layout ? &l : NULL, st, err) : RM_EIO;
}

static void gpt3_v40(void)
{
	static const char *const sets[] = { "schedule=interleaved:4",
					    "sharding=zero1", NULL };
	static const char log[] = "gpt3_eos_n64_v4.0.log";
	static rm_cal_step st;
	rm_error err;
	CHECK_INT(read_real(log, "gpt3.log", "gpt3-175b", "tp=4,cp=1,dp=16,pp=8",
			    sets, &st, &err), RM_OK);
	/* four blocks of 11 steps (51904512 tokens of 2304 x 2048), the
	 * first left out: 119.949, 119.865, 119.885 s */
	CHECK_INT(st.samples, 3);
	NEAR(st.seconds, 119.885 / 11, 1e-9);
	CHECK_INT(st.train.batch_tokens, 2304ull * 2048);
	CHECK_INT(st.train.seq_len, 2048);
	CHECK_INT(st.train.micro_batch, 2);  /* 2304 / (16 x 72) */
	CHECK_INT(st.train.sharding, RM_SHARD_ZERO1);
	CHECK_INT(st.layout.size[RM_AXIS_PP], 8);
	CHECK(said(&st, false, "counted in tokens"));
	CHECK(said(&st, false, "micro-batch 2: global_batch_size 2304 / (dp 16 "
		   "x gradient_accumulation_steps 72)"));
	CHECK_INT(st.nwarn, 1);
	CHECK(said(&st, true, "gpt3.log: an MLPerf log does not say the GEMM "
		   "precision: priced as BF16"));
	CHECK_HAS(st.what, "gpt3.log: MLPerf gpt3, gpt3-175b, tp=4,cp=1,dp=16,"
		  "pp=8, mb 2, gbs 2304 x 2048");
	/* no parallelism keys and no layout: the missing key named */
	CHECK_INT(read_real(log, "gpt3.log", "gpt3-175b", NULL, sets, &st,
			    &err), RM_EINPUT);
	CHECK_HAS(err.msg, "gpt3.log: the log gives no tensor_parallelism "
		  "(mllog's parallelism keys): give the run's --layout");
	/* a layout the gradient accumulation cannot make the batch of */
	CHECK_INT(read_real(log, "gpt3.log", "gpt3-175b", "tp=4,cp=1,dp=20,pp=8",
			    sets, &st, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "global_batch_size 2304 is not dp 20 x gradient_"
		  "accumulation_steps 72 x a micro-batch");
}

static void llama405b_v51(void)
{
	static rm_cal_step st;
	rm_error err;
	CHECK_INT(read_real("llama31_405b_gb200_n2560_v5.1.log", "405b.log",
			    "llama3-405b", "tp=4,cp=2,dp=40,pp=8", NULL, &st,
			    &err), RM_OK);
	/* ten train_step_time (the other two tracked_stats are warmup_time
	 * and init_finished), the first (11.8 s, compiling) left out */
	CHECK_INT(st.samples, 9);
	CHECK(st.seconds > 3.1 && st.seconds < 3.4);
	CHECK_INT(st.train.batch_tokens, 960ull * 8192);
	CHECK_INT(st.train.micro_batch, 1);  /* 960 / (40 x "24.0") */
	CHECK(said(&st, false, "tracked_stats train_step_time"));
}

/* LoRA: the step from the throughput; the sequence from the caller.
 * llama3-70b stands in for Llama 2 70B (the same layers, hidden size and
 * heads; a smaller vocabulary). */
static void lora_v40(void)
{
	static const char *const seq[] = { "seq=8192", NULL };
	static const char log[] = "llama2_70b_lora_eos_n128_v4.0.log";
	static rm_cal_step st;
	rm_error err;
	CHECK_INT(read_real(log, "lora.log", "llama3-70b", "tp=4,cp=2,dp=128,pp=1",
			    NULL, &st, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "lora.log: the log gives no max_sequence_length: "
		  "give the run's --seq");
	CHECK_INT(read_real(log, "lora.log", "llama3-70b", "tp=4,cp=2,dp=128,pp=1",
			    seq, &st, &err), RM_OK);
	/* four throughputs, the first left out: the median is 180.03 */
	CHECK_INT(st.samples, 3);
	NEAR(st.seconds, 128 / 180.03471850319966, 1e-9);
	CHECK_INT(st.train.batch_tokens, 128ull * 8192);
	CHECK_INT(st.train.micro_batch, 1);  /* 128 / (128 x 1) */
	CHECK(said(&st, false, "no max_sequence_length logged: sequences of "
		   "8192 (--seq)"));
	CHECK(said(&st, true, "lora.log: lora_rank=16: LoRA fine-tuning is not "
		   "priced"));
}

/* A log as mllog writes it, with its parallelism keys: llama3-8b on
 * tp=2,cp=1,dp=16,pp=2, 512 x 8192, at `step_s` a step (blocks of 10
 * steps); `extra` records after the settings. */
static char *ml_log(double step_s, const char *extra)
{
	rm_buf b;
	rm_buf_init(&b);
	static const char *const kv[][2] = {
		{ "submission_benchmark", "\"llama31_8b\"" },
		{ "global_batch_size", "512" }, { "max_sequence_length", "8192" },
		{ "gradient_accumulation_steps", "32" },
		{ "tensor_parallelism", "2" }, { "pipeline_parallelism", "2" },
		{ "context_parallelism", "1" }, { "expert_parallelism", "1" },
		{ "micro_batch_size", "1" }, { "opt_base_learning_rate", "0.0003" },
	};
	long long ms = 1759845350906LL;
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		rm_buf_printf(&b, ":::MLLOG {\"namespace\": \"\", \"time_ms\": %lld, "
			      "\"event_type\": \"POINT_IN_TIME\", \"key\": \"%s\", "
			      "\"value\": %s, \"metadata\": {\"file\": \"x.py\", "
			      "\"lineno\": %zu}}\n", ms, kv[i][0], kv[i][1], i + 1);
	rm_buf_printf(&b, "%s", extra);
	for (int blk = 0; blk < 4; blk++) {
		long long dur = llround((blk ? 10 : 30) * step_s * 1000);
		rm_buf_printf(&b, ":::MLLOG {\"namespace\": \"\", \"time_ms\": %lld, "
			      "\"event_type\": \"INTERVAL_START\", \"key\": "
			      "\"block_start\", \"value\": null, \"metadata\": "
			      "{\"step\": %d}}\n", ms, 10 * blk);
		ms += dur;
		rm_buf_printf(&b, "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": "
			      "%lld, \"event_type\": \"INTERVAL_END\", \"key\": "
			      "\"block_stop\", \"value\": null, \"metadata\": "
			      "{\"step\": %d}}\n", ms, 10 * blk + 10);
		ms += 5000;             /* evaluation: not a step */
	}
	size_t len;
	return rm_buf_take(&b, &len);
}

static void parallelism_keys_fit(void)
{
	rm_model m;
	rm_layout l;
	CHECK_INT(rm_model_preset("llama3-8b", &m, NULL), RM_OK);
	double step = site_step(0.61, "0");
	char *text = ml_log(step, "");
	rm_train run;
	rm_train_init(&run, RM_TRAIN_VERSION);
	CHECK_INT(rm_train_set(&run, "recompute", "selective", NULL), RM_OK);
	CHECK_INT(rm_train_set(&run, "tp_overlap", "0", NULL), RM_OK);
	static rm_cal_step st;
	rm_error err;
	CHECK_INT(rm_cal_mlperf_log(text, strlen(text), "ml.log", &m, &run, NULL,
				    &st, &err), RM_OK);
	free(text);
	CHECK_INT(st.samples, 3);
	NEAR(st.seconds, step, 1e-3);
	CHECK_INT(st.layout.size[RM_AXIS_TP], 2);
	CHECK_INT(st.layout.size[RM_AXIS_DP], 16);
	CHECK_INT(st.train.micro_batch, 1);
	rm_hw base;
	CHECK_INT(rmi_hw_preset("h100-sxm-80gb", &base, NULL), RM_OK);
	static rm_cal_fit fit;
	CHECK_INT(rm_calibrate(&base, &st, 1, NULL, 0, NULL, &fit, &err), RM_OK);
	printf("  MLPerf: fitted gemm_eff %.4f (site 0.61)\n", fit.hw.gemm_eff);
	NEAR(fit.hw.gemm_eff, 0.61, 0.003);
	/* a layout given must agree with the keys */
	text = ml_log(step, "");
	CHECK_INT(rm_layout_parse("tp=4,cp=1,dp=8,pp=2", &l, NULL), RM_OK);
	CHECK_INT(rm_cal_mlperf_log(text, strlen(text), "ml.log", &m, &run, &l,
				    &st, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "ml.log:5:");
	CHECK_HAS(err.msg, "tensor_parallelism=2; the layout given says tp=4");
	free(text);
}

#define REC_FP8                                                            \
	":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"event_type\": "   \
	"\"POINT_IN_TIME\", \"key\": \"fp8\", \"value\": \"hybrid\"}\n"     \
	":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"event_type\": "   \
	"\"POINT_IN_TIME\", \"key\": \"fp8_recipe\", \"value\": "          \
	"\"tensorwise\"}\n"                                                 \
	":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"event_type\": "   \
	"\"POINT_IN_TIME\", \"key\": \"fp8_params\", \"value\": true}\n"

/* A log that names its FP8 settings is priced in FP8, as a Megatron or
 * NeMo log is, and is not warned about as BF16. */
static void fp8_keys(void)
{
	rm_model m;
	CHECK_INT(rm_model_preset("llama3-8b", &m, NULL), RM_OK);
	char *text = ml_log(5.0, REC_FP8);
	rm_train run;
	rm_train_init(&run, RM_TRAIN_VERSION);
	static rm_cal_step st;
	rm_error err;
	CHECK_INT(rm_cal_mlperf_log(text, strlen(text), "ml.log", &m, &run, NULL,
				    &st, &err), RM_OK);
	free(text);
	CHECK_INT(st.train.fp8, RM_FP8_HYBRID);
	CHECK_INT(st.train.fp8_recipe, RM_FP8_CURRENT);
	CHECK(st.train.fp8_params);
	CHECK(!said(&st, true, "does not say the GEMM precision"));
	/* without the keys: BF16, and said */
	text = ml_log(5.0, "");
	CHECK_INT(rm_cal_mlperf_log(text, strlen(text), "ml.log", &m, &run, NULL,
				    &st, &err), RM_OK);
	free(text);
	CHECK_INT(st.train.fp8, RM_FP8_OFF);
	CHECK(said(&st, true, "does not say the GEMM precision"));
}

#define REC(key, value)                                                    \
	":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"event_type\": "  \
	"\"POINT_IN_TIME\", \"key\": \"" key "\", \"value\": " value "}\n"

static void hostile(void)
{
	rm_model m;
	CHECK_INT(rm_model_preset("llama3-8b", &m, NULL), RM_OK);
	rm_train run;
	rm_train_init(&run, RM_TRAIN_VERSION);
	static rm_cal_step st;
	rm_error err;
	/* the settings are lines 1-10; line 11 is `extra` */
	static const struct {
		const char *extra, *says;
	} bad[] = {
		{ ":::MLLOG {\"key\": \"seed\", \"value\": 1,\n", "h.log:11:" },
		{ ":::MLLOG {\"key\": \"seed\", \"value\": NaN, \"time_ms\": 1}\n",
		  "h.log:11:" },
		{ ":::MLLOG [1, 2]\n", "h.log:11:10: expected a JSON object" },
		{ ":::MLLOG key: seed\n", "h.log:11:10: expected a JSON object" },
		{ ":::MLLOG {\"key\": 7, \"value\": 1, \"time_ms\": 1}\n",
		  "h.log:11:10: not an mllog record" },
		{ ":::MLLOG {\"time_ms\": -5, \"event_type\": \"POINT_IN_TIME\", "
		  "\"key\": \"seed\", \"value\": 1}\n",
		  "h.log:11:22: time_ms='-5' is not a number" },
		{ ":::MLLOG {\"time_ms\": 1, \"event_type\": \"POINT_IN_TIME\", "
		  "\"key\": \"tracked_stats\", \"value\": {\"train_step_time\": "
		  "1e300}}\n", "h.log:11:109: train_step_time='1e300' is not a "
		  "number in" },
		{ ":::MLLOG {\"time_ms\": 1, \"event_type\": \"INTERVAL_END\", "
		  "\"key\": \"block_stop\", \"value\": null}\n",
		  "h.log:11:10: block_stop without a block_start" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *text = ml_log(1.0, bad[i].extra);
		CHECK_INT(rm_cal_mlperf_log(text, strlen(text), "h.log", &m, &run,
					    NULL, &st, &err), RM_EINPUT);
		CHECK_HAS(err.msg, bad[i].says);
		if (!strstr(err.msg, bad[i].says))
			printf("  case %zu: %s\n", i, err.msg);
		free(text);
	}
	/* a key read, given again otherwise; a batch too big; no batch */
	const char *two = REC("global_batch_size", "512")
		REC("global_batch_size", "1024");
	CHECK_INT(rm_cal_mlperf_log(two, strlen(two), "d.log", &m, &run, NULL,
				    &st, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "d.log:2:");
	CHECK_HAS(err.msg, "global_batch_size='1024': line 1 gave 512");
	const char *neg = REC("global_batch_size", "-512");
	CHECK_INT(rm_cal_mlperf_log(neg, strlen(neg), "g.log", &m, &run, NULL,
				    &st, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "g.log:1:110: global_batch_size='-512' is not a "
		  "whole number in [1, 1073741824]");
	const char *moe = REC("global_batch_size", "512")
		REC("expert_parallelism", "8");
	CHECK_INT(rm_cal_mlperf_log(moe, strlen(moe), "e.log", &m, &run, NULL,
				    &st, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "e.log:2:");
	CHECK_HAS(err.msg, "expert_parallelism=8: a mixture-of-experts run");
	const char *wide = REC("global_batch_size", "1073741824")
		REC("max_sequence_length", "8192")
		REC("gradient_accumulation_steps", "1")
		REC("micro_batch_size", "1") REC("tensor_parallelism", "16777216")
		REC("pipeline_parallelism", "16777216")
		REC("context_parallelism", "16777216");
	CHECK_INT(rm_cal_mlperf_log(wide, strlen(wide), "w.log", &m, &run, NULL,
				    &st, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "w.log: more than 16777216 GPUs");
	const char *huge = REC("global_batch_size", "1e300");
	CHECK_INT(rm_cal_mlperf_log(huge, strlen(huge), "g.log", &m, &run, NULL,
				    &st, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "g.log:1:");
	CHECK_HAS(err.msg, "global_batch_size='1e300' is not a whole number");
	const char *none = REC("seed", "1");
	CHECK_INT(rm_cal_mlperf_log(none, strlen(none), "n.log", &m, &run, NULL,
				    &st, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "n.log: the log gives no global_batch_size");
	CHECK_INT(rm_cal_mlperf_log("hello\n", 6, "x.log", &m, &run, NULL, &st,
				    &err), RM_EINPUT);
	CHECK_HAS(err.msg, "x.log: no ':::MLLOG {...}' line");
	/* a line longer than a log line may be */
	size_t n = 70000;
	char *big = malloc(n + 1);
	memset(big, ' ', n);
	memcpy(big, ":::MLLOG {", 10);
	big[n] = '\0';
	CHECK_INT(rm_cal_mlperf_log(big, n, "b.log", &m, &run, NULL, &st, &err),
		  RM_EINPUT);
	CHECK_HAS(err.msg, "b.log:1:1: a line longer than 65536 bytes");
	free(big);
	/* what is not priced: LoRA and keys not read, a warning each */
	char *text = ml_log(1.0, REC("lora_rank", "16") REC("fancy_knob", "3"));
	CHECK_INT(rm_cal_mlperf_log(text, strlen(text), "w.log", &m, &run, NULL,
				    &st, &err), RM_OK);
	CHECK(said(&st, true, "w.log: lora_rank=16: LoRA fine-tuning is not "
		   "priced"));
	CHECK(said(&st, true, "w.log: fancy_knob: not priced"));
	free(text);
}

int main(void)
{
	RUN("calib_mlperf", gpt3_v40);
	RUN("calib_mlperf", llama405b_v51);
	RUN("calib_mlperf", lora_v40);
	RUN("calib_mlperf", parallelism_keys_fit);
	RUN("calib_mlperf", fp8_keys);
	RUN("calib_mlperf", hostile);
	TEST_EXIT();
}
