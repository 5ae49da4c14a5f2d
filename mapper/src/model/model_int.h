/* SPDX-License-Identifier: Apache-2.0 */
/* model_int.h - shared between the cost model's files (model*.c). */
#ifndef RANKMAP_MODEL_INT_H
#define RANKMAP_MODEL_INT_H

#include "internal.h"

#define RMI_GIB 1073741824.0

/* The model's resolution (docs/explain.md, "Accuracy"): two step times
 * closer than 1 % of the reference are a tie, and are printed as one. */
#define RMI_TIE 0.01
static inline bool rmi_tie(double t, double ref)
{
	double d = t - ref;
	return (d < 0 ? -d : d) <= RMI_TIE * ref;
}

/* Calibrations (gemm_eff, gemm_dim0, attn_eff, hbm_eff, nvlink_eff,
 * net_eff, tp_overlap), where they came from: model_preset.c and
 * docs/explain.md. */
#define RMI_A100_CAL 0.85, 256, 0.80, 0.70, 0.60, 0.90, 0.0
#define RMI_H100_CAL 0.70, 192, 0.70, 0.90, 0.65, 0.90, 1.0
/* fp8_eff of H100 (docs/explain.md, "FP8") */
#define RMI_H100_FP8_EFF 0.65

/* The calibration in force: the train's overrides, else the hardware's. */
typedef struct {
	double gemm_eff, gemm_dim0, attn_eff, hbm_eff, nvlink_eff, net_eff;
	double tp_overlap;
} rmi_cal;
RMI_HIDDEN void rmi_cal_of(const rm_hw *hw, const rm_train *t, rmi_cal *c);
/* The share of TP traffic hidden in force (the train's, else the GPU's). */
RMI_HIDDEN double rmi_tp_overlap(const rm_hw *hw, const rm_train *t);
/* What an estimate derives from the model alone, whatever the layout:
 * a search prices thousands of variants of one model, and deriving
 * these again for each (MLA's projections, the MoE FFN widths, the
 * layer's split) was a seventh of a MoE search. ffn_routed is the width
 * at `factor`, the routed factor (rmi_routed_factor) of the train it
 * was made with; a train with another is derived again. */
typedef struct rmi_shape {
	double dense, routed;        /* rmi_layer_split */
	double attn_in;              /* rmi_attn_in_params */
	double ffn_act;              /* rmi_ffn_width as rmi_act_layer's */
	double ffn_one;              /* rmi_ffn_width(m, 1) */
	double factor, ffn_routed;
} rmi_shape;
RMI_HIDDEN void rmi_shape_of(const rm_model *m, const rm_train *t,
			     rmi_shape *k);
/* k's ffn_routed where t's routed factor is k's, else derived. */
RMI_HIDDEN double rmi_shape_ffn(const rmi_shape *k, const rm_model *m,
				const rm_train *t);
/* TP traffic exposed per layer and micro-batch under Transformer Engine's
 * userbuffers overlap, `unit` the seconds of one all-gather or
 * reduce-scatter (model_compute.c says what hides behind what). */
RMI_HIDDEN double rmi_tp_exposed(const rm_model *m, const rm_hw *hw,
				 const rm_train *t, const rmi_shape *k,
				 const rm_estimate *e, double unit);
/* Fill the compute part of `e` (layout, m, layers set): per-layer GEMM,
 * attention and elementwise times, head, optimizer, slowest stage. */
RMI_HIDDEN void rmi_compute(const rm_model *m, const rm_hw *hw,
			    const rm_train *t, const rmi_shape *k,
			    rm_estimate *e);
/* Young/Daly checkpoint interval and goodput for e's GPUs and step. */
RMI_HIDDEN void rmi_goodput(const rm_train *t, rm_estimate *e);
/* FP8 (model_fp8.c). */
RMI_HIDDEN const char *rmi_fp8_name(rm_fp8 f);
RMI_HIDDEN const char *rmi_fp8_recipe_name(rm_fp8_recipe r);
RMI_HIDDEN bool rmi_fp8_set(rm_train *t, const char *key, const char *v,
			    rm_status *st, rm_error *err);
RMI_HIDDEN double rmi_linear_peak(const rm_hw *hw, const rm_train *t);
RMI_HIDDEN void rmi_linear_cal(const rm_hw *hw, const rm_train *t,
			       rmi_cal *c, double *peak);
RMI_HIDDEN double rmi_fp8_cast_per_elem(const rm_train *t);
RMI_HIDDEN void rmi_fp8_casts(const rm_train *t, const double shape[][3],
			      int n, double mbs, double *fwd, double *bwd);
RMI_HIDDEN double rmi_param_bytes(const rm_train *t);
RMI_HIDDEN double rmi_ep_bytes_factor(const rm_train *t, double full_share);
RMI_HIDDEN void rmi_fp8_explain(rm_buf *b, const rm_hw *hw,
				const rm_train *t);
/* Layers on pipeline stage i of p (first/last may be set apart). */
RMI_HIDDEN uint32_t rmi_stage_layers(const rm_model *m, const rm_train *t,
				     uint32_t p, uint32_t i);
/* The same for every stage of p, its divisions done once: the memory
 * and compute of an estimate walk all its stages (rmi_stages_of, then
 * rmi_stage_at per stage). */
typedef struct {
	uint32_t p, layers, f, l, lo, n;
	uint64_t base, extra, from;
} rmi_stages;
RMI_HIDDEN void rmi_stages_of(const rm_model *m, const rm_train *t,
			      uint32_t p, rmi_stages *s);
static inline uint32_t rmi_stage_at(const rmi_stages *s, uint32_t i)
{
	if (s->p <= 1)
		return s->layers;
	if (i == 0 && s->f)
		return s->f;
	if (i == s->p - 1 && s->l)
		return s->l;
	if (s->n == 0)
		return 0;
	uint64_t k = i - s->lo;
	return (uint32_t)(s->base + (k >= s->from && k < s->from + s->extra));
}
/* The most layers any of p stages holds: rmi_stage_layers' largest. */
RMI_HIDDEN uint32_t rmi_largest_stage(const rm_model *m, const rm_train *t,
				      uint32_t p);

/* Mixture of experts and MLA (model_preset.c): the MoE layers among the
 * model's; Q,K,V projection parameters of a layer and the output
 * projection's input width; the head dims QK^T and PV contract over. */
RMI_HIDDEN uint32_t rmi_moe_layers(const rm_model *m);
RMI_HIDDEN double rmi_attn_in_params(const rm_model *m);
RMI_HIDDEN double rmi_attn_out_dim(const rm_model *m);
RMI_HIDDEN void rmi_head_dims(const rm_model *m, double *qk, double *v);
/* Per layer, averaged over the layers, as derived: what every token uses
 * (attention, norms, dense FFNs, shared experts, routers), the routed
 * experts, and what one token's top_k of them use. */
RMI_HIDDEN void rmi_layer_parts(const rm_model *m, double *dense,
				double *routed, double *routed_active);
/* The same scaled to the model's count (given or derived). */
RMI_HIDDEN void rmi_layer_split(const rm_model *m, double *dense,
				double *routed);
/* Routed tokens on the busiest GPU over the mean: the capacity factor
 * (experts padded to it), else the train's moe_imbalance (dropless). */
RMI_HIDDEN double rmi_routed_factor(const rm_model *m, const rm_train *t);
/* The FFN width a token passes through on the busiest GPU, averaged over
 * the layers: the dense FFN, or shared + top_k routed experts
 * (`routed` x the routed part). */
RMI_HIDDEN double rmi_ffn_width(const rm_model *m, double routed);
/* Of one GPU's layer parameters (rmi_layer_gpu), the routed experts'. */
RMI_HIDDEN double rmi_routed_share(const rm_model *m, const rm_layout *l);
/* One average layer's parameters on one GPU: dense / tp + routed /
 * (ep x etp). */
RMI_HIDDEN double rmi_layer_gpu(const rm_model *m, const rm_layout *l);
/* The group the optimizer state of one GPU's parameters is sharded over,
 * its dense part over dp_shard x cp, the routed experts' over edp: the
 * weighted harmonic mean of both (rmi_shard_group for a dense model). */
RMI_HIDDEN double rmi_shard_eff(const rm_model *m, const rm_layout *l);
/* rmi_layer_gpu, rmi_shard_eff and rmi_routed_share of l (each may be
 * NULL) from the layer's split in k, as an estimate needs them. */
struct rmi_shape;
RMI_HIDDEN void rmi_layer_costs(const struct rmi_shape *k, const rm_layout *l,
				double *layer, double *shard, double *rho);
/* An all-to-all's bandwidth where `off` of its peers are beyond the NVLink
 * domain, reached at net_gbps (model_time.c). */
RMI_HIDDEN double rmi_a2a_gbps(const rm_hw *hw, const rm_train *t, double off,
			       double net_gbps);
/* Parameters one token uses, derived; and in force (params if dense). */
RMI_HIDDEN double rmi_model_derive_active(const rm_model *m);
RMI_HIDDEN double rmi_model_active(const rm_model *m);
/* Parameters of one transformer layer (scaled when the count is given). */
RMI_HIDDEN double rmi_model_layer_params(const rm_model *m);
/* Embedding (+ learned positions) when `first`, else head + final norm. */
RMI_HIDDEN double rmi_model_edge_params(const rm_model *m, bool first);

/* Bubble time over ideal time for p stages and m micro-batches; the
 * zero-bubble schedules need e's forward, backward and weight-gradient
 * times (NULL: equal, as in Qi et al.'s headline figures). */
RMI_HIDDEN double rmi_bubble_frac(rm_schedule s, uint32_t v, double p,
				  double m, const rm_estimate *e);
/* Micro-batch-stages of activations held by pipeline rank r (0 first). */
RMI_HIDDEN double rmi_inflight(rm_schedule s, uint32_t v, double p, double m,
			       double r);
/* Ranks a sharded optimizer (and fsdp) splits the state over: dp x cp, or
 * only the shard group of an HSDP layout (dp_shard x cp). */
RMI_HIDDEN double rmi_shard_group(const rm_layout *l);
/* Bytes per parameter for weights, gradients, optimizer state. */
RMI_HIDDEN void rmi_bytes_per_param(rm_sharding s, double grad_bytes,
				    double d, double out[3]);
/* Activation bytes of one layer for one micro-batch on one GPU. */
RMI_HIDDEN double rmi_act_layer(const rm_model *m, rm_recompute r, double b,
				double s, double t);
/* Fill the memory part of `e` (layout, m, layers_stage already set). */
RMI_HIDDEN void rmi_model_memory(const rm_model *m, const rm_hw *hw,
				 const rm_train *t, const rmi_shape *k,
				 rm_estimate *e);
/*
 * Where a group of `n` ranks spaced `stride` apart (ideal packing) lands:
 * the link name and the effective bandwidth of its slowest hop.
 */
RMI_HIDDEN void rmi_group_link(const rm_hw *hw, const rm_train *t,
			       uint64_t stride, uint64_t n, char link[32],
			       double *gbps);
/* The data-parallel traffic's exposed seconds: `seconds` of it, less
 * what hides behind e's backward and forward (the window its sharding
 * gives). */
RMI_HIDDEN double rmi_dp_exposed(const rm_train *t, const rm_estimate *e,
				 double seconds);
/* Seconds, exposure, bubble, step time and MFU from e's bytes and links. */
RMI_HIDDEN void rmi_estimate_times(const rm_model *m, const rm_hw *hw,
				   const rm_train *t, const rmi_shape *k,
				   rm_estimate *e);
/* Parameters on the fullest GPU: the first, the last or a middle stage. */
RMI_HIDDEN double rmi_params_peak(const rm_model *m, const rm_estimate *e);
/* The same with one layer's parameters on a GPU (rmi_layer_gpu) known. */
RMI_HIDDEN double rmi_params_peak_at(const rm_estimate *e, double layer);
/* Schedule variant i (0 1f1b, 1 zb-h1, 2 zb-h2, 3 zb-v, 4.. interleaved
 * 2, 4, 8 ...) of e, on e's links; false past the list (model_explain.c). */
RMI_HIDDEN bool rmi_variant(const rm_model *m, const rm_hw *hw,
			    const rm_train *t, const rm_estimate *e, uint32_t i,
			    char name[24], const char **formula, bool *chosen,
			    rm_estimate *x, rm_error *xe);
/* Positions in l->nest of the axes larger than 1. */
RMI_HIDDEN unsigned rmi_used_nest(const rm_layout *l, unsigned pos[RM_NAXES]);
/* The opening both explain schemas share: {"schema", "model", "hardware",
 * "layout", "gpus" of e; the caller writes on after "gpus": N. */
RMI_HIDDEN void rmi_explain_json_head(rm_buf *b, const char *schema,
				      const rm_model *m, const rm_hw *hw,
				      const rm_estimate *e);
/* A token budget (t->tokens; nothing when 0): total FLOPs, steps and
 * days, as text and as a JSON member ending ", " (model_budget.c). */
RMI_HIDDEN void rmi_put_budget(rm_buf *b, const rm_model *m,
			       const rm_train *t, const rm_estimate *e);
RMI_HIDDEN void rmi_budget_json(rm_buf *b, const rm_model *m,
				const rm_train *t, const rm_estimate *e);
/* At scale (model_scale.c): the latency of the collectives off NVLink
 * (dp: DP's, else the blocking axes'; *calls their count), the
 * stragglers' factor jitter x sqrt(2 ln gpus), and the explain lines. */
RMI_HIDDEN double rmi_coll_latency(const rm_train *t, const rm_estimate *e,
				   bool dp, double *calls);
RMI_HIDDEN double rmi_straggle(const rm_train *t, uint64_t gpus);
RMI_HIDDEN void rmi_put_scale(rm_buf *b, const rm_train *t,
			      const rm_estimate *e);
/* The explain report as JSON. */
RMI_HIDDEN void rmi_explain_json(rm_buf *b, const rm_model *m,
				 const rm_hw *hw, const rm_train *t,
				 const rm_estimate *e);
/* Model chunks per GPU: v interleaved, 2 for ZB-V, else 1. */
RMI_HIDDEN uint32_t rmi_chunks(const rm_train *t);
/* Share of a stage's ls layers recomputed whole: 0 unless recompute is
 * full, 1 unless recompute_layers (per chunk) sets fewer. */
RMI_HIDDEN double rmi_full_share(const rm_train *t, uint32_t ls);
/* "selective", "full", or "full:K" when K layers per stage. */
RMI_HIDDEN const char *rmi_recompute_label(rm_recompute r, uint32_t k,
					   char buf[24]);
/*
 * The memory floor of an estimate's layout: every pp dividing its GPUs /
 * (tp x cp), at most the layers, priced by rm_estimate_run with the same
 * tp, cp, sharding, recompute, schedule and micro-batch; the smallest
 * whose fullest GPU fits HBM forces pp >= it. One row per pp priced: the
 * fullest GPU's total and its terms (they add up to mem_peak).
 */
#define RMI_FLOOR_ROWS 64
typedef struct {
	uint32_t pp, stage, layers;  /* the fullest GPU: its stage, layers */
	double mem, weights, grads, optim, act, inflight, other;
	bool fits;
} rmi_floor_row;
typedef struct {
	uint64_t rest;               /* gpus / (tp x cp): what pp x dp split */
	uint32_t pp_min;             /* smallest pp that fits; 0 = none */
	rmi_floor_row row[RMI_FLOOR_ROWS];
	size_t nrow;
	uint32_t skipped[8];         /* pp not priced (the first few) */
	char skip_why[8][96];        /* and why each */
	size_t nskipped;
	uint32_t tp_max;             /* the NVLink domain */
} rmi_floor;
RMI_HIDDEN void rmi_mem_floor(const rm_model *m, const rm_hw *hw,
			      const rm_train *t, const rm_estimate *e,
			      rmi_floor *out);
/* "below", "at" or "above" the floor for e's pp; "none" when none fits. */
RMI_HIDDEN const char *rmi_floor_place(const rmi_floor *f, uint32_t pp);
/* The row of pp in f, or NULL. */
RMI_HIDDEN const rmi_floor_row *rmi_floor_find(const rmi_floor *f,
					       uint32_t pp);
/* "interleaved:V" with its chunks, else the schedule's name. */
RMI_HIDDEN const char *rmi_schedule_label(rm_schedule s, uint32_t v,
					  char buf[24]);
/* Sequence length in force. */
RMI_HIDDEN uint32_t rmi_seq(const rm_model *m, const rm_train *t);
/* s->needs, s->needs_what for opts.around (model_needs.c). */
RMI_HIDDEN void rmi_suggest_needs(const rm_model *m, const rm_hw *hw,
				  const rm_train *t, const rm_suggest_options *o,
				  rm_suggestion *s);

/* Left the public header with ABI 1 (programs use rm_model_get and
 * rm_hw_get); the library and its white-box tests use them. */
rm_status rm_model_preset(const char *name, rm_model *out, rm_error *err);

rm_status rm_model_load_yaml(const char *path, rm_model *out, rm_error *err);
rm_status rm_hw_load_yaml(const char *path, rm_hw *out, rm_error *err);
rm_status rm_model_parse_yaml(const char *text, size_t len, const char *name,
			      rm_model *out, rm_error *err);
rm_status rm_hw_parse_yaml(const char *text, size_t len, const char *name,
			   rm_hw *out, rm_error *err);
/* Parameters from the architecture (GQA, gated FFN, untied head). */

/* Parameters from the architecture (GQA, gated FFN, untied head). */
double rm_model_derive_params(const rm_model *m);
/* Check sizes for zero, overflow and inconsistency. */
rm_status rm_model_check(const rm_model *m, rm_error *err);
rm_status rm_hw_check(const rm_hw *h, rm_error *err);

const char *rm_schedule_name(rm_schedule s);
const char *rm_recompute_name(rm_recompute r);
const char *rm_sharding_name(rm_sharding s);

/*
 * One run priced on two maps of the same layout (the plan and Slurm's
 * order, or a map a job used) by the same model and calibration. The
 * difference is b - a; `same` when it is within RM_COMPARE_RESOLUTION of
 * a's step time, the closest two predictions the model tells apart (the
 * 1 % suggest calls a tie: both maps share every figure but where their
 * traffic goes, so the model's own error mostly cancels).
 */
#define RM_COMPARE_RESOLUTION 0.01
typedef struct rm_compare {
	double dt_step;              /* s per step, b - a */
	double rel;                  /* dt_step / a's step */
	double steps_day[2];         /* steps a day, around the clock */
	double gpu_h_1000[2];        /* GPU-hours per 1,000 steps */
	double gpu_h_day;            /* of a day's GPU-hours, what the slower
				      * map's extra time costs: gpus x 24 x
				      * dt / the slower step (signed like dt) */
	bool same;
} rm_compare;
void rm_estimate_compare(const rm_estimate *a, const rm_estimate *b,
			 rm_compare *out);
/* The verdict's sentence on b against a, each map named by its phrase
 * as the sentence takes it ("the plan", "a sorted hostfile"); `beyond`
 * ends a tie ("for this job", "beyond sorting"). */
RMI_HIDDEN void rmi_compare_say(rm_buf *b, const rm_estimate *a,
				const char *the_a, const rm_estimate *e,
				const char *the_b, const char *beyond,
				const rm_compare *c);
/* One map's object and the difference object of the compare JSON
 * (schema rankmap-explain-compare/1). */
RMI_HIDDEN void rmi_compare_json_map(rm_buf *b, const char *name,
				     const rm_estimate *e, double steps_day,
				     double gpu_h_1000);
RMI_HIDDEN void rmi_compare_json_diff(rm_buf *b, const rm_compare *c);


/* The estimate as a value (model_time.c, model_map.c): suggest prices
 * thousands of candidates without an allocation each; rm_estimate_run
 * and rm_estimate_map wrap them for programs. */
RMI_HIDDEN rm_status rmi_estimate_run(const rm_model *m, const rm_hw *hw,
				      const rm_train *t,
				      const rm_layout *layout,
				      rm_estimate *out, rm_error *err);
/* The links of a layout's first EP and ETP groups: they follow from the
 * layout and the hardware alone, so a search that prices one layout at
 * many micro-batches, schedules and recomputations finds them once (the
 * walk over an EP group's members is most of a MoE estimate's cost).
 * Zeroed for a new layout (or hardware other than in links); set once
 * filled. */
typedef struct rmi_ep_memo {
	bool set;
	char link[32], etp_link[32];
	double net, off_nvl, off_leaf, etp_gbps;
} rmi_ep_memo;
/* rm_suggest; reference: without the search's shortcuts (every pair
 * priced from scratch), for tests that hold the two to the same answer. */
RMI_HIDDEN rm_status rmi_suggest_reference(const rm_model *m, const rm_hw *hw,
					   const rm_train *t,
					   const rm_suggest_options *o,
					   bool reference, rm_suggestion **out,
					   rm_error *err);
/* The layout's checks and the memory of rmi_estimate_run alone
 * (mem_peak, fits and what they are made of; no time) for a model and
 * hardware already checked (rm_model_check, rm_hw_check): suggest asks
 * whether a variant fits before it runs the time model on it. */
RMI_HIDDEN rm_status rmi_estimate_mem(const rm_model *m, const rm_hw *hw,
				      const rm_train *t,
				      const rm_layout *layout,
				      const rmi_shape *k,
				      rm_estimate *out, rm_error *err);
/* The rest of rmi_estimate_memo: the time of e, which rmi_estimate_mem
 * filled with t, l and its memory. */
RMI_HIDDEN void rmi_estimate_time(const rm_model *m, const rm_hw *hw,
				  const rm_train *t, const rmi_shape *k,
				  rmi_ep_memo *memo, rm_estimate *e);
/* rmi_estimate_time up to what a floor reads: the compute and the axes'
 * seconds (CP and EP also exposed), bit for bit as it; no names, no
 * TP or DP overlap, no step (model_suggest_bound.c). */
RMI_HIDDEN void rmi_estimate_floor(const rm_model *m, const rm_hw *hw,
				   const rm_train *t, const rmi_shape *k,
				   rmi_ep_memo *memo, rm_estimate *e);
/* rmi_estimate_run with the EP links taken from (or put into) memo;
 * memo NULL: found afresh, as rmi_estimate_run does. k (here and in
 * the two above, rmi_estimate_times too) is m's shape (rmi_shape_of);
 * NULL: derived for this call. */
RMI_HIDDEN rm_status rmi_estimate_memo(const rm_model *m, const rm_hw *hw,
				       const rm_train *t,
				       const rm_layout *layout,
				       const rmi_shape *k,
				       rmi_ep_memo *memo, rm_estimate *out,
				       rm_error *err);
RMI_HIDDEN rm_status rmi_estimate_map(const rm_model *m, const rm_hw *hw,
				      const rm_train *t, const rm_map *map,
				      const rm_fabric *fabric,
				      rm_estimate *out, rm_error *err);
/* A caller's rm_train of any known version as this library's: the
 * fields its version lacks get rm_train_init's defaults. */
RMI_HIDDEN rm_status rmi_train_upgrade(const rm_train *in, rm_train *out,
				       rm_error *err);

/* The current version's defaults (model_train.c). */
RMI_HIDDEN void rmi_train_defaults(rm_train *t);
RMI_HIDDEN rm_status rmi_suggest_upgrade(const rm_suggest_options *in,
					 rm_suggest_options *out,
					 rm_error *err);
/* At the top of a public function taking `const T *p`: p then points at
 * this library's version of the caller's struct (fn upgrades it), or the
 * function returns fn's status. */
#define RMI_UPGRADE_ARG(T, fn, p, err)                                    \
	T p##_v_;                                                         \
	do {                                                              \
		rm_status st_ = fn((p), &p##_v_, (err));                  \
		if (st_)                                                  \
			return st_;                                       \
		(p) = &p##_v_;                                            \
	} while (0)
#define RMI_TRAIN_ARG(t, err)                                             \
	RMI_UPGRADE_ARG(rm_train, rmi_train_upgrade, t, err)
#define RMI_SUGGEST_ARG(o, err)                                           \
	RMI_UPGRADE_ARG(rm_suggest_options, rmi_suggest_upgrade, o, err)

/* The model and hardware getters filling this library's version
 * (model_file.c, model_preset.c); rm_model_get, rm_hw_get and
 * rm_hw_preset hand a caller the part its version has. */
RMI_HIDDEN rm_status rmi_model_get(const char *spec, rm_model *out,
				   rm_error *err);
RMI_HIDDEN rm_status rmi_hw_get(const char *spec, rm_hw *out,
				rm_error *err);
/* rm_hw_presets for a message, joined by ", " and `last` before the
 * final one: the list rmi_hw_preset's refusal gives, which was written
 * out by hand and had to be kept in step with the table. (site.c builds
 * its own: the fabric layer comes before the model's.) */
RMI_HIDDEN void rmi_hw_preset_names(char *buf, size_t n, const char *last);
RMI_HIDDEN rm_status rmi_hw_preset(const char *name, rm_hw *out,
				   rm_error *err);
RMI_HIDDEN rm_status rmi_model_upgrade(const rm_model *in, rm_model *out,
				       rm_error *err);
RMI_HIDDEN rm_status rmi_hw_upgrade(const rm_hw *in, rm_hw *out,
				    rm_error *err);
/* The same for `const rm_model *m` and `const rm_hw *hw`. */
#define RMI_MODEL_HW_ARG(m, hw, err)                                      \
	RMI_UPGRADE_ARG(rm_model, rmi_model_upgrade, m, err);             \
	RMI_UPGRADE_ARG(rm_hw, rmi_hw_upgrade, hw, err)

#endif
