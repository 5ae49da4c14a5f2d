/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place.h - shared by the planner (place*.c), the checker (check.c) and the
 * map helpers (map.c); never installed.
 */
#ifndef RANKMAP_PLACE_H
#define RANKMAP_PLACE_H

#include "internal.h"

/* Which innermost axes have to share one NVLink domain. */
typedef struct rmi_rules {
	uint64_t must;               /* GPUs in one must-block */
	unsigned must_end;           /* nest[0..must_end) form the block */
	bool cp_must, ep_must;
	uint64_t domain_gpus;        /* largest NVLink domain, in GPUs */
	bool node_domain;            /* the domain is one node */
	uint32_t domain_nodes;       /* nodes of the largest domain */
} rmi_rules;

RMI_HIDDEN rm_status rmi_rules_get(const rm_layout *l, const rm_fabric *f,
				   uint32_t gpus_per_node, rmi_rules *out,
				   rm_error *err);
/* RM_ERULE with a message saying why and what would work, or RM_OK. */
RMI_HIDDEN rm_status rmi_rules_feasible(const rm_layout *l,
					const rmi_rules *r, uint32_t gpus,
					rm_error *err);
/* Nest entries are known, distinct axes; sizes are non-zero. */
RMI_HIDDEN rm_status rmi_layout_ok(const rm_layout *l, rm_error *err);
/* Nest position of an axis, or -1. */
RMI_HIDDEN int rmi_nest_pos(const rm_layout *l, rm_axis a);
/* Stride of every axis in the numbering order (0 for absent axes). */
RMI_HIDDEN rm_status rmi_order_strides(const rm_layout *l, const rm_order *o,
				       uint64_t stride[RM_NAXES],
				       rm_error *err);

/*
 * Where a host sits. Ids are also sort keys: leaves and top-level subtrees
 * are numbered in DFS order of the switch tree (children by name), so
 * sorting by id walks the tree.
 */
typedef struct rmi_hostinfo {
	uint32_t loc;                /* PP locality: rail unit, leaf, block */
	uint32_t top;                /* top-level subtree */
	uint32_t dom;                /* NVLink domain */
	int32_t unit;                /* rail unit, -1 none */
	int32_t fnode;               /* fabric node index, -1 none */
	bool missing;                /* not in a non-empty fabric */
} rmi_hostinfo;

typedef struct rmi_where {
	const rm_fabric *f;
	uint32_t *sw_pre;            /* DFS preorder per switch */
	uint32_t *sw_root;           /* top-level ancestor per switch */
	uint32_t *unit_rank, *dom_rank;   /* rank by name */
	uint32_t nsw, nunit, ndom;
	uint32_t nown;               /* hosts that may get a leaf of their own */
	/* The top-level subtrees are pods under a spine (or several roots),
	 * not one tree under its only root: a pair inside one meets below
	 * the top tier. */
	bool pods;
} rmi_where;

RMI_HIDDEN rm_status rmi_where_init(rmi_where *w, const rm_fabric *f,
				    uint32_t nown, rm_error *err);
RMI_HIDDEN void rmi_where_free(rmi_where *w);
/* `own` is the host's index in the caller's list (< nown). */
RMI_HIDDEN void rmi_where_host(const rmi_where *w, const char *name,
			       uint32_t own, rmi_hostinfo *h);
/* Bound (exclusive) on loc and top ids. */
RMI_HIDDEN uint32_t rmi_where_nids(const rmi_where *w);
/* Name of a host's locality group ("flat" on a flat fabric). */
RMI_HIDDEN const char *rmi_where_loc_name(const rmi_where *w,
					  const rmi_hostinfo *h,
					  const char *host);
RMI_HIDDEN const char *rmi_where_unit_name(const rmi_where *w,
					   const rmi_hostinfo *h);

/* Hosts in natural order (rmi_named_host_cmp), fast for names of one
 * prefix and a number (place_hosts.c). */
RMI_HIDDEN void rmi_sort_hosts(rmi_named *sh, size_t n);

/* The baseline's node order (place_base.c): order[k] is the index in
 * `sh` (the hosts in natural order, info[] theirs) of the k-th node
 * Slurm's block distribution fills, by o->baseline_kind. */
RMI_HIDDEN rm_status rmi_baseline_order(const rm_plan_options *o,
					const rmi_named *sh,
					const rmi_hostinfo *info, uint32_t n,
					uint32_t *order, rm_error *err);

/*
 * Cells: the units the must-rule lets us place. One node, or `c` nodes of
 * one multi-node NVLink domain when the TP block spans nodes (a domain's
 * leftover nodes form no cell). node[k*c .. k*c+c) are host indices.
 */
typedef struct rmi_cells {
	uint32_t *node;
	uint64_t ncell;
	uint32_t c;
	uint32_t blk;                /* cells are must-blocks of blk GPUs,
				      * g / blk per host, host-major (c = 1);
				      * 0: whole nodes */
} rmi_cells;

RMI_HIDDEN rm_status rmi_cells_build(const rmi_hostinfo *info, uint32_t n,
				     uint32_t c, rmi_cells *out,
				     rm_error *err);
RMI_HIDDEN void rmi_cells_free(rmi_cells *cells);

/*
 * Choose `need` cells and order them: whole packing units (replicas of
 * `unit` cells) inside single leaves first (single top-level subtrees
 * when by_top), the rest from leftover pieces, units in DFS order. Writes
 * cell indices in placement order to seq (capacity need) and their count
 * to *nseq.
 */
RMI_HIDDEN rm_status rmi_pack(const rmi_hostinfo *info,
			      const rmi_cells *cells, uint64_t need,
			      uint64_t unit, bool by_top, uint32_t *seq,
			      uint64_t *nseq, rm_error *err);

/*
 * Candidates (place_cand.c). A placement is a list of pieces: bg GPUs at
 * a host's local GPUs off .. off + bg - 1, filled in nesting order.
 */
typedef struct rmi_piece {
	uint32_t host, off;
} rmi_piece;

/* Cells of one must-block of blk GPUs each, g / blk per host. */
RMI_HIDDEN rm_status rmi_cells_blocks(uint32_t n, uint32_t g, uint32_t blk,
				      rmi_cells *out, rm_error *err);
/* The first `cap` pieces of the cells listed in cell[0..ncell); snake:
 * blocks of every other node in reverse. Returns the pieces written. */
RMI_HIDDEN uint64_t rmi_cells_pieces(const rmi_cells *cl, const uint32_t *cell,
				     uint64_t ncell, uint32_t g, uint32_t bg,
				     bool snake, rmi_piece *out, uint64_t cap);
/*
 * The rail snake: the hosts grouped by locality (rail unit, leaf), each
 * group's must-blocks of bg GPUs (per to a host) in host order with every
 * other host's reversed, so that a pipeline going from one host to the
 * next stays on one rail; cut into whole runs of `chain` pieces (whole
 * pipelines) per group first, the groups' leftovers after. Writes at
 * most cap pieces to out and their count to *written.
 */
RMI_HIDDEN rm_status rmi_rail_snake(const rmi_hostinfo *info, uint32_t n,
				    uint32_t per, uint32_t bg, uint64_t chain,
				    rmi_piece *out, uint64_t cap,
				    uint64_t *written, rm_error *err);
/* PP pairs that leave their leaf or rail (*cross) and their top-level
 * subtree (*top), counted as rm_check counts them; PP peers are `step`
 * pieces apart. */
RMI_HIDDEN void rmi_pieces_score(const rmi_piece *p, uint64_t n,
				 uint64_t step, uint32_t pp, uint32_t bg,
				 const rmi_hostinfo *info, uint64_t *cross,
				 uint64_t *top);
typedef enum rmi_floor {
	RMI_FLOOR_NODES,             /* hosts by name */
	RMI_FLOOR_LEAVES,            /* leaf by leaf, DFS order */
	RMI_FLOOR_BEST_FIT           /* each unit into the tightest leaf */
} rmi_floor;
/* The three simple fills of `need` cells in units of `unit` cells, into
 * seq[kind][need]. */
RMI_HIDDEN rm_status rmi_floor_fill(const rmi_hostinfo *info,
				    const rmi_cells *cells, uint64_t need,
				    uint64_t unit, uint32_t *seq[3],
				    rm_error *err);

/* Lower bound on PP pairs leaving their leaf, from leaf capacities;
 * *exact when it is the fewest that chains cut from those capacities
 * can have (place_rules.c). `reached`: crossings some map has; the exact
 * search is skipped when the closed form already meets it. */
RMI_HIDDEN uint64_t rmi_pp_lower_bound(const rm_layout *l,
				       const rmi_rules *r,
				       const uint64_t *loc_gpus, uint32_t nloc,
				       uint64_t reached, bool *exact);

/* GPUs per locality group (top: per top-level subtree) that whole
 * must-blocks can use, into cap[nids] (zeroed by the caller); ndom
 * bounds the hosts' dom ids. *merged: groups sharing a domain were
 * counted as one (the bound is then no proof of exactness). */
RMI_HIDDEN rm_status rmi_bound_caps(const rmi_hostinfo *info, uint32_t n,
				    uint32_t g, const rmi_rules *r,
				    uint32_t nids, uint32_t ndom, bool top,
				    uint64_t *cap, bool *merged,
				    rm_error *err);

/*
 * Fewest extra pieces to build `need` units of u cells, and one short unit
 * of p cells when p > 0, from leftovers of sizes val[i] (distinct,
 * descending, each < u), cnt[i] of each (place_exact.c). exact: cost is
 * the minimum; traced: item/first hold the items in use, group by group
 * (first: 1 starts a group, 2 starts the group that builds the short
 * unit first, 0 continues). The search only looks below `ub` (pass
 * UINT64_MAX for none): when nothing there works, cost = ub and exact
 * without a trace. lower: a proven lower bound even when the search
 * stops at its limit (`budget` memo states, 16 x budget steps).
 */
/* Memo states the exact search may use (a few ms of work at most); past
 * it the planner tries rmi_split_search and rm_check reports the bound
 * the search proved. */
#define RMI_EXACT_BUDGET (1u << 11)

typedef struct rmi_xsol {
	uint64_t cost, lower;
	bool exact, traced;
	uint32_t *item;              /* index into val */
	uint8_t *first;
	uint64_t nitem;
} rmi_xsol;

RMI_HIDDEN rm_status rmi_split_exact(const uint64_t *val, const uint64_t *cnt,
				     uint32_t d, uint64_t u, uint64_t need,
				     uint64_t p, size_t budget, uint64_t ub,
				     rmi_xsol *out, rm_error *err);
/* Past the budget: a depth-first search of at most `steps` nodes for a
 * fill with fewer than `ub` extra pieces; traced (not exact) if found. */
RMI_HIDDEN rm_status rmi_split_search(const uint64_t *val,
				      const uint64_t *cnt, uint32_t d,
				      uint64_t u, uint64_t need, uint64_t p,
				      uint64_t steps, uint64_t ub,
				      rmi_xsol *out, rm_error *err);
RMI_HIDDEN void rmi_xsol_free(rmi_xsol *s);

/*
 * Expert parallelism on multi-node NVLink domains (place_ep.c). EP right
 * outside TP is a must-rule only where the hosts' domains hold the whole
 * world in such blocks; rmi_rules_fit_ep softens it otherwise (and
 * rmi_rules_soften_ep always): the block ends before EP, and the planner
 * scores cut EP groups instead.
 */
RMI_HIDDEN void rmi_rules_soften_ep(const rm_layout *l, rmi_rules *r);
RMI_HIDDEN rm_status rmi_rules_fit_ep(const rm_layout *l,
				      const rmi_hostinfo *info, uint32_t n,
				      uint32_t g, uint64_t world,
				      rmi_rules *r, rm_error *err);
/* The same for the planner: with dp=auto, the world it resolves to when
 * EP is no must-rule. */
RMI_HIDDEN rm_status rmi_rules_fit_ep_auto(const rm_layout *l,
					   const rmi_hostinfo *info,
					   uint32_t n, uint32_t g, bool exact,
					   rmi_rules *r, rm_error *err);

/* The real EP groups (Megatron-Core's numbering) as pieces of bg GPUs. */
typedef struct rmi_ep {
	bool on;                     /* ep > 1: there is something to cut */
	uint32_t *piece;             /* member's piece, group by group */
	uint32_t *rank;              /* member's rank, likewise */
	uint64_t ngroups;
	uint32_t size;
} rmi_ep;

RMI_HIDDEN rm_status rmi_ep_init(rmi_ep *e, const rm_layout *l,
				 const rm_order *o, uint32_t bg,
				 rm_error *err);
RMI_HIDDEN void rmi_ep_free(rmi_ep *e);
/* EP groups whose members sit in more than one NVLink domain. */
RMI_HIDDEN uint64_t rmi_ep_cut(const rmi_ep *e, const rmi_piece *p,
			       const rmi_hostinfo *info);
/* The cells of l's world in blocks of the nesting prefix up to EP, each
 * domain a leaf: whole blocks inside one domain first (fullest domains
 * first), the rest from the largest leftovers; into seq, their count
 * into *nseq (0: the blocks are not whole cells, nothing to try). */
RMI_HIDDEN rm_status rmi_ep_domain_seq(const rm_layout *l,
				       const rmi_hostinfo *info,
				       const rmi_cells *cl, uint32_t g,
				       uint32_t *seq, uint64_t *nseq,
				       rm_error *err);

/* The placement rm_plan makes, on options of this library's version, into
 * `m` (zeroed by the caller, who frees it also on failure), with the
 * fabric's digest when the caller has it. Not scored: rm_check is map/'s
 * (map/plan.c composes the two). */
RMI_HIDDEN rm_status rmi_place(const rm_plan_options *opts,
			       const char *fabric_digest, rm_map *m,
			       rm_error *err);

#endif
