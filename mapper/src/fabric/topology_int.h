/* SPDX-License-Identifier: Apache-2.0 */
/*
 * topology_int.h - between the topology.conf reader (topology.c), the
 * topology.yaml reader (topology_yaml.c) and the switch-tree builder
 * (topology_tree.c). Both readers cut their input into rmi_topo_tok values
 * and hand them to the same checks, so a file means the same in either
 * format.
 */
#ifndef RANKMAP_TOPOLOGY_INT_H
#define RANKMAP_TOPOLOGY_INT_H

#include "internal.h"

/* One key and its value, where both stand in the file. */
typedef struct rmi_topo_tok {
	int key;                     /* the reader's own key number */
	const char *k, *v;
	size_t klen, vlen;
	unsigned long line, col;     /* of the key */
	unsigned long vc;            /* column where the value starts */
} rmi_topo_tok;

/* Names of the keys in messages: topology.conf's or topology.yaml's;
 * `sep` goes between a key as written and its value ("=" or ""). */
typedef struct rmi_topo_words {
	const char *nodes, *switches, *switchname, *blocksizes, *sep;
} rmi_topo_words;

#define RMI_TOPO_MAX_BLOCK_SIZES 64

/* A Switches= value: switches may be named before they are defined, so
 * links wait until the whole file is read. */
typedef struct rmi_topo_link {
	uint32_t sw;                 /* the switch whose line this is */
	const char *v;               /* hostlist of child switch names */
	size_t vlen;
	unsigned long line, col;     /* where the value starts */
} rmi_topo_link;

/* The reader's state, shared by topology.c and topology_tree.c. */
typedef struct rmi_topo_ctx {
	rm_fabric *f;
	const char *file;
	rm_error *err;
	rmi_topo_link *pend;         /* Switches= values, linked at the end */
	size_t npend, cappend;
	struct rmi_topo_block *blocks; /* BlockName= lines (topology.c) */
	size_t nblocks, capblocks;
	size_t capdomain;
	bool saw_sizes;
	uint32_t sizes[RMI_TOPO_MAX_BLOCK_SIZES]; /* BlockSizes= so far */
	uint32_t nsizes;
	const rmi_topo_words *w;     /* key names for messages */
	/* Slurm 25.05+ reads topology.yaml with gaps in blocks: a block
	 * with fewer nodes than the base size, or none, is still a block. */
	bool gaps;
	/* What slurmctld accepts with a warning, counted with a first
	 * example, said once per file (rm_fabric_warnings). */
	uint32_t nreparent, nmultileaf;
	char reparent_eg[400], multileaf_eg[400];
	char qa[160], qb[160], qc[160]; /* quoted values for one message */
} rmi_topo_ctx;

/* Short name inside the topology readers. */
typedef rmi_topo_ctx ctx;

/* "file:line:col: message" (RM_EINPUT; col 0 = none) and "file: out of
 * memory", for both halves of the reader. */
#define rmi_topo_at(c, line, col, ...)                                       \
	rmi_err_cut((c)->err, RM_EINPUT, (c)->file, line, col, 900,          \
		    __VA_ARGS__)
RMI_HIDDEN rm_status rmi_topo_oom(const ctx *c);

/* Start reading `name` into the empty fabric `f` (its source set). */
RMI_HIDDEN rm_status rmi_topo_begin(ctx *c, rm_fabric *f, const char *name,
				    rm_error *err);
/* A switch with its Nodes= or Switches= (either may be NULL). */
RMI_HIDDEN rm_status rmi_topo_switch(ctx *c, const rmi_topo_tok *name,
				     const rmi_topo_tok *nodes,
				     const rmi_topo_tok *kids);
/* A block and its nodes (NULL: refused, as slurmctld does). */
RMI_HIDDEN rm_status rmi_topo_block(ctx *c, const rmi_topo_tok *name,
				    const rmi_topo_tok *nodes);
/* One BlockSizes value `x`, written as `t` (for messages). */
RMI_HIDDEN rm_status rmi_topo_block_size(ctx *c, uint64_t x,
					 const rmi_topo_tok *t);
/* The checks that need the whole file (repeated blocks, blocks smaller
 * than the base, the switch tree), then frees the reader's state. */
RMI_HIDDEN rm_status rmi_topo_finish(ctx *c, rm_status st);

/* Link the Switches= values in c->pend to their parents (each switch at
 * most one parent, no unknown names, no cycles) and set every switch's
 * level. */
RMI_HIDDEN rm_status rmi_topo_build_tree(ctx *c);

#endif
