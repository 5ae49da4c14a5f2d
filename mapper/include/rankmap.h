/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rankmap.h - the public header of librankmap; rankmap_text.h beside it
 * adds the text/JSON buffer programs print their reports with.
 *
 * librankmap turns a parallel layout (TP x PP x DP, optionally CP and EP),
 * a node allocation and the fabric those nodes sit in into a rank map, and
 * scores any rank map against the fabric.
 *
 * Conventions:
 *  - every public name starts with rm_;
 *  - functions that can fail return rm_status (RM_OK == 0) and, when the
 *    caller passes a non-NULL rm_error, a message naming the file, line and
 *    column or the offending value;
 *  - the library never prints, never exits and keeps no global mutable state;
 *  - objects returned through an out-pointer are owned by the caller and are
 *    released with the matching rm_*_free().
 *
 * Sections below are owned by one module each (marked BEGIN/END); keep
 * edits inside the section you own.
 */
#ifndef RANKMAP_H
#define RANKMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RM_VERSION_STRING "0.1.0"
#define RM_MAP_SCHEMA "rankmap-map/1"
#define RM_SITE_SCHEMA "rankmap-site/1"

/* Hard limits that make hostile input fail fast instead of eating memory. */
#define RM_MAX_WORLD (1u << 24)     /* GPUs in one layout */
#define RM_MAX_HOSTS (1u << 20)     /* hosts in one expanded hostlist */
#define RM_MAX_HOSTNAME 255         /* bytes in one host name */
#define RM_MAX_INPUT (64u << 20)    /* bytes in one input file */

/* ===== BEGIN section: errors and inputs (util/error.c, util/buf.c) ===== */
typedef enum rm_status {
	RM_OK = 0,
	RM_EINPUT,       /* malformed, oversized or inconsistent input */
	RM_ENOMEM,
	RM_EIO,          /* a file could not be read or written */
	RM_ERULE,        /* a must-rule cannot be satisfied (e.g. TP > NVLink domain) */
	RM_ENOTFOUND,    /* a name (node, axis, preset) is unknown */
	RM_EUNSUPPORTED  /* valid input this build or machine cannot handle */
} rm_status;

typedef struct rm_error {
	rm_status code;
	char msg[1024];
} rm_error;

const char *rm_status_name(rm_status s);
/*
 * An untrusted value (a user's option, a word from a file) made safe to put
 * in a message: at most `len` bytes of `s`, single-quoted, control bytes and
 * quotes escaped as \xNN, cut with "..." to fit `bufsz` bytes. Returns
 * buf ("" when bufsz < 8).
 */
const char *rm_quote(const char *s, size_t len, char *buf, size_t bufsz);
/* Read a whole regular file of at most RM_MAX_INPUT bytes into *out
 * (malloc'd, NUL-terminated); the message names the path. */
rm_status rm_file_read(const char *path, char **out, size_t *len,
		       rm_error *err);
/* ===== END section: errors and inputs ===== */

/* ===== BEGIN section: layout and order (layout/) ===== */
typedef enum rm_axis {
	RM_AXIS_TP = 0,
	RM_AXIS_CP,
	RM_AXIS_EP,
	RM_AXIS_PP,
	RM_AXIS_DP,
	RM_NAXES
} rm_axis;

/* "tp", "cp", "ep", "pp", "dp" */
const char *rm_axis_name(rm_axis a);
/* Axis for a name of `len` bytes, or -1 when unknown. */
int rm_axis_from_name(const char *s, size_t len);

/*
 * A layout: the size of every axis and the physical nesting order.
 * `8x16x128` is tp=8,pp=16,dp=128; in the named form the order written is
 * the nesting order, innermost first. Axes not written have size 1 and are
 * not in nest[]. A named layout without dp gets dp=auto appended outermost.
 */
typedef struct rm_layout {
	unsigned naxes;              /* entries used in nest[] */
	rm_axis nest[RM_NAXES];      /* nesting order, innermost first */
	uint32_t size[RM_NAXES];     /* indexed by rm_axis; 1 when absent */
	bool dp_auto;                /* dp=auto, not yet resolved */
	/*
	 * Framework semantics (docs/layouts.md). size[] are the factors the
	 * placer nests: the world is their product. Expert parallelism is
	 * carved out of data parallelism as in Megatron-Core, so
	 * size[RM_AXIS_EP] is only the part of DP that one expert block
	 * (etp x ep ranks) spans beyond TP x CP, and size[RM_AXIS_DP] the
	 * rest: the framework's dp is rm_layout_dp(). Read the degrees with
	 * the rm_layout_* getters below.
	 */
	uint32_t ep;                 /* expert_model_parallel_size; 0 = 1 */
	uint32_t etp;                /* expert_tensor_parallel_size; 0 = tp */
	bool hsdp;                   /* dp = dp_replicate x dp_shard */
	uint32_t dp_replicate;       /* 0 while dp=auto decides it */
	uint32_t dp_shard;           /* 0 while dp=auto decides it */
} rm_layout;

rm_status rm_layout_parse(const char *text, rm_layout *out, rm_error *err);
/*
 * Resolve dp=auto against `gpus` and check the product: equal to `gpus`
 * when `exact`, otherwise at most `gpus` (the rest become spares).
 */
rm_status rm_layout_resolve(rm_layout *l, uint64_t gpus, bool exact,
			    rm_error *err);
/* Product of the sizes; 0 while dp=auto is unresolved. */
uint64_t rm_layout_world(const rm_layout *l);
/* Same axes, sizes, nesting and dp=auto state. */
bool rm_layout_equal(const rm_layout *a, const rm_layout *b);
/* Canonical named form ("tp=8,pp=16,dp=128"); returns strlen or needed. */
size_t rm_layout_format(const rm_layout *l, char *buf, size_t n);
/* Framework degrees: dense dp (size[DP] x size[EP]), ep, expert tp,
 * expert dp (tp*cp*dp / (etp*ep)); HSDP shard and replicate (dp and 1
 * without HSDP). 0 while dp=auto is unresolved, where dp is involved. */
uint32_t rm_layout_dp(const rm_layout *l);
uint32_t rm_layout_ep(const rm_layout *l);
uint32_t rm_layout_etp(const rm_layout *l);
uint32_t rm_layout_edp(const rm_layout *l);
uint32_t rm_layout_dp_shard(const rm_layout *l);
uint32_t rm_layout_dp_replicate(const rm_layout *l);

/*
 * Rank numbering: which coordinate the framework derives from RANK.
 * axis[0] varies fastest. Named orders: "megatron" (tp-cp-ep-dp-pp),
 * "llama3" (tp-cp-ep-pp-dp), "torchtitan" (tp-cp-dp-pp, row-major over
 * pp,dp,cp,tp); or an explicit permutation "tp-dp-pp". NULL or "" gives the
 * layout's nesting order. Axes of size 1 may be left out.
 */
typedef struct rm_order {
	unsigned naxes;
	rm_axis axis[RM_NAXES];      /* fastest first; all axes with size > 1 */
	char name[32];               /* "megatron", ..., "nest" or "custom" */
} rm_order;

rm_status rm_order_parse(const char *text, const rm_layout *l, rm_order *out,
			 rm_error *err);
void rm_order_from_nest(const rm_layout *l, rm_order *out);
/* Canonical "tp-pp-dp" form; returns strlen or needed. */
size_t rm_order_format(const rm_order *o, char *buf, size_t n);
/*
 * The framework's process groups (Megatron-Core's RankGenerator rules:
 * a dense generator tp x cp x dp x pp and an expert generator
 * etp x ep x edp x pp over the same ranks, both numbered by the order;
 * torchtitan's HSDP mesh splits dp into dp_shard (inner) and
 * dp_replicate). Names: "tp", "cp", "dp", "pp", "ep", "etp", "edp",
 * "dp_shard", "dp_replicate", "dp-cp", "tp-pp" (model parallel),
 * "tp-cp", "tp-dp", "tp-dp-cp", "etp-ep", "etp-ep-pp", "dp_shard-cp",
 * "embedding" (first and last stage of each pipeline),
 * "position-embedding" (first stage).
 */
typedef enum rm_group_kind {
	RM_GROUP_TP = 0,
	RM_GROUP_CP,
	RM_GROUP_DP,
	RM_GROUP_PP,
	RM_GROUP_EP,
	RM_GROUP_ETP,
	RM_GROUP_EDP,
	RM_GROUP_DP_SHARD,
	RM_GROUP_DP_REPLICATE,
	RM_GROUP_DP_CP,
	RM_GROUP_TP_PP,
	RM_GROUP_TP_CP,
	RM_GROUP_TP_DP,
	RM_GROUP_TP_DP_CP,
	RM_GROUP_ETP_EP,
	RM_GROUP_ETP_EP_PP,
	RM_GROUP_DP_SHARD_CP,
	RM_GROUP_EMBEDDING,
	RM_GROUP_POS_EMBEDDING,
	RM_NGROUP_KINDS
} rm_group_kind;

const char *rm_group_kind_name(rm_group_kind k);
/* Kind for a name (case-insensitive; "mp" = "tp-pp"), or -1. */
int rm_group_kind_from_name(const char *s);

/* All groups of one kind: every group has `size` members; group g is
 * rank[g*size .. g*size+size-1] in the framework's member order. */
typedef struct rm_groups {
	rm_group_kind kind;
	uint32_t world, size, ngroups;
	uint32_t *rank;              /* ngroups * size */
	uint32_t *group_of;          /* per rank: its group (UINT32_MAX: none) */
	uint32_t *index_of;          /* per rank: its place in that group */
} rm_groups;

/* Layout resolved; the order as rm_order_parse returns it. */
rm_status rm_layout_groups(const rm_layout *l, const rm_order *o,
			   rm_group_kind kind, rm_groups *out, rm_error *err);
void rm_groups_free(rm_groups *g);

/* Mixed-radix encode/decode of coordinates (indexed by rm_axis). */
uint32_t rm_rank_encode(const rm_layout *l, const rm_order *o,
			const uint32_t coord[RM_NAXES]);
void rm_rank_decode(const rm_layout *l, const rm_order *o, uint32_t rank,
		    uint32_t coord[RM_NAXES]);
/* ===== END section: layout and order ===== */

/* ===== BEGIN section: hostlists (util/hostlist*.c) ===== */
typedef struct rm_hostlist {
	char **host;                 /* expanded, in the order written */
	size_t n;
} rm_hostlist;

/* Slurm syntax: "gpu[0001-2048]", "r[0-3]n[00-15]", "a[1,3,5-9],b7". */
rm_status rm_hostlist_parse(const char *expr, rm_hostlist *out, rm_error *err);
/* Compress names back into a ranged expression (malloc'd). It expands to
 * the same names (duplicates kept) in natural order, not input order. */
rm_status rm_hostlist_format(const char *const *host, size_t n, char **out,
			     rm_error *err);
void rm_hostlist_free(rm_hostlist *hl);
/* Natural order: "n2" < "n10"; ties broken by strcmp. */
int rm_host_cmp(const char *a, const char *b);
/* ===== END section: hostlists ===== */

/* ===== BEGIN section: site file (fabric/site*.c) ===== */
typedef enum rm_nvl_kind {
	RM_NVL_NODE = 0,             /* the NVLink domain is one node */
	RM_NVL_BLOCK,                /* Slurm topology/block blocks */
	RM_NVL_GROUPS                /* explicit groups of nodes (site file) */
} rm_nvl_kind;

typedef enum rm_enforce {
	RM_ENFORCE_OFF = 0,
	RM_ENFORCE_WARN,
	RM_ENFORCE_STRICT
} rm_enforce;

#define RM_MAX_TIERS 8
typedef struct rm_tier {
	char name[64];               /* "nvlink", "leaf", "pod", "spine" ... */
	double gbytes_per_s;         /* per GPU per direction; 0 = unknown */
	double oversubscription;     /* 1.0 = full bisection; 0 = unknown */
} rm_tier;

typedef enum rm_cross_policy {
	RM_CROSS_CHEAPEST = 0,       /* by the tiers' bandwidths (default) */
	RM_CROSS_LEAVES_FIRST,       /* fewest leaf crossings, then pod */
	RM_CROSS_PODS_FIRST          /* fewest pod crossings, then leaf */
} rm_cross_policy;

typedef struct rm_site {
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
} rm_site;

void rm_site_init(rm_site *s);
rm_status rm_site_load(const char *path, rm_site *out, rm_error *err);
rm_status rm_site_parse(const char *text, size_t len, const char *name,
			rm_site *out, rm_error *err);
void rm_site_free(rm_site *s);
/* ===== END section: site file ===== */

/* ===== BEGIN section: fabric (fabric/) ===== */
/* Switch tree, NVLink domains and rail units; opaque. */
typedef struct rm_fabric rm_fabric;

rm_status rm_fabric_new(rm_fabric **out, rm_error *err);
/* Slurm topology.conf (topology/tree and topology/block). */
rm_status rm_fabric_load_topology(rm_fabric *f, const char *path,
				  rm_error *err);
rm_status rm_fabric_parse_topology(rm_fabric *f, const char *text, size_t len,
				   const char *name, rm_error *err);
/* Slurm 25.05+ topology.yaml (tree, block and flat topologies): the one
 * named `name`, or with NULL the one slurmctld gives a partition without
 * Topology= (the first with cluster_default: true, else the first). Every
 * tree and block topology in the file is checked, as slurmctld builds
 * them all; a chosen topology/ring or topology/torus3d is refused. */
rm_status rm_fabric_load_topology_yaml(rm_fabric *f, const char *path,
				       const char *name, rm_error *err);
rm_status rm_fabric_parse_topology_yaml(rm_fabric *f, const char *text,
					size_t len, const char *file,
					const char *name, rm_error *err);
/* True for a path ending in .yaml or .yml. */
bool rm_topology_is_yaml(const char *path);

/* The topology slurmctld uses for a partition (slurm_topo.c). */
typedef struct rm_slurm_topology {
	char *path;                  /* file to read; NULL = none (flat) */
	bool yaml;                   /* path is a topology.yaml */
	char *name;                  /* the partition's Topology=; NULL =
					the cluster default */
	char *plugin;                /* slurm.conf's TopologyPlugin=, or NULL */
	bool partition_found;        /* slurm.conf defines the partition */
} rm_slurm_topology;
/* `topology` given: that file; else topology.yaml beside `slurm_conf`,
 * else topology.conf there (slurmctld's order). The partition's Topology=
 * and TopologyPlugin= come from `slurm_conf` when it exists. Refuses
 * TopologyPlugin=topology/ring and topology/torus3d (without a yaml). */
rm_status rm_slurm_topology_find(const char *slurm_conf, const char *partition,
				 const char *topology, rm_slurm_topology *out,
				 rm_error *err);
/* Load what rm_slurm_topology_find found (nothing for no file). */
rm_status rm_fabric_load_slurm_topology(rm_fabric *f,
					const rm_slurm_topology *t,
					rm_error *err);
void rm_slurm_topology_free(rm_slurm_topology *t);
/* NVLink groups, rail units and tiers from the site file. */
rm_status rm_fabric_apply_site(rm_fabric *f, const rm_site *s, rm_error *err);
bool rm_fabric_is_flat(const rm_fabric *f);
/* SHA-256 (hex) of a canonical form: same fabric, same digest. */
void rm_fabric_digest(const rm_fabric *f, char hex[65]);
void rm_fabric_free(rm_fabric *f);

/* What a fabric holds, for reports (fabric_info.c). */
typedef struct rm_fabric_info {
	uint32_t nodes, switches, leaves, top_switches;
	uint32_t levels;             /* switch levels, leaves = 1 */
	bool tree, blocks;           /* topology/tree lines, BlockName= lines */
	uint32_t no_leaf;            /* nodes under no switch (site-only) */
	uint32_t nvl_domains;        /* blocks or site groups; 0 = per node */
	uint32_t nvl_domain_nodes;   /* nodes in the largest domain */
	uint32_t nvl_domain_gpus;    /* 0 = one node */
	uint32_t no_domain;          /* with domains: nodes in none */
	uint32_t units, unit_nodes, rails;
	uint32_t no_unit;            /* with units: nodes in none */
} rm_fabric_info;
void rm_fabric_info_get(const rm_fabric *f, rm_fabric_info *out);
/* Node i (0 .. info.nodes-1): its name, and which of leaf, NVLink domain
 * and rail unit it has (RM_FABRIC_NODE_* bits). */
enum { RM_FABRIC_NODE_LEAF = 1, RM_FABRIC_NODE_DOMAIN = 2,
       RM_FABRIC_NODE_UNIT = 4 };
const char *rm_fabric_node_name(const rm_fabric *f, uint32_t i);
int rm_fabric_node_where(const rm_fabric *f, uint32_t i);
/* ===== END section: fabric ===== */

/* ===== BEGIN section: fabric import (import/) ===== */
/*
 * A fabric capture (ibnetdiscover's text) turned into a topology.conf and a
 * rankmap-site/1 file, with a report of what was found, what could not be
 * placed and what had to be assumed (docs/site.md "import").
 */
typedef struct rm_import_opts {
	const char *hosts;           /* compute hosts: a hostlist, or an
					fnmatch pattern (* ? [); NULL: all */
	const char *name;            /* the site's name; NULL: "imported" */
	const char *topology;        /* the site's topology: path; NULL:
					"topology.conf" */
	uint32_t gpus_per_node;      /* 0: not written */
} rm_import_opts;
typedef struct rm_import rm_import;
typedef enum rm_import_part {
	RM_IMPORT_TOPOLOGY,          /* topology.conf text */
	RM_IMPORT_SITE,              /* rankmap-site/1 YAML */
	RM_IMPORT_REPORT,            /* found / could not place / assumed */
	RM_IMPORT_TOPOLOGY_YAML      /* the same as topology.yaml (25.05+) */
} rm_import_part;

/* ibnetdiscover output, plain, --full or -p (--ports). `file` names it in
 * messages (file:line:col). */
rm_status rm_import_ibnetdiscover(const char *text, size_t len,
				  const char *file, const rm_import_opts *o,
				  rm_import **out, rm_error *err);
/* `scontrol show topology` output (topology/tree or topology/block). */
rm_status rm_import_scontrol(const char *text, size_t len, const char *file,
			     const rm_import_opts *o, rm_import **out,
			     rm_error *err);
/* `aws ec2 describe-instance-topology` JSON: NetworkNodes (top-down) into
 * a tree, CapacityBlockId into NVLink groups; nodes are the instance ids. */
rm_status rm_import_aws(const char *text, size_t len, const char *file,
			const rm_import_opts *o, rm_import **out,
			rm_error *err);
/* `gcloud compute instances list --format=json`: each instance's
 * resourceStatus.physicalHostTopology (cluster > block > subblock) into a
 * tree; nodes are the instance names. */
rm_status rm_import_gcp(const char *text, size_t len, const char *file,
			const rm_import_opts *o, rm_import **out,
			rm_error *err);
/* Oracle Cloud: a mapping of node name to its instance metadata
 * /opc/v2/host/rdmaTopologyData (customerHPCIslandId > customerNetworkBlock
 * > customerLocalBlock into a tree; customerGpuMemoryFabric into NVLink
 * groups). */
rm_status rm_import_oci(const char *text, size_t len, const char *file,
			const rm_import_opts *o, rm_import **out,
			rm_error *err);
/* One node's `nvidia-smi -q` (its GPUs' Fabric sections: ClusterUUID and
 * CliqueId) into *im (created when NULL): nodes sharing both are one site
 * NVLink group. `host` is the node's name. */
rm_status rm_import_nvidia_smi(rm_import **im, const char *host,
			       const char *text, size_t len, const char *file,
			       const rm_import_opts *o, rm_error *err);
/* Whether the import has switches or blocks (a topology.conf to write). */
bool rm_import_has_topology(const rm_import *im);
/* One part as malloc'd text. */
rm_status rm_import_write(const rm_import *im, rm_import_part part,
			  char **out, size_t *len, rm_error *err);
/* Where the topology.conf at `path` (an admin's own) and the import
 * disagree: hosts under another leaf, hosts missing on either side, switch
 * levels. *out: the listing (malloc'd), *ndiff: how many differences. */
rm_status rm_import_against(const rm_import *im, const char *path,
			    char **out, size_t *ndiff, rm_error *err);
void rm_import_free(rm_import *im);
/* ===== END section: fabric import ===== */

/* ===== BEGIN section: plan, check and map (place/, map/) ===== */
typedef enum rm_format {
	RM_FMT_TEXT = 0,
	RM_FMT_JSON,
	RM_FMT_YAML,
	RM_FMT_CSV,
	RM_FMT_ENV,
	RM_FMT_HTML,                 /* pictures: rm_map_picture only */
	RM_FMT_SVG
} rm_format;

rm_status rm_format_parse(const char *s, rm_format *out, rm_error *err);

typedef struct rm_plan_opts {
	const rm_layout *layout;     /* resolved or dp=auto */
	const rm_order *order;       /* NULL: nesting order */
	const char *const *nodes;    /* the allocation, any order */
	size_t nnodes;
	uint32_t gpus_per_node;
	const rm_fabric *fabric;     /* NULL: one flat switch */
	bool allow_missing;          /* unknown nodes get a leaf of their own */
	bool exact;                  /* layout must use every GPU (no spares) */
	bool baseline;               /* Slurm block order over nodes as given */
	/* rm_fabric_digest(fabric) when the caller has it (64 hex digits),
	 * else NULL: planning twice on one fabric (a plan and its baseline)
	 * then hashes the fabric once. A wrong value makes a wrong stamp. */
	const char *fabric_digest;
} rm_plan_opts;

typedef struct rm_rank {
	uint32_t node;               /* index into rm_map.host */
	uint32_t local_gpu;
	uint32_t coord[RM_NAXES];    /* indexed by rm_axis */
} rm_rank;

typedef struct rm_report {
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
} rm_report;

typedef struct rm_map {
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
} rm_map;

rm_status rm_plan(const rm_plan_opts *opts, rm_map **out, rm_error *err);
/* Score a map against a fabric (NULL: flat); fills map->report. */
rm_status rm_check(rm_map *map, const rm_fabric *fabric, rm_error *err);
/* RANK playing local_gpu on host index `node`, or -1. */
int64_t rm_map_rank_at(const rm_map *map, uint32_t node, uint32_t local_gpu);
/* Index of `host` in map->host, or -1. */
int64_t rm_map_host_index(const rm_map *map, const char *host);
/*
 * The group of `rank` along placement axis `axis`: members in group order
 * (coordinate 0..size-1), written to `members` (layout.size[axis]
 * entries). *group_id is a dense group number (the color for a
 * communicator split). With expert parallelism the EP and DP placement
 * axes are not the framework's groups: use rm_map_groups for those.
 */
rm_status rm_map_group(const rm_map *map, rm_axis axis, uint32_t rank,
		       uint32_t *members, uint32_t *group_id, rm_error *err);
/* rm_layout_groups for the map's layout and order. */
rm_status rm_map_groups(const rm_map *map, rm_group_kind kind,
			rm_groups *out, rm_error *err);
/* Render in a format; *out is malloc'd and NUL-terminated. */
rm_status rm_map_write(const rm_map *map, rm_format fmt, char **out,
		       size_t *len, rm_error *err);
/* One host name per rank, in rank order: a SLURM_HOSTFILE for
 * `srun --distribution=arbitrary`, which starts task i on line i's host,
 * so SLURM_PROCID is the map's RANK. *out is malloc'd. */
rm_status rm_map_write_hostfile(const rm_map *map, char **out, size_t *len,
				rm_error *err);
/* "host slots=N" lines for DeepSpeed's launcher, hosts in the order of
 * their ranks; RM_EINPUT where DeepSpeed's numbering (a node's ranks
 * consecutive, in GPU order) cannot be the map's. */
rm_status rm_map_write_deepspeed_hostfile(const rm_map *map, char **out,
					  size_t *len, rm_error *err);
/* KEY=value lines (shell-quoted): the job-wide variables, then, when
 * rank >= 0, those of the task playing `rank`, as the SPANK plugin sets
 * them. master_port (1-65535, e.g. from rm_master_port) adds MASTER_PORT
 * beside MASTER_ADDR; 0 leaves it out. rank -1 and master_port 0 are what
 * rm_map_write gives for RM_FMT_ENV. */
rm_status rm_map_write_env(const rm_map *map, int64_t rank,
			   uint32_t master_port, char **out, size_t *len,
			   rm_error *err);
/*
 * The MASTER_PORT of a Slurm step, the one the SPANK plugin sets: the
 * first port of resv_ports (SLURM_STEP_RESV_PORTS, "12000-12003" or
 * "12000,12007", from Slurm's MpiParams=ports; NULL or unusable:
 * ignored), else a port derived from (jobid, stepid) such that it and the
 * next port lie outside the node's ephemeral range [eph_lo, eph_hi] (the
 * caller reads /proc/sys/net/ipv4/ip_local_port_range; 0, 0 or an inverted
 * range: RM_EPHEMERAL_LO-RM_EPHEMERAL_HI), below 1024 never, and never on
 * Slurm's default ports 6817-6819: ports from 20000 up when at least 1,000
 * of them are left there, else from 1024 up; consecutive steps of a job
 * take consecutive ports of that pool, jobs are 101 ports apart. Only when
 * the range leaves no port outside it, 20000 + (jobid * 101 + stepid) %
 * 20000. The same inputs give the same port on every node. Always 1-65535.
 */
#define RM_EPHEMERAL_LO 32768u
#define RM_EPHEMERAL_HI 60999u
uint32_t rm_master_port(uint32_t jobid, uint32_t stepid,
			const char *resv_ports, uint32_t eph_lo,
			uint32_t eph_hi);
/* The same, and the derived port (and the next) also outside
 * [mpi_lo, mpi_hi], the ports Slurm reserves for steps (MpiParams=ports,
 * rm_slurm_mpi_ports), which a step run without reserved ports
 * (--resv-ports=0) could otherwise take from another step. 0, 0: none. */
uint32_t rm_master_port_avoiding(uint32_t jobid, uint32_t stepid,
				 const char *resv_ports, uint32_t eph_lo,
				 uint32_t eph_hi, uint32_t mpi_lo,
				 uint32_t mpi_hi);
/* MpiParams=ports=LOW-HIGH of `slurm_conf`: 0, 0 where the file or the
 * key is absent; RM_EINPUT (naming the file and the value) for a
 * malformed ports=. */
rm_status rm_slurm_mpi_ports(const char *slurm_conf, uint32_t *lo,
			     uint32_t *hi, rm_error *err);
/* The two ports of ip_local_port_range ("32768\t60999\n"): 1-65535,
 * low <= high. */
rm_status rm_port_range_parse(const char *text, uint32_t *lo, uint32_t *hi,
			      rm_error *err);
/*
 * A rank's place in each framework group the environment carries
 * (RANKMAP_<KIND>_RANK and _SIZE): tp, cp when used, ep/etp/edp with
 * experts, pp, dp, and dp_replicate/dp_shard under HSDP, in that order.
 */
#define RM_MAX_ENV_GROUPS 9
typedef struct rm_rank_group {
	rm_group_kind kind;
	uint32_t index;              /* place in its group */
	uint32_t size;               /* members of the group */
} rm_rank_group;
rm_status rm_map_rank_groups(const rm_map *map, uint32_t rank,
			     rm_rank_group out[RM_MAX_ENV_GROUPS],
			     unsigned *n, rm_error *err);
/* Name the leaf (or unit, or NVLink block) and the rail unit of each host
 * of a map that came without them - an assignment read with no fabric -
 * by the planner's own rules. */
rm_status rm_map_locate(rm_map *map, const rm_fabric *fabric, rm_error *err);
/* Read a rankmap-map/1 file (JSON or YAML). */
rm_status rm_map_read(const char *path, rm_map **out, rm_error *err);
/* rm_map_read that also gives the SHA-256 (lowercase hex) of the bytes it
 * parsed, so that a digest and the map come from one read of the file.
 * Maps of any size are read by one streaming reader, with memory bounded
 * by the world size; keys in another order than rankmap writes them
 * (layout and nodes before ranks, groups after) cost another pass. */
rm_status rm_map_read_digest(const char *path, rm_map **out,
			     char sha256_hex[65], rm_error *err);
/* Read a user's "rank host local_gpu" file (CSV or whitespace). */
rm_status rm_map_read_assignment(const char *path, const rm_layout *l,
				 const rm_order *o, uint32_t gpus_per_node,
				 rm_map **out, rm_error *err);
void rm_map_free(rm_map *map);
/* SHA-256 of a buffer, lowercase hex. */
void rm_sha256_hex(const void *data, size_t len, char hex[65]);
/* The same over several pieces (FIPS 180-4): init, add as often as
 * needed, then end once; the context is spent after end. */
#define RM_SHA256_LEN 32
typedef struct rm_sha256_ctx {
	uint32_t h[8];
	uint64_t total;              /* bytes hashed so far */
	unsigned char block[64];
	size_t fill;                 /* bytes waiting in block[] */
} rm_sha256_ctx;
void rm_sha256_init(rm_sha256_ctx *c);
void rm_sha256_add(rm_sha256_ctx *c, const void *data, size_t len);
void rm_sha256_end(rm_sha256_ctx *c, unsigned char out[RM_SHA256_LEN]);
void rm_sha256_end_hex(rm_sha256_ctx *c, char hex[65]);
/* ===== END section: plan, check and map ===== */

/* ===== BEGIN section: picture (picture/) ===== */
struct rm_estimate;                  /* the cost model's, below */
typedef struct rm_picture_opts {
	rm_format format;            /* RM_FMT_HTML or RM_FMT_SVG */
	const rm_fabric *fabric;     /* the fabric the maps were scored on */
	const rm_map *baseline;      /* drawn beside the map; may be NULL */
	const char *title;           /* NULL: the layout */
	/* Seconds per step and MFU one model gives each map
	 * (rm_estimate_map on `fabric`), shown in its header with the
	 * baseline's difference to the map; NULL: none (then the header
	 * holds the counts only). `priced_by` names the model and hardware
	 * ("llama3-405b on h100-sxm-80gb"); NULL says nothing. */
	const struct rm_estimate *estimate, *baseline_estimate;
	const char *priced_by;
} rm_picture_opts;

/*
 * Draw a checked map (rm_plan or rm_check filled its report) on its
 * fabric's tiers: one self-contained HTML page (inline script, no network)
 * or a static SVG. *out is malloc'd and NUL-terminated.
 */
rm_status rm_map_picture(const rm_map *map, const rm_picture_opts *opts,
			 char **out, size_t *len, rm_error *err);
/* ===== END section: picture ===== */

/* ===== BEGIN section: node hardware (node/, hwloc) ===== */
/* PCI distance between a GPU and a NIC, in NCCL's words. */
typedef enum rm_pci_dist {
	RM_DIST_PIX = 0,             /* at most one PCIe switch between them */
	RM_DIST_PXB,                 /* several PCIe switches, no host bridge */
	RM_DIST_PHB,                 /* through the host bridge */
	RM_DIST_NODE,                /* same NUMA node, different host bridges */
	RM_DIST_SYS,                 /* across sockets / NUMA nodes */
	RM_DIST_NONE                 /* no NIC at all */
} rm_pci_dist;

const char *rm_pci_dist_name(rm_pci_dist d);

typedef struct rm_env {
	char **key, **val;
	size_t n;
} rm_env;

void rm_env_free(rm_env *e);

/* Opaque result of reading one node's hardware; see rm_node_* below. */
typedef struct rm_node_hw rm_node_hw;

/*
 * Read this node (xml_path NULL: the site's cached hwloc_xml for this host
 * when it exists, else the live machine; or an hwloc XML export). `site`
 * may be NULL; it supplies NIC exclusion patterns. A node without GPUs is
 * not an error: it reports zero GPUs. hwloc 3.x XML fails with
 * RM_EUNSUPPORTED, a missing file with RM_EIO, a corrupt one RM_EINPUT.
 */
rm_status rm_node_load(const char *xml_path, const rm_site *site,
		       rm_node_hw **out, rm_error *err);
size_t rm_node_gpu_count(const rm_node_hw *hw);
/*
 * This machine's own export (rm_node_export_machine_xml), read back in the
 * same boot (the plugin's per-boot cache): like rm_node_load(xml_path,
 * ...), but as a live scan would see it: the checks that look at /sys
 * still run, and only the CPUs and memory this process may use (its
 * cgroup) are kept.
 */
rm_status rm_node_load_own_xml(const char *xml_path, const rm_site *site,
			       rm_node_hw **out, rm_error *err);
/* This whole machine, whatever this process's cgroup allows, as hwloc
 * XML (malloc'd, *len bytes). */
rm_status rm_node_export_machine_xml(char **xml, size_t *len, rm_error *err);
/*
 * The node-wide NCCL environment (NCCL_IB_HCA, CUDA_DEVICE_ORDER,
 * NCCL_CROSS_NIC where the site is rail-optimised, the site's own NCCL
 * variables). Whether a job's own value wins is the caller's business
 * (site->nccl_override_user).
 */
rm_status rm_node_nccl_env(const rm_node_hw *hw, const rm_site *site,
			   rm_env *out, rm_error *err);
/*
 * Per local rank: the variables that differ per task: RANKMAP_GPU (index
 * in bus order), RANKMAP_GPU_BUSID, RANKMAP_NIC ("mlx5_0:1", comma list
 * when a GPU has two), RANKMAP_CPUS ("0-13,112-125"), RANKMAP_NUMA.
 * CUDA_VISIBLE_DEVICES is not set. More local ranks than GPUs is
 * RM_EINPUT; on a node without GPUs the result is empty and RM_OK.
 */
rm_status rm_node_rank_env(const rm_node_hw *hw, uint32_t local_rank,
			   uint32_t local_ranks, rm_env *out, rm_error *err);
void rm_node_free(rm_node_hw *hw);

/*
 * Where rm_node_load(NULL, site, ...) reads from: the site's cached XML
 * (hwloc_xml with "%n" = short host name of `host`, "%%" = "%") when the
 * site names one, else NULL (*out) for the live machine. rm_node_load
 * uses this itself with this machine's name and falls back to the live
 * machine when the expanded file does not exist.
 */
rm_status rm_node_xml_path(const rm_site *site, const char *host, char **out,
			   rm_error *err);
/* "live" or the XML file that was read. */
const char *rm_node_source(const rm_node_hw *hw);

/* One GPU, in PCI bus order (CUDA's order with CUDA_DEVICE_ORDER=PCI_BUS_ID).
 * Strings and arrays belong to the rm_node_hw and live as long as it. */
typedef struct rm_gpu_info {
	const char *busid;           /* "0000:1b:00.0" */
	uint16_t vendor, device;     /* PCI ids, 0x10de:0x2330 */
	int32_t numa;                /* NUMA node OS index; -1 unknown */
	const char *cpus;            /* its local PUs, "0-55,112-167" */
	const uint32_t *nic;         /* paired compute NIC ports (rm_node_nic) */
	size_t nnic;                 /* 0 = none on this node */
	rm_pci_dist dist;            /* distance to nic[0]; RM_DIST_NONE if none */
} rm_gpu_info;

/* One RDMA port (a dual-port NIC gives two). */
typedef struct rm_nic_info {
	const char *name;            /* RDMA device, "mlx5_0", "rdmap85s0" */
	uint32_t port;               /* 1-based */
	const char *busid;
	const char *netdev;          /* "ibp24s0", "" when none */
	int32_t state;               /* IB port state: 4 ACTIVE, 1 DOWN; -1 unknown */
	int32_t numa;                /* -1 unknown */
	bool compute;                /* goes into NCCL_IB_HCA */
	const char *why_not;         /* reason when !compute, else "" */
	int32_t gpu;                 /* nearest GPU index; -1 none */
	rm_pci_dist dist;            /* distance to that GPU */
} rm_nic_info;

size_t rm_node_nic_count(const rm_node_hw *hw);
size_t rm_node_nvswitch_count(const rm_node_hw *hw);
/* false when i is out of range. */
bool rm_node_gpu(const rm_node_hw *hw, size_t i, rm_gpu_info *out);
bool rm_node_nic(const rm_node_hw *hw, size_t i, rm_nic_info *out);
/* True when no NIC served a GPU at PHB or closer and the compute NICs
 * were taken from the GPUs' NUMA nodes instead (POWER9-like machines). */
bool rm_node_numa_fallback(const rm_node_hw *hw);
/* The cpuset of a local rank as a list ("0-13,112-125"); malloc'd. */
rm_status rm_node_rank_cpus(const rm_node_hw *hw, uint32_t local_rank,
			    uint32_t local_ranks, char **out, rm_error *err);
/* NCCL_TOPO_FILE contents built from the hwloc data (malloc'd). */
rm_status rm_node_nccl_topo_xml(const rm_node_hw *hw, char **xml, size_t *len,
				rm_error *err);
/*
 * The `rankmap node` report: RM_FMT_TEXT (tables), RM_FMT_JSON or
 * RM_FMT_ENV (KEY=value lines, the node's then each rank's under a
 * "# local rank N" comment). local_ranks 0 = one per GPU.
 */
rm_status rm_node_format(const rm_node_hw *hw, const rm_site *site,
			 rm_format fmt, uint32_t local_ranks, char **out,
			 size_t *len, rm_error *err);
/* ===== END section: node hardware ===== */

/* ===== BEGIN section: cost model (model/) ===== */
/*
 * An analytical model of one training step: memory per GPU, compute, the
 * traffic of each parallel axis and the link it lands on, the pipeline
 * bubble. Units: bytes, FLOP, seconds; bandwidths in GB/s (1e9 bytes/s).
 * Formulas and their sources: docs/explain.md.
 */
typedef struct rm_model {
	char name[64];
	uint32_t layers, hidden, ffn, heads, kv_heads, head_dim;
	uint32_t vocab, seq_len;
	bool swiglu;                 /* gated FFN: 3 matrices, else 2 */
	bool bias;                   /* linear biases and LayerNorm beta (GPT) */
	bool learned_pos;            /* learned position embeddings (GPT) */
	bool tied_embeddings;        /* LM head shares the embedding */
	double params;               /* total; derived unless params_given */
	bool params_given;
} rm_model;

typedef struct rm_hw_tier {
	char name[32];               /* "leaf", "pod", "spine" ... */
	uint64_t span_gpus;          /* GPUs under one switch of this tier */
	double gbytes_per_s;         /* per GPU per direction */
	double oversubscription;     /* 1.0 = full bisection */
} rm_hw_tier;

typedef struct rm_hw {
	char name[64];
	double hbm_bytes;
	double peak_flops;           /* dense BF16, per GPU */
	double nvlink_gbytes_per_s;  /* per GPU per direction */
	uint32_t nvl_domain;         /* GPUs in one NVLink domain */
	double nic_gbytes_per_s;     /* per GPU per direction */
	rm_hw_tier tier[RM_MAX_TIERS]; /* network tiers above NVLink, inner first */
	size_t ntiers;
	double hbm_gbytes_per_s;     /* HBM bandwidth */
	/* The calibration: one set per GPU type, source in docs/explain.md. */
	double gemm_eff;             /* bf16 GEMM throughput / peak, large shapes */
	double gemm_dim0;            /* a GEMM of m x n x k runs at gemm_eff x
				      * m/(m+d0) x n/(n+d0) x k/(k+d0) */
	double attn_eff;             /* attention kernel throughput / peak */
	double hbm_eff;              /* achieved / peak HBM bandwidth */
	double nvlink_eff;           /* achievable share of NVLink bandwidth */
	double net_eff;              /* achievable share of NIC bandwidth */
	double tp_overlap;           /* share of TP traffic sent through
				      * Transformer Engine's overlap
				      * (--tp-comm-overlap: 1; none: 0); what
				      * that hides is derived per GEMM */
} rm_hw;

typedef enum rm_schedule {
	RM_SCHED_1F1B = 0,
	RM_SCHED_INTERLEAVED,        /* with rm_train.vchunks chunks per GPU */
	RM_SCHED_ZBH1,
	RM_SCHED_ZBV,
	RM_SCHED_ZBH2
} rm_schedule;

typedef enum rm_recompute {
	RM_RECOMPUTE_NONE = 0,
	RM_RECOMPUTE_SELECTIVE,
	RM_RECOMPUTE_FULL
} rm_recompute;

typedef enum rm_sharding {
	RM_SHARD_NONE = 0,
	RM_SHARD_ZERO1,
	RM_SHARD_ZERO2,
	RM_SHARD_FSDP
} rm_sharding;

typedef struct rm_train {
	uint64_t batch_tokens;       /* global batch per step */
	uint32_t seq_len;            /* 0 = the model's */
	uint32_t micro_batch;        /* sequences per micro-batch */
	rm_schedule schedule;
	uint32_t vchunks;            /* interleaved: model chunks per GPU */
	rm_recompute recompute;
	uint32_t recompute_layers;   /* full: layers of each model chunk
				      * recomputed whole, the rest selective
				      * (Megatron's --recompute-num-layers,
				      * per chunk); 0 = all */
	rm_sharding sharding;
	double grad_bytes;           /* bytes per gradient element (2 or 4) */
	/* calibration overrides; 0 = the hardware's (rm_hw) */
	double gemm_eff, gemm_dim0, attn_eff, hbm_eff, nvlink_eff, net_eff;
	double dp_overlap;           /* share of the overlap window DP can use */
	double tp_overlap;           /* share of TP traffic overlapped (1: all,
				      * as --tp-comm-overlap does);
				      * < 0: the hardware's (rm_hw.tp_overlap) */
	double mem_reserve_bytes;    /* CUDA context, NCCL buffers, fragmentation */
	bool flash;                  /* fused (flash) attention, no s x s scores */
	bool seq_parallel;           /* Megatron sequence parallelism with TP */
	uint32_t first_layers;       /* layers on the first / last stage; */
	uint32_t last_layers;        /* 0 = an even share */
	double fail_per_gpu_day;     /* interruptions per GPU per day */
	double ckpt_write_s;         /* blocking checkpoint write */
	double restart_s;            /* from failure to training again */
} rm_train;

/* Presets: "llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b";
 * "a100-sxm-80gb", "h100-sxm-80gb", "h200", "gb200-nvl72". NULL-terminated
 * name lists. */
extern const char *const rm_model_presets[];
extern const char *const rm_hw_presets[];
rm_status rm_model_preset(const char *name, rm_model *out, rm_error *err);
rm_status rm_hw_preset(const char *name, rm_hw *out, rm_error *err);
/* The layout a model's authors published for training it on `gpus` GPUs
 * (Llama 3 405B: Meta's 8,192 and 16,384-GPU runs), and where they did
 * (*source); NULL when the model is not such a preset (its name and shape)
 * or nothing was published for that many GPUs. */
const char *rm_model_published_layout(const rm_model *m, uint64_t gpus,
				      const char **source);
/* A preset name, or a path (contains '/' or ends .yaml/.yml/.json). */
rm_status rm_model_get(const char *spec, rm_model *out, rm_error *err);
rm_status rm_hw_get(const char *spec, rm_hw *out, rm_error *err);
rm_status rm_model_load_yaml(const char *path, rm_model *out, rm_error *err);
rm_status rm_hw_load_yaml(const char *path, rm_hw *out, rm_error *err);
rm_status rm_model_parse_yaml(const char *text, size_t len, const char *name,
			      rm_model *out, rm_error *err);
rm_status rm_hw_parse_yaml(const char *text, size_t len, const char *name,
			   rm_hw *out, rm_error *err);
/* Parameters from the architecture (GQA, gated FFN, untied head). */
double rm_model_derive_params(const rm_model *m);
/* Check sizes for zero, overflow and inconsistency. */
rm_status rm_model_check(const rm_model *m, rm_error *err);
rm_status rm_hw_check(const rm_hw *h, rm_error *err);

void rm_train_init(rm_train *t);
/* key=value as on the command line: batch=16M, seq=8192, mb=1,
 * schedule=interleaved:4, recompute=full, sharding=zero1, gemm_eff,
 * gemm_dim0, attn_eff, hbm_eff, nvlink_eff, net_eff, dp_overlap, tp_overlap,
 * grad_bytes, mem_reserve_gib, flash, seq_parallel, first_layers,
 * recompute_layers,
 * last_layers, fail_per_gpu_day, ckpt_write_s, restart_s. */
rm_status rm_train_set(rm_train *t, const char *key, const char *value,
		       rm_error *err);
const char *rm_schedule_name(rm_schedule s);
const char *rm_recompute_name(rm_recompute r);
const char *rm_sharding_name(rm_sharding s);

typedef struct rm_axis_cost {
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
} rm_axis_cost;

typedef struct rm_estimate {
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
	double t_fwd, t_bwd, t_wgrad, t_recomp; /* one layer, one micro-batch */
	double t_head, t_embed;      /* logits + loss (last), embedding (first) */
	double t_stage;              /* slowest stage, one micro-batch */
	double t_optim;              /* optimizer step, memory-bound */
	uint32_t layers_first, layers_last;
	double inflight_w;           /* deferred weight-gradient passes held */
	rm_axis_cost axis[RM_NAXES];
	double bubble_frac;          /* bubble / ideal time */
	double t_bubble;
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
	uint32_t stage_first_col;    /* the stage memory's first column is */
	/* Each memory column adds up: mem_first = params_col x (weights +
	 * gradients + optimizer bytes per parameter) + gathered + act_first +
	 * act_work + logits_first + reserve; mem_last the same with
	 * params_last, act_last and logits. */
	double params_col;           /* parameters of the first column's stage */
	double gathered;             /* fsdp: one gathered layer + prefetch */
	double logits_first;         /* logits on the first column's GPU (pp 1,
				      * zb-v), else 0 */
} rm_estimate;

/* `layout` must be resolved (no dp=auto); its world is the GPU count. */
rm_status rm_estimate_run(const rm_model *m, const rm_hw *hw,
			  const rm_train *t, const rm_layout *layout,
			  rm_estimate *out, rm_error *err);
/*
 * The same for a planned map: each axis's traffic goes on the links the
 * map's groups actually use in `fabric` (NULL: one flat switch), the
 * slowest hop of the worst group setting the pace.
 */
rm_status rm_estimate_map(const rm_model *m, const rm_hw *hw,
			  const rm_train *t, const rm_map *map,
			  const rm_fabric *fabric, rm_estimate *out,
			  rm_error *err);
/* The report of `rankmap explain` (text or JSON), malloc'd. */
rm_status rm_estimate_write(const rm_model *m, const rm_hw *hw,
			    const rm_train *t, const rm_estimate *e,
			    rm_format fmt, char **out, size_t *len,
			    rm_error *err);

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
/* The two side by side (text or JSON, schema rankmap-explain-compare/1),
 * columns named name_a and name_b, with a one-line verdict. */
rm_status rm_estimate_compare_write(const rm_model *m, const rm_hw *hw,
				    const rm_train *t, const rm_estimate *a,
				    const char *name_a, const rm_estimate *b,
				    const char *name_b, rm_format fmt,
				    char **out, size_t *len, rm_error *err);

typedef struct rm_suggest_opts {
	uint64_t gpus;
	uint32_t top;                /* 0 = 10 */
	uint32_t max_cp;             /* 0 = as far as the sequence allows */
	uint32_t max_mb;             /* 0 = 8 */
	const rm_layout *around;     /* neighbours of this; NULL = of #1 */
	const char *around_source;   /* who published `around`, or NULL */
	unsigned schedules;          /* bits 1 << rm_schedule; 0 = Megatron's
				      * (1f1b, interleaved) */
	unsigned recomputes;         /* bits 1 << rm_recompute; 0 = the train's */
} rm_suggest_opts;

typedef struct rm_candidate {
	rm_estimate est;             /* est.recompute: the one chosen */
	bool valid;                  /* fits and the batch splits */
	char why[256];               /* why not valid, or why it lost */
	char label[24];              /* neighbours: "tp x2", "pp /2" ... */
} rm_candidate;

typedef struct rm_suggestion {
	rm_candidate *ranked;        /* valid, fastest first */
	size_t nranked;
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
} rm_suggestion;

rm_status rm_suggest(const rm_model *m, const rm_hw *hw, const rm_train *t,
		     const rm_suggest_opts *o, rm_suggestion **out,
		     rm_error *err);
rm_status rm_suggestion_write(const rm_model *m, const rm_hw *hw,
			      const rm_train *t, const rm_suggest_opts *o,
			      const rm_suggestion *s, rm_format fmt,
			      char **out, size_t *len, rm_error *err);
void rm_suggestion_free(rm_suggestion *s);

/*
 * A site's own calibration (`rankmap calibrate`): step times of its runs
 * and bus bandwidths of its links, fitted into a hardware file that
 * inherits the rest from a preset.
 */
#define RM_CAL_MAX 64                /* measurements of each kind */
typedef struct rm_cal_step {
	rm_model model;
	rm_train train;
	rm_layout layout;
	double seconds;              /* measured, per step */
	size_t samples;              /* iteration lines the time is the median of */
	char what[160];              /* the file, and what it said the run was */
} rm_cal_step;
typedef struct rm_cal_link {
	bool network;                /* false: inside one NVLink domain */
	double busbw;                /* GB/s, the largest size's (nccl-tests) or
				      * the median group's peak (nccl-check) */
	char what[160];
} rm_cal_link;
/* Megatron-LM's log of one run: the arguments it prints at start-up
 * ("------------------------ arguments ------------------------", one
 * "  name ..... value" line each) and its iteration lines ("iteration
 * N/ M | ... | elapsed time per iteration (ms): X | ..."); the step time
 * is the median of the iterations after the first. `m` is the
 * architecture; the log's num_layers, hidden_size and num_attention_heads
 * must match it. */
rm_status rm_cal_megatron_log(const char *text, size_t len, const char *file,
			      const rm_model *m, rm_cal_step *out,
			      rm_error *err);
/* torchtitan's log ("step: N  loss: ...  tps: T  ..."; tps per GPU),
 * with the run as the caller says it was (t, l): step = batch / (tps x
 * GPUs), the median after the first step. */
rm_status rm_cal_torchtitan_log(const char *text, size_t len, const char *file,
				const rm_model *m, const rm_train *t,
				const rm_layout *l, rm_cal_step *out,
				rm_error *err);
/* nccl-tests' output (all_reduce_perf ...): the busbw of its largest size
 * (out of place); network when its "# Rank" lines name more than one
 * host. rankmap-nccl-check's text report: one link per axis, the median
 * group's peak busBw, network unless "placed on: nvlink". Returns the
 * links found (*n), at most max. */
rm_status rm_cal_nccl_tests(const char *text, size_t len, const char *file,
			    rm_cal_link *out, rm_error *err);
rm_status rm_cal_nccl_check(const char *text, size_t len, const char *file,
			    rm_cal_link *out, size_t max, size_t *n,
			    rm_error *err);
typedef struct rm_cal_fit {
	rm_hw hw;                    /* base with the fitted keys */
	const char *keys[8];         /* fitted, NULL-ended */
	size_t nkeys;
	double step_pred[RM_CAL_MAX];/* model's seconds per measured step */
	double link_eff[RM_CAL_MAX]; /* measured busbw / nominal */
} rm_cal_fit;
/*
 * Fit `fit` (step-time keys: gemm_eff, gemm_dim0, attn_eff, hbm_eff) to
 * the step times and nvlink_eff / net_eff to the links (the median share
 * of nominal), starting from `base`. Refuses more step keys than step
 * times, a link key with no link measured, and a link faster than its
 * nominal figure.
 */
rm_status rm_calibrate(const rm_hw *base, const rm_cal_step *steps, size_t ns,
		       const rm_cal_link *links, size_t nl,
		       const char *const *fit, rm_cal_fit *out, rm_error *err);
/* The fit as a hardware file: `base: NAME` and the fitted keys, with the
 * measurements and residuals as comments. */
rm_status rm_cal_write(const rm_cal_fit *f, const char *base,
		       const rm_cal_step *steps, size_t ns,
		       const rm_cal_link *links, size_t nl, char **out,
		       size_t *len, rm_error *err);
/* ===== END section: cost model ===== */

#ifdef __cplusplus
}
#endif
#endif /* RANKMAP_H */
