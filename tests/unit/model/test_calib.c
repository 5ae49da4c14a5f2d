/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_calib.c - `rankmap calibrate`'s library: measurements read from
 * logs written here in Megatron-LM's, torchtitan's, nccl-tests' and
 * rankmap-nccl-check's documented formats, for a site whose GPUs run at a
 * known calibration; the fit must find that calibration again, say what
 * it fits and refuse what it cannot.
 */
#include "model/model_int.h"
#include "rankmap_priv.h"
#include "test.h"
#include "model_setup.h"
#include "model/model_cal.h"
#include "model_cal_site.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b, tol)                                                    \
	CHECK(fabs((double)(a) - (double)(b)) <= (tol) * (fabs((double)(b)) + 1e-12))

/* A Megatron-LM log: the arguments block as arguments.py prints it
 * ("  name" + dots to 48 + " value", sorted), then iteration lines as
 * training.py's training_log writes them; the first iteration slow. */
static char *megatron_log(double step_s, bool overlap)
{
	static const char *const args[][2] = {
		{ "context_parallel_size", "1" }, { "global_batch_size", "512" },
		{ "hidden_size", "4096" }, { "micro_batch_size", "1" },
		{ "num_attention_heads", "32" }, { "num_layers", "32" },
		{ "pipeline_model_parallel_size", "2" },
		{ "recompute_granularity", "selective" },
		{ "seq_length", "8192" }, { "sequence_parallel", "True" },
		{ "tensor_model_parallel_size", "2" },
		{ "tp_comm_overlap", "False" },
		{ "transformer_impl", "transformer_engine" },
		{ "use_distributed_optimizer", "True" },
		{ "virtual_pipeline_model_parallel_size", "None" },
		{ "world_size", "64" },
	};
	rm_buf b;
	rm_buf_init(&b);
	rm_buf_puts(&b, "using world size: 64, data-parallel size: 16\n"
		    "------------------------ arguments ------------------------\n");
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		const char *v = args[i][1];
		if (!strcmp(args[i][0], "tp_comm_overlap") && overlap)
			v = "True";
		char dots[64];
		size_t n = 48 - strlen(args[i][0]);
		memset(dots, '.', n);
		dots[n] = '\0';
		rm_buf_printf(&b, "  %s %s %s\n", args[i][0], dots, v);
	}
	rm_buf_puts(&b, "-------------------- end of arguments ---------------------\n");
	for (int it = 1; it <= 5; it++)
		rm_buf_printf(&b, " [2025-01-01 00:00:%02d] iteration %8d/%8d | "
			       "consumed samples: %12d | elapsed time per "
			       "iteration (ms): %.1f | throughput per GPU "
			       "(TFLOP/s/GPU): 400.0 | learning rate: 1.000000E-04 "
			       "| global batch size:   512 | lm loss: 2.345678E+00 "
			       "| loss scale: 1.0 | number of skipped iterations:   "
			       "0 | number of nan iterations:   0 |\n", it, 10 * it,
			       1000, 5120 * it, 1000 * step_s * (it == 1 ? 3 : 1));
	size_t len;
	return rm_buf_take(&b, &len);
}

static void megatron_round_trip(void)
{
	rm_model m;
	CHECK_INT(rm_model_preset("llama3-8b", &m, NULL), RM_OK);
	/* a site 15 % below the preset's GEMM efficiency, two runs */
	double want = 0.616;
	char *a = megatron_log(site_step(want, "0"), false);
	char *b = megatron_log(site_step(want, "1"), true);
	rm_cal_step steps[2];
	rm_error err;
	CHECK_INT(rm_cal_megatron_log(a, strlen(a), "a.log", &m, &steps[0], &err), RM_OK);
	CHECK_INT(rm_cal_megatron_log(b, strlen(b), "b.log", &m, &steps[1], &err), RM_OK);
	CHECK_INT(steps[0].samples, 4);   /* the warm-up iteration left out */
	CHECK_INT(steps[0].layout.size[RM_AXIS_TP], 2);
	CHECK_INT(steps[0].layout.size[RM_AXIS_DP], 16);
	CHECK_INT(steps[0].train.sharding, RM_SHARD_ZERO1);
	CHECK(steps[0].train.tp_overlap == 0 && steps[1].train.tp_overlap == 1);
	rm_hw base;
	CHECK_INT(rmi_hw_preset("h100-sxm-80gb", &base, NULL), RM_OK);
	rm_cal_fit fit;
	CHECK_INT(rm_calibrate(&base, steps, 2, NULL, 0, NULL, &fit, &err), RM_OK);
	printf("  fitted gemm_eff %.4f (site %.4f)\n", fit.hw.gemm_eff, want);
	NEAR(fit.hw.gemm_eff, want, 0.002);
	for (size_t i = 0; i < 2; i++)
		NEAR(fit.step_pred[i], steps[i].seconds, 0.001);
	CHECK_INT(fit.nkeys, 1);
	/* the file it writes is a hardware file explain reads: base + keys */
	char *yaml = NULL;
	size_t len = 0;
	CHECK_INT(rm_cal_write(&fit, "h100-sxm-80gb", steps, 2, NULL, 0, &yaml,
			       &len, &err), RM_OK);
	CHECK(yaml && strstr(yaml, "\nbase: h100-sxm-80gb\ngemm_eff: 0.61"));
	CHECK(yaml && strstr(yaml, "residual +0.0 %"));
	rm_hw back;
	CHECK_INT(rm_hw_parse_yaml(yaml, len, "site.yaml", &back, &err), RM_OK);
	NEAR(back.gemm_eff, fit.hw.gemm_eff, 0.001);
	CHECK(back.attn_eff == base.attn_eff && back.peak_flops == base.peak_flops);
	free(yaml);
	/* two keys from one run: refused */
	const char *two[] = { "gemm_eff", "attn_eff", NULL };
	CHECK_INT(rm_calibrate(&base, steps, 1, NULL, 0, two, &fit, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "2 step-time constants to fit from 1 step time");
	const char *bad[] = { "peak_tflops", NULL };
	CHECK_INT(rm_calibrate(&base, steps, 1, NULL, 0, bad, &fit, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "cannot fit peak_tflops");
	/* the log of another model, or without its arguments: refused */
	rm_model big;
	CHECK_INT(rm_model_preset("llama3-70b", &big, NULL), RM_OK);
	CHECK_INT(rm_cal_megatron_log(a, strlen(a), "a.log", &big, &steps[0], &err), RM_EINPUT);
	CHECK_HAS(err.msg, "a.log: the run has 32 layers");
	const char *noargs = strstr(a, "-------------------- end");
	CHECK_INT(rm_cal_megatron_log(noargs, strlen(noargs), "c.log", &m, &steps[0], &err), RM_EINPUT);
	CHECK_HAS(err.msg, "c.log: no Megatron-LM arguments block");
	char *cut = strstr(a, "elapsed time per iteration (ms): ");
	cut[33] = 'x';
	CHECK_INT(rm_cal_megatron_log(a, strlen(a), "a.log", &m, &steps[0], &err), RM_EINPUT);
	CHECK_HAS(err.msg, "a.log:20:87: no time after");
	free(a);
	free(b);
}

/*
 * A log of an older Megatron-LM, as its arguments.py printed the block:
 * `v1` the 2020 style (20 dashes, names padded to 32 columns), else the
 * one since v2.0 (24 dashes, 48 columns); each line after `prefix` (a
 * launcher's, "" for none). kv: "name=value", NULL-ended.
 */
static char *args_log(const char *const *kv, bool v1, const char *prefix,
		      double step_ms)
{
	rm_buf b;
	rm_buf_init(&b);
	rm_buf_printf(&b, "%s%s arguments %s\n", prefix, v1 ?
		      "--------------------" : "------------------------",
		      v1 ? "--------------------" : "------------------------");
	for (size_t i = 0; kv[i]; i++) {
		const char *eq = strchr(kv[i], '=');
		int n = (int)(eq - kv[i]);
		char dots[64];
		int w = (v1 ? 32 : 48) - n;
		memset(dots, '.', (size_t)w);
		dots[w] = '\0';
		rm_buf_printf(&b, "%s  %.*s %s %s\n", prefix, n, kv[i], dots, eq + 1);
	}
	rm_buf_printf(&b, "%s%s end of arguments %s\n", prefix, v1 ?
		      "----------------" : "--------------------",
		      v1 ? "----------------" : "---------------------");
	for (int it = 1; it <= 5; it++)
		rm_buf_printf(&b, "%s iteration %8d/%8d | elapsed time per "
			      "iteration (ms): %.1f | learning rate: 1.5E-04 |\n",
			      prefix, it, 1000, step_ms * (it == 1 ? 2 : 1));
	size_t len;
	return rm_buf_take(&b, &len);
}

/* rm_cal_megatron_log of args_log's log. */
static rm_status read_args(const char *const *kv, bool v1, const char *prefix,
			   double step_ms, const char *file, const rm_model *m,
			   rm_cal_step *st, rm_error *err)
{
	char *text = args_log(kv, v1, prefix, step_ms);
	rm_status r = rm_cal_megatron_log(text, strlen(text), file, m, st, err);
	free(text);
	return r;
}

/*
 * Arguments of older releases (Megatron-LM's megatron/arguments.py and
 * Megatron-DeepSpeed's) read as the ones that replaced them. MT-NLG's
 * 2,240-GPU run (tests/model/smith2022_mtnlg.tsv) as Megatron-DeepSpeed
 * printed it: checkpoint_activations True is full recomputation; read as
 * none (what calibrate did), its gemm_eff came out 0.469 where the
 * table's own setup fits 0.650 (docs/explain.md).
 */
static void megatron_old_names(void)
{
	static const char mtnlg[] =
		"name: mt-nlg-530b\nlayers: 105\nhidden: 20480\nffn: 81920\n"
		"heads: 128\nvocab: 51200\nseq_len: 2048\ngated_ffn: false\n"
		"bias: true\nlearned_pos: true\ntied_embeddings: true\n";
	rm_model m;
	rm_error err;
	CHECK_INT(rm_model_parse_yaml(mtnlg, strlen(mtnlg), "mtnlg.yaml", &m,
				      &err), RM_OK);
	const char *mds[] = {
		"accumulate_allreduce_grads_in_fp32=False",
		"checkpoint_activations=True", "checkpoint_num_layers=1",
		"deepspeed=True", "fp16=True", "global_batch_size=1920",
		"hidden_size=20480", "micro_batch_size=1",
		"num_attention_heads=128", "num_layers=105",
		"pipeline_model_parallel_size=35", "seq_length=2048",
		"tensor_model_parallel_size=8", "world_size=2240", NULL };
	static rm_cal_step st;
	CHECK_INT(read_args(mds, false, "", 60100, "mds.log", &m, &st, &err),
		  RM_OK);
	CHECK_INT(st.train.recompute, RM_RECOMPUTE_FULL);
	CHECK(!st.train.flash && st.train.grad_bytes == 2);
	CHECK(said(&st, false, "mds.log: checkpoint_activations True"));
	CHECK(said(&st, false, "no use_flash_attn, transformer_impl"));
	rm_hw a100;
	CHECK_INT(rmi_hw_preset("a100-sxm-80gb", &a100, NULL), RM_OK);
	static rm_cal_fit fit;
	CHECK_INT(rm_calibrate(&a100, &st, 1, NULL, 0, NULL, &fit, &err), RM_OK);
	printf("  MT-NLG 2,240 GPUs, Megatron-DeepSpeed arguments: gemm_eff "
	       "%.4f\n", fit.hw.gemm_eff);
	NEAR(fit.hw.gemm_eff, 0.650, 0.003);
	/* read as no recomputation it does not fit, and is not fitted */
	st.train.recompute = RM_RECOMPUTE_NONE;
	CHECK_INT(rm_calibrate(&a100, &st, 1, NULL, 0, NULL, &fit, &err),
		  RM_EINPUT);
	CHECK_HAS(err.msg, "does not fit: the model puts 120.3 GiB on its "
		  "fullest GPU, 40.3 GiB (50 %) over the 80.0 GiB of HBM");

	/* Megatron-LM v1 (2020): model_parallel_size, batch_size per
	 * replica, no pipeline, no global batch; after srun --label */
	rm_model l8;
	CHECK_INT(rm_model_preset("llama3-8b", &l8, NULL), RM_OK);
	const char *v1[] = { "batch_size=4", "fp16=True", "hidden_size=4096",
			     "model_parallel_size=2", "num_attention_heads=32",
			     "num_layers=32", "seq_length=8192",
			     "world_size=64", NULL };
	CHECK_INT(read_args(v1, true, "0: ", 9000, "v1.log", &l8, &st, &err),
		  RM_OK);
	CHECK_INT(st.layout.size[RM_AXIS_TP], 2);
	CHECK_INT(st.layout.size[RM_AXIS_PP], 1);
	CHECK_INT(st.layout.size[RM_AXIS_DP], 32);
	CHECK_INT(st.train.micro_batch, 4);
	CHECK_INT(st.train.batch_tokens, 4ull * 32 * 8192);
	CHECK_INT(st.train.recompute, RM_RECOMPUTE_NONE);
	CHECK(st.train.grad_bytes == 2 && st.seconds == 9.0);
	CHECK(said(&st, false, "model_parallel_size (Megatron-LM to 2020) "
		   "read as tensor_model_parallel_size"));
	CHECK(said(&st, false, "no global_batch_size"));

	/* 2021-08 to 2022-04: a method alone meant whole layers; block
	 * recomputes the first N of each chunk */
	const char *b[] = { "activations_checkpoint_method=block",
			    "activations_checkpoint_num_layers=2",
			    "global_batch_size=512", "hidden_size=4096",
			    "micro_batch_size=1", "num_attention_heads=32",
			    "num_layers=32", "pipeline_model_parallel_size=2",
			    "seq_length=8192", "tensor_model_parallel_size=2",
			    "use_flash_attn=False", "world_size=64", NULL };
	CHECK_INT(read_args(b, false, "[default0]:", 9000, "b.log", &l8, &st,
			    &err), RM_OK);
	CHECK_INT(st.train.recompute, RM_RECOMPUTE_FULL);
	CHECK_INT(st.train.recompute_layers, 2);
	CHECK(said(&st, false, "activations_checkpoint_method (Megatron-LM of "
		   "2021-08 to 2022-04) read as recompute_method"));
	CHECK(said(&st, false, "recompute method block: 2 layers"));

	/* refused with where: a granularity, a number, a line too long */
	b[0] = "recompute_granularity=most";
	CHECK_INT(read_args(b, false, "", 9000, "g.log", &l8, &st, &err),
		  RM_EINPUT);
	CHECK_HAS(err.msg, "g.log:2:53: recompute granularity 'most'");
	b[0] = "tensor_model_parallel_size=two";
	b[9] = "use_flash_attn=False";
	CHECK_INT(read_args(b, false, "", 9000, "t.log", &l8, &st, &err),
		  RM_EINPUT);
	CHECK_HAS(err.msg, "t.log:2:53: tensor_model_parallel_size='two' is "
		  "not a whole number");
	size_t big = RMI_CAL_LINE + 10;
	char *huge = malloc(big + 32);
	memcpy(huge, "first\nsecond\r", 13);
	memset(huge + 13, 'x', big);
	huge[13 + big] = '\0';
	CHECK_INT(rm_cal_megatron_log(huge, strlen(huge), "h.log", &l8, &st,
				      &err), RM_EINPUT);
	CHECK_HAS(err.msg, "h.log:2:8: a line longer than 65536 bytes");
	free(huge);
}

/* What a log says that the model does not price: a warning naming each
 * setting (FP8, FP32, DeepSpeed's ZeRO), or a refusal (experts). */
static void megatron_unpriced(void)
{
	rm_model m;
	CHECK_INT(rm_model_preset("llama3-8b", &m, NULL), RM_OK);
	const char *kv[] = { "global_batch_size=512", "hidden_size=4096",
			     "micro_batch_size=1", "num_attention_heads=32",
			     "num_layers=32", "pipeline_model_parallel_size=2",
			     "seq_length=8192", "tensor_model_parallel_size=2",
			     "transformer_impl=transformer_engine",
			     "world_size=64", "fp8_recipe=delayed",
			     "fp8_wgrad=True", "fp8=hybrid",
			     "fp8_param_gather=True", NULL };
	static rm_cal_step st;
	rm_error err;
	CHECK_INT(read_args(kv, false, "", 9000, "f.log", &m, &st, &err),
		  RM_OK);
	/* FP8 is read and priced, not warned about */
	CHECK_INT(st.nwarn, 0);
	CHECK(said(&st, false, "f.log: FP8 read: hybrid, recipe delayed, "
		   "fp8_params on"));
	CHECK(st.train.fp8 == RM_FP8_HYBRID && st.train.fp8_params &&
	      st.train.fp8_recipe == RM_FP8_DELAYED);
	/* Megatron-LM of 2023: the format flags were the switches */
	kv[12] = "fp8_e4m3=True";
	kv[13] = "fp8_hybrid=False";
	CHECK_INT(read_args(kv, false, "", 9000, "f.log", &m, &st, &err),
		  RM_OK);
	CHECK(said(&st, false, "f.log: FP8 read: e4m3"));
	CHECK(st.train.fp8 == RM_FP8_E4M3 && !st.train.fp8_params);
	/* FP4 is not read: said */
	kv[12] = "fp4=e2m1";
	kv[13] = "fp8_hybrid=False";
	CHECK_INT(read_args(kv, false, "", 9000, "f.log", &m, &st, &err),
		  RM_OK);
	CHECK(said(&st, true, "f.log: fp4='e2m1': FP4 GEMMs are not read"));
	/* neither: no warning; fp16 False and bf16 False: FP32 */
	kv[12] = "fp16=False";
	kv[13] = "bf16=False";
	CHECK_INT(read_args(kv, false, "", 9000, "f.log", &m, &st, &err),
		  RM_OK);
	CHECK_INT(st.nwarn, 1);
	CHECK(said(&st, true, "fp16 False, bf16 False: FP32 training is not "
		   "priced"));
	kv[12] = "num_experts=8";
	CHECK_INT(read_args(kv, false, "", 9000, "e.log", &m, &st, &err),
		  RM_EINPUT);
	CHECK_HAS(err.msg, "e.log:14:53: num_experts='8': a mixture-of-experts "
		  "run; the model prices dense models only");
	/* Megatron-DeepSpeed's dense default */
	kv[12] = "num_experts=[1]";
	kv[13] = "deepspeed=True";
	CHECK_INT(read_args(kv, false, "", 9000, "d.log", &m, &st, &err),
		  RM_OK);
	CHECK(said(&st, true, "d.log: deepspeed True: the ZeRO stage is "
		   "DeepSpeed's config"));
}

/*
 * A NeMo log, written here from NVIDIA/NeMo's own code: its GPT training
 * script (examples/nlp/language_modeling/megatron_gpt_pretraining.py)
 * logs "************** Experiment configuration ***********" and then
 * OmegaConf.to_yaml(cfg) of conf/megatron_gpt_config.yaml (its key names;
 * lists under a key not indented, null, true and false, interpolations
 * left as ${...}); NeMo's formatter (nemo/utils/formatters/base.py)
 * indents each line of a message after the first by four spaces. Step
 * times: the TimingCallback (nemo/utils/exp_manager.py) logs
 * "train_step_timing in s", which the progress printer
 * (nemo/lightning/pytorch/callbacks/progress_printer.py) writes as
 * "Training epoch E, iteration N/M | name: value" with {val:.4}, and the
 * progress bar (tqdm) as "name=value", redrawn with \r.
 */
static char *nemo_log(double step_s, const char *model_extra)
{
	rm_buf b;
	rm_buf_init(&b);
	rm_buf_printf(&b,
		"[NeMo I 2024-05-01 10:00:00 megatron_gpt_pretraining:37] \n"
		"    \n"
		"    ************** Experiment configuration ***********\n"
		"[NeMo I 2024-05-01 10:00:00 megatron_gpt_pretraining:38] \n"
		"    name: megatron_gpt\n"
		"    trainer:\n"
		"      devices: 8\n"
		"      num_nodes: 8\n"
		"      accelerator: gpu\n"
		"      precision: bf16\n"
		"      max_steps: 100\n"
		"    exp_manager:\n"
		"      checkpoint_callback_params:\n"
		"        model_parallel_size: ${multiply:${model.tensor_model_"
		"parallel_size}, ${model.pipeline_model_parallel_size}}\n"
		"    model:\n"
		"%s"
		"      mcore_gpt: true\n"
		"      micro_batch_size: 1\n"
		"      global_batch_size: 512\n"
		"      tensor_model_parallel_size: 2\n"
		"      pipeline_model_parallel_size: 2\n"
		"      virtual_pipeline_model_parallel_size: null\n"
		"      context_parallel_size: 1\n"
		"      encoder_seq_length: 8192\n"
		"      max_position_embeddings: ${.encoder_seq_length}\n"
		"      num_layers: 32\n"
		"      hidden_size: 4096\n"
		"      ffn_hidden_size: 14336\n"
		"      num_attention_heads: 32\n"
		"      num_query_groups: 8\n"
		"      activations_checkpoint_granularity: selective\n"
		"      activations_checkpoint_method: null\n"
		"      activations_checkpoint_num_layers: null\n"
		"      sequence_parallel: true\n"
		"      transformer_engine: true\n"
		"      fp8: false\n"
		"      fp8_e4m3: false\n"
		"      fp8_hybrid: true\n"
		"      ub_tp_comm_overlap: false\n"
		"      data:\n"
		"        data_prefix:\n"
		"        - 1.0\n"
		"        - /data/pile_text_document\n"
		"        seq_length: ${model.encoder_seq_length}\n"
		"      optim:\n"
		"        name: distributed_fused_adam\n"
		"        lr: 0.0003\n"
		"        betas:\n"
		"        - 0.9\n"
		"        - 0.95\n"
		"    \n"
		"[NeMo W 2024-05-01 10:00:05 nemo_logging:349] 'train_step_"
		"timing in s' not found. Make sure to use TimingCallback\n",
		model_extra);
	for (int it = 0; it < 5; it++)
		rm_buf_printf(&b, "Training epoch 0, iteration %d/99 | lr: "
			      "1.499e-07 | global_batch_size: 512 | global_step: "
			      "%d | reduced_train_loss: 11.03 | train_step_timing "
			      "in s: %.4g | consumed_samples: %d\n", it, it,
			      it ? step_s : 3 * step_s, 512 * (it + 1));
	/* the bar, redrawn for global step 5 and then 6 */
	rm_buf_printf(&b, "Epoch 0: :   5%%|5         | 5/100 [00:50<15:50, "
		      "reduced_train_loss=11.00, global_step=5.000, train_step_"
		      "timing in s=%.4g]\rEpoch 0: :   5%%|5         | 5/100 "
		      "[00:51<15:50, reduced_train_loss=11.00, global_step=5.000,"
		      " train_step_timing in s=%.4g]\rEpoch 0: :   6%%|6       "
		      "  | 6/100 [01:00<15:40, reduced_train_loss=10.90, "
		      "global_step=6.000, train_step_timing in s=%.4g]\n",
		      100 * step_s, step_s, step_s);
	size_t len;
	return rm_buf_take(&b, &len);
}

static void nemo(void)
{
	rm_model m;
	CHECK_INT(rm_model_preset("llama3-8b", &m, NULL), RM_OK);
	double want = 0.616, s = site_step(want, "0");
	char *text = nemo_log(s, "");
	static rm_cal_step st;
	rm_error err;
	CHECK_INT(rm_cal_nemo_log(text, strlen(text), "nemo.log", &m, &st, &err),
		  RM_OK);
	free(text);
	/* five printed, two drawn (the 100x redrawn over), the first left out */
	CHECK_INT(st.samples, 6);
	NEAR(st.seconds, s, 0.001);
	CHECK_INT(st.layout.size[RM_AXIS_TP], 2);
	CHECK_INT(st.layout.size[RM_AXIS_PP], 2);
	CHECK_INT(st.layout.size[RM_AXIS_DP], 16);
	CHECK_INT(st.train.batch_tokens, 512ull * 8192);
	CHECK_INT(st.train.recompute, RM_RECOMPUTE_SELECTIVE);
	CHECK_INT(st.train.sharding, RM_SHARD_ZERO1);
	CHECK(st.train.flash && st.train.seq_parallel &&
	      st.train.tp_overlap == 0);
	CHECK_INT(st.nwarn, 0);      /* fp8_hybrid true, fp8 false: BF16 */
	rm_hw base;
	CHECK_INT(rmi_hw_preset("h100-sxm-80gb", &base, NULL), RM_OK);
	static rm_cal_fit fit;
	CHECK_INT(rm_calibrate(&base, &st, 1, NULL, 0, NULL, &fit, &err), RM_OK);
	printf("  NeMo: fitted gemm_eff %.4f (site %.4f)\n", fit.hw.gemm_eff,
	       want);
	NEAR(fit.hw.gemm_eff, want, 0.002);

	/* FP8 on: read (fp8_hybrid, true by default, only with fp8 on) */
	text = nemo_log(s, "      fp8: true\n");
	CHECK_INT(rm_cal_nemo_log(text, strlen(text), "f.log", &m, &st, &err),
		  RM_OK);
	free(text);
	CHECK_INT(st.nwarn, 0);
	CHECK(said(&st, false, "f.log: FP8 read: hybrid, recipe delayed"));
	CHECK(st.train.fp8 == RM_FP8_HYBRID);
	/* full recomputation of a block of 4 layers per chunk */
	text = nemo_log(s, "      activations_checkpoint_granularity: full\n"
			"      activations_checkpoint_method: block\n"
			"      activations_checkpoint_num_layers: 4\n");
	CHECK_INT(rm_cal_nemo_log(text, strlen(text), "r.log", &m, &st, &err),
		  RM_OK);
	free(text);
	CHECK_INT(st.train.recompute, RM_RECOMPUTE_FULL);
	CHECK_INT(st.train.recompute_layers, 4);
	CHECK(said(&st, false, "model.activations_checkpoint_method block: 4 "
		   "layers"));
	/* refused with where: a line that is no setting, a number, a
	 * granularity (the first setting is line 16) */
	static const struct {
		const char *extra, *says;
	} bad[] = {
		{ "      num_layers 32\n",
		  "b.log:16:7: not a 'key: value' line of the configuration" },
		{ "      micro_batch_size: two\n",
		  "b.log:16:25: model.micro_batch_size='two' is not a whole "
		  "number" },
		{ "      activations_checkpoint_granularity: most\n",
		  "b.log:16:43: model.activations_checkpoint_granularity='most': "
		  "expected full, selective or null" },
		{ "      num_moe_experts: 8\n",
		  "b.log:16:24: model.num_moe_experts='8': a mixture-of-experts" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		text = nemo_log(s, bad[i].extra);
		CHECK_INT(rm_cal_nemo_log(text, strlen(text), "b.log", &m, &st,
					  &err), RM_EINPUT);
		CHECK_HAS(err.msg, bad[i].says);
		free(text);
	}
	/* without the configuration: nothing says the run */
	text = nemo_log(s, "");
	const char *steps = strstr(text, "Training epoch");
	CHECK_INT(rm_cal_nemo_log(steps, strlen(steps), "n.log", &m, &st, &err),
		  RM_EINPUT);
	CHECK_HAS(err.msg, "n.log: no NeMo configuration");
	/* a time that is none: where it is */
	char *t = strstr(text, "train_step_timing in s: ") + 24, where[64];
	*t = 'x';
	unsigned line = 1, col = 1;
	for (const char *q = text; q < t; q++, col++)
		if (*q == '\n')
			line++, col = 0;
	snprintf(where, sizeof(where), "t.log:%u:%u: no seconds after", line,
		 col);
	CHECK_INT(rm_cal_nemo_log(text, strlen(text), "t.log", &m, &st, &err),
		  RM_EINPUT);
	CHECK_HAS(err.msg, where);
	free(text);
}

static void torchtitan_and_links(void)
{
	rm_model m;
	CHECK_INT(rm_model_preset("llama3-8b", &m, NULL), RM_OK);
	double s = site_step(0.65, "0");
	/* torchtitan: tps is tokens per second per GPU */
	double tps = 4194304.0 / (s * 64);
	/* as round(tps):, prints it: thousands with commas */
	char fig[32];
	long long r = llround(tps);
	snprintf(fig, sizeof(fig), "%lld,%03lld", r / 1000, r % 1000);
	rm_buf b;
	rm_buf_init(&b);
	for (int st = 1; st <= 4; st++)
		rm_buf_printf(&b, "[rank0]:[titan] 2025-01-01 00:00:00,000 - root - "
			       "INFO - \x1b[31mstep: %2d  \x1b[32mloss:  7.8712  "
			       "\x1b[33mmemory: 30.12GiB(31.70%%)  \x1b[34mtps: %s  "
			       "\x1b[36mtflops: 334.37  \x1b[35mmfu: 33.81%%\x1b[39m\n",
			       st, st == 1 ? "1,000" : fig);
	size_t len;
	char *text = rm_buf_take(&b, &len);
	rm_train t;
	rm_layout l;
	rm_train_init(&t, RM_TRAIN_VERSION);
	CHECK_INT(rm_train_set(&t, "batch", "4194304", NULL), RM_OK);
	CHECK_INT(rm_train_set(&t, "recompute", "selective", NULL), RM_OK);
	CHECK_INT(rm_train_set(&t, "tp_overlap", "0", NULL), RM_OK);
	CHECK_INT(rm_layout_parse("tp=2,cp=1,dp=16,pp=2", &l, NULL), RM_OK);
	rm_cal_step step;
	rm_error err;
	CHECK_INT(rm_cal_torchtitan_log(text, len, "tt.log", &m, &t, &l, &step, &err), RM_OK);
	CHECK_INT(step.samples, 3);
	NEAR(step.seconds, s, 0.001);
	free(text);

	/* nccl-tests all_reduce_perf on one host, then on two */
	const char *nt =
		"# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20\n"
		"#\n# Using devices\n"
		"#  Rank  0 Group  0 Pid  4001 on      gpu01 device  0 [0x18] NVIDIA H100 80GB HBM3\n"
		"#  Rank  1 Group  0 Pid  4002 on      gpu01 device  1 [0x2a] NVIDIA H100 80GB HBM3\n"
		"#\n#                                                              out-of-place                       in-place\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
		"  4294967296    1073741824     float     sum      -1  23456.7  183.10  320.43      0  23400.1  183.54  321.20      0\n"
		"  8589934592    2147483648     float     sum      -1  46000.0  186.74  326.79      0  45990.0  186.78  326.86      0\n"
		"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 200.5\n";
	rm_cal_link links[8];
	CHECK_INT(rm_cal_nccl_tests(nt, strlen(nt), "ar.txt", &links[0], &err), RM_OK);
	CHECK(!links[0].network && fabs(links[0].busbw - 326.79) < 1e-9);
	/* rankmap-nccl-check's report, one axis on the network */
	const char *nc =
		"rankmap-nccl-check: 16 ranks, layout tp=2,pp=2,dp=4, order tp-dp-pp, NCCL 2.28.9\n"
		"nominal GB/s: nvlink 450, leaf 50, spine 50; slow below 50%\n\n"
		"dp  allreduce over 4 groups of 4  placed on: spine 4\n"
		"        size  time us (median)   busBw GB/s:  min   median      max\n"
		"       4 MiB             11.7              36.00   40.00   41.00\n"
		"  peak busBw over sizes: min 36.00, median 40.00, max 41.00 GB/s; 0 slow, 0 with wrong results\n"
		"result: ok\n";
	size_t got = 0;
	CHECK_INT(rm_cal_nccl_check(nc, strlen(nc), "check.txt", &links[1], 7, &got, &err), RM_OK);
	CHECK_INT(got, 1);
	CHECK(links[1].network && links[1].busbw == 40.0);
	rm_hw base;
	CHECK_INT(rmi_hw_preset("h100-sxm-80gb", &base, NULL), RM_OK);
	rm_cal_fit fit;
	CHECK_INT(rm_calibrate(&base, &step, 1, links, 2, NULL, &fit, &err), RM_OK);
	NEAR(fit.hw.nvlink_eff, 326.79 / 450, 1e-9);
	NEAR(fit.hw.net_eff, 40.0 / 50, 1e-9);
	CHECK_INT(fit.nkeys, 3);
	/* with the links fitted, the step time is fitted with them */
	NEAR(fit.step_pred[0], step.seconds, 0.001);
	/* faster than nominal: the nominal figure is wrong, said so */
	links[1].busbw = links[1].gbps = 60;
	CHECK_INT(rm_calibrate(&base, &step, 1, links, 2, NULL, &fit, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "60.00 GB/s is more than a GPU's NIC can carry "
		  "(50.00 GB/s, nic_gbps): give the right figure (nic_gbps)");
	const char *netonly[] = { "net_eff", NULL };
	CHECK_INT(rm_calibrate(&base, NULL, 0, links, 1, netonly, &fit, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "net_eff needs a measurement of a network link");
	CHECK_INT(rm_cal_nccl_check("x\n", 2, "n.txt", links, 8, &got, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "n.txt: not a rankmap-nccl-check report");
	CHECK_INT(rm_cal_nccl_tests("# nothing\n", 10, "e.txt", links, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "e.txt: no nccl-tests result line");
}

/* nccl-tests' all_reduce_perf output: `hosts` hosts of `per` GPUs each
 * ("#  Rank N Group 0 Pid P on HOST device D [..] NVIDIA H100"), its
 * largest size at `busbw` GB/s. */
static char *nt_out(unsigned hosts, unsigned per, double busbw)
{
	rm_buf b;
	rm_buf_init(&b);
	rm_buf_puts(&b, "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes "
		    "8589934592 step: 2(factor) warmup iters: 5 iters: 20\n#\n"
		    "# Using devices\n");
	for (unsigned h = 0; h < hosts; h++)
		for (unsigned g = 0; g < per; g++)
			rm_buf_printf(&b, "#  Rank %2u Group  0 Pid %5u on "
				      "gpu%02u device  %u [0x%02x] NVIDIA H100 "
				      "80GB HBM3\n", h * per + g, 4000 + g, h + 1,
				      g, 0x18 + g);
	rm_buf_printf(&b, "#\n#       size         count      type   redop "
		      "   root     time   algbw   busbw #wrong     time   "
		      "algbw   busbw #wrong\n  8589934592    2147483648     "
		      "float     sum      -1  40000.0  214.75  %6.2f      0  "
		      "40000.0  214.75  %6.2f      0\n", busbw, busbw);
	size_t len;
	return rm_buf_take(&b, &len);
}

/*
 * Each nccl-tests result on its tier. One host: NVLink, where NVLink
 * SHARP (NVLS) takes an H100's all_reduce_perf to ~480 GB/s busBw, past
 * the 450 a ring reaches: accepted up to twice nvlink_gbps, nvlink_eff
 * at most 1. More hosts: the network, busBw the NICs of a host's GPUs
 * together (8 x 400 Gb/s on H100), so one NIC's is busBw / GPUs per host.
 */
static void nccl_tiers(void)
{
	rm_hw base;
	CHECK_INT(rmi_hw_preset("h100-sxm-80gb", &base, NULL), RM_OK);
	static const struct {
		unsigned hosts, per;
		double busbw;
		bool network;
		double gbps, eff;     /* the link, the eff fitted; 0: refused */
		const char *says;
	} c[] = {
		{ 1, 8, 480, false, 480, 1, "one host, 8 GPUs (nvlink)" },
		{ 1, 8, 380, false, 380, 380 / 450.0, "" },
		{ 1, 8, 950, false, 950, 0, "950.00 GB/s is more than NVLink "
		  "can carry (900.00 GB/s, twice nvlink_gbps with NVLink "
		  "SHARP): give the right figure (nvlink_gbps)" },
		{ 2, 8, 360, true, 45, 0.9, "2 hosts x 8 GPUs (network): 45.00 "
		  "GB/s per GPU's NIC" },
		/* one link: NCCL_ALGO=Ring, one GPU per host */
		{ 4, 1, 46, true, 46, 0.92, "" },
		{ 2, 8, 480, true, 60, 0, "60.00 GB/s is more than a GPU's NIC "
		  "can carry (50.00 GB/s, nic_gbps)" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *text = nt_out(c[i].hosts, c[i].per, c[i].busbw);
		rm_cal_link l;
		rm_error err;
		CHECK_INT(rm_cal_nccl_tests(text, strlen(text), "ar.txt", &l, &err),
			  RM_OK);
		free(text);
		CHECK(l.network == c[i].network && l.per_host == c[i].per);
		NEAR(l.gbps, c[i].gbps, 1e-9);
		const char *key[] = { c[i].network ? "net_eff" : "nvlink_eff",
				      NULL };
		static rm_cal_fit fit;
		rm_status st = rm_calibrate(&base, NULL, 0, &l, 1, key, &fit, &err);
		CHECK_INT(st, c[i].eff > 0 ? RM_OK : RM_EINPUT);
		if (!st) {
			NEAR(c[i].network ? fit.hw.net_eff : fit.hw.nvlink_eff,
			     c[i].eff, 1e-9);
			NEAR(fit.link_eff[0], c[i].gbps / (c[i].network ? 50 : 450),
			     1e-9);
			CHECK_HAS(l.what, c[i].says);
		} else {
			CHECK_HAS(err.msg, c[i].says);
		}
	}
	/* without "# Rank" lines nothing says NVLink from network */
	const char *bare = "  8589934592    2147483648     float     sum      -1 "
			   " 40000.0  214.75  375.81      0  40000.0  214.75  "
			   "375.81      0\n";
	rm_cal_link l;
	rm_error err;
	CHECK_INT(rm_cal_nccl_tests(bare, strlen(bare), "b.txt", &l, &err),
		  RM_EINPUT);
	CHECK_HAS(err.msg, "b.txt: no '#  Rank N ... on HOST' lines");
}

/* A site's own hardware file as the starting point: the fit starts from
 * its figures and calibration, and the file written (every figure, key
 * and tier, no base) reads back as that hardware with the fitted key. */
static void file_base(void)
{
	static const char site[] =
		"name: \"our: cluster\"\nbase: a100-sxm-80gb\nnic_gbps: 25\n"
		"gemm_eff: 0.6\nattn_eff: 0.55\ntp_overlap: 0.5\ntiers:\n"
		"  - {name: leaf, gpus: 64, oversubscription: 2}\n"
		"  - {name: spine, gpus: 4096, gbps: 12.5}\n";
	rm_hw hw;
	rm_error err;
	CHECK_INT(rm_hw_parse_yaml(site, strlen(site), "site.yaml", &hw, &err),
		  RM_OK);
	char *text = nt_out(4, 1, 20);
	rm_cal_link l;
	CHECK_INT(rm_cal_nccl_tests(text, strlen(text), "ar.txt", &l, &err),
		  RM_OK);
	free(text);
	static rm_cal_fit fit;
	CHECK_INT(rm_calibrate(&hw, NULL, 0, &l, 1, NULL, &fit, &err), RM_OK);
	NEAR(fit.hw.net_eff, 20 / 25.0, 1e-9);   /* the file's NIC */
	char *yaml = NULL;
	size_t len = 0;
	CHECK_INT(rm_cal_write(&fit, NULL, NULL, 0, &l, 1, &yaml, &len, &err),
		  RM_OK);
	CHECK(yaml && !strstr(yaml, "\nbase:"));
	rm_hw back;
	CHECK_INT(rm_hw_parse_yaml(yaml, len, "out.yaml", &back, &err), RM_OK);
	free(yaml);
	CHECK_STR(back.name, "our: cluster");
	NEAR(back.net_eff, 0.8, 1e-9);
	NEAR(back.hbm_bytes, hw.hbm_bytes, 1e-9);
	NEAR(back.peak_flops, hw.peak_flops, 1e-9);
	CHECK(back.nvl_domain == hw.nvl_domain && back.ntiers == 2);
	CHECK(back.gemm_eff == 0.6 && back.attn_eff == 0.55 &&
	      back.tp_overlap == 0.5 && back.nvlink_eff == hw.nvlink_eff &&
	      back.hbm_eff == hw.hbm_eff && back.gemm_dim0 == hw.gemm_dim0 &&
	      back.nic_gbytes_per_s == 25 && back.hbm_gbytes_per_s ==
	      hw.hbm_gbytes_per_s);
	CHECK(back.tier[0].span_gpus == 64 && back.tier[0].gbytes_per_s == 25 &&
	      back.tier[0].oversubscription == 2);
	CHECK_STR(back.tier[1].name, "spine");
	CHECK(back.tier[1].gbytes_per_s == 12.5);
}

int main(void)
{
	RUN("calib", megatron_round_trip);
	RUN("calib", megatron_old_names);
	RUN("calib", megatron_unpriced);
	RUN("calib", nemo);
	RUN("calib", torchtitan_and_links);
	RUN("calib", nccl_tiers);
	RUN("calib", file_base);
	TEST_EXIT();
}
