/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import/import_int.h - what a fabric capture becomes before it is written
 * out: the wiring graph an importer reads (nodes, links), and the result
 * (a switch tree for topology.conf, rail units for the site file, and the
 * report of what was found, left out and assumed). Never installed.
 */
#ifndef RANKMAP_IMPORT_INT_H
#define RANKMAP_IMPORT_INT_H

#include "util/util.h"
#include "util/yaml.h"

/* ---- a uint64 -> uint32 map (import.c), open addressing ---- */
typedef struct rmi_u64map {
	uint64_t *key;
	uint32_t *val;               /* value + 1; 0 = empty slot */
	size_t cap, n;
} rmi_u64map;
/* Value for key, or -1. */
RMI_HIDDEN int64_t rmi_u64map_get(const rmi_u64map *m, uint64_t key);
/* Insert or replace; false when memory is short. */
RMI_HIDDEN bool rmi_u64map_put(rmi_u64map *m, uint64_t key, uint32_t val);
RMI_HIDDEN void rmi_u64map_free(rmi_u64map *m);

/* ---- the wiring graph (ibnd.c fills it) ---- */
enum { RMI_IB_SWITCH = 'S', RMI_IB_CA = 'H', RMI_IB_ROUTER = 'R' };
#define RMI_IB_MAX_PORT 1023u
#define RMI_IB_MAX_NODES (1u << 20)
#define RMI_IB_MAX_DESC 64u          /* an IB NodeDescription is 64 bytes */

typedef struct rmi_ibnode {
	uint64_t guid;
	char type;                   /* RMI_IB_* */
	char *desc;                  /* NodeDescription, NULL if never seen */
	unsigned long line, col;     /* its header, or its first mention */
	bool header;                 /* has a section of its own */
} rmi_ibnode;

typedef struct rmi_iblink {
	uint32_t a, b;               /* node indices */
	uint16_t pa, pb;             /* port numbers */
	uint8_t seen;                /* 1: listed at a's end, 2: at b's */
	unsigned long line;
} rmi_iblink;

typedef struct rmi_ibgraph {
	rmi_ibnode *node;
	size_t nnode, node_cap;
	rmi_iblink *link;
	size_t nlink, link_cap;
	rmi_u64map nodes;            /* guid ^ type -> node index */
	rmi_u64map ports;            /* node * 1024 + port -> link index */
	const char *file;
	bool ports_form;             /* ibnetdiscover -p */
} rmi_ibgraph;

RMI_HIDDEN rm_status rmi_ibnd_parse(rmi_ibgraph *g, const char *text,
				    size_t len, const char *file,
				    rm_error *err);
RMI_HIDDEN void rmi_ibgraph_free(rmi_ibgraph *g);

/* ---- the result ---- */
typedef struct rmi_tsw {             /* one SwitchName= line */
	char *name;
	int32_t parent;              /* -1: top */
	uint32_t level;              /* 0: holds nodes */
	char **host;
	size_t nhost, host_cap;
	char *stands_for;            /* what capture switches it is */
	bool block;                  /* a BlockName= line, not a switch */
} rmi_tsw;

typedef struct rmi_unit {
	char *name;
	char **host;
	size_t nhost;
	uint32_t nrails;
} rmi_unit;

struct rm_import {
	char *source;
	const char *format;          /* "ibnetdiscover", ... */
	rmi_tsw *sw;
	size_t nsw, sw_cap;
	rmi_unit *unit;
	size_t nunit;
	uint32_t rails;
	uint32_t block_size;         /* BlockSizes= to write; 0 none */
	rm_buf found, unplaced, assumed;
	char **nvl_host, **nvl_key;  /* nvidia-smi: node, "uuid/clique" or
					"-" (no domain), "mixed" */
	uint32_t *nvl_gpus;
	bool nvl_blocks;             /* groups are a provider's blocks */
	const char *nvl_what;        /* their key, for the report */
	size_t nnvl, nvl_cap;
	rm_import_options opts;         /* strings copied */
	char *o_hosts, *o_name, *o_topology;
};

/* ibnd_wire.c: the graph into `im` (hierarchy, units, report). */
RMI_HIDDEN rm_status rmi_ibnd_build(rm_import *im, const rmi_ibgraph *g,
				    rm_error *err);
/* scontrol.c: `scontrol show topology` text into `im`. */
RMI_HIDDEN rm_status rmi_scontrol_build(rm_import *im, const char *text,
					size_t len, rm_error *err);
/* aws.c: `aws ec2 describe-instance-topology` JSON, loaded, into `im`
 * (import.c loads and frees the document; root may be NULL if empty). */
RMI_HIDDEN rm_status rmi_aws_build(rm_import *im, const rmi_ynode *root,
				   rm_error *err);
/* cloud.c: Google Cloud's and Oracle Cloud's instance topology, the same
 * way. */
RMI_HIDDEN rm_status rmi_gcp_build(rm_import *im, const rmi_ynode *root,
				   rm_error *err);
RMI_HIDDEN rm_status rmi_oci_build(rm_import *im, const rmi_ynode *root,
				   rm_error *err);
/* import.c */
RMI_HIDDEN rm_status rmi_import_start(const char *file,
				      const rm_import_options *o,
				      rm_import **out, rm_error *err);
RMI_HIDDEN bool rmi_import_add_nvl(rm_import *im, const char *host,
				   const char *key, uint32_t gpus);
RMI_HIDDEN int64_t rmi_import_add_switch(rm_import *im, const char *name,
					 uint32_t level);
RMI_HIDDEN bool rmi_import_add_host(rmi_tsw *s, const char *host);
/* The cloud readers' one mechanism: `host` under the path id[0] (top) ..
 * id[n-1] (its leaf). `what[k]` names level k in messages and, with
 * `rename`, is the prefix of its switches' names (PREFIX<n>, standing for
 * the provider's id, which is no topology.conf name); without, the ids
 * are the names. A node listed twice, a switch at two depths or under two
 * parents is refused at line:col. */
RMI_HIDDEN rm_status rmi_import_add_path(rm_import *im, const char *host,
					 const char *const *id, size_t n,
					 const char *const *what, bool rename,
					 unsigned long line, unsigned long col,
					 rm_error *err);
/* A string scalar of 1 to max bytes, each one ok_char takes; else an
 * error at n's line:col that states `rule`. The cloud readers' ids and
 * names differ only in these. */
RMI_HIDDEN rm_status rmi_import_str(const rmi_ynode *n, const char *file,
				    const char *what, size_t max,
				    bool (*ok_char)(char), const char *rule,
				    const char **out, rm_error *err);
/* One record of a cloud's instance list: a mapping that holds `key` (its
 * id or name), whose value comes back in *v. */
RMI_HIDDEN rm_status rmi_import_instance(const rmi_ynode *inst,
					 const char *file, const char *key,
					 const rmi_ynode **v, rm_error *err);
/* A limit's macro as text, so the rule a message states cannot drift
 * from the number checked. */
#define RMI_STR_(x) #x
#define RMI_STR(x) RMI_STR_(x)
/* Does `host` pass opts.hosts (a hostlist or an fnmatch pattern)? */
RMI_HIDDEN bool rmi_import_host_wanted(const rm_import *im,
				       const rm_hostlist *hl,
				       const char *host);

#endif /* RANKMAP_IMPORT_INT_H */
