/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rankmap.h - the public header of librankmap (ABI 1: librankmap.so.1).
 *
 * librankmap turns a parallel layout (TP x PP x DP, optionally CP and EP),
 * a node allocation and the fabric those nodes sit in into a rank map, and
 * scores any rank map against the fabric.
 *
 * The contract (docs/api.md says it at length; NEWS.md lists changes):
 *  - every public name starts with rm_; librankmap.so exports exactly the
 *    functions declared here, under the version node RANKMAP_1 (make check
 *    compares the two);
 *  - functions that can fail return rm_status (RM_OK == 0) and, when the
 *    caller passes a non-NULL rm_error, a message naming the file, line and
 *    column or the offending value;
 *  - the library never prints, never exits and keeps no global mutable state;
 *  - objects (rm_map, rm_report, rm_site, rm_fabric, rm_import,
 *    rm_node_hw, rm_estimate, rm_suggestion) are opaque: read through
 *    accessors, created by the library into an out-pointer the caller then
 *    owns, released with the object's rm_*_free(), which takes NULL;
 *  - value types (rm_layout, rm_order, rm_groups, rm_hostlist, rm_env,
 *    rm_slurm_topology ...) live in the caller's memory; rm_*_clear()
 *    releases what the library allocated inside one and leaves it empty;
 *  - options structs start with `unsigned version`: declare them with
 *    their RM_*_OPTIONS_INIT (or rm_*_init(ptr, RM_*_VERSION)); a caller
 *    built against an older header keeps working, since the library reads
 *    only the fields the caller's version has;
 *  - each declaration says in one line who owns what it returns.
 */
#ifndef RANKMAP_H
#define RANKMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The release, and the ABI this header describes: librankmap.so.1, whose
 * exports carry the version node RANKMAP_1. The ABI number changes only
 * when a program built against an older header would break. */
#define RM_VERSION_STRING "0.1.0"
#define RM_ABI_VERSION 1
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

/* What a writer renders: reports and maps. */
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

const char *rm_status_name(rm_status s);
/* The library's release ("0.1.0"), which may be newer than the header's
 * RM_VERSION_STRING the caller was built with; static storage. */
const char *rm_version(void);
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

/* "tp", "cp", "ep", "pp", "dp" (static storage). */
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

/* *out is the caller's value and holds no allocation (as rm_order). */
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

/* "tp", "dp_shard-cp", ... as above (static storage). */
const char *rm_group_kind_name(rm_group_kind k);

/* All groups of one kind: every group has `size` members; group g is
 * rank[g*size .. g*size+size-1] in the framework's member order. */
typedef struct rm_groups {
	rm_group_kind kind;
	uint32_t world, size, ngroups;
	uint32_t *rank;              /* ngroups * size */
	uint32_t *group_of;          /* per rank: its group (UINT32_MAX: none) */
	uint32_t *index_of;          /* per rank: its place in that group */
} rm_groups;

/* Frees the arrays and empties *g. */
void rm_groups_clear(rm_groups *g);

/* The RANK of coordinates (indexed by rm_axis), mixed-radix in the order. */
uint32_t rm_rank_encode(const rm_layout *l, const rm_order *o,
			const uint32_t coord[RM_NAXES]);
/* ===== END section: layout and order ===== */

/* ===== BEGIN section: hostlists (util/hostlist*.c) ===== */
typedef struct rm_hostlist {
	char **host;                 /* expanded, in the order written */
	size_t n;
} rm_hostlist;

/* Slurm syntax: "gpu[0001-2048]", "r[0-3]n[00-15]", "a[1,3,5-9],b7";
 * *out is the caller's value (rm_hostlist_clear). */
rm_status rm_hostlist_parse(const char *expr, rm_hostlist *out, rm_error *err);
/* Frees the names and empties *hl (rm_hostlist_parse filled it). */
void rm_hostlist_clear(rm_hostlist *hl);
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

/* A site file (rankmap-site/1): the fabric's NVLink domains, rail units
 * and tiers, the site's policy and its NCCL settings; opaque. */
typedef struct rm_site rm_site;

/* Read and check a site file; *out is the caller's (rm_site_free). */
rm_status rm_site_load(const char *path, rm_site **out, rm_error *err);
/* Frees the site; NULL is a no-op. */
void rm_site_free(rm_site *s);
/* Settings a program acts on (the rest reach the library only). Strings
 * belong to the site and live as long as it. A NULL site reads as one
 * that sets nothing: the defaults each line names. */
const char *rm_site_path(const rm_site *s);
const char *rm_site_name(const rm_site *s);          /* NULL: none */
uint32_t rm_site_gpus_per_node(const rm_site *s);   /* 0: not set */
const char *rm_site_order(const rm_site *s);         /* "": nesting order */
/* defaults.hw: a name of rm_hw_presets (never a file path), for
 * rm_hw_preset; "": not set, the program's own default. */
const char *rm_site_hw(const rm_site *s);
rm_enforce rm_site_enforce(const rm_site *s);      /* RM_ENFORCE_WARN */
int64_t rm_site_max_pp_crossings(const rm_site *s);  /* -1: no limit */
bool rm_site_allow_missing_nodes(const rm_site *s);
const char *rm_site_topology(const rm_site *s);      /* NULL: Slurm's */
const char *rm_site_hwloc_xml(const rm_site *s);     /* NULL: live hwloc */
bool rm_site_nccl_override_user(const rm_site *s);
size_t rm_site_tier_count(const rm_site *s);
/* How NVLink domains are given, and whether the file said so. */
rm_nvl_kind rm_site_nvl_kind(const rm_site *s);
bool rm_site_nvl_given(const rm_site *s);
/* Rail-optimised units and rails per unit (0, 0: not rail-optimised). */
size_t rm_site_unit_count(const rm_site *s);
uint32_t rm_site_rails(const rm_site *s);
/* Tier i, innermost (nvlink) first; false past the end. */
bool rm_site_tier(const rm_site *s, size_t i, rm_tier *out);
/* NIC name patterns kept out of NCCL_IB_HCA; NULL past the end. */
size_t rm_site_nic_exclude_count(const rm_site *s);
const char *rm_site_nic_exclude(const rm_site *s, size_t i);
/* The site's own NCCL variables; false past the end. */
size_t rm_site_nccl_count(const rm_site *s);
bool rm_site_nccl(const rm_site *s, size_t i, const char **key,
		  const char **val);
/* ===== END section: site file ===== */

/* ===== BEGIN section: fabric (fabric/) ===== */
/* Switch tree, NVLink domains and rail units; opaque. */
typedef struct rm_fabric rm_fabric;

/* An empty fabric (one flat switch); *out is the caller's. */
rm_status rm_fabric_new(rm_fabric **out, rm_error *err);
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
/* Frees the strings and empties *t. */
void rm_slurm_topology_clear(rm_slurm_topology *t);
/* NVLink groups, rail units and tiers from the site file. */
rm_status rm_fabric_apply_site(rm_fabric *f, const rm_site *s, rm_error *err);
/* SHA-256 (hex) of a canonical form: same fabric, same digest. */
void rm_fabric_digest(const rm_fabric *f, char hex[65]);
/* Frees the fabric; NULL is a no-op. */
void rm_fabric_free(rm_fabric *f);
/* What the topology holds that slurmctld accepts with a warning (a
 * switch under several parents, a node under two leaves), one sentence
 * per line, or NULL; owned by the fabric. */
const char *rm_fabric_warnings(const rm_fabric *f);

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
#define RM_IMPORT_OPTIONS_VERSION 1
typedef struct rm_import_options {
	unsigned version;            /* RM_IMPORT_OPTIONS_VERSION */
	const char *hosts;           /* compute hosts: a hostlist, or an
					fnmatch pattern (* ? [); NULL: all */
	const char *name;            /* the site's name; NULL: "imported" */
	const char *topology;        /* the site's topology: path; NULL:
					"topology.conf" */
	uint32_t gpus_per_node;      /* 0: not written */
} rm_import_options;
#define RM_IMPORT_OPTIONS_INIT                                           \
	{ RM_IMPORT_OPTIONS_VERSION, NULL, NULL, NULL, 0 }
typedef struct rm_import rm_import;
typedef enum rm_import_part {
	RM_IMPORT_TOPOLOGY,          /* topology.conf text */
	RM_IMPORT_SITE,              /* rankmap-site/1 YAML */
	RM_IMPORT_REPORT,            /* found / could not place / assumed */
	RM_IMPORT_TOPOLOGY_YAML      /* the same as topology.yaml (25.05+) */
} rm_import_part;

/* ibnetdiscover output, plain, --full or -p (--ports). `file` names it in
 * messages (file:line:col). `o` may be NULL (the defaults); *out is the
 * caller's (rm_import_free), as for every importer below. */
rm_status rm_import_ibnetdiscover(const char *text, size_t len,
				  const char *file, const rm_import_options *o,
				  rm_import **out, rm_error *err);
/* `scontrol show topology` output (topology/tree or topology/block). */
rm_status rm_import_scontrol(const char *text, size_t len, const char *file,
			     const rm_import_options *o, rm_import **out,
			     rm_error *err);
/* `aws ec2 describe-instance-topology` JSON: NetworkNodes (top-down) into
 * a tree, CapacityBlockId into NVLink groups; nodes are the instance ids. */
rm_status rm_import_aws(const char *text, size_t len, const char *file,
			const rm_import_options *o, rm_import **out,
			rm_error *err);
/* `gcloud compute instances list --format=json`: each instance's
 * resourceStatus.physicalHostTopology (cluster > block > subblock) into a
 * tree; nodes are the instance names. */
rm_status rm_import_gcp(const char *text, size_t len, const char *file,
			const rm_import_options *o, rm_import **out,
			rm_error *err);
/* Oracle Cloud: a mapping of node name to its instance metadata
 * /opc/v2/host/rdmaTopologyData (customerHPCIslandId > customerNetworkBlock
 * > customerLocalBlock into a tree; customerGpuMemoryFabric into NVLink
 * groups). */
rm_status rm_import_oci(const char *text, size_t len, const char *file,
			const rm_import_options *o, rm_import **out,
			rm_error *err);
/* One node's `nvidia-smi -q` (its GPUs' Fabric sections: ClusterUUID and
 * CliqueId) into *im (created when NULL): nodes sharing both are one site
 * NVLink group. `host` is the node's name. */
rm_status rm_import_nvidia_smi(rm_import **im, const char *host,
			       const char *text, size_t len, const char *file,
			       const rm_import_options *o, rm_error *err);
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
/* Frees the import; NULL is a no-op. */
void rm_import_free(rm_import *im);
/* ===== END section: fabric import ===== */

/* ===== BEGIN section: plan, check and map (place/, map/) ===== */

/*
 * What a job gets without rankmap, for --baseline (docs/placement.md,
 * "Baselines"): Slurm's block distribution over the allocation's nodes in
 * one of these orders, ranks numbered by the framework's order.
 */
typedef enum rm_baseline {
	RM_BASELINE_SLURM = 0,       /* the nodes as given (Slurm's list) */
	RM_BASELINE_SORTED,          /* by pod, leaf or rail unit, NVLink
				      * domain, then name: a sorted hostfile */
	RM_BASELINE_SWITCH_RANK,     /* by leaf switch (or block) in the
				      * topology file's order, then name:
				      * TopologyParam=SwitchAsNodeRank, and
				      * Slurm 26.05's default step layout */
	RM_BASELINE_COUNT
} rm_baseline;
/* "slurm", "sorted", "switch-rank"; NULL for a value out of range. */
const char *rm_baseline_name(rm_baseline b);
/* The kind named `s`; RM_EINPUT naming the value and the known ones. */
rm_status rm_baseline_parse(const char *s, rm_baseline *out, rm_error *err);

#define RM_PLAN_OPTIONS_VERSION 2
typedef struct rm_plan_options {
	unsigned version;            /* RM_PLAN_OPTIONS_VERSION */
	const rm_layout *layout;     /* resolved or dp=auto */
	const rm_order *order;       /* NULL: nesting order */
	const char *const *nodes;    /* the allocation, any order */
	size_t nnodes;
	uint32_t gpus_per_node;
	const rm_fabric *fabric;     /* NULL: one flat switch */
	bool allow_missing;          /* unknown nodes get a leaf of their own */
	bool exact;                  /* layout must use every GPU (no spares) */
	bool baseline;               /* Slurm's block order, not a plan */
	/* version 2: which order the baseline takes the nodes in */
	rm_baseline baseline_kind;
} rm_plan_options;
#define RM_PLAN_OPTIONS_INIT                                             \
	{ RM_PLAN_OPTIONS_VERSION, NULL, NULL, NULL, 0, 0, NULL, false,    \
	  false, false, RM_BASELINE_SLURM }

/* A map's validation report: what its groups cost on the fabric. Owned
 * by its map (rm_map_report); opaque. */
typedef struct rm_report rm_report;
/* The rank map: layout, order, hosts and each rank's place; opaque. */
typedef struct rm_map rm_map;

/* The report's figures, read with rm_report_count and rm_report_mean.
 * Counts: */
typedef enum rm_report_key {
	RM_REPORT_WORLD = 0,
	RM_REPORT_MUST_OK,           /* 1 when every must-rule holds */
	RM_REPORT_TP_GROUPS,
	RM_REPORT_TP_SPLIT,          /* TP groups leaving an NVLink domain */
	RM_REPORT_CP_SPLIT,          /* nested groups leaving a domain */
	RM_REPORT_EP_SPLIT,
	RM_REPORT_CP_MUST,           /* 1: cp_split is a must-rule here */
	RM_REPORT_EP_MUST,
	RM_REPORT_PP_PAIRS,          /* consecutive-stage pairs */
	RM_REPORT_PP_SAME_NODE,
	RM_REPORT_PP_SAME_LEAF,
	RM_REPORT_PP_SAME_RAIL,
	RM_REPORT_PP_CROSS,          /* pairs leaving leaf/rail */
	RM_REPORT_PP_CROSS_POD,      /* of those, meeting inside a pod */
	RM_REPORT_PP_CROSS_SPINE,    /* ... or only above it */
	RM_REPORT_PP_CROSS_BOUND,    /* fewest any placement can reach */
	RM_REPORT_PP_BOUND_EXACT,    /* 1: the bound's search finished, so
				      * pp_cross == bound means optimal */
	RM_REPORT_PP_CROSS_TOP,      /* pairs in different pods */
	RM_REPORT_PP_CROSS_TOP_BOUND,
	RM_REPORT_PP_RAIL_ALIGNED,   /* pairs whose GPUs share a rail */
	RM_REPORT_DP_PAIRS,
	RM_REPORT_DP_RAIL_ALIGNED,
	RM_REPORT_DP_GROUPS,
	RM_REPORT_DP_LEAVES_MAX,     /* leaves one DP group spans, at most */
	RM_REPORT_DP_TOPS_MAX,       /* pods one DP group spans, at most */
	RM_REPORT_EP_GROUPS,
	RM_REPORT_EP_LEAVES_MAX,
	RM_REPORT_EP_TOPS_MAX,
	RM_REPORT_LEAVES,            /* distinct leaves the hosts use */
	RM_REPORT_TOPS,              /* distinct pods the hosts use */
	RM_REPORT_GPUS_IDLE,         /* GPUs of used hosts no rank runs on */
	RM_REPORT_NODES_PART_IDLE,   /* hosts with such GPUs */
	/* Means (rm_report_mean): */
	RM_REPORT_DP_LEAVES_MEAN,
	RM_REPORT_DP_TOPS_MEAN,
	RM_REPORT_EP_LEAVES_MEAN,
	RM_REPORT_EP_TOPS_MEAN,
	RM_REPORT_NKEYS
} rm_report_key;
/* A count (0 for a mean's key or one past RM_REPORT_NKEYS). */
uint64_t rm_report_count(const rm_report *r, rm_report_key k);
/* A mean (or a count as a double); 0 for an unknown key. */
double rm_report_mean(const rm_report *r, rm_report_key k);
/* The report's warnings, sentences for people; owned by the report. */
size_t rm_report_warning_count(const rm_report *r);
const char *rm_report_warning(const rm_report *r, size_t i);

/* One rank's place: a small value type. */
typedef struct rm_rank {
	uint32_t node;               /* host index (rm_map_host) */
	uint32_t local_gpu;
	uint32_t coord[RM_NAXES];    /* indexed by rm_axis */
} rm_rank;

/* What a map is; pointers and strings belong to the map. */
const rm_layout *rm_map_layout(const rm_map *map);
const rm_order *rm_map_order(const rm_map *map);
uint32_t rm_map_world(const rm_map *map);
uint32_t rm_map_gpus_per_node(const rm_map *map);
/* Hosts used, in placement order, with their leaf (or unit, or NVLink
 * block) and rail unit (NULL when none); NULL past the end. */
uint32_t rm_map_host_count(const rm_map *map);
const char *rm_map_host(const rm_map *map, uint32_t i);
const char *rm_map_host_leaf(const rm_map *map, uint32_t i);
const char *rm_map_host_unit(const rm_map *map, uint32_t i);
/* Allocated nodes no rank runs on. */
uint32_t rm_map_spare_count(const rm_map *map);
const char *rm_map_spare(const rm_map *map, uint32_t i);
/* Rank `rank`'s place; false when rank >= world. */
bool rm_map_rank(const rm_map *map, uint32_t rank, rm_rank *out);
/* The report rm_plan or rm_check filled; owned by the map. */
const rm_report *rm_map_report(const rm_map *map);
/* SHA-256 (hex) of what the map was planned from; "" when read from a
 * file that has none. Owned by the map. */
const char *rm_map_inputs_digest(const rm_map *map);

/* Plan a map; *out is the caller's (rm_map_free). An options version
 * this library does not know is RM_EUNSUPPORTED. */
rm_status rm_plan(const rm_plan_options *opts, rm_map **out, rm_error *err);
/* Score a map against a fabric (NULL: flat); fills its report. */
rm_status rm_check(rm_map *map, const rm_fabric *fabric, rm_error *err);
/* RANK playing local_gpu on host index `node`, or -1. */
int64_t rm_map_rank_at(const rm_map *map, uint32_t node, uint32_t local_gpu);
/* Index of `host` among the map's hosts, or -1. */
int64_t rm_map_host_index(const rm_map *map, const char *host);
/*
 * Is `map` this allocation's? *diff (the caller's, free()) is NULL when it
 * is, else one sentence per difference, each naming a few hosts.
 * _nodes: its hosts against the allocation's `nodes`; with `whole` (a map
 * rm_plan made lists every node, as a host or a spare) also nodes the map
 * does not list. _fabric: its hosts' leaf and unit as the map records them
 * against where `fabric` puts them, and hosts the fabric does not know
 * (unless allow_missing, but a fabric that knows none of them is named).
 * An empty or NULL fabric compares nothing.
 */
rm_status rm_map_compare_nodes(const rm_map *map, const char *const *nodes,
			       size_t nnodes, bool whole, char **diff,
			       rm_error *err);
rm_status rm_map_compare_fabric(const rm_map *map, const rm_fabric *fabric,
				bool allow_missing, char **diff,
				rm_error *err);
/*
 * The group of `rank` along placement axis `axis`: members in group order
 * (coordinate 0..size-1), written to `members` (layout.size[axis]
 * entries, the caller's). *group_id is a dense group number (the color for a
 * communicator split). With expert parallelism the EP and DP placement
 * axes are not the framework's groups: use rm_map_groups for those.
 */
rm_status rm_map_group(const rm_map *map, rm_axis axis, uint32_t rank,
		       uint32_t *members, uint32_t *group_id, rm_error *err);
/* The framework's groups of one kind for the map's layout and order;
 * *out is the caller's value (rm_groups_clear). */
rm_status rm_map_groups(const rm_map *map, rm_group_kind kind,
			rm_groups *out, rm_error *err);
/* Render in a format; *out is the caller's (free), NUL-terminated. */
rm_status rm_map_write(const rm_map *map, rm_format fmt, char **out,
		       size_t *len, rm_error *err);
/* One host name per rank, in rank order: a SLURM_HOSTFILE for
 * `srun --distribution=arbitrary`, which starts task i on line i's host,
 * so SLURM_PROCID is the map's RANK. *out is the caller's (free). */
rm_status rm_map_write_hostfile(const rm_map *map, char **out, size_t *len,
				rm_error *err);
/* "host slots=N" lines for DeepSpeed's launcher, hosts in the order of
 * their ranks; RM_EINPUT where DeepSpeed's numbering (a node's ranks
 * consecutive, in GPU order) cannot be the map's. *out is the caller's. */
rm_status rm_map_write_deepspeed_hostfile(const rm_map *map, char **out,
					  size_t *len, rm_error *err);
/* KEY=value lines (shell-quoted): the job-wide variables, then, when
 * rank >= 0, those of the task playing `rank`, as the SPANK plugin sets
 * them. master_port (1-65535, e.g. from rm_master_port) adds MASTER_PORT
 * beside MASTER_ADDR; 0 leaves it out. rank -1 and master_port 0 are what
 * rm_map_write gives for RM_FMT_ENV. *out is the caller's (free). */
rm_status rm_map_write_env(const rm_map *map, int64_t rank,
			   uint32_t master_port, char **out, size_t *len,
			   rm_error *err);
/*
 * A rank's place in each framework group the environment carries
 * (RANKMAP_<KIND>_RANK and _SIZE): tp, cp when used, ep/etp/edp with
 * experts, pp, dp, and dp_replicate/dp_shard under HSDP, in that order,
 * into the caller's out[] (*n entries).
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
/* Read a rankmap-map/1 file (JSON or YAML); *out is the caller's
 * (rm_map_free), as for the two readers below. */
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
/* Frees the map; NULL is a no-op. */
void rm_map_free(rm_map *map);
/* ===== END section: plan, check and map ===== */

/* ===== BEGIN section: picture (picture/) ===== */
typedef struct rm_estimate rm_estimate; /* the cost model's, below */
#define RM_PICTURE_OPTIONS_VERSION 2
typedef struct rm_picture_options {
	unsigned version;            /* RM_PICTURE_OPTIONS_VERSION */
	rm_format format;            /* RM_FMT_HTML or RM_FMT_SVG */
	const rm_fabric *fabric;     /* the fabric the maps were scored on */
	const rm_map *baseline;      /* drawn beside the map; may be NULL */
	const char *title;           /* NULL: the layout */
	/* Seconds per step and MFU one model gives each map
	 * (rm_estimate_map on `fabric`), shown in its header with the
	 * baseline's difference to the map; NULL: none (then the header
	 * holds the counts only). `priced_by` names the model and hardware
	 * ("llama3-405b on h100-sxm-80gb"); NULL says nothing. */
	const rm_estimate *estimate, *baseline_estimate;
	const char *priced_by;
	/* version 2: several baselines side by side, baselines[i] planned
	 * with baseline_kind baseline_kinds[i] and priced by
	 * baseline_estimates[i] (that array, or an entry, may be NULL);
	 * with nbaselines > 0 these replace `baseline` and its estimate. */
	const rm_map *const *baselines;
	const rm_baseline *baseline_kinds;
	const rm_estimate *const *baseline_estimates;
	size_t nbaselines;
} rm_picture_options;
#define RM_PICTURE_OPTIONS_INIT                                          \
	{ RM_PICTURE_OPTIONS_VERSION, RM_FMT_HTML, NULL, NULL, NULL, NULL, \
	  NULL, NULL, NULL, NULL, NULL, 0 }

/*
 * Draw a checked map (rm_plan or rm_check filled its report) on its
 * fabric's tiers: one self-contained HTML page (inline script, no network)
 * or a static SVG. *out is the caller's (free), NUL-terminated.
 */
rm_status rm_map_picture(const rm_map *map, const rm_picture_options *opts,
			 char **out, size_t *len, rm_error *err);
/* ===== END section: picture ===== */

/* ===== BEGIN section: node hardware (node/, hwloc) ===== */
/* KEY=value pairs: a value; rm_env_clear empties it. */
typedef struct rm_env {
	char **key, **val;
	size_t n;
} rm_env;

/* Frees the keys and values and empties *e. */
void rm_env_clear(rm_env *e);

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
/* (*out is the caller's: rm_node_free, as for rm_node_load_own_xml.) */
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
 * XML; *xml is the caller's (free), *len bytes. */
rm_status rm_node_export_machine_xml(char **xml, size_t *len, rm_error *err);
/*
 * The node-wide NCCL environment (NCCL_IB_HCA, CUDA_DEVICE_ORDER,
 * NCCL_CROSS_NIC where the site is rail-optimised, the site's own NCCL
 * variables). Whether a job's own value wins is the caller's business
 * (rm_site_nccl_override_user).
 */
rm_status rm_node_nccl_env(const rm_node_hw *hw, const rm_site *site,
			   rm_env *out, rm_error *err);
/* (Both env functions fill the caller's value: rm_env_clear.) */
/*
 * Per local rank: the variables that differ per task: RANKMAP_GPU (index
 * in bus order), RANKMAP_GPU_BUSID, RANKMAP_NIC ("mlx5_0:1", comma list
 * when a GPU has two), RANKMAP_CPUS ("0-13,112-125"), RANKMAP_NUMA.
 * CUDA_VISIBLE_DEVICES is not set. More local ranks than GPUs is
 * RM_EINPUT; on a node without GPUs the result is empty and RM_OK.
 */
rm_status rm_node_rank_env(const rm_node_hw *hw, uint32_t local_rank,
			   uint32_t local_ranks, rm_env *out, rm_error *err);
/* Frees the node; NULL is a no-op. */
void rm_node_free(rm_node_hw *hw);

/* "live" or the XML file that was read. */
const char *rm_node_source(const rm_node_hw *hw);

/* NCCL_TOPO_FILE contents built from the hwloc data; *xml is the
 * caller's (free). */
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
#define RM_MODEL_VERSION 2
typedef struct rm_model {
	unsigned version;            /* RM_MODEL_VERSION (RM_MODEL_INIT) */
	char name[64];
	uint32_t layers, hidden, ffn, heads, kv_heads, head_dim;
	uint32_t vocab, seq_len;
	bool swiglu;                 /* gated FFN: 3 matrices, else 2 */
	bool bias;                   /* linear biases and LayerNorm beta (GPT) */
	bool learned_pos;            /* learned position embeddings (GPT) */
	bool tied_embeddings;        /* LM head shares the embedding */
	double params;               /* total; derived unless params_given */
	bool params_given;
	/* Version 2: mixture of experts (experts 0 = dense) and multi-head
	 * latent attention (kv_lora_rank 0 = none). */
	uint32_t experts;            /* routed experts per MoE layer */
	uint32_t top_k;              /* routed experts per token */
	uint32_t expert_ffn;         /* FFN size of one routed expert */
	uint32_t shared_experts;     /* experts every token passes */
	uint32_t shared_ffn;         /* FFN size of one shared expert */
	uint32_t dense_layers;       /* leading layers with a dense FFN (ffn) */
	uint32_t moe_every;          /* after those, every k-th layer is MoE
				      * (the others dense); 0 = 1 */
	double capacity;             /* capacity factor; 0 = dropless */
	uint32_t q_lora_rank;        /* MLA: 0 = Q projected directly */
	uint32_t kv_lora_rank;       /* MLA: compressed K,V; 0 = no MLA */
	uint32_t qk_nope_dim, qk_rope_dim, v_head_dim; /* MLA head sizes */
	double active_params;        /* per token; derived (params if dense) */
} rm_model;
#define RM_MODEL_INIT { .version = RM_MODEL_VERSION }

typedef struct rm_hw_tier {
	char name[32];               /* "leaf", "pod", "spine" ... */
	uint64_t span_gpus;          /* GPUs under one switch of this tier */
	double gbytes_per_s;         /* per GPU per direction */
	double oversubscription;     /* 1.0 = full bisection */
} rm_hw_tier;

#define RM_HW_VERSION 2
typedef struct rm_hw {
	unsigned version;            /* RM_HW_VERSION (RM_HW_INIT) */
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
	/* Version 2: the other precisions (0 = not on this GPU: FP8 then
	 * runs at 2 x peak_flops, as on Hopper and Blackwell; FP4 refused). */
	double peak_fp8_flops;       /* dense FP8, per GPU */
	double peak_fp4_flops;       /* dense FP4 (NVFP4), per GPU */
	double fp8_eff;              /* FP8 GEMM throughput / peak_fp8_flops,
				      * large shapes; 0 = gemm_eff */
} rm_hw;
#define RM_HW_INIT { .version = RM_HW_VERSION }

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

/* Transformer Engine's FP8 (Megatron-LM --fp8-format, NeMo fp8):
 * hybrid = E4M3 forward, E5M2 gradients; e4m3 = E4M3 throughout. */
typedef enum rm_fp8 {
	RM_FP8_OFF = 0,
	RM_FP8_HYBRID,
	RM_FP8_E4M3
} rm_fp8;

/* How TE scales FP8 tensors (--fp8-recipe): per tensor from an amax
 * history (delayed) or the tensor itself (current); per 32-element block
 * (mxfp8, Blackwell); nvfp4: FP4 with 16-element blocks (Blackwell). */
typedef enum rm_fp8_recipe {
	RM_FP8_DELAYED = 0,
	RM_FP8_CURRENT,
	RM_FP8_MXFP8,
	RM_FP8_NVFP4
} rm_fp8_recipe;

typedef enum rm_sharding {
	RM_SHARD_NONE = 0,
	RM_SHARD_ZERO1,
	RM_SHARD_ZERO2,
	RM_SHARD_FSDP
} rm_sharding;

#define RM_TRAIN_VERSION 4
typedef struct rm_train {
	unsigned version;            /* RM_TRAIN_VERSION (rm_train_init) */
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
	/* Version 2: mixture of experts. */
	double moe_overlap;          /* share of the EP all-to-alls hidden
				      * behind compute (Megatron-Core's
				      * --overlap-moe-expert-parallel-comm,
				      * DeepEP); 0 = all exposed */
	double moe_imbalance;        /* routed tokens on the busiest GPU /
				      * the mean; >= 1, 1 = balanced */
	/* Version 3: FP8 (docs/explain.md, "FP8"). */
	rm_fp8 fp8;                  /* the linears' GEMMs in FP8; off = BF16 */
	rm_fp8_recipe fp8_recipe;
	bool fp8_params;             /* weights kept and all-gathered in FP8
				      * (--fp8-param-gather) */
	bool fp8_dispatch;           /* MoE dispatch all-to-all in FP8 */
	double fp8_eff;              /* override of rm_hw.fp8_eff; 0 = its */
	/* Version 4: what production adds (docs/explain.md, "Running at
	 * scale") and a token budget. */
	double coll_base_us;         /* latency of each blocking collective
				      * call off NVLink, microseconds */
	double coll_hop_us;          /* and of each of its ring steps */
	double jitter;               /* per-GPU step-time spread (standard
				      * deviation / mean); the step waits for
				      * the slowest of N */
	double data_s;               /* data loading exposed per step, s */
	double tokens;               /* training budget in tokens; 0 = none
				      * (explain: total compute and days) */
} rm_train;

/* Presets: "llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b";
 * "a100-sxm-80gb", "h100-sxm-80gb", "h200", "gb200-nvl72", "gb200-nvl36x2",
 * "gb300-nvl72". NULL-terminated
 * name lists. */
extern const char *const rm_model_presets[];
extern const char *const rm_hw_presets[];
/* A hardware preset by name into *out, which the caller declared with
 * RM_HW_INIT: the library writes the fields of out->version only (a
 * version it does not know is RM_EUNSUPPORTED). The same holds for
 * rm_model_get and rm_hw_get below, and every function taking an
 * rm_model or rm_hw reads only its version's fields. */
rm_status rm_hw_preset(const char *name, rm_hw *out, rm_error *err);
/* The layout a model's authors published for training it on `gpus` GPUs
 * (Llama 3 405B: Meta's 8,192 and 16,384-GPU runs), and where they did
 * (*source); NULL when the model is not such a preset (its name and shape)
 * or nothing was published for that many GPUs. */
const char *rm_model_published_layout(const rm_model *m, uint64_t gpus,
				      const char **source);
/* A preset name, or a path (contains '/' or ends .yaml/.yml/.json);
 * *out declared with RM_MODEL_INIT / RM_HW_INIT. */
rm_status rm_model_get(const char *spec, rm_model *out, rm_error *err);
rm_status rm_hw_get(const char *spec, rm_hw *out, rm_error *err);

/* The defaults (docs/explain.md) for a struct of `version`
 * (RM_TRAIN_VERSION); RM_EUNSUPPORTED for a version this library does
 * not know. Every function taking an rm_train reads only that version's
 * fields. */
rm_status rm_train_init(rm_train *t, unsigned version);
/* key=value as on the command line: batch=16M, seq=8192, mb=1,
 * schedule=interleaved:4, recompute=full, sharding=zero1, gemm_eff,
 * gemm_dim0, attn_eff, hbm_eff, nvlink_eff, net_eff, dp_overlap, tp_overlap,
 * grad_bytes, mem_reserve_gib, flash, seq_parallel, first_layers,
 * recompute_layers,
 * last_layers, fail_per_gpu_day, ckpt_write_s, restart_s, moe_overlap,
 * moe_imbalance, fp8 (off, hybrid, e4m3), fp8_recipe (delayed, current,
 * mxfp8, nvfp4), fp8_params, fp8_dispatch, fp8_eff;
 * version 4: coll_base_us, coll_hop_us, jitter, data_s,
 * tokens (15.6T = 15.6e12: decimal K/M/G/T). */
rm_status rm_train_set(rm_train *t, const char *key, const char *value,
		       rm_error *err);

/* One training step priced (rm_estimate, declared above): memory,
 * compute, each axis's traffic and the bubble; opaque. */
/* Seconds per step (the price). */
double rm_estimate_step_seconds(const rm_estimate *e);
/* Model FLOPs utilisation, attention counted whole (as Megatron-LM and
 * PaLM do); rm_estimate_mfu_causal counts the causal half. */
double rm_estimate_mfu(const rm_estimate *e);
double rm_estimate_mfu_causal(const rm_estimate *e);
double rm_estimate_tokens_per_second(const rm_estimate *e);
/* Peak bytes per GPU, and whether that fits the GPU's memory. */
double rm_estimate_memory_peak(const rm_estimate *e);
bool rm_estimate_fits(const rm_estimate *e);
/* Seconds per step an axis's traffic takes, and of those the ones on the
 * critical path; 0 for an axis of size 1. */
double rm_estimate_axis_seconds(const rm_estimate *e, rm_axis a);
double rm_estimate_axis_exposed(const rm_estimate *e, rm_axis a);
/* Frees the estimate; NULL is a no-op. */
void rm_estimate_free(rm_estimate *e);

/* `layout` must be resolved (no dp=auto); its world is the GPU count.
 * *out is the caller's (rm_estimate_free), as for rm_estimate_map. */
rm_status rm_estimate_run(const rm_model *m, const rm_hw *hw,
			  const rm_train *t, const rm_layout *layout,
			  rm_estimate **out, rm_error *err);
/*
 * The same for a planned map: each axis's traffic goes on the links the
 * map's groups actually use in `fabric` (NULL: one flat switch), the
 * slowest hop of the worst group setting the pace.
 */
rm_status rm_estimate_map(const rm_model *m, const rm_hw *hw,
			  const rm_train *t, const rm_map *map,
			  const rm_fabric *fabric, rm_estimate **out,
			  rm_error *err);
/* The report of `rankmap explain` (text or JSON); *out is the caller's. */
rm_status rm_estimate_write(const rm_model *m, const rm_hw *hw,
			    const rm_train *t, const rm_estimate *e,
			    rm_format fmt, char **out, size_t *len,
			    rm_error *err);

/*
 * One run priced on two maps of the same layout (the plan and Slurm's
 * order, or a map a job used) by the same model and calibration, b
 * against a, side by side (text or JSON, schema rankmap-explain-compare/1),
 * columns named name_a and name_b, with a one-line verdict: a difference
 * within 1 % of a's step is called a tie, the closest two predictions the
 * model tells apart (both maps share every figure but where their
 * traffic goes, so the model's own error mostly cancels). *out is the
 * caller's.
 */
rm_status rm_estimate_compare_write(const rm_model *m, const rm_hw *hw,
				    const rm_train *t, const rm_estimate *a,
				    const char *name_a, const rm_estimate *b,
				    const char *name_b, rm_format fmt,
				    char **out, size_t *len, rm_error *err);

/*
 * The same on the plan (or a given map) `a` and `nbase` baselines (1 to
 * RM_BASELINE_COUNT), base[i] the estimate of the map rm_plan built with
 * baseline_kind kind[i]: one column each (named by the kind), and a
 * verdict against the fastest baseline, the strongest thing a user gets
 * without rankmap ("a sorted hostfile is within 0.30 % of the plan here:
 * rankmap changes nothing beyond sorting"). JSON keeps schema
 * rankmap-explain-compare/1 and adds "baselines" (each kind, its map's
 * name and its difference to a) and "strongest"; "difference" is the
 * strongest's. *out is the caller's.
 */
rm_status rm_estimate_baselines_write(const rm_model *m, const rm_hw *hw,
				      const rm_train *t, const rm_estimate *a,
				      const char *name_a,
				      const rm_estimate *const *base,
				      const rm_baseline *kind, size_t nbase,
				      rm_format fmt, char **out, size_t *len,
				      rm_error *err);

#define RM_SUGGEST_OPTIONS_VERSION 1
typedef struct rm_suggest_options {
	unsigned version;            /* RM_SUGGEST_OPTIONS_VERSION */
	uint64_t gpus;
	uint32_t top;                /* 0 = 10 */
	uint32_t max_cp;             /* 0 = as far as the sequence allows */
	uint32_t max_mb;             /* 0 = 8 */
	const rm_layout *around;     /* neighbours of this; NULL = of #1 */
	const char *around_source;   /* who published `around`, or NULL */
	unsigned schedules;          /* bits 1 << rm_schedule; 0 = Megatron's
				      * (1f1b, interleaved) */
	unsigned recomputes;         /* bits 1 << rm_recompute; 0 = the train's */
} rm_suggest_options;
#define RM_SUGGEST_OPTIONS_INIT                                          \
	{ RM_SUGGEST_OPTIONS_VERSION, 0, 0, 0, 0, NULL, NULL, 0, 0 }

/* The layouts `rankmap suggest` ranks, with the compared one and its
 * neighbours; opaque. */
typedef struct rm_suggestion rm_suggestion;
/* How many valid layouts were ranked: every one as fast as the slowest
 * the report shows (its top rows, those within 5 % of #1, the compared
 * layout), not every layout that fits; the i-th fastest (0-based) as
 * `tp=8,pp=16,dp=128` into buf (returns strlen or needed), and its price
 * (owned by the suggestion; NULL past the end). */
size_t rm_suggestion_count(const rm_suggestion *s);
size_t rm_suggestion_layout(const rm_suggestion *s, size_t i, char *buf,
			    size_t n);
const rm_estimate *rm_suggestion_estimate(const rm_suggestion *s, size_t i);

/* Rank the layouts for o->gpus GPUs; *out is the caller's
 * (rm_suggestion_free). */
rm_status rm_suggest(const rm_model *m, const rm_hw *hw, const rm_train *t,
		     const rm_suggest_options *o, rm_suggestion **out,
		     rm_error *err);
/* The ranking as `rankmap suggest` prints it; *out is the caller's. */
rm_status rm_suggestion_write(const rm_model *m, const rm_hw *hw,
			      const rm_train *t, const rm_suggest_options *o,
			      const rm_suggestion *s, rm_format fmt,
			      char **out, size_t *len, rm_error *err);
/* Frees the suggestion; NULL is a no-op. */
void rm_suggestion_free(rm_suggestion *s);

/* ===== END section: cost model ===== */

#ifdef __cplusplus
}
#endif
#endif /* RANKMAP_H */
