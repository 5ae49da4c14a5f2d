/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util/objects.h - the definitions of librankmap's opaque objects. The
 * public header names them only (rm_map, rm_report, rm_site, rm_estimate,
 * rm_suggestion): programs reach them through accessors, so that a field
 * added here changes no caller's layout. Every folder of the library
 * sees them; the folder that owns each says so beside it.
 */
#ifndef RANKMAP_OBJECTS_H
#define RANKMAP_OBJECTS_H

#include "rankmap.h"

/* The site file (fabric/site*.c). */
struct rm_site {
	char *path;                  /* file it came from, for messages */
	char *name;
	uint32_t gpus_per_node;      /* 0 = not set */
	rm_nvl_kind nvl_kind;
	bool nvl_given;              /* nvlink.domain written in the file */
	char **nvl_groups;           /* hostlist expression per domain */
	size_t n_nvl_groups;
	uint32_t nvl_domain_gpus;    /* 0 = derive */
	char **unit_name;            /* rail-optimised scalable units */
	char **unit_nodes;           /* hostlist expression per unit */
	size_t nunits;
	uint32_t rails;              /* rails per unit; 0 = not rail-optimised */
	rm_tier tier[RM_MAX_TIERS];  /* innermost (nvlink) first */
	size_t ntiers;
	char order[64];              /* default --order; "" = nesting order */
	char hw[32];                 /* default --hw, a preset; "" = the CLI's */
	rm_enforce enforce;
	int64_t max_pp_crossings;    /* -1 = no limit */
	/* three-level trees: which pipeline crossings the planner avoids
	 * first (policy.crossings) */
	rm_cross_policy cross_policy;
	bool allow_missing_nodes;    /* nodes absent from topology: own leaf */
	char *topology;              /* path of topology.conf; NULL = default */
	/* node hardware */
	char **nic_exclude;          /* fnmatch patterns of NIC names */
	size_t n_nic_exclude;
	char **nccl_key, **nccl_val; /* extra NCCL variables */
	size_t n_nccl;
	bool nccl_override_user;     /* site values win over the job's env */
	char *hwloc_xml;             /* cached XML path, "%n" = short hostname */
};

/* A map's validation report (place/, map/check.c). */
struct rm_report {
	uint32_t world;
	bool must_ok;                /* every must-rule holds */
	uint64_t tp_groups, tp_split;        /* TP groups / leaving a domain */
	uint64_t cp_split, ep_split;         /* nested groups leaving a domain */
	bool cp_must, ep_must;               /* those are must-rules here */
	uint64_t pp_pairs;                   /* consecutive-stage pairs */
	uint64_t pp_same_node, pp_same_leaf, pp_same_rail;
	uint64_t pp_cross;                   /* pairs leaving leaf/rail */
	uint64_t pp_cross_lower_bound;
	/* the bound is the fewest any placement on these leaf sizes can
	 * reach (the exact search finished); pp_cross equal to the bound
	 * means the map is optimal */
	bool pp_bound_exact;
	/* pairs whose nodes sit in different top-level subtrees (pods), and
	 * the same kind of bound over the subtrees' capacities */
	uint64_t pp_cross_top, pp_cross_top_lower_bound;
	/* pairs whose two GPUs share a local index (same rail) */
	uint64_t pp_rail_aligned, dp_pairs, dp_rail_aligned;
	uint32_t dp_groups, dp_leaves_max, dp_tops_max;
	double dp_leaves_mean, dp_tops_mean;
	uint32_t leaves, tops;               /* distinct ones the hosts use */
	char **warning;                      /* human sentences */
	size_t nwarning;
	/* pp_cross by the tier the pair meets on: inside its top-level
	 * subtree (pod) or only above it (spine); the two add up to
	 * pp_cross, so with pp_same_* every pair is on exactly one tier */
	uint64_t pp_cross_pod, pp_cross_spine;
	/* EP groups (the placement axis) as the DP ones: leaves and
	 * top-level subtrees each spans; all 0 without expert parallelism */
	uint32_t ep_groups, ep_leaves_max, ep_tops_max;
	double ep_leaves_mean, ep_tops_mean;
	/* GPUs of the used hosts that no rank runs on, and the hosts they
	 * are on: the planner may leave parts of nodes idle rather than a
	 * whole node spare when that crosses fewer leaves */
	uint32_t gpus_idle, nodes_part_idle;
	/* EP is no must-rule but NVLink domains span nodes: ep_split (the
	 * real EP groups cut across domains) is scored and reported */
	bool ep_scored;
};

struct rm_map {
	rm_layout layout;
	rm_order order;
	uint32_t world;
	uint32_t gpus_per_node;
	char **host;                 /* nodes used, in placement order */
	char **host_leaf;            /* leaf (or unit) name per host */
	char **host_unit;            /* rail unit per host, NULL entries if none */
	uint32_t nhost;
	char **spare;                /* allocated but unused nodes */
	uint32_t nspare;
	rm_rank *rank;               /* indexed by RANK, world entries */
	rm_report report;
	char inputs_sha256[65];
	/* RANK per host*gpus_per_node + local_gpu, UINT32_MAX = idle; built
	 * by rm_plan and rm_check, may be NULL. Every pointer in the map
	 * (arrays and each string) is malloc'd: rm_map_free releases them. */
	uint32_t *slot_rank;
};

/* The cost model's objects (model/). */
typedef struct rm_axis_cost rm_axis_cost;
struct rm_axis_cost {
	bool used;                   /* axis size > 1 */
	char collective[48];
	uint32_t group;              /* ranks in one collective */
	double bytes;                /* sent per GPU per step */
	double calls;                /* collective calls per GPU per step */
	char link[32];               /* "nvlink" or the highest tier crossed */
	double gbytes_per_s;         /* effective, after eff and oversubscription */
	double seconds;              /* bytes / bandwidth */
	double exposed;              /* of which on the critical path */
	bool overlappable;
	double off_nvlink;           /* share of ring hops leaving NVLink */
	double off_leaf;             /* share of hops leaving the leaf switch */
	/* ep only: expert tensor parallelism's gathers of the routed tokens,
	 * on the links of the etp groups */
	double etp_bytes, etp_gbps;
	char etp_link[32];
};

struct rm_estimate {
	rm_layout layout;
	rm_schedule schedule;
	uint32_t vchunks, micro_batch;
	uint64_t gpus, seqs;
	uint64_t m;                  /* micro-batches per step per pipeline */
	uint32_t layers_stage;       /* most layers on one stage */
	double imbalance;            /* slowest stage / average stage */
	/* memory, bytes per GPU; first = first stage, last = last stage */
	double params_first, params_last;
	double bytes_per_param[3];   /* weights, gradients, optimizer */
	double weights, grads, optim; /* worst stage */
	double act_layer;            /* one layer, one micro-batch */
	double inflight_first, inflight_last; /* micro-batch-stages held */
	double act_first, act_last, act_work, logits;
	double mem_first, mem_last, mem_peak, hbm, reserve;
	bool fits;
	/* compute */
	double flops_token;          /* model FLOPs per token, 6N + attention */
	double hw_flops_token;       /* with recomputation */
	double flops_step;           /* model FLOPs per step, all GPUs */
	double flops_gpu;            /* model FLOPs per GPU per step */
	double t_peak, t_compute;    /* s: model FLOPs at peak; slowest stage */
	/* one layer, one micro-batch, forward: GEMMs, attention, elementwise */
	double gemm_flops, t_gemm, attn_flops, t_attn, mem_bytes, t_mem;
	double cast_bytes, t_cast;   /* FP8 casts, one layer, one micro-batch */
	double t_fwd, t_bwd, t_wgrad, t_recomp; /* one layer, one micro-batch */
	double t_head, t_embed;      /* logits + loss (last), embedding (first) */
	double t_stage;              /* slowest stage, one micro-batch */
	double t_optim;              /* optimizer step, memory-bound */
	uint32_t layers_first, layers_last;
	double inflight_w;           /* deferred weight-gradient passes held */
	rm_axis_cost axis[RM_NAXES];
	double bubble_frac;          /* bubble / ideal time */
	double t_bubble;
	/* at scale (model_scale.c): collective latency (of it on the
	 * critical path), stragglers, data loading */
	double t_lat, t_lat_path, t_jitter, t_data;
	/* mfu counts attention whole (non-causal: 12 L a hd s FLOPs per
	 * token, as Megatron-LM and PaLM do); mfu_causal counts what the GPU
	 * runs with a causal mask, half of it (flops_token_causal) */
	double t_step, mfu, tokens_per_s;
	double flops_token_causal, mfu_causal;
	rm_recompute recompute;      /* in force for this estimate */
	uint32_t recompute_layers;   /* full on this many per stage; 0 = all */
	/* goodput: Young/Daly checkpoint interval under random failures */
	double fails_per_day, ckpt_interval_s, goodput;
	char note[384];              /* a placement assumption worth saying */
	/* what the map's check says that prices depend on ("EP groups cut
	 * across NVLink domains: 4 of 64"); "" when nothing */
	char plan[160];
	uint32_t stage_first_col;    /* the stage memory's first column is */
	/* Each memory column adds up: mem_first = params_col x (weights +
	 * gradients + optimizer bytes per parameter) + gathered + act_first +
	 * act_work + logits_first + reserve; mem_last the same with
	 * params_last, act_last and logits. */
	double params_col;           /* parameters of the first column's stage */
	double gathered;             /* fsdp: one gathered layer + prefetch */
	double logits_first;         /* logits on the first column's GPU (pp 1,
				      * zb-v), else 0 */
};

typedef struct rm_candidate rm_candidate;
struct rm_candidate {
	rm_estimate est;             /* est.recompute: the one chosen */
	bool valid;                  /* fits and the batch splits */
	char why[256];               /* why not valid, or why it lost */
	char label[24];              /* neighbours: "tp x2", "pp /2" ... */
};

struct rm_suggestion {
	rm_candidate *ranked;        /* valid, fastest first */
	/* the rows ranked: every valid layout as fast as anything the
	 * report places (its top rows, those within 5 % of #1, the
	 * compared layout); the search prices no slower one */
	size_t nranked;
	size_t nfit;                 /* the layouts that fit: nranked or more */
	size_t priced;               /* layout x micro-batch pairs timed */
	rm_candidate base;           /* #1, or opts.around at its best */
	size_t base_rank;            /* 1-based place of base; 0 = not ranked */
	rm_candidate neighbour[12];  /* of base */
	size_t nneighbour;
	size_t considered, rejected_mem, rejected_other;
	rm_candidate *rejected;      /* a few memory rejects, for the report */
	size_t nrejected;
	/* opts.around with unlimited memory, when that is faster than what
	 * fits (how far it is from fitting, and where it would rank) */
	rm_candidate unbounded;
	size_t unbounded_rank;       /* 0 = none */
	/* opts.around when memory holds it back: the same search with the
	 * settings that let it run as it would with more memory (sharded
	 * gradients, else sharded weights; its recomputation), where it
	 * ranks among layouts priced so and why its neighbours lose; NULL
	 * when none is needed or none is enough */
	struct rm_suggestion *needs;
	char needs_what[256];        /* the settings that changed, in words */
};

#endif /* RANKMAP_OBJECTS_H */
