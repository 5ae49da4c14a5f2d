/* SPDX-License-Identifier: Apache-2.0 */
/* test_moe.c - mixture-of-experts models against numbers worked by hand
 * and the sizes their authors published. */
#include "model/model_int.h"
#include "model/model_suggest.h"   /* RMI_REJECTS_SHOWN */
#include "test.h"
#include "model_setup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b, rel) CHECK(fabs((a) - (b)) <= (rel) * fabs(b))

/*
 * Mixtral 8x7B by hand. Per layer: attention 4096 x (4096 + 2 x 1024 +
 * 4096) = 41,943,040; 8 experts of 3 x 4096 x 14336 = 176,160,768 each,
 * 1,409,286,144; router 8 x 4096 = 32,768; two norms 8,192: 1,451,270,144,
 * x 32 = 46,440,644,608; embedding and untied head 2 x 32000 x 4096 =
 * 262,144,000; final norm 4,096: 46,702,792,704 (Mistral: 46.7B). A token
 * uses 2 of the 8 experts: 32 x (41,984,000 + 352,321,536) + 262,148,096
 * = 12,879,925,248 (12.9B).
 */
static void mixtral_by_hand(void)
{
	rm_model m;
	CHECK_INT(rm_model_preset("mixtral-8x7b", &m, NULL), RM_OK);
	NEAR(m.params, 46702792704.0, 1e-15);
	NEAR(m.active_params, 12879925248.0, 1e-15);
	CHECK_INT(rmi_moe_layers(&m), 32);
	double d, r;
	rmi_layer_split(&m, &d, &r);
	NEAR(d, 41984000.0, 1e-15);
	NEAR(r, 1409286144.0, 1e-15);
}

/* Every MoE preset against its authors' total and active counts. */
static void published_sizes(void)
{
	static const struct {
		const char *name;
		double total, active, tol;
	} row[] = {
		/* Mistral's 46.7B / 12.9B, 141B / 39B */
		{ "mixtral-8x7b", 46.7e9, 12.9e9, 0.005 },
		{ "mixtral-8x22b", 141e9, 39e9, 0.005 },
		/* Qwen3 technical report: 235B / 22B */
		{ "qwen3-235b-a22b", 235e9, 22e9, 0.01 },
		/* Meta's model card (text): 400B / 17B */
		{ "llama4-maverick", 400e9, 17e9, 0.015 },
	};
	for (size_t i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
		rm_model m;
		CHECK_INT(rm_model_preset(row[i].name, &m, NULL), RM_OK);
		NEAR(m.params, row[i].total, row[i].tol);
		NEAR(m.active_params, row[i].active, row[i].tol);
	}
	/* DeepSeek-V3 without its MTP module: 671B, 36.6B activated
	 * counting the output head and not the embedding lookup (its
	 * README_WEIGHTS: 37B rounded) */
	rm_model m;
	CHECK_INT(rm_model_preset("deepseek-v3", &m, NULL), RM_OK);
	NEAR(m.params, 671e9, 0.002);
	NEAR(m.active_params - rmi_model_edge_params(&m, true), 36.6e9, 0.005);
	/* MLA by hand: q 7168 x 1536 + 1536 + 1536 x 128 x 192; kv 7168 x
	 * 576 + 512 + 512 x 128 x 256; out 128 x 128 x 7168 */
	double q = 7168.0 * 1536 + 1536 + 1536.0 * 128 * 192;
	double kv = 7168.0 * 576 + 512 + 512.0 * 128 * 256;
	NEAR(rmi_attn_in_params(&m), q + kv, 1e-15);
	NEAR(rmi_attn_out_dim(&m), 128.0 * 128, 1e-15);
	CHECK_INT(rmi_moe_layers(&m), 58);
}

/* Model FLOPs per token: 6 x active parameters + 6 L a (qk + v) s, MLA's
 * qk head 192 and v head 128 (12 L a hd s where they are equal). */
static void flops_active(void)
{
	rm_model m;
	rm_hw hw;
	rm_train t;
	rm_layout l;
	rm_estimate e;
	rm_error err;
	model_setup("deepseek-v3", "gb200-nvl72", &m, &hw, &t);
	CHECK_INT(rm_train_set(&t, "batch", "15M", NULL), RM_OK);
	CHECK_INT(rm_layout_parse("tp=1,ep=8,pp=16,dp=auto", &l, NULL), RM_OK);
	CHECK_INT(rm_layout_resolve(&l, 2048, true, NULL), RM_OK);
	CHECK_INT(rmi_estimate_run(&m, &hw, &t, &l, &e, &err), RM_OK);
	double attn = 6.0 * 61 * 128 * (192 + 128) * 4096;
	NEAR(e.flops_token, 6 * m.active_params + attn, 1e-12);
	NEAR(e.flops_token_causal, 6 * m.active_params + attn / 2, 1e-12);
}

/*
 * Memory of Mixtral 8x7B as tp=1,ep=8,pp=4,dp=16 on 64 H100: a GPU holds
 * 8 layers of 41,984,000 dense + 1,409,286,144 / 8 = 176,160,768 routed
 * parameters (218,144,768). Megatron's distributed optimizer shards the
 * dense part over dp = 16 and the experts over edp = 16 / 8 = 2: 12 x
 * (41,984,000 / 16 + 176,160,768 / 2) = 1,088,452,608 bytes per layer.
 */
static void memory_by_hand(void)
{
	rm_model m;
	rm_hw hw;
	rm_train t;
	rm_layout l;
	rm_estimate e;
	rm_error err;
	model_setup("mixtral-8x7b", "h100-sxm-80gb", &m, &hw, &t);
	CHECK_INT(rm_layout_parse("tp=1,ep=8,pp=4,dp=auto", &l, NULL), RM_OK);
	CHECK_INT(rm_layout_resolve(&l, 64, true, NULL), RM_OK);
	CHECK_INT(rm_layout_dp(&l), 16);
	CHECK_INT(rm_layout_edp(&l), 2);
	CHECK_INT(rmi_estimate_run(&m, &hw, &t, &l, &e, &err), RM_OK);
	NEAR(rmi_layer_gpu(&m, &l), 218144768.0, 1e-15);
	NEAR(e.params_col, 8 * 218144768.0 + 32000.0 * 4096, 1e-15);
	NEAR(e.bytes_per_param[2] * 218144768.0, 1088452608.0, 1e-12);
	NEAR(e.bytes_per_param[0], 2.0, 1e-15);
	NEAR(e.bytes_per_param[1], 4.0, 1e-15);
	/* 1024 sequences over the framework's dp 16: 64 micro-batches */
	CHECK_INT(e.m, 64);
	/* the experts unsharded (ep 1) hold 8 x as many routed weights */
	CHECK_INT(rm_layout_parse("tp=1,pp=4,dp=auto", &l, NULL), RM_OK);
	CHECK_INT(rm_layout_resolve(&l, 64, true, NULL), RM_OK);
	NEAR(rmi_layer_gpu(&m, &l), 41984000.0 + 1409286144.0, 1e-15);
}

/*
 * The EP all-to-all of DeepSeek-V3 on 2,048 GB200, 15M tokens: 3,840
 * sequences, 30 micro-batches over dp 128; the fullest of 16 stages holds
 * 4 layers, 58/61 of them MoE. Per MoE layer and micro-batch a GPU sends
 * 4 x 4096 tokens x 8 x 7168 x 2 B x 7/8. EP as the innermost axis stays
 * inside a 72-GPU NVLink domain (900 GB/s x 0.65); outermost, every peer
 * is in another domain, over the 50 GB/s NIC x 0.9.
 */
static void ep_inside_and_across(void)
{
	rm_model m;
	rm_hw hw;
	rm_train t;
	rm_layout in, out;
	rm_estimate a, b;
	rm_error err;
	model_setup("deepseek-v3", "gb200-nvl72", &m, &hw, &t);
	CHECK_INT(rm_train_set(&t, "batch", "15M", NULL), RM_OK);
	CHECK_INT(rm_layout_parse("tp=1,ep=8,pp=16,dp=auto", &in, NULL), RM_OK);
	CHECK_INT(rm_layout_parse("pp=16,dp=auto,ep=8", &out, NULL), RM_OK);
	CHECK_INT(rm_layout_resolve(&in, 2048, true, NULL), RM_OK);
	CHECK_INT(rm_layout_resolve(&out, 2048, true, NULL), RM_OK);
	CHECK_INT(rmi_estimate_run(&m, &hw, &t, &in, &a, &err), RM_OK);
	CHECK_INT(rmi_estimate_run(&m, &hw, &t, &out, &b, &err), RM_OK);
	double bytes = 4 * 4096.0 * 8 * 7168 * 2 * 7 / 8 * (4 * 58.0 / 61) * 30;
	const rm_axis_cost *x = &a.axis[RM_AXIS_EP], *y = &b.axis[RM_AXIS_EP];
	NEAR(x->bytes, bytes, 1e-12);
	NEAR(y->bytes, bytes, 1e-12);
	CHECK_STR(x->link, "nvlink");
	CHECK(x->off_nvlink == 0);
	NEAR(x->seconds, bytes / (900 * 0.65 * 1e9), 1e-12);
	CHECK(y->off_nvlink == 1);
	CHECK(strcmp(y->link, "nvlink") != 0);
	NEAR(y->seconds, bytes / (50 * 0.9 * 1e9), 1e-12);
	/* nothing hidden by default: the whole of it on the critical path */
	NEAR(x->exposed, x->seconds, 1e-15);
	CHECK(b.t_step - a.t_step > y->seconds - x->seconds);
	printf("# deepseek-v3, 2048 x gb200: ep inside a domain %.3f s, across "
	       "%.3f s; step %.3f s vs %.3f s (+%.3f s)\n", x->seconds,
	       y->seconds, a.t_step, b.t_step, b.t_step - a.t_step);
	/* half of it hidden (moe_overlap 0.5), a 1.3 x busiest GPU */
	CHECK_INT(rm_train_set(&t, "moe_overlap", "0.5", NULL), RM_OK);
	CHECK_INT(rm_train_set(&t, "moe_imbalance", "1.3", NULL), RM_OK);
	CHECK_INT(rmi_estimate_run(&m, &hw, &t, &in, &a, &err), RM_OK);
	NEAR(a.axis[RM_AXIS_EP].bytes, 1.3 * bytes, 1e-12);
	NEAR(a.axis[RM_AXIS_EP].exposed, 0.5 * a.axis[RM_AXIS_EP].seconds, 1e-12);
	CHECK_INT(rm_train_set(&t, "moe_imbalance", "0.9", &err), RM_EINPUT);
}

/* Expert tensor parallelism gathers the routed tokens over its group:
 * (etp - 1) x what a GPU receives, 4 times per MoE layer, on the etp
 * group's links (inside the NVLink domain here). */
static void etp_traffic(void)
{
	rm_model m;
	rm_hw hw;
	rm_train t;
	rm_layout l;
	rm_estimate e;
	rm_error err;
	model_setup("mixtral-8x7b", "h100-sxm-80gb", &m, &hw, &t);
	CHECK_INT(rm_layout_parse("tp=2,ep=4,etp=2,pp=1,dp=auto", &l, NULL), RM_OK);
	CHECK_INT(rm_layout_resolve(&l, 64, true, NULL), RM_OK);
	CHECK_INT(rmi_estimate_run(&m, &hw, &t, &l, &e, &err), RM_OK);
	const rm_axis_cost *c = &e.axis[RM_AXIS_EP];
	/* 1024 sequences over dp 32: 32 micro-batches; 32 MoE layers; a
	 * GPU holds 4096 / 2 tokens */
	double unit = 2048.0 * 2 * 4096 * 2;
	NEAR(c->bytes, 4 * unit * 3.0 / 4 * 32 * 32, 1e-12);
	NEAR(c->etp_bytes, 4 * unit * 1 * 32 * 32, 1e-12);
	CHECK_STR(c->etp_link, "nvlink");
	NEAR(c->seconds, c->bytes / (c->gbytes_per_s * 1e9) +
	     c->etp_bytes / (c->etp_gbps * 1e9), 1e-12);
}

/* A dense model still refuses ep; a MoE model needs ep to divide its
 * experts and etp its expert FFN. */
static void refusals(void)
{
	rm_model m;
	rm_hw hw;
	rm_train t;
	rm_layout l;
	rm_estimate e;
	rm_error err;
	model_setup("llama3-8b", "h100-sxm-80gb", &m, &hw, &t);
	CHECK_INT(rm_layout_parse("tp=1,ep=8,dp=8", &l, NULL), RM_OK);
	CHECK_INT(rmi_estimate_run(&m, &hw, &t, &l, &e, &err), RM_EUNSUPPORTED);
	CHECK_HAS(err.msg, "this model is dense");
	model_setup("mixtral-8x7b", "h100-sxm-80gb", &m, &hw, &t);
	CHECK_INT(rm_layout_parse("tp=1,ep=16,dp=16", &l, NULL), RM_OK);
	CHECK_INT(rmi_estimate_run(&m, &hw, &t, &l, &e, &err), RM_EINPUT);
	CHECK_HAS(err.msg, "ep=16 does not divide the 8 experts");
	CHECK_INT(rm_layout_parse("tp=1,ep=8,dp=8", &l, NULL), RM_OK);
	CHECK_INT(rmi_estimate_run(&m, &hw, &t, &l, &e, &err), RM_OK);
}

/* A model file describes the same MoE model as the preset; its mistakes
 * are named. */
static void moe_files(void)
{
	const char *ok =
		"name: my-mixtral\nlayers: 32\nhidden: 4096\nffn: 14336\n"
		"heads: 32\nkv_heads: 8\nvocab: 32000\nseq_len: 4096\n"
		"experts: 8\ntop_k: 2\nexpert_ffn: 14336\n";
	rm_model m, p;
	rm_error err;
	CHECK_INT(rm_model_parse_yaml(ok, strlen(ok), "m.yaml", &m, &err), RM_OK);
	CHECK_INT(rm_model_preset("mixtral-8x7b", &p, NULL), RM_OK);
	NEAR(m.params, p.params, 1e-15);
	NEAR(m.active_params, p.active_params, 1e-15);
	/* DeepSeek-V3 as a file: MLA, a shared expert, 3 dense layers */
	const char *ds =
		"name: ds\nlayers: 61\nhidden: 7168\nffn: 18432\nheads: 128\n"
		"vocab: 129280\nseq_len: 4096\nexperts: 256\ntop_k: 8\n"
		"expert_ffn: 2048\nshared_experts: 1\nshared_ffn: 2048\n"
		"dense_layers: 3\nq_lora_rank: 1536\nkv_lora_rank: 512\n"
		"qk_nope_dim: 128\nqk_rope_dim: 64\nv_head_dim: 128\n";
	CHECK_INT(rm_model_parse_yaml(ds, strlen(ds), "ds.yaml", &m, &err), RM_OK);
	CHECK_INT(rm_model_preset("deepseek-v3", &p, NULL), RM_OK);
	NEAR(m.params, p.params, 1e-15);
	NEAR(m.active_params, p.active_params, 1e-15);
	CHECK_INT(m.head_dim, 192);
	static const struct { const char *extra, *msg; } bad[] = {
		{ "experts: 8\ntop_k: 9\nexpert_ffn: 64\n", "top_k" },
		{ "experts: 8\nexpert_ffn: 64\n", "needs top_k" },
		{ "top_k: 2\n", "needs experts" },
		{ "experts: 8\ntop_k: 2\nexpert_ffn: 64\ncapacity: 0.5\n",
		  "capacity=0.5" },
		{ "experts: 8\ntop_k: 2\nexpert_ffn: 64\ndense_layers: 4\n",
		  "no MoE layer" },
		{ "kv_lora_rank: 512\n", "MLA" },
		{ "experts: -1\n", "experts" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text), "name: b\nlayers: 4\nhidden: 64\n"
			 "ffn: 128\nheads: 4\nvocab: 100\nseq_len: 64\n%s",
			 bad[i].extra);
		memset(&err, 0, sizeof(err));
		CHECK_INT(rm_model_parse_yaml(text, strlen(text), "b.yaml", &m,
					      &err), RM_EINPUT);
		CHECK_HAS(err.msg, bad[i].msg);
	}
}

/*
 * suggest searches ep and etp for a MoE model: DeepSeek-V3 on 2,048 GB200
 * with its published batch ranks an expert-parallel layout first, with
 * its EP groups inside a rack, and the neighbour that doubles ep past the
 * 72-GPU domain loses on the EP all-to-all, which the reason says.
 */
static void suggest_moe(void)
{
	rm_model m;
	rm_hw hw;
	rm_train t;
	rm_error err;
	model_setup("deepseek-v3", "gb200-nvl72", &m, &hw, &t);
	CHECK_INT(rm_train_set(&t, "batch", "60M", NULL), RM_OK);
	rm_suggest_options o = RM_SUGGEST_OPTIONS_INIT;
	o.gpus = 2048;
	rm_suggestion *s = NULL;
	CHECK_INT(rm_suggest(&m, &hw, &t, &o, &s, &err), RM_OK);
	if (!s)
		return;
	const rm_estimate *e = rm_suggestion_estimate(s, 0);
	CHECK(rm_layout_ep(&e->layout) > 1);
	CHECK(rm_layout_ep(&e->layout) * rm_layout_etp(&e->layout) <= 72);
	CHECK_STR(e->axis[RM_AXIS_EP].link, "nvlink");
	bool told = false;
	for (size_t i = 0; i < s->nneighbour; i++) {
		const rm_candidate *c = &s->neighbour[i];
		if (strcmp(c->label, "ep x2") || !c->valid)
			continue;
		CHECK(rm_layout_ep(&c->est.layout) ==
		      2 * rm_layout_ep(&e->layout));
		CHECK_HAS(c->why, "most of it ep");
		told = strstr(c->why, "outside the NVLink domain") != NULL;
	}
	CHECK(told);
	rm_suggestion_free(s);
}

/* One ranked or rejected row of the shortcut search against the same row
 * of the reference search: the same layout at the same settings, to the
 * bit (both price with the same formulas; only the repeated work
 * differs). */
static void same_row(const rm_candidate *a, const rm_candidate *b)
{
	CHECK(!memcmp(&a->est.layout, &b->est.layout, sizeof(a->est.layout)));
	CHECK(a->est.t_step == b->est.t_step);
	CHECK(a->est.mem_peak == b->est.mem_peak);
	CHECK_INT(a->est.micro_batch, b->est.micro_batch);
	CHECK_INT(a->est.schedule, b->est.schedule);
	CHECK_INT(a->est.vchunks, b->est.vchunks);
	CHECK_INT(a->est.recompute, b->est.recompute);
	CHECK_INT(a->est.recompute_layers, b->est.recompute_layers);
	CHECK_STR(a->est.axis[RM_AXIS_EP].link, b->est.axis[RM_AXIS_EP].link);
	CHECK(a->est.axis[RM_AXIS_EP].exposed == b->est.axis[RM_AXIS_EP].exposed);
	CHECK_STR(a->why, b->why);
}

/*
 * suggest's shortcuts for a MoE model (the EP links found once per
 * layout, memory before time, only what the report can show timed)
 * must not change its answer: against the reference search, which
 * prices every pair from scratch, the same counts, every ranked row
 * suggest keeps and the rejected rows the report lists, and the same
 * report (top 10, neighbours and why they lost), on three MoE models at
 * two GPU counts.
 */
static void suggest_shortcuts(void)
{
	static const char *model[] = { "deepseek-v3", "qwen3-235b-a22b",
				       "mixtral-8x22b" };
	static const uint64_t gpus[] = { 2048, 16384 };
	for (size_t i = 0; i < 3; i++)
		for (size_t g = 0; g < 2; g++) {
			rm_model m;
			rm_hw hw;
			rm_train t;
			rm_error err;
			model_setup(model[i], "h100-sxm-80gb", &m, &hw, &t);
			rm_suggest_options o = RM_SUGGEST_OPTIONS_INIT;
			o.gpus = gpus[g];
			o.top = 10;
			rm_suggestion *s[2] = { NULL, NULL };
			char *txt[2] = { NULL, NULL };
			size_t len[2];
			for (int r = 0; r < 2; r++) {
				CHECK_INT(rmi_suggest_reference(&m, &hw, &t, &o,
								r, &s[r], &err),
					  RM_OK);
				if (s[r])
					CHECK_INT(rm_suggestion_write(
						&m, &hw, &t, &o, s[r],
						RM_FMT_TEXT, &txt[r],
						&len[r], &err), RM_OK);
			}
			if (s[0] && s[1]) {
				CHECK(s[0]->considered == s[1]->considered);
				CHECK(s[0]->rejected_mem == s[1]->rejected_mem);
				CHECK(s[0]->rejected_other ==
				      s[1]->rejected_other);
				CHECK(s[0]->nfit == s[1]->nfit);
				CHECK(s[1]->nranked == s[1]->nfit);
				CHECK(s[0]->nranked <= s[1]->nranked);
				/* it keeps the rejects the report lists, the
				 * nearest to fitting; the reference all */
				CHECK(s[0]->nrejected ==
				      (s[1]->nrejected < RMI_REJECTS_SHOWN ?
				       s[1]->nrejected : RMI_REJECTS_SHOWN));
				/* the search ranks as far as the report
				 * reaches, and prices the 5 rejects it lists */
				for (size_t k = 0; k < s[0]->nranked &&
						   k < s[1]->nranked; k++)
					same_row(&s[0]->ranked[k],
						 &s[1]->ranked[k]);
				for (size_t k = 0; k < s[0]->nrejected &&
						   k < s[1]->nrejected && k < 5; k++)
					same_row(&s[0]->rejected[k],
						 &s[1]->rejected[k]);
				/* the layouts a MoE search ranks use ep */
				CHECK(rm_layout_ep(&s[0]->ranked[0].est.layout) > 1);
			}
			if (txt[0] && txt[1])
				CHECK_STR(txt[0], txt[1]);
			for (int r = 0; r < 2; r++) {
				free(txt[r]);
				rm_suggestion_free(s[r]);
			}
		}
}

int main(void)
{
	RUN("moe", mixtral_by_hand);
	RUN("moe", published_sizes);
	RUN("moe", flops_active);
	RUN("moe", memory_by_hand);
	RUN("moe", ep_inside_and_across);
	RUN("moe", etp_traffic);
	RUN("moe", refusals);
	RUN("moe", moe_files);
	RUN("moe", suggest_moe);
	RUN("moe", suggest_shortcuts);
	TEST_EXIT();
}
