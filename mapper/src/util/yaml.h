/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util/yaml.h - the one JSON/YAML event source (ysrc.c, ysrc_yaml.c), the
 * checked document tree built from it (yaml.c) and its typed reads
 * (yaml_get.c). Never installed.
 */
#ifndef RANKMAP_YAML_H
#define RANKMAP_YAML_H

#include "util/util.h"

#include <stddef.h>

/* ---- The checked tree every YAML/JSON reader uses ----
 * Site, model and hardware files and importers load it whole
 * (rmi_yaml_load); the map reader builds one per record. Documents deeper
 * than RMI_YAML_MAX_DEPTH or with more than RMI_YAML_MAX_NODES nodes are
 * refused, and every error is file:line:col. */
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

/* ---- Events (ysrc.c, ysrc_yaml.c): the one source of JSON and YAML ----
 * Whole documents (rmi_yaml_load) and streamed map files alike read their
 * input as these events, so one input meets one set of checks and gets
 * one message wherever it is read. Input whose first non-blank byte is
 * '{' or '[' is JSON, read by a small lexer (libyaml takes seconds over a
 * million-GPU map); the rest goes to libyaml's event parser after a check
 * of every byte (UTF-8, no control characters), so a bad byte is named at
 * its line and column whichever way it came. The source refuses aliases,
 * anchors, tags, a second document, nesting past RMI_YAML_MAX_DEPTH and
 * keys that are not scalars; the tree builder below refuses duplicates. */
typedef enum rmi_yevk {
	RMI_EV_SCALAR, RMI_EV_MAP, RMI_EV_SEQ, RMI_EV_END, RMI_EV_EOF
} rmi_yevk;

typedef struct rmi_yevent {
	rmi_yevk k;
	const char *s;               /* SCALAR: NUL-terminated text, valid
					until the next event */
	size_t len;
	bool quoted;                 /* SCALAR: written quoted */
	unsigned long line, col;     /* 1-based, where the event starts */
} rmi_yevent;

typedef struct rmi_ysrc rmi_ysrc;
/* Told every byte as it is read from a file (a map's digest). */
typedef void rmi_ysrc_seen(void *ctx, const void *bytes, size_t n);

/* A source over `len` bytes of text, kept (not copied) until freed;
 * `file` names it in messages. */
RMI_HIDDEN rm_status rmi_ysrc_text(const char *text, size_t len,
				   const char *file, rm_error *err,
				   rmi_ysrc **out);
/* A source over an open file, read 1 MiB at a time; `seen` (may be
 * NULL) is told each block as it is read. */
RMI_HIDDEN rm_status rmi_ysrc_fd(int fd, const char *file,
				 rmi_ysrc_seen *seen, void *ctx,
				 rm_error *err, rmi_ysrc **out);
RMI_HIDDEN void rmi_ysrc_free(rmi_ysrc *s);
/* The next event; after the one value, RMI_EV_EOF. */
RMI_HIDDEN rm_status rmi_ysrc_next(rmi_ysrc *s, rmi_yevent *e);
/* Reads past the value `e` starts, building nothing. */
RMI_HIDDEN rm_status rmi_ysrc_skip(rmi_ysrc *s, const rmi_yevent *e);
/* Back to the first byte (another pass); `seen` is not told again. */
RMI_HIDDEN rm_status rmi_ysrc_rewind(rmi_ysrc *s);
/* Reads the rest of a file for `seen`; only rewind may follow. */
RMI_HIDDEN rm_status rmi_ysrc_drain(rmi_ysrc *s);
/* "file:line:col: message" (RM_EINPUT) for the source's input. */
RMI_HIDDEN rm_status rmi_ysrc_fail(rmi_ysrc *s, unsigned long line,
				   unsigned long col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "file: out of memory" (RM_ENOMEM). */
RMI_HIDDEN rm_status rmi_ysrc_oom(rmi_ysrc *s);
/* The one message for a key given twice, at the second one. */
RMI_HIDDEN rm_status rmi_ysrc_dup(rmi_ysrc *s, const rmi_ynode *dup,
				  unsigned long first_line);

/* ---- Trees (yaml.c): the one builder over those events ---- */
typedef struct rmi_ytree rmi_ytree;
/* A builder whose arena grows from `first` bytes a chunk up to `most`. */
RMI_HIDDEN rmi_ytree *rmi_ytree_new(size_t first, size_t most);
RMI_HIDDEN void rmi_ytree_free(rmi_ytree *t);
/* The whole value that starts with event `e`, duplicate keys refused. */
RMI_HIDDEN rm_status rmi_ytree_value(rmi_ytree *t, rmi_ysrc *s,
				     const rmi_yevent *e, rmi_ynode **out);
/* `e` alone: a scalar, or a collection with no items (a stand-in for
 * one the caller streams). */
RMI_HIDDEN rm_status rmi_ytree_node(rmi_ytree *t, rmi_ysrc *s,
				    const rmi_yevent *e, rmi_ynode **out);
/* Nodes built after a mark are dropped by a reset to it: a streamed
 * record's tree lives only while it is checked. */
typedef struct rmi_ymark {
	const void *chunk;
	size_t used, nodes;
} rmi_ymark;
RMI_HIDDEN rmi_ymark rmi_ytree_mark(const rmi_ytree *t);
RMI_HIDDEN void rmi_ytree_reset(rmi_ytree *t, rmi_ymark m);
/* The last key of the `pairs` in item[] (key0,val0,...) against the
 * others, for a mapping a caller assembles itself. */
RMI_HIDDEN rm_status rmi_ytree_key_new(rmi_ysrc *s, rmi_ynode *const *item,
				       size_t pairs);

/* The document in `text` as one tree: the source and the builder above. */
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
