/*
 * internal.h - shared between librankmap's own files, never installed.
 * Internal names start with rmi_ and are hidden from the shared library.
 */
#ifndef RANKMAP_INTERNAL_H
#define RANKMAP_INTERNAL_H

#include "rankmap.h"

#include <stdarg.h>
#include <stdio.h>

#if defined(__GNUC__)
#define RMI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define RMI_HIDDEN __attribute__((visibility("hidden")))
#else
#define RMI_PRINTF(a, b)
#define RMI_HIDDEN
#endif

/* ---- layouts and orders (layout.c, order.c) ---- */
/* Place of `a` in the nesting order, or -1. */
RMI_HIDDEN int rmi_layout_pos(const rm_layout *l, rm_axis a);
/* Megatron-Core's constraints between the dense and the expert numbering
 * (same pipeline groups; ep numbered right before dp). */
RMI_HIDDEN rm_status rmi_order_experts_ok(const rm_layout *l,
					  const rm_order *o, rm_error *err);

/* Greatest common divisor (0 with 0 gives 0). */
static inline uint64_t rmi_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* ---- framework groups (groups.c) ---- */
#define RMI_MAX_KINDS 9
/* The single-axis kinds a map file shows, in rank-record order. */
RMI_HIDDEN unsigned rmi_map_kinds(const rm_layout *l,
				  rm_group_kind k[RMI_MAX_KINDS]);
RMI_HIDDEN bool rmi_kind_expert(rm_group_kind k);
/* Whether `rankmap plan --format env` (and the plugin) export a kind. */
RMI_HIDDEN bool rmi_kind_env(const rm_layout *l, rm_group_kind k);
/* Group size of a single-axis kind. */
RMI_HIDDEN uint32_t rmi_kind_size(const rm_layout *l, rm_group_kind k);
/* A rank's place in its group of a single-axis kind, from the digits of
 * its number (dp has two: shard and replicate). */
typedef struct rmi_coord {
	unsigned n;
	uint64_t stride[2], size[2], mult[2];
} rmi_coord;
RMI_HIDDEN rm_status rmi_coord_prep(const rm_layout *l, const rm_order *o,
				    rm_group_kind k, rmi_coord *c,
				    rm_error *err);
static inline uint32_t rmi_coord_of(const rmi_coord *c, uint64_t rank)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < c->n; i++)
		v += (rank / c->stride[i]) % c->size[i] * c->mult[i];
	return (uint32_t)v;
}

/* ---- errors (error.c) ---- */
/* Fill `err` (may be NULL) and return `code`. */
RMI_HIDDEN rm_status rmi_err(rm_error *err, rm_status code, const char *fmt,
			     ...) RMI_PRINTF(3, 4);
/* Same, prefixed "file:line:col: " (line and col 1-based; 0 = omit). */
RMI_HIDDEN rm_status rmi_err_at(rm_error *err, rm_status code, const char *file,
				unsigned long line, unsigned long col,
				const char *fmt, ...) RMI_PRINTF(6, 7);
/* Quote an untrusted value for a message: printable, escaped, truncated. */
RMI_HIDDEN const char *rmi_quote(const char *s, size_t len, char *buf,
				 size_t bufsz);

/* ---- growable text buffer (buf.c) ---- */
typedef struct rmi_buf {
	char *data;
	size_t len, cap;
	bool oom;                    /* sticky: set once an allocation failed */
} rmi_buf;

RMI_HIDDEN void rmi_buf_init(rmi_buf *b);
RMI_HIDDEN void rmi_buf_free(rmi_buf *b);
RMI_HIDDEN bool rmi_buf_reserve(rmi_buf *b, size_t extra);
RMI_HIDDEN void rmi_buf_add(rmi_buf *b, const char *s, size_t n);
RMI_HIDDEN void rmi_buf_puts(rmi_buf *b, const char *s);
RMI_HIDDEN void rmi_buf_printf(rmi_buf *b, const char *fmt, ...)
	RMI_PRINTF(2, 3);
RMI_HIDDEN void rmi_buf_u64(rmi_buf *b, uint64_t v);   /* fast decimal */
/* JSON string with quotes and escapes. */
RMI_HIDDEN void rmi_buf_json_str(rmi_buf *b, const char *s);
/* One KEY=value line, the value shell-quoted when needed. */
RMI_HIDDEN void rmi_buf_env(rmi_buf *b, const char *key, const char *val);
/* Hand the text over (NUL-terminated); the buffer is reset. */
RMI_HIDDEN char *rmi_buf_take(rmi_buf *b, size_t *len);

/* Make room for `need` elements of `elsize` bytes in *arr (capacity *cap),
 * doubling from 16; false, with *arr untouched, when realloc fails. */
RMI_HIDDEN bool rmi_grow(void **arr, size_t *cap, size_t need, size_t elsize);
/* Copy `len` bytes of src into buf[n] as snprintf would (truncated,
 * NUL-terminated, nothing when n is 0); returns len. */
RMI_HIDDEN size_t rmi_copy_out(const char *src, size_t len, char *buf,
			       size_t n);

/* ---- short user-written values: layouts, orders (layout.c) ---- */
/* Reject text longer than `max` bytes ("<what> '...': longer than max
 * bytes"), then drop surrounding blanks, which shell quoting leaves; NULL
 * text is empty. */
RMI_HIDDEN rm_status rmi_short_text(const char *what, size_t max,
				    const char **text, size_t *n,
				    rm_error *err);

/* ---- files (buf.c) ---- */
/* Read a whole regular file, at most RM_MAX_INPUT bytes, NUL-terminated. */
RMI_HIDDEN rm_status rmi_read_file(const char *path, char **out, size_t *len,
				   rm_error *err);

/* ---- hostlists (hostlist.c) ---- */
/* rm_hostlist_parse over `len` bytes (NULs are bad characters). On error
 * err->msg has no location and *col is the 1-based byte column in expr
 * (0 when the whole expression is at fault), so file readers can report
 * file:line:col. */
RMI_HIDDEN rm_status rmi_hostlist_parse_n(const char *expr, size_t len,
					  rm_hostlist *out, size_t *col,
					  rm_error *err);

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
};

/* Node index for a name, or -1. */
RMI_HIDDEN int64_t rmi_fabric_find(const rm_fabric *f, const char *name);
/* Add (or find) a node; returns its index or -1 on allocation failure. */
RMI_HIDDEN int64_t rmi_fabric_add_node(rm_fabric *f, const char *name);
/* Add a switch; returns its index or -1 on allocation failure. */
RMI_HIDDEN int64_t rmi_fabric_add_switch(rm_fabric *f, const char *name);
RMI_HIDDEN int64_t rmi_fabric_find_switch(const rm_fabric *f,
					  const char *name);

/* ---- YAML (yaml.c): a small checked tree over libyaml's event API ----
 * Used by every YAML/JSON reader (site file, model and hardware files, map
 * files). The loader rejects aliases/anchors, duplicate keys, documents
 * deeper than RMI_YAML_MAX_DEPTH or with more than RMI_YAML_MAX_NODES nodes,
 * and reports libyaml's own errors as file:line:col. */
#define RMI_YAML_MAX_DEPTH 64
#define RMI_YAML_MAX_NODES (8u << 20)

typedef enum rmi_ykind { RMI_Y_SCALAR, RMI_Y_MAP, RMI_Y_SEQ } rmi_ykind;

typedef struct rmi_ynode {
	rmi_ykind kind;
	unsigned long line, col;     /* 1-based, where the node starts */
	char *str;                   /* SCALAR: its text */
	size_t len;                  /* SCALAR: bytes in str */
	bool quoted;                 /* SCALAR: written quoted (always a string) */
	struct rmi_ynode **item;     /* MAP: key0,val0,key1,val1...; SEQ: items */
	size_t n;                    /* MAP: pairs; SEQ: items */
} rmi_ynode;

RMI_HIDDEN rm_status rmi_yaml_load(const char *text, size_t len,
				   const char *file, rmi_ynode **root,
				   rm_error *err);
/* Frees the whole tree; takes the root rmi_yaml_load gave, never a subtree
 * (nodes live in one arena owned by the root). */
RMI_HIDDEN void rmi_yaml_free(rmi_ynode *n);
/* Value of `key` in MAP `map`, or NULL. */
RMI_HIDDEN const rmi_ynode *rmi_y_get(const rmi_ynode *map, const char *key);
/* Every key of MAP `map` must be in NULL-terminated `allowed`; otherwise
 * "file:line:col: unknown key 'x' in <what> (known: a, b, c)". */
RMI_HIDDEN rm_status rmi_y_keys(const rmi_ynode *map, const char *file,
				const char *what, const char *const *allowed,
				rm_error *err);
/* Typed reads; wrong kind, bad text or out of [min,max] gives a
 * file:line:col error naming `what` and the value. */
RMI_HIDDEN rm_status rmi_y_u64(const rmi_ynode *n, const char *file,
			       const char *what, uint64_t min, uint64_t max,
			       uint64_t *out, rm_error *err);
RMI_HIDDEN rm_status rmi_y_double(const rmi_ynode *n, const char *file,
				  const char *what, double min, double max,
				  double *out, rm_error *err);
RMI_HIDDEN rm_status rmi_y_bool(const rmi_ynode *n, const char *file,
				const char *what, bool *out, rm_error *err);
RMI_HIDDEN rm_status rmi_y_str(const rmi_ynode *n, const char *file,
			       const char *what, const char **out,
			       rm_error *err);
RMI_HIDDEN rm_status rmi_y_kind(const rmi_ynode *n, const char *file,
				const char *what, rmi_ykind want,
				rm_error *err);

#endif /* RANKMAP_INTERNAL_H */
