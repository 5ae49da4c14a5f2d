/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util/yaml.h - the checked YAML/JSON document tree (yaml.c) and its typed
 * reads (yaml_get.c). Never installed.
 */
#ifndef RANKMAP_YAML_H
#define RANKMAP_YAML_H

#include "util/util.h"

#include <stddef.h>

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

/* Trees come from a chunked bump arena: a 15 MB map file is millions of
 * nodes, and one malloc per node cost more than libyaml's own parsing.
 * A chunk list is freed whole (rmi_arena_free). */
typedef struct rmi_chunk {
	struct rmi_chunk *next;
	size_t used, cap;
	max_align_t data[];
} rmi_chunk;
/* `size` bytes, node-aligned, from the list *head. A full first chunk
 * gets a new one in front, twice the last one's size from `first` bytes
 * up to `most`, and never smaller than `size`; NULL when out of memory. */
RMI_HIDDEN void *rmi_arena_alloc(rmi_chunk **head, size_t size, size_t first,
				 size_t most);
RMI_HIDDEN void rmi_arena_free(rmi_chunk *c);

RMI_HIDDEN rm_status rmi_yaml_load(const char *text, size_t len,
				   const char *file, rmi_ynode **root,
				   rm_error *err);
/* Frees the whole tree; takes the root rmi_yaml_load gave, never a subtree
 * (nodes live in one arena owned by the root). */
RMI_HIDDEN void rmi_yaml_free(rmi_ynode *n);
/* Where node `n` starts, for rmi_err_at; 0 (no position) for NULL. */
static inline unsigned long rmi_y_line(const rmi_ynode *n)
{
	return n ? n->line : 0;
}
static inline unsigned long rmi_y_col(const rmi_ynode *n)
{
	return n ? n->col : 0;
}
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

#endif /* RANKMAP_YAML_H */
