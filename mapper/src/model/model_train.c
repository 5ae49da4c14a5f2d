/* SPDX-License-Identifier: Apache-2.0 */
/* model_train.c - training assumptions: defaults and key=value settings. */
#include "model/model_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Defaults are those of a modern Megatron-Core run: distributed optimizer
 * (ZeRO-1 over DP with fp32 master weights and fp32 main gradients, 6 +
 * 12/d bytes per parameter), selective recomputation with flash attention,
 * sequence parallelism with TP. The failure rate is Llama 3's: 419
 * unexpected interruptions in 54 days on 16,384 H100 (arXiv 2407.21783,
 * table 5), 4.74e-4 per GPU per day. Checkpoint write and restart times are
 * round figures. Calibration constants default to the hardware's (0 here).
 * Every value is printed and settable.
 */
/* The defaults of the current version, whatever the caller asked for:
 * rm_train_init copies the part its version has. */
void rmi_train_defaults(rm_train *t)
{
	memset(t, 0, sizeof(*t));
	t->version = RM_TRAIN_VERSION;
	t->batch_tokens = 4u << 20;
	t->micro_batch = 1;
	t->schedule = RM_SCHED_1F1B;
	t->vchunks = 1;
	t->recompute = RM_RECOMPUTE_SELECTIVE;
	t->sharding = RM_SHARD_ZERO1;
	t->grad_bytes = 4;
	t->gemm_dim0 = -1;           /* the hardware's */
	t->dp_overlap = 1.0;
	t->tp_overlap = -1;          /* the hardware's */
	t->mem_reserve_bytes = 4 * RMI_GIB;
	t->flash = true;
	t->seq_parallel = true;
	t->fail_per_gpu_day = 419.0 / (54.0 * 16384.0);
	t->ckpt_write_s = 60;
	t->restart_s = 600;
	t->moe_imbalance = 1.0;
}

const char *rm_schedule_name(rm_schedule s)
{
	switch (s) {
	case RM_SCHED_1F1B: return "1f1b";
	case RM_SCHED_INTERLEAVED: return "interleaved";
	case RM_SCHED_ZBH1: return "zb-h1";
	case RM_SCHED_ZBV: return "zb-v";
	case RM_SCHED_ZBH2: return "zb-h2";
	}
	return "?";
}

const char *rm_recompute_name(rm_recompute r)
{
	switch (r) {
	case RM_RECOMPUTE_NONE: return "none";
	case RM_RECOMPUTE_SELECTIVE: return "selective";
	case RM_RECOMPUTE_FULL: return "full";
	}
	return "?";
}

uint32_t rmi_chunks(const rm_train *t)
{
	return t->schedule == RM_SCHED_INTERLEAVED ? t->vchunks :
	       t->schedule == RM_SCHED_ZBV ? 2 : 1;
}

/* Megatron's --recompute-num-layers counts in each model chunk (one
 * TransformerBlock per virtual stage): K per chunk is K x v per stage. */
double rmi_full_share(const rm_train *t, uint32_t ls)
{
	if (t->recompute != RM_RECOMPUTE_FULL)
		return 0;
	uint64_t k = (uint64_t)t->recompute_layers * rmi_chunks(t);
	if (!k || k >= ls || !ls)
		return 1;
	return (double)k / ls;
}

const char *rmi_recompute_label(rm_recompute r, uint32_t k, char buf[24])
{
	if (r == RM_RECOMPUTE_FULL && k)
		snprintf(buf, 24, "full:%u", k);
	else
		snprintf(buf, 24, "%s", rm_recompute_name(r));
	return buf;
}

const char *rmi_schedule_label(rm_schedule s, uint32_t v, char buf[24])
{
	if (s == RM_SCHED_INTERLEAVED)
		snprintf(buf, 24, "interleaved:%u", v);
	else
		snprintf(buf, 24, "%s", rm_schedule_name(s));
	return buf;
}

const char *rm_sharding_name(rm_sharding s)
{
	switch (s) {
	case RM_SHARD_NONE: return "none";
	case RM_SHARD_ZERO1: return "zero1";
	case RM_SHARD_ZERO2: return "zero2";
	case RM_SHARD_FSDP: return "fsdp";
	}
	return "?";
}

static rm_status bad(rm_error *err, const char *key, const char *val,
		     const char *want)
{
	char q[96];
	return rmi_err(err, RM_EINPUT, "%s=%s: expected %s", key,
		       rm_quote(val, strlen(val), q, sizeof(q)), want);
}

/* Whole number with an optional binary suffix: 16M = 16 * 2^20. */
static bool parse_count(const char *s, uint64_t max, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || v == 0 || v > (max >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

static bool parse_real(const char *s, double lo, double hi, double *out)
{
	if (!s || !*s)
		return false;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static rm_status set_schedule(rm_train *t, const char *v, rm_error *err)
{
	const char *want = "1f1b, interleaved:V (V = 2..64 chunks per GPU), "
			   "zb-h1, zb-h2 or zb-v";
	if (!strcmp(v, "1f1b")) {
		t->schedule = RM_SCHED_1F1B;
		t->vchunks = 1;
	} else if (!strcmp(v, "zb-h1")) {
		t->schedule = RM_SCHED_ZBH1;
		t->vchunks = 1;
	} else if (!strcmp(v, "zb-h2")) {
		t->schedule = RM_SCHED_ZBH2;
		t->vchunks = 1;
	} else if (!strcmp(v, "zb-v")) {
		t->schedule = RM_SCHED_ZBV;
		t->vchunks = 2;
	} else if (!strncmp(v, "interleaved", 11)) {
		uint64_t c = 2;
		if (v[11] == ':' && !parse_count(v + 12, 64, &c))
			return bad(err, "schedule", v, want);
		if ((v[11] && v[11] != ':') || c < 2)
			return bad(err, "schedule", v, want);
		t->schedule = RM_SCHED_INTERLEAVED;
		t->vchunks = (uint32_t)c;
	} else {
		return bad(err, "schedule", v, want);
	}
	return RM_OK;
}

/* The settings that are a number in [lo, hi] stored as it is; `zero`
 * false: 0 is refused too (an efficiency of 0 would divide by it). True
 * when `key` is one of them (*st then says how it went). */
static bool set_real(rm_train *t, const char *key, const char *v,
		     rm_status *st, rm_error *err)
{
	static const char frac0[] = "a fraction in [0, 1]",
			  frac[] = "a fraction in (0, 1]";
	static const struct {
		const char *key;
		size_t off;
		double lo, hi;
		bool zero;
		const char *want;
	} f[] = {
		{ "grad_bytes", offsetof(rm_train, grad_bytes), 1, 8, true,
		  "bytes per gradient element in [1, 8]" },
		{ "gemm_eff", offsetof(rm_train, gemm_eff), 0, 1, false, frac },
		{ "attn_eff", offsetof(rm_train, attn_eff), 0, 1, false, frac },
		{ "hbm_eff", offsetof(rm_train, hbm_eff), 0, 1, false, frac },
		{ "nvlink_eff", offsetof(rm_train, nvlink_eff), 0, 1, false,
		  frac },
		{ "net_eff", offsetof(rm_train, net_eff), 0, 1, false, frac },
		{ "dp_overlap", offsetof(rm_train, dp_overlap), 0, 1, true,
		  frac0 },
		{ "tp_overlap", offsetof(rm_train, tp_overlap), 0, 1, true,
		  frac0 },
		{ "gemm_dim0", offsetof(rm_train, gemm_dim0), 0, 65536, true,
		  "a GEMM dimension in [0, 65536]" },
		{ "fail_per_gpu_day", offsetof(rm_train, fail_per_gpu_day), 0,
		  1, true, "interruptions per GPU per day in [0, 1]" },
		{ "ckpt_write_s", offsetof(rm_train, ckpt_write_s), 0, 1e6,
		  true, "seconds in [0, 1e6]" },
		{ "restart_s", offsetof(rm_train, restart_s), 0, 1e6, true,
		  "seconds in [0, 1e6]" },
		{ "moe_overlap", offsetof(rm_train, moe_overlap), 0, 1, true,
		  frac0 },
		{ "moe_imbalance", offsetof(rm_train, moe_imbalance), 1, 64,
		  true, "a factor in [1, 64]" },
		{ "coll_base_us", offsetof(rm_train, coll_base_us), 0, 1e6,
		  true, "microseconds in [0, 1e6]" },
		{ "coll_hop_us", offsetof(rm_train, coll_hop_us), 0, 1e6,
		  true, "microseconds in [0, 1e6]" },
		{ "jitter", offsetof(rm_train, jitter), 0, 1, true,
		  "a spread (standard deviation / mean) in [0, 1]" },
		{ "data_s", offsetof(rm_train, data_s), 0, 1e6, true,
		  "seconds in [0, 1e6]" },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (strcmp(key, f[i].key))
			continue;
		double x;
		if (!parse_real(v, f[i].lo, f[i].hi, &x) ||
		    (x == 0 && !f[i].zero))
			*st = bad(err, key, v, f[i].want);
		else
			*st = (*(double *)((char *)t + f[i].off) = x, RM_OK);
		return true;
	}
	return false;
}

static const rmi_word recompute_words[] = {
	{ "none", RM_RECOMPUTE_NONE },
	{ "selective", RM_RECOMPUTE_SELECTIVE },
	{ "full", RM_RECOMPUTE_FULL },
	{ NULL, 0 }
};
/* zero3 is DeepSpeed's name for what FSDP does. */
static const rmi_word sharding_words[] = {
	{ "none", RM_SHARD_NONE }, { "zero1", RM_SHARD_ZERO1 },
	{ "zero2", RM_SHARD_ZERO2 }, { "fsdp", RM_SHARD_FSDP },
	{ "zero3", RM_SHARD_FSDP }, { NULL, 0 }
};

/* A token budget: a decimal count with an optional decimal suffix
 * (15.6T = 15.6e12 tokens, as budgets are quoted), at least 1. */
static bool parse_tokens(const char *s, double *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	static const char sfx[] = "KMGT";
	const char *k = *end ? strchr(sfx, toupper((unsigned char)*end)) : NULL;
	if (k) {
		v *= pow(1e3, (double)(k - sfx + 1));
		end++;
	}
	if (errno || end == s || *end || !isfinite(v) || v < 1 || v > 1e18)
		return false;
	*out = v;
	return true;
}

/* The first version that has a key's field (1: every version). */
static unsigned key_version(const char *key)
{
	static const char *const v4[] = { "coll_base_us", "coll_hop_us",
					  "jitter", "data_s", "tokens" };
	if (!strncmp(key, "moe_", 4))
		return 2;
	if (!strncmp(key, "fp8", 3))
		return 3;
	for (size_t i = 0; i < sizeof(v4) / sizeof(v4[0]); i++)
		if (!strcmp(key, v4[i]))
			return 4;
	return 1;
}

rm_status rm_train_set(rm_train *t, const char *key, const char *v,
		       rm_error *err)
{
	/* a caller built against an older version sets the fields it has */
	unsigned kv = key_version(key ? key : "");
	if (t && t->version >= 1 && t->version < kv)
		return rmi_err(err, RM_EUNSUPPORTED, "%s: an rm_train of version "
			       "%u has no such field (version %u does)", key,
			       t->version, kv);
	if (!t || t->version < 1 || t->version > RM_TRAIN_VERSION)
		return rmi_err(err, RM_EUNSUPPORTED, "rm_train version %u: "
			       "set it with rm_train_init",
			       t ? t->version : 0);
	rm_status st = RM_OK;
	char q[96];
	uint64_t n;
	double x;
	int k;
	if (!key || !v)
		return rmi_err(err, RM_EINPUT, "setting without key or value");
	if (!strcmp(key, "batch") || !strcmp(key, "batch_tokens")) {
		if (!parse_count(v, 1ull << 40, &n))
			return bad(err, key, v, "a token count >= 1 (16M = 16*2^20)");
		t->batch_tokens = n;
	} else if (!strcmp(key, "seq") || !strcmp(key, "seq_len")) {
		if (!parse_count(v, 1u << 24, &n))
			return bad(err, key, v, "a sequence length in [1, 2^24]");
		t->seq_len = (uint32_t)n;
	} else if (!strcmp(key, "mb") || !strcmp(key, "micro_batch")) {
		if (!parse_count(v, 65536, &n))
			return bad(err, key, v, "sequences per micro-batch in [1, 65536]");
		t->micro_batch = (uint32_t)n;
	} else if (!strcmp(key, "schedule")) {
		return set_schedule(t, v, err);
	} else if (!strcmp(key, "recompute")) {
		if ((k = rmi_word_find(v, recompute_words)) < 0)
			return bad(err, key, v, "none, selective or full");
		t->recompute = (rm_recompute)k;
	} else if (!strcmp(key, "sharding")) {
		if ((k = rmi_word_find(v, sharding_words)) < 0)
			return bad(err, key, v, "none, zero1, zero2 or fsdp");
		t->sharding = (rm_sharding)k;
	} else if (set_real(t, key, v, &st, err) ||
		   rmi_fp8_set(t, key, v, &st, err)) {
		return st;
	} else if (!strcmp(key, "flash") || !strcmp(key, "seq_parallel")) {
		bool on = !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "on");
		if (!on && strcmp(v, "0") && strcmp(v, "false") && strcmp(v, "off"))
			return bad(err, key, v, "1/true/on or 0/false/off");
		if (!strcmp(key, "flash"))
			t->flash = on;
		else
			t->seq_parallel = on;
	} else if (!strcmp(key, "recompute_layers")) {
		if (!parse_real(v, 0, 100000, &x) || x != floor(x))
			return bad(err, key, v, "layers per stage in [0, 100000] "
				   "(0 = all)");
		t->recompute_layers = (uint32_t)x;
	} else if (!strcmp(key, "first_layers") || !strcmp(key, "last_layers")) {
		if (!parse_count(v, 100000, &n))
			return bad(err, key, v, "a layer count in [1, 100000]");
		if (!strcmp(key, "first_layers"))
			t->first_layers = (uint32_t)n;
		else
			t->last_layers = (uint32_t)n;
	} else if (!strcmp(key, "tokens")) {
		if (!parse_tokens(v, &x))
			return bad(err, key, v, "a token count >= 1 (15.6T = "
				   "15.6e12; K/M/G/T decimal)");
		t->tokens = x;
	} else if (!strcmp(key, "mem_reserve_gib")) {
		if (!parse_real(v, 0, 1e6, &x))
			return bad(err, key, v, "GiB in [0, 1e6]");
		t->mem_reserve_bytes = x * RMI_GIB;
	} else {
		return rmi_err(err, RM_ENOTFOUND,
			       "unknown setting %s (known: batch, seq, mb, "
			       "schedule, recompute, sharding, grad_bytes, "
			       "gemm_eff, gemm_dim0, attn_eff, hbm_eff, "
			       "nvlink_eff, net_eff, dp_overlap, tp_overlap, "
			       "mem_reserve_gib, flash, seq_parallel, "
			       "recompute_layers, "
			       "first_layers, last_layers, fail_per_gpu_day, "
			       "ckpt_write_s, restart_s, moe_overlap, "
			       "moe_imbalance, fp8, fp8_recipe, fp8_params, "
			       "fp8_dispatch, fp8_eff, coll_base_us, "
			       "coll_hop_us, jitter, data_s, tokens)",
			       rm_quote(key, strlen(key), q, sizeof(q)));
	}
	return RM_OK;
}
