/* SPDX-License-Identifier: Apache-2.0 */
/* model_preset.c - model and hardware presets, parameter derivation, checks. */
#include "model/model_int.h"

#include <math.h>
#include <string.h>

const char *const rm_model_presets[] = {
	"llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b", "mixtral-8x7b",
	"mixtral-8x22b", "deepseek-v3", "qwen3-235b-a22b",
	"llama4-maverick", NULL
};
const char *const rm_hw_presets[] = { "a100-sxm-80gb", "h100-sxm-80gb", "h200",
				      "gb200-nvl72", "gb200-nvl36x2",
				      "gb300-nvl72", NULL };

typedef struct {
	const char *name;
	uint32_t layers, hidden, ffn, heads, kv, vocab, seq;
	bool swiglu, bias, learned_pos, tied;
	uint32_t head_dim;           /* 0 = hidden / heads */
	/* mixture of experts (experts 0 = dense) */
	uint32_t experts, top_k, expert_ffn, shared, shared_ffn, dense, every;
	/* MLA: q_lora_rank, kv_lora_rank, qk nope, qk rope, v head dims */
	uint32_t qr, kvr, nope, rope, vhd;
} model_row;

/* Architectures as published: Llama 3 from Meta's llama-models configs
 * (arXiv 2407.21783 table 3), GPT-3 from Brown et al. 2020 table 2.1. The
 * MoE rows are their config.json on Hugging Face (URL beside each); seq
 * is the pre-training length where a report gives it (DeepSeek-V3, Qwen3:
 * 4K), else 4K for Mixtral (Mistral published none; their 32K and 64K
 * contexts are the configs') and 8K for Llama 4 (our choice). */
static const model_row models[] = {
	{ "llama3-8b", 32, 4096, 14336, 32, 8, 128256, 8192,
	  true, false, false, false, .head_dim = 0 },
	{ "llama3-70b", 80, 8192, 28672, 64, 8, 128256, 8192,
	  true, false, false, false, .head_dim = 0 },
	{ "llama3-405b", 126, 16384, 53248, 128, 8, 128256, 8192,
	  true, false, false, false, .head_dim = 0 },
	{ "gpt3-175b", 96, 12288, 49152, 96, 96, 50257, 2048,
	  false, true, true, true, .head_dim = 0 },
	/* https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json
	 * (46.7B total, 12.9B active: mistral.ai/news/mixtral-of-experts) */
	{ "mixtral-8x7b", 32, 4096, 14336, 32, 8, 32000, 4096,
	  true, false, false, false, .head_dim = 128,
	  .experts = 8, .top_k = 2, .expert_ffn = 14336 },
	/* https://huggingface.co/mistral-community/Mixtral-8x22B-v0.1/blob/main/config.json
	 * (141B total, 39B active: mistral.ai/news/mixtral-8x22b) */
	{ "mixtral-8x22b", 56, 6144, 16384, 48, 8, 32000, 4096,
	  true, false, false, false, .head_dim = 128,
	  .experts = 8, .top_k = 2, .expert_ffn = 16384 },
	/* https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json
	 * (arXiv 2412.19437: 671B total, 37B active, pre-trained at 4K): 3
	 * dense layers, then 58 MoE of 256 routed (top 8) + 1 shared expert;
	 * MLA. The MTP module (one more layer, 14B) is not modelled. */
	{ "deepseek-v3", 61, 7168, 18432, 128, 128, 129280, 4096,
	  true, false, false, false, .head_dim = 192,
	  .experts = 256, .top_k = 8, .expert_ffn = 2048, .shared = 1,
	  .shared_ffn = 2048, .dense = 3,
	  .qr = 1536, .kvr = 512, .nope = 128, .rope = 64, .vhd = 128 },
	/* https://huggingface.co/Qwen/Qwen3-235B-A22B/blob/main/config.json
	 * (arXiv 2505.09388: 235B total, 22B active, pre-trained at 4K) */
	{ "qwen3-235b-a22b", 94, 4096, 12288, 64, 4, 151936, 4096,
	  true, false, false, false, .head_dim = 128,
	  .experts = 128, .top_k = 8, .expert_ffn = 1536 },
	/* https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E/blob/main/config.json
	 * (text model: 400B total, 17B active): every second layer MoE, 128
	 * routed (top 1) + 1 shared expert of 8192, dense layers 16384 */
	{ "llama4-maverick", 48, 5120, 16384, 40, 8, 202048, 8192,
	  true, false, false, false, .head_dim = 128,
	  .experts = 128, .top_k = 1, .expert_ffn = 8192, .shared = 1,
	  .shared_ffn = 8192, .every = 2 },
};

static void copy_name(char *dst, size_t n, const char *src)
{
	size_t l = strlen(src);
	if (l >= n)
		l = n - 1;
	memcpy(dst, src, l);
	dst[l] = '\0';
}

/* Q, K, V projections of one layer. GQA: Q is h x q, K and V h x kv. MLA
 * (DeepSeek-V2/V3): Q through a rank-q_lora_rank bottleneck (with its
 * norm) to heads x (nope + rope); K and V compressed to kv_lora_rank (with
 * its norm) plus one shared rope key, expanded to heads x (nope + v). */
double rmi_attn_in_params(const rm_model *m)
{
	double h = m->hidden, a = m->heads;
	if (!m->kv_lora_rank) {
		double q = a * m->head_dim, kv = (double)m->kv_heads * m->head_dim;
		return h * q + 2.0 * h * kv;
	}
	double qk = m->qk_nope_dim + m->qk_rope_dim, qr = m->q_lora_rank;
	double kr = m->kv_lora_rank;
	double q = qr ? h * qr + qr + qr * a * qk : h * a * qk;
	return q + h * (kr + m->qk_rope_dim) + kr +
	       kr * a * (m->qk_nope_dim + m->v_head_dim);
}

/* The output projection's input width: heads x v_head_dim under MLA. */
double rmi_attn_out_dim(const rm_model *m)
{
	return (double)m->heads * (m->kv_lora_rank ? m->v_head_dim : m->head_dim);
}

void rmi_head_dims(const rm_model *m, double *qk, double *v)
{
	*qk = m->kv_lora_rank ? m->qk_nope_dim + m->qk_rope_dim : m->head_dim;
	*v = m->kv_lora_rank ? m->v_head_dim : m->head_dim;
}

uint32_t rmi_moe_layers(const rm_model *m)
{
	if (!m->experts || m->dense_layers >= m->layers)
		return 0;
	return (m->layers - m->dense_layers) / (m->moe_every ? m->moe_every : 1);
}

static double ffn_of(const rm_model *m, double f)
{
	return (m->swiglu ? 3.0 : 2.0) * m->hidden * f;
}

/* Per layer, averaged over the layers: the parameters every token uses
 * (attention, norms, dense FFNs, shared experts, routers), the routed
 * experts' and, of those, what one token's top_k use. */
void rmi_layer_parts(const rm_model *m, double *dense, double *routed,
		     double *routed_active)
{
	double h = m->hidden, f = m->ffn, L = m->layers;
	double q = rmi_attn_out_dim(m);
	double kv = (double)m->kv_heads * m->head_dim;
	double layer = rmi_attn_in_params(m) + q * h;
	double nm = rmi_moe_layers(m), nd = L - nm;
	if (m->bias) {
		/* biases of Q,K,V,O and the FFN, LayerNorm gain+bias twice */
		layer += q + 2.0 * kv + h + (nd / L) * (m->swiglu ? 2.0 * f : f) +
			 h;
		layer += 4.0 * h;
	} else {
		layer += 2.0 * h;    /* two RMSNorm gains */
	}
	layer += nd / L * ffn_of(m, f);
	double fs = m->shared_ffn ? m->shared_ffn : m->expert_ffn;
	layer += nm / L * (m->shared_experts * ffn_of(m, fs) +
			   (double)m->experts * h);
	*dense = layer;
	*routed = nm / L * m->experts * ffn_of(m, m->expert_ffn);
	*routed_active = nm / L * m->top_k * ffn_of(m, m->expert_ffn);
}

double rmi_routed_factor(const rm_model *m, const rm_train *t)
{
	return m->capacity > 0 ? m->capacity : t->moe_imbalance;
}

double rmi_ffn_width(const rm_model *m, double routed)
{
	if (!m->experts)
		return m->ffn;
	double L = m->layers, nm = rmi_moe_layers(m);
	double fs = m->shared_ffn ? m->shared_ffn : m->expert_ffn;
	return ((L - nm) * m->ffn +
		nm * (m->shared_experts * fs +
		      routed * m->top_k * (double)m->expert_ffn)) / L;
}

static double layer_params(const rm_model *m)
{
	double d, r, ra;
	rmi_layer_parts(m, &d, &r, &ra);
	return d + r;
}

double rmi_model_edge_params(const rm_model *m, bool first)
{
	double h = m->hidden;
	if (first)
		return (double)m->vocab * h +
		       (m->learned_pos ? (double)m->seq_len * h : 0.0);
	return (m->tied_embeddings ? 0.0 : (double)m->vocab * h) +
	       (m->bias ? 2.0 * h : h);
}

double rm_model_derive_params(const rm_model *m)
{
	return (double)m->layers * layer_params(m) +
	       rmi_model_edge_params(m, true) + rmi_model_edge_params(m, false);
}

double rmi_model_derive_active(const rm_model *m)
{
	double d, r, ra;
	rmi_layer_parts(m, &d, &r, &ra);
	return (double)m->layers * (d + ra) + rmi_model_edge_params(m, true) +
	       rmi_model_edge_params(m, false);
}

double rmi_model_active(const rm_model *m)
{
	if (!m->experts || !(m->active_params > 0))
		return m->params;
	return m->active_params;
}

double rmi_model_layer_params(const rm_model *m)
{
	if (!m->params_given)
		return layer_params(m);
	/* A given count scales the layers; embedding and head stay exact. */
	double rest = m->params - rmi_model_edge_params(m, true) -
		      rmi_model_edge_params(m, false);
	return rest > 0 ? rest / m->layers : 0.0;
}

/* The layer's parameters split as rmi_layer_parts, scaled to a given
 * count: those on one GPU are dense / tp + routed / (ep x etp). */
void rmi_layer_split(const rm_model *m, double *dense, double *routed)
{
	double d, r, ra;
	rmi_layer_parts(m, &d, &r, &ra);
	double k = d + r > 0 ? rmi_model_layer_params(m) / (d + r) : 1.0;
	*dense = d * k;
	*routed = r * k;
}

void rmi_shape_of(const rm_model *m, const rm_train *t, rmi_shape *k)
{
	rmi_layer_split(m, &k->dense, &k->routed);
	k->attn_in = rmi_attn_in_params(m);
	k->ffn_act = rmi_ffn_width(m, m->capacity > 0 ? m->capacity : 1.0);
	k->ffn_one = rmi_ffn_width(m, 1.0);
	k->factor = rmi_routed_factor(m, t);
	k->ffn_routed = rmi_ffn_width(m, k->factor);
}

double rmi_shape_ffn(const rmi_shape *k, const rm_model *m, const rm_train *t)
{
	double f = rmi_routed_factor(m, t);
	return f == k->factor ? k->ffn_routed : rmi_ffn_width(m, f);
}

/* Layouts as their authors trained the model, for suggest to place (it
 * prints where they rank and what they need). */
static const struct {
	const char *model, *layout, *source;
	uint64_t gpus;
	/* the run's own batch and sharding, as suggest's --batch and
	 * --sharding read them: Table 4's 16M tokens per batch; optimizer
	 * state and gradients sharded, parameters not resharded after the
	 * forward pass (section 3.3.2), i.e. ZeRO-2 */
	const char *batch, *sharding;
} published[] = {
	{ "llama3-405b", "tp=8,pp=16,dp=64", "Meta, The Llama 3 Herd of "
	  "Models (arXiv 2407.21783), Table 4", 8192, "16M", "zero2" },
	{ "llama3-405b", "tp=8,pp=16,dp=128", "Meta, The Llama 3 Herd of "
	  "Models (arXiv 2407.21783), Table 4", 16384, "16M", "zero2" },
};

static int published_index(const rm_model *m, uint64_t gpus);

const char *rm_model_published_run(const rm_model *m, uint64_t gpus,
				   const char **batch, const char **sharding)
{
	int i = published_index(m, gpus);
	if (i < 0)
		return NULL;
	*batch = published[i].batch;
	*sharding = published[i].sharding;
	return published[i].layout;
}

const char *rm_model_published_layout(const rm_model *m, uint64_t gpus,
				      const char **source)
{
	int i = published_index(m, gpus);
	if (i < 0)
		return NULL;
	if (source)
		*source = published[i].source;
	return published[i].layout;
}

static int published_index(const rm_model *m, uint64_t gpus)
{
	rm_model p, full;
	if (m && rmi_model_upgrade(m, &full, NULL))
		return -1;
	if (m)
		m = &full;
	for (size_t i = 0; m && i < sizeof(published) / sizeof(published[0]);
	     i++) {
		/* a model file that only borrows the name is not Meta's */
		if (published[i].gpus != gpus || strcmp(m->name, published[i].model) ||
		    rm_model_preset(published[i].model, &p, NULL) ||
		    p.layers != m->layers || p.hidden != m->hidden ||
		    p.ffn != m->ffn || p.heads != m->heads)
			continue;
		return (int)i;
	}
	return -1;
}

rm_status rm_model_preset(const char *name, rm_model *out, rm_error *err)
{
	char q[96];
	memset(out, 0, sizeof(*out));
	out->version = RM_MODEL_VERSION;
	if (!name)
		return rmi_err(err, RM_EINPUT, "no model given");
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		const model_row *r = &models[i];
		if (strcmp(name, r->name))
			continue;
		copy_name(out->name, sizeof(out->name), r->name);
		out->layers = r->layers;
		out->hidden = r->hidden;
		out->ffn = r->ffn;
		out->heads = r->heads;
		out->kv_heads = r->kv;
		out->head_dim = r->head_dim ? r->head_dim : r->hidden / r->heads;
		out->experts = r->experts;
		out->top_k = r->top_k;
		out->expert_ffn = r->expert_ffn;
		out->shared_experts = r->shared;
		out->shared_ffn = r->shared_ffn;
		out->dense_layers = r->dense;
		out->moe_every = r->every;
		out->q_lora_rank = r->qr;
		out->kv_lora_rank = r->kvr;
		out->qk_nope_dim = r->nope;
		out->qk_rope_dim = r->rope;
		out->v_head_dim = r->vhd;
		out->vocab = r->vocab;
		out->seq_len = r->seq;
		out->swiglu = r->swiglu;
		out->bias = r->bias;
		out->learned_pos = r->learned_pos;
		out->tied_embeddings = r->tied;
		out->params = rm_model_derive_params(out);
		out->active_params = rmi_model_derive_active(out);
		return RM_OK;
	}
	return rmi_err(err, RM_ENOTFOUND,
		       "unknown model preset %s (known: llama3-8b, llama3-70b, "
		       "llama3-405b, gpt3-175b, mixtral-8x7b, mixtral-8x22b, "
		       "deepseek-v3, qwen3-235b-a22b, llama4-maverick; or a "
		       ".yaml file)",
		       rm_quote(name, strlen(name), q, sizeof(q)));
}

/*
 * The calibration of one GPU type: gemm_eff, gemm_dim0, attn_eff, hbm_eff,
 * nvlink_eff, net_eff. A100's is fitted once to the three published A100
 * tables (Megatron-LM's two and torchtitan's FSDP2 runs, which alone pin
 * net_eff; tests/model/fit_calibration.c, docs/explain.md "Accuracy").
 * H100's is fitted the same way to three published H100 tables (NVIDIA's
 * DGX Cloud BF16 recipes, Llama 3 405B Table 4, Megatron-LM's weak
 * scaling; tests/model/fit_h100.c names the files), within the measured ceilings (Bekman's MAMF for
 * GEMMs, FlashAttention-3's forward for attention). H200 and GB200 carry
 * H100's figures, not fitted to any run of theirs. tp_overlap is not
 * fitted: it is the share of TP traffic sent through Transformer Engine's
 * overlap (1 on H100-class GPUs, as every NVIDIA H100 recipe runs; 0 on
 * A100, whose published runs predate it), and what that hides is derived
 * per GEMM (rmi_tp_exposed).
 */
static void calibrate(rm_hw *h, double gemm, double dim0, double attn,
		      double hbm_eff, double nvl, double net, double tpo)
{
	h->tp_overlap = tpo;
	h->gemm_eff = gemm;
	h->gemm_dim0 = dim0;
	h->attn_eff = attn;
	h->hbm_eff = hbm_eff;
	h->nvlink_eff = nvl;
	h->net_eff = net;
}

/* One row per GPU type. The H100 tiers are the Llama 3 cluster (2 servers
 * per ToR, 3,072-GPU pods at full bisection, 1:7 between pods), the only
 * fabric the reference measures. A100 is a DGX A100 SuperPOD: 8 HDR
 * InfiniBand NICs (25 GB/s) per node, scalable units of 20 nodes under
 * full-bisection leaves and spines. HBM as nvidia-smi reports it (81,920 /
 * 81,559 / 143,771 MiB); GB200's is 13.4 TB per NVL72 rack over 72 GPUs.
 * Peaks are dense, per GPU: BF16, FP8, FP4 (0: none). H100 and H200:
 * 989 / 1,979 TFLOPS (H100 data sheet; the dgxc recipes' READMEs use
 * the same); A100 has no FP8. GB200: 2.5 / 5 / 10 PFLOPS (GB200 NVL72
 * data sheet, nvidia.com/en-us/data-center/gb200-nvl72: 180 / 360 /
 * 720 PFLOPS dense over its 72 GPUs).
 * GB200 NVL36x2: the same GPUs, two racks of 36 each its own NVLink
 * domain (NVIDIA's GB200 NVL36x2 reference design). GB300 NVL72
 * (nvidia.com/en-us/data-center/gb300-nvl72): 288 GB HBM3e at 8 TB/s,
 * 2.5 / 5 / 15 PFLOPS dense (Blackwell Ultra: 1.5 x GB200's FP4), a
 * ConnectX-8 SuperNIC of 800 Gb/s (100 GB/s) per GPU. */
typedef struct {
	const char *name, *alias;
	double hbm_bytes, hbm_gbps, peak, peak8, peak4, nvlink, nic;
	uint32_t domain;
	size_t ntiers;
	rm_hw_tier tier[3];
	bool a100_cal;
} hw_row;

#define MIB 1048576.0
static const hw_row hws[] = {
	{ "a100-sxm-80gb", "a100", 81920.0 * MIB, 2039, 312e12, 0, 0, 300, 25,
	  8, 2,
	  { { "leaf", 160, 25, 1.0 }, { "spine", RM_MAX_WORLD, 25, 1.0 } },
	  true },
	{ "h100-sxm-80gb", "h100", 81559.0 * MIB, 3350, 989e12, 1979e12, 0,
	  450, 50, 8, 3,
	  { { "leaf", 16, 50, 1.0 }, { "pod", 3072, 50, 1.0 },
	    { "spine", RM_MAX_WORLD, 50, 7.0 } }, false },
	{ "h200", "h200", 143771.0 * MIB, 4800, 989e12, 1979e12, 0, 450, 50,
	  8, 3,
	  { { "leaf", 16, 50, 1.0 }, { "pod", 3072, 50, 1.0 },
	    { "spine", RM_MAX_WORLD, 50, 7.0 } }, false },
	{ "gb200-nvl72", "gb200", 186e9, 8000, 2.5e15, 5e15, 10e15, 900, 50,
	  72, 2,
	  { { "leaf", 576, 50, 1.0 }, { "spine", RM_MAX_WORLD, 50, 1.0 } },
	  false },
	{ "gb200-nvl36x2", "gb200-nvl36", 186e9, 8000, 2.5e15, 5e15, 10e15,
	  900, 50, 36, 2,
	  { { "leaf", 576, 50, 1.0 }, { "spine", RM_MAX_WORLD, 50, 1.0 } },
	  false },
	{ "gb300-nvl72", "gb300", 288e9, 8000, 2.5e15, 5e15, 15e15, 900, 100,
	  72, 2,
	  { { "leaf", 576, 100, 1.0 }, { "spine", RM_MAX_WORLD, 100, 1.0 } },
	  false },
};

rm_status rmi_hw_preset(const char *name, rm_hw *out, rm_error *err)
{
	char q[96];
	memset(out, 0, sizeof(*out));
	out->version = RM_HW_VERSION;
	if (!name)
		return rmi_err(err, RM_EINPUT, "no hardware given");
	for (size_t i = 0; i < sizeof(hws) / sizeof(hws[0]); i++) {
		const hw_row *r = &hws[i];
		if (strcmp(name, r->name) && strcmp(name, r->alias))
			continue;
		copy_name(out->name, sizeof(out->name), r->name);
		out->hbm_bytes = r->hbm_bytes;
		out->hbm_gbytes_per_s = r->hbm_gbps;
		out->peak_flops = r->peak;
		out->peak_fp8_flops = r->peak8;
		out->peak_fp4_flops = r->peak4;
		out->nvlink_gbytes_per_s = r->nvlink;
		out->nvl_domain = r->domain;
		out->nic_gbytes_per_s = r->nic;
		out->ntiers = r->ntiers;
		memcpy(out->tier, r->tier, r->ntiers * sizeof(r->tier[0]));
		if (r->a100_cal)
			calibrate(out, RMI_A100_CAL);
		else
			calibrate(out, RMI_H100_CAL);
		/* H100's FP8 GEMMs, fitted to the published FP8 runs
		 * (tests/unit/model/test_fp8.c); Blackwell carries it */
		out->fp8_eff = r->peak8 > 0 ? RMI_H100_FP8_EFF : 0;
		return RM_OK;
	}
	char known[256];
	rmi_hw_preset_names(known, sizeof(known), ", ");
	return rmi_err(err, RM_ENOTFOUND,
		       "unknown hardware preset %s (known: %s; or a .yaml file)",
		       rm_quote(name, strlen(name), q, sizeof(q)), known);
}

void rmi_hw_preset_names(char *buf, size_t n, const char *last)
{
	size_t k = 0, len = 0;
	while (rm_hw_presets[k])
		k++;
	buf[0] = '\0';
	for (size_t i = 0; i < k && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s",
					!i ? "" : i + 1 < k ? ", " : last,
					rm_hw_presets[i]);
}

rm_status rm_model_check(const rm_model *m, rm_error *err)
{
	const struct { const char *what; uint32_t v; } need[] = {
		{ "layers", m->layers }, { "hidden", m->hidden },
		{ "ffn", m->ffn }, { "heads", m->heads },
		{ "kv_heads", m->kv_heads }, { "head_dim", m->head_dim },
		{ "vocab", m->vocab }, { "seq_len", m->seq_len },
	};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (need[i].v == 0)
			return rmi_err(err, RM_EINPUT,
				       "model %s: %s must be at least 1",
				       m->name, need[i].what);
	if (m->layers > 100000 || m->hidden > (1u << 20) ||
	    m->ffn > (1u << 22) || m->heads > 65536 ||
	    m->vocab > (1u << 24) || m->seq_len > (1u << 24) ||
	    m->head_dim > 65536)
		return rmi_err(err, RM_EINPUT,
			       "model %s: a size is beyond any real model "
			       "(layers <= 100000, hidden <= 2^20, ffn <= 2^22, "
			       "heads <= 65536, vocab and seq_len <= 2^24)",
			       m->name);
	if (m->kv_heads > m->heads || m->heads % m->kv_heads)
		return rmi_err(err, RM_EINPUT,
			       "model %s: kv_heads=%u must divide heads=%u",
			       m->name, m->kv_heads, m->heads);
	if (m->experts && (!m->top_k || m->top_k > m->experts ||
			   !m->expert_ffn || m->experts > 65536 ||
			   m->expert_ffn > (1u << 22) || m->shared_experts > 64 ||
			   m->shared_ffn > (1u << 22)))
		return rmi_err(err, RM_EINPUT,
			       "model %s: experts=%u needs top_k in [1, experts] "
			       "and expert_ffn >= 1 (experts <= 65536, shared "
			       "experts <= 64, FFN sizes <= 2^22); got top_k=%u, "
			       "expert_ffn=%u", m->name, m->experts, m->top_k,
			       m->expert_ffn);
	if (m->experts && rmi_moe_layers(m) == 0)
		return rmi_err(err, RM_EINPUT,
			       "model %s: dense_layers=%u and moe_every=%u leave "
			       "no MoE layer among the %u", m->name,
			       m->dense_layers, m->moe_every, m->layers);
	if (!(m->capacity == 0 || (m->capacity >= 1 && m->capacity <= 64)))
		return rmi_err(err, RM_EINPUT,
			       "model %s: capacity=%.6g must be 0 (dropless) or "
			       "in [1, 64]", m->name, m->capacity);
	if (m->kv_lora_rank && (!m->qk_nope_dim || !m->qk_rope_dim ||
				!m->v_head_dim || m->kv_lora_rank > 65536 ||
				m->q_lora_rank > 65536 || m->qk_nope_dim > 65536 ||
				m->qk_rope_dim > 65536 || m->v_head_dim > 65536))
		return rmi_err(err, RM_EINPUT,
			       "model %s: kv_lora_rank=%u (MLA) needs qk_nope_dim, "
			       "qk_rope_dim and v_head_dim in [1, 65536]",
			       m->name, m->kv_lora_rank);
	if (!(m->params > 0) || !isfinite(m->params) || m->params > 1e15)
		return rmi_err(err, RM_EINPUT,
			       "model %s: parameter count %.4g is not in (0, 1e15]",
			       m->name, m->params);
	return RM_OK;
}

rm_status rm_hw_check(const rm_hw *h, rm_error *err)
{
	const struct { const char *what; double v, max; } need[] = {
		{ "hbm_gb", h->hbm_bytes / 1e9, 1e6 },
		{ "peak_tflops", h->peak_flops / 1e12, 1e6 },
		{ "nvlink_gbps", h->nvlink_gbytes_per_s, 1e6 },
		{ "nic_gbps", h->nic_gbytes_per_s, 1e6 },
		{ "nvlink_domain", h->nvl_domain, RM_MAX_WORLD },
		{ "hbm_gbps", h->hbm_gbytes_per_s, 1e6 },
		{ "gemm_eff", h->gemm_eff, 1 },
		{ "attn_eff", h->attn_eff, 1 },
		{ "hbm_eff", h->hbm_eff, 1 },
		{ "nvlink_eff", h->nvlink_eff, 1 },
		{ "net_eff", h->net_eff, 1 },
	};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!(need[i].v > 0) || !(need[i].v <= need[i].max))
			return rmi_err(err, RM_EINPUT,
				       "hardware %s: %s=%.6g must be in (0, %.6g]",
				       h->name, need[i].what, need[i].v,
				       need[i].max);
	if (!(h->gemm_dim0 >= 0) || h->gemm_dim0 > 65536)
		return rmi_err(err, RM_EINPUT,
			       "hardware %s: gemm_dim0=%.6g must be in [0, 65536]",
			       h->name, h->gemm_dim0);
	if (!(h->tp_overlap >= 0) || h->tp_overlap > 1)
		return rmi_err(err, RM_EINPUT,
			       "hardware %s: tp_overlap=%.6g must be in [0, 1]",
			       h->name, h->tp_overlap);
	uint64_t prev = h->nvl_domain;
	for (size_t i = 0; i < h->ntiers; i++) {
		const rm_hw_tier *t = &h->tier[i];
		if (t->span_gpus < prev || !(t->gbytes_per_s > 0) ||
		    !(t->oversubscription >= 1.0) ||
		    t->oversubscription > 1000 || t->gbytes_per_s > 1e6)
			return rmi_err(err, RM_EINPUT,
				       "hardware %s: tier %s needs span_gpus >= "
				       "%llu (the tier inside it), gbps > 0 and "
				       "oversubscription in [1, 1000]",
				       h->name, t->name,
				       (unsigned long long)prev);
		prev = t->span_gpus;
	}
	return RM_OK;
}
