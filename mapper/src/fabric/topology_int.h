/*
 * topology_int.h - between the topology.conf reader (topology.c) and the
 * switch-tree builder (topology_tree.c).
 */
#ifndef RANKMAP_TOPOLOGY_INT_H
#define RANKMAP_TOPOLOGY_INT_H

#include "internal.h"

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

/* Link the Switches= values in c->pend to their parents (each switch at
 * most one parent, no unknown names, no cycles) and set every switch's
 * level. */
RMI_HIDDEN rm_status rmi_topo_build_tree(ctx *c);

#endif
