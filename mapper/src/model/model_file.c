/* SPDX-License-Identifier: Apache-2.0 */
/* model_file.c - model and hardware descriptions from YAML (or JSON) files. */
#include "model/model_int.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const model_keys[] = {
	"name", "layers", "hidden", "ffn", "heads", "kv_heads", "head_dim",
	"vocab", "seq_len", "gated_ffn", "bias", "learned_pos",
	"tied_embeddings", "params", "experts", "top_k", "expert_ffn",
	"shared_experts", "shared_ffn", "dense_layers", "moe_every",
	"capacity", "q_lora_rank", "kv_lora_rank", "qk_nope_dim",
	"qk_rope_dim", "v_head_dim", NULL
};

static rm_status get_u32(const rmi_ynode *map, const char *file,
			 const char *key, bool need, uint64_t max,
			 uint32_t *out, rm_error *err)
{
	const rmi_ynode *n = rmi_y_get(map, key);
	if (!n) {
		if (need)
			return rmi_err_at(err, RM_EINPUT, file, map->line,
					  map->col, "%s is missing", key);
		return RM_OK;
	}
	uint64_t v;
	rm_status st = rmi_y_u64(n, file, key, 1, max, &v, err);
	if (!st)
		*out = (uint32_t)v;
	return st;
}

static rm_status get_bool(const rmi_ynode *map, const char *file,
			  const char *key, bool *out, rm_error *err)
{
	const rmi_ynode *n = rmi_y_get(map, key);
	return n ? rmi_y_bool(n, file, key, out, err) : RM_OK;
}

/* The mixture-of-experts and MLA keys (all optional; experts absent =
 * dense, kv_lora_rank absent = no MLA). */
static rm_status get_moe(const rmi_ynode *r, const char *f, rm_model *o,
			 rm_error *err)
{
	const struct { const char *key; uint64_t max; uint32_t *out; } u[] = {
		{ "experts", 65536, &o->experts },
		{ "top_k", 65536, &o->top_k },
		{ "expert_ffn", 1u << 22, &o->expert_ffn },
		{ "shared_experts", 64, &o->shared_experts },
		{ "shared_ffn", 1u << 22, &o->shared_ffn },
		{ "moe_every", 1024, &o->moe_every },
		{ "q_lora_rank", 65536, &o->q_lora_rank },
		{ "kv_lora_rank", 65536, &o->kv_lora_rank },
		{ "qk_nope_dim", 65536, &o->qk_nope_dim },
		{ "qk_rope_dim", 65536, &o->qk_rope_dim },
		{ "v_head_dim", 65536, &o->v_head_dim },
	};
	rm_status st = RM_OK;
	for (size_t i = 0; !st && i < sizeof(u) / sizeof(u[0]); i++)
		st = get_u32(r, f, u[i].key, false, u[i].max, u[i].out, err);
	/* 0 leading dense layers is a value, not a missing one */
	const rmi_ynode *n = rmi_y_get(r, "dense_layers");
	uint64_t v = 0;
	if (!st && n)
		st = rmi_y_u64(n, f, "dense_layers", 0, 100000, &v, err);
	o->dense_layers = (uint32_t)v;
	n = rmi_y_get(r, "capacity");
	if (!st && n)
		st = rmi_y_double(n, f, "capacity", 0, 64, &o->capacity, err);
	if (!st && n && o->capacity > 0 && o->capacity < 1)
		st = rmi_err_at(err, RM_EINPUT, f, n->line, n->col,
				"capacity=%g: a capacity factor is 0 (dropless) "
				"or at least 1", o->capacity);
	const char *need = !o->experts && (rmi_y_get(r, "top_k") ||
		rmi_y_get(r, "expert_ffn") || rmi_y_get(r, "shared_experts")) ?
		"experts" : o->experts && !o->top_k ? "top_k" :
		o->experts && !o->expert_ffn ? "expert_ffn" : NULL;
	if (!st && need)
		st = rmi_err_at(err, RM_EINPUT, f, r->line, r->col,
				"a mixture of experts needs %s", need);
	return st;
}

static void set_name(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src);
}

/*
 * The part model and hardware files share: a map of `keys` whose name
 * (else the file's) goes to name[n]. *root is NULL when nothing loaded;
 * otherwise the caller frees it, whatever the status.
 */
static rm_status load_doc(const char *text, size_t len, const char *f,
			  const char *what, const char *const *keys,
			  char *name, size_t n, rmi_ynode **root,
			  rm_error *err)
{
	*root = NULL;
	rm_status st = rmi_yaml_load(text, len, f, root, err);
	if (st)
		return st;
	const rmi_ynode *r = *root;
	st = rmi_y_kind(r, f, what, RMI_Y_MAP, err);
	if (!st)
		st = rmi_y_keys(r, f, what, keys, err);
	const char *s = NULL;
	if (!st && rmi_y_get(r, "name"))
		st = rmi_y_str(rmi_y_get(r, "name"), f, "name", &s, err);
	set_name(name, n, s ? s : f);
	return st;
}

rm_status rm_model_parse_yaml(const char *text, size_t len, const char *name,
			      rm_model *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	out->version = RM_MODEL_VERSION;
	const char *f = name ? name : "<model>";
	rmi_ynode *root;
	rm_status st = load_doc(text, len, f, "model file", model_keys,
				out->name, sizeof(out->name), &root, err);
	if (!root)
		return st;
	const rmi_ynode *r = root;
	out->swiglu = true;
	if (!st)
		st = get_u32(r, f, "layers", true, 100000, &out->layers, err);
	if (!st)
		st = get_u32(r, f, "hidden", true, 1u << 20, &out->hidden, err);
	if (!st)
		st = get_u32(r, f, "ffn", true, 1u << 22, &out->ffn, err);
	if (!st)
		st = get_u32(r, f, "heads", true, 65536, &out->heads, err);
	out->kv_heads = out->heads;
	if (!st)
		st = get_u32(r, f, "kv_heads", false, 65536, &out->kv_heads, err);
	if (!st && out->hidden % out->heads && !rmi_y_get(r, "head_dim"))
		st = rmi_err_at(err, RM_EINPUT, f, r->line, r->col,
				"heads=%u does not divide hidden=%u: give "
				"head_dim", out->heads, out->hidden);
	if (!st)
		out->head_dim = out->hidden / out->heads;
	if (!st)
		st = get_u32(r, f, "head_dim", false, 65536, &out->head_dim, err);
	if (!st)
		st = get_u32(r, f, "vocab", true, 1u << 24, &out->vocab, err);
	if (!st)
		st = get_u32(r, f, "seq_len", true, 1u << 24, &out->seq_len, err);
	if (!st)
		st = get_bool(r, f, "gated_ffn", &out->swiglu, err);
	if (!st)
		st = get_bool(r, f, "bias", &out->bias, err);
	if (!st)
		st = get_bool(r, f, "learned_pos", &out->learned_pos, err);
	if (!st)
		st = get_bool(r, f, "tied_embeddings", &out->tied_embeddings, err);
	if (!st)
		st = get_moe(r, f, out, err);
	if (!st && out->kv_lora_rank && out->qk_nope_dim + out->qk_rope_dim)
		out->head_dim = out->qk_nope_dim + out->qk_rope_dim;
	if (!st) {
		const rmi_ynode *p = rmi_y_get(r, "params");
		out->params = rm_model_derive_params(out);
		out->active_params = rmi_model_derive_active(out);
		if (p) {
			double derived = out->params;
			st = rmi_y_double(p, f, "params", 1, 1e15, &out->params,
					  err);
			out->params_given = true;
			/* a given count scales what a token uses alike */
			out->active_params *= out->params / derived;
		}
	}
	if (!st && out->kv_heads > out->heads)
		st = rmi_err_at(err, RM_EINPUT, f, rmi_y_get(r, "kv_heads")->line,
				rmi_y_get(r, "kv_heads")->col,
				"kv_heads=%u is more than heads=%u",
				out->kv_heads, out->heads);
	if (!st && out->heads % out->kv_heads)
		st = rmi_err_at(err, RM_EINPUT, f, rmi_y_get(r, "kv_heads")->line,
				rmi_y_get(r, "kv_heads")->col,
				"kv_heads=%u does not divide heads=%u",
				out->kv_heads, out->heads);
	rmi_yaml_free(root);
	if (!st)
		st = rm_model_check(out, err);
	return st;
}

static const char *const hw_keys[] = {
	"name", "hbm_gb", "hbm_gib", "peak_tflops", "nvlink_gbps",
	"nvlink_domain", "nic_gbps", "tiers", "hbm_gbps", "gemm_eff",
	"gemm_dim0", "attn_eff", "hbm_eff", "nvlink_eff", "net_eff",
	"tp_overlap", "peak_fp8_tflops", "peak_fp4_tflops", "fp8_eff", "base",
	NULL
};

/* The keys a file without `base` must give, each with its documented
 * range: the calibration is a GPU's own, never another GPU's default. */
static const struct {
	const char *key;
	double lo, hi;
	bool open_lo;  /* lo itself excluded */
	size_t off;
} cal_keys[] = {
	{ "hbm_gbps", 0, 1e6, true, offsetof(rm_hw, hbm_gbytes_per_s) },
	{ "gemm_eff", 0, 1, true, offsetof(rm_hw, gemm_eff) },
	{ "gemm_dim0", 0, 65536, false, offsetof(rm_hw, gemm_dim0) },
	{ "attn_eff", 0, 1, true, offsetof(rm_hw, attn_eff) },
	{ "hbm_eff", 0, 1, true, offsetof(rm_hw, hbm_eff) },
	{ "nvlink_eff", 0, 1, true, offsetof(rm_hw, nvlink_eff) },
	{ "net_eff", 0, 1, true, offsetof(rm_hw, net_eff) },
	{ "tp_overlap", 0, 1, false, offsetof(rm_hw, tp_overlap) },
};
static const char *const tier_keys[] = {
	"name", "gpus", "gbps", "oversubscription", NULL
};

static rm_status get_real(const rmi_ynode *map, const char *file,
			  const char *key, bool need, double *out,
			  rm_error *err)
{
	const rmi_ynode *n = rmi_y_get(map, key);
	if (!n)
		return need ? rmi_err_at(err, RM_EINPUT, file, map->line,
					 map->col, "%s is missing", key)
			    : RM_OK;
	return rmi_y_double(n, file, key, 1e-9, 1e9, out, err);
}

static rm_status parse_tier(const rmi_ynode *t, const char *f, rm_hw_tier *o,
			    double nic, rm_error *err)
{
	rm_status st = rmi_y_kind(t, f, "tier", RMI_Y_MAP, err);
	if (!st)
		st = rmi_y_keys(t, f, "tier", tier_keys, err);
	const char *s = NULL;
	if (!st)
		st = rmi_y_str(rmi_y_get(t, "name"), f, "tier name", &s, err);
	if (!st)
		set_name(o->name, sizeof(o->name), s);
	uint64_t g = 0;
	if (!st && !rmi_y_get(t, "gpus"))
		st = rmi_err_at(err, RM_EINPUT, f, t->line, t->col,
				"tier %s: gpus is missing", o->name);
	if (!st)
		st = rmi_y_u64(rmi_y_get(t, "gpus"), f, "tier gpus", 1,
			       RM_MAX_WORLD, &g, err);
	o->span_gpus = g;
	o->gbytes_per_s = nic;
	o->oversubscription = 1.0;
	if (!st)
		st = get_real(t, f, "gbps", false, &o->gbytes_per_s, err);
	if (!st && rmi_y_get(t, "oversubscription"))
		st = rmi_y_double(rmi_y_get(t, "oversubscription"), f,
				  "oversubscription", 1, 1000,
				  &o->oversubscription, err);
	return st;
}

static rm_status get_cal(const rmi_ynode *r, const char *f, size_t i,
			 rm_hw *out, rm_error *err)
{
	const rmi_ynode *n = rmi_y_get(r, cal_keys[i].key);
	double *v = (double *)((char *)out + cal_keys[i].off);
	rm_status st = rmi_y_double(n, f, cal_keys[i].key, cal_keys[i].lo,
				    cal_keys[i].hi, v, err);
	if (!st && cal_keys[i].open_lo && !(*v > cal_keys[i].lo))
		st = rmi_err_at(err, RM_EINPUT, f, n->line, n->col,
				"%s=%g must be in (%g, %g]", cal_keys[i].key,
				*v, cal_keys[i].lo, cal_keys[i].hi);
	return st;
}

/* `base: PRESET`: the preset's figures, tiers and calibration, which the
 * file's own keys then override. */
static rm_status get_base(const rmi_ynode *r, const char *f, rm_hw *out,
			  bool *based, rm_error *err)
{
	const rmi_ynode *n = rmi_y_get(r, "base");
	*based = n != NULL;
	if (!n)
		return RM_OK;
	const char *s = NULL;
	rm_status st = rmi_y_str(n, f, "base", &s, err);
	if (st)
		return st;
	char name[sizeof(out->name)];
	memcpy(name, out->name, sizeof(name));
	rm_error e2;
	if (rmi_hw_preset(s, out, &e2))
		return rmi_err_at(err, RM_EINPUT, f, n->line, n->col, "base: %s",
				  e2.msg);
	memcpy(out->name, name, sizeof(name));
	return RM_OK;
}

rm_status rm_hw_parse_yaml(const char *text, size_t len, const char *name,
			   rm_hw *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	out->version = RM_HW_VERSION;
	const char *f = name ? name : "<hardware>";
	rmi_ynode *root;
	rm_status st = load_doc(text, len, f, "hardware file", hw_keys,
				out->name, sizeof(out->name), &root, err);
	if (!root)
		return st;
	const rmi_ynode *r = root;
	bool based = false;
	if (!st)
		st = get_base(r, f, out, &based, err);
	double gb = 0, gib = 0, tf = out->peak_flops / 1e12;
	if (!st)
		st = get_real(r, f, "hbm_gb", false, &gb, err);
	if (!st)
		st = get_real(r, f, "hbm_gib", false, &gib, err);
	if (!st && (gb > 0 && gib > 0))
		st = rmi_err_at(err, RM_EINPUT, f, r->line, r->col,
				"give only one of hbm_gb and hbm_gib");
	if (!st && !based && !(gb > 0) && !(gib > 0))
		st = rmi_err_at(err, RM_EINPUT, f, r->line, r->col,
				"give one of hbm_gb and hbm_gib (or base: a "
				"preset)");
	if (gb > 0 || gib > 0)
		out->hbm_bytes = gb > 0 ? gb * 1e9 : gib * RMI_GIB;
	if (!st)
		st = get_real(r, f, "peak_tflops", !based, &tf, err);
	out->peak_flops = tf * 1e12;
	/* the other precisions: optional (0 = FP8 at twice BF16's peak, no
	 * FP4; fp8_eff 0 = gemm_eff), a base's otherwise */
	const struct { const char *key; double *to, scale; } prec[] = {
		{ "peak_fp8_tflops", &out->peak_fp8_flops, 1e12 },
		{ "peak_fp4_tflops", &out->peak_fp4_flops, 1e12 },
		{ "fp8_eff", &out->fp8_eff, 1 },
	};
	for (size_t i = 0; !st && i < sizeof(prec) / sizeof(prec[0]); i++) {
		double x = 0;
		if (!rmi_y_get(r, prec[i].key))
			continue;
		st = get_real(r, f, prec[i].key, true, &x, err);
		if (!st && prec[i].scale == 1 && x > 1)
			st = rmi_err(err, RM_EINPUT, "%s: fp8_eff=%g must be in "
				     "(0, 1]", f, x);
		*prec[i].to = x * prec[i].scale;
	}
	if (!st)
		st = get_real(r, f, "nvlink_gbps", !based,
			      &out->nvlink_gbytes_per_s, err);
	if (!st)
		st = get_u32(r, f, "nvlink_domain", !based, RM_MAX_WORLD,
			     &out->nvl_domain, err);
	if (!st)
		st = get_real(r, f, "nic_gbps", !based, &out->nic_gbytes_per_s,
			      err);
	/* the calibration: the base's, else every key given */
	for (size_t i = 0; !st && i < sizeof(cal_keys) / sizeof(cal_keys[0]); i++) {
		if (rmi_y_get(r, cal_keys[i].key))
			st = get_cal(r, f, i, out, err);
		else if (!based)
			st = rmi_err_at(err, RM_EINPUT, f, r->line, r->col,
					"%s is missing: give every calibration "
					"key (hbm_gbps, gemm_eff, gemm_dim0, "
					"attn_eff, hbm_eff, nvlink_eff, net_eff, "
					"tp_overlap) or base: a preset (%s)",
					cal_keys[i].key,
					"a100-sxm-80gb, h100-sxm-80gb, h200, "
					"gb200-nvl72");
	}
	const rmi_ynode *tl = rmi_y_get(r, "tiers");
	if (!st && tl) {
		out->ntiers = 0;
		st = rmi_y_kind(tl, f, "tiers", RMI_Y_SEQ, err);
		if (!st && tl->n > RM_MAX_TIERS)
			st = rmi_err_at(err, RM_EINPUT, f, tl->line, tl->col,
					"%zu tiers, at most %d", tl->n,
					RM_MAX_TIERS);
		for (size_t i = 0; !st && i < tl->n; i++) {
			st = parse_tier(tl->item[i], f, &out->tier[i],
					out->nic_gbytes_per_s, err);
			out->ntiers = i + 1;
			if (!st && (out->tier[i].span_gpus <
				    (i ? out->tier[i - 1].span_gpus : out->nvl_domain)))
				st = rmi_err_at(err, RM_EINPUT, f,
						tl->item[i]->line, tl->item[i]->col,
						"tier %s: gpus=%llu is smaller than "
						"the tier inside it",
						out->tier[i].name,
						(unsigned long long)out->tier[i].span_gpus);
		}
	}
	if (!st && out->ntiers == 0) {
		/* no tiers: one non-blocking switch over everything */
		out->ntiers = 1;
		out->tier[0] = (rm_hw_tier){ "network", RM_MAX_WORLD,
					     out->nic_gbytes_per_s, 1.0 };
	}
	rmi_yaml_free(root);
	if (!st)
		st = rm_hw_check(out, err);
	return st;
}

static bool is_file(const char *spec)
{
	size_t n = strlen(spec);
	return strchr(spec, '/') || (n > 5 && !strcmp(spec + n - 5, ".yaml")) ||
	       (n > 4 && !strcmp(spec + n - 4, ".yml")) ||
	       (n > 5 && !strcmp(spec + n - 5, ".json"));
}

static rm_status parse_model(void *m, const char *text, size_t len,
			     const char *file, rm_error *err)
{
	return rm_model_parse_yaml(text, len, file, m, err);
}

rm_status rm_model_load_yaml(const char *path, rm_model *out, rm_error *err)
{
	return rmi_parse_file(path, parse_model, out, err);
}

static rm_status parse_hw(void *hw, const char *text, size_t len,
			  const char *file, rm_error *err)
{
	return rm_hw_parse_yaml(text, len, file, hw, err);
}

rm_status rm_hw_load_yaml(const char *path, rm_hw *out, rm_error *err)
{
	return rmi_parse_file(path, parse_hw, out, err);
}

rm_status rmi_model_get(const char *spec, rm_model *out, rm_error *err)
{
	if (spec && is_file(spec))
		return rm_model_load_yaml(spec, out, err);
	return rm_model_preset(spec, out, err);
}

rm_status rmi_hw_get(const char *spec, rm_hw *out, rm_error *err)
{
	if (spec && is_file(spec))
		return rm_hw_load_yaml(spec, out, err);
	return rmi_hw_preset(spec, out, err);
}
