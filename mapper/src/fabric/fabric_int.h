/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fabric/fabric_int.h - the rm_fabric object as fabric/ builds it (from
 * topology.conf and a site file) and place/, map/, picture/ and model/
 * read it. Never installed.
 */
#ifndef RANKMAP_FABRIC_INT_H
#define RANKMAP_FABRIC_INT_H

#include "util/util.h"

/* ---- fabric internals (fabric.c, topology.c, site.c) ---- */
typedef struct rmi_switch {
	char *name;
	int32_t parent;              /* switch index, -1 = top level */
	int32_t *child;              /* switch children */
	uint32_t nchild;
	uint32_t level;              /* 0 = leaf (has Nodes=), up from there */
	unsigned long line;          /* where it was defined, for messages */
} rmi_switch;

typedef struct rmi_fnode {
	char *name;
	int32_t leaf;                /* switch whose Nodes= lists it; -1 none */
	int32_t domain;              /* NVLink block/group; -1 = the node */
	int32_t unit;                /* rail-optimised unit; -1 none */
} rmi_fnode;

struct rm_fabric {
	rmi_switch *sw;
	uint32_t nsw;
	rmi_fnode *node;
	uint32_t nnode;
	uint32_t *hash;              /* open addressing, node index + 1 */
	uint32_t hash_cap;
	uint32_t *sw_hash;           /* same for switch names */
	uint32_t sw_hash_cap;
	uint32_t node_cap, sw_cap;   /* allocated entries of node[], sw[] */
	char **domain_name;          /* NVLink domains (blocks or groups) */
	uint32_t ndomain;
	uint32_t *block_sizes;       /* BlockSizes=, if given */
	uint32_t nblock_sizes;
	char **unit_name;            /* rail units */
	uint32_t nunit;
	uint32_t rails;
	rm_tier tier[RM_MAX_TIERS];
	size_t ntiers;
	uint32_t nvl_domain_gpus;    /* 0 = one node */
	rm_cross_policy cross_policy;
	bool has_tree, has_blocks;
	char *source;                /* topology file name, for messages */
	char *warnings;              /* what Slurm accepts with a warning,
					one sentence per line; NULL = none */
};

/* Adds a sentence to f->warnings (dropped when memory runs out: a
 * warning is never worth failing the load). */
RMI_HIDDEN void rmi_fabric_warn(rm_fabric *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Node index for a name, or -1. */
RMI_HIDDEN int64_t rmi_fabric_find(const rm_fabric *f, const char *name);
/* Add (or find) a node; returns its index or -1 on allocation failure. */
RMI_HIDDEN int64_t rmi_fabric_add_node(rm_fabric *f, const char *name);
/* Add a switch; returns its index or -1 on allocation failure. */
RMI_HIDDEN int64_t rmi_fabric_add_switch(rm_fabric *f, const char *name);
RMI_HIDDEN int64_t rmi_fabric_find_switch(const rm_fabric *f,
					  const char *name);

/* Left the public header with ABI 1: programs load a fabric through
 * rm_slurm_topology_find and rm_fabric_load_slurm_topology. */

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
bool rm_fabric_is_flat(const rm_fabric *f);

/* The site as a value in the caller's memory (site.c): the library and
 * its white-box tests; rm_site_load and rm_site_free wrap them for
 * programs. rmi_site_clear frees what the site holds and empties it. */
RMI_HIDDEN void rmi_site_init(rm_site *s);
RMI_HIDDEN rm_status rmi_site_load(const char *path, rm_site *out,
				   rm_error *err);
RMI_HIDDEN rm_status rmi_site_parse(const char *text, size_t len,
				    const char *name, rm_site *out,
				    rm_error *err);
RMI_HIDDEN void rmi_site_clear(rm_site *s);

#endif /* RANKMAP_FABRIC_INT_H */
