/* SPDX-License-Identifier: Apache-2.0 */
/*
 * yaml.c - a small, checked document tree over libyaml's event API.
 *
 * Every YAML or JSON file rankmap reads (site files, model and hardware
 * descriptions, multi-megabyte map files) goes through here, so the loader
 * is where hostile input is stopped: aliases and anchors (billion laughs),
 * duplicate keys, collection keys, several documents, deep nesting, huge
 * node counts and NUL bytes are all rejected with a file:line:col message.
 * The tree keeps every node's position so callers can do the same.
 */
#include "util/yaml.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <yaml.h>

/* What rmi_yaml_load hands out: the root node with the arena behind it. */
typedef struct ydoc {
	rmi_chunk *arena;
	rmi_ynode root;
} ydoc;

/* One open collection while the tree is being built. Its item buffer is
 * kept for the next collection at the same depth. */
typedef struct frame {
	rmi_ynode *node;
	rmi_ynode **item;
	size_t n, cap;
} frame;

typedef struct loader {
	const char *file;
	const char *text;
	size_t len;
	frame stack[RMI_YAML_MAX_DEPTH];
	size_t depth;
	size_t nodes;
	rmi_chunk *arena;
	rmi_ynode *root;
	rm_error *err;
} loader;

#define HUGE_CHUNK ((size_t)4 << 20)

void *rmi_arena_alloc(rmi_chunk **head, size_t size, size_t first,
		      size_t most)
{
	/* Every block holds nodes, pointers or text: pointer alignment. */
	size_t a = _Alignof(rmi_ynode);
	size = (size + a - 1) / a * a;
	rmi_chunk *c = *head;
	if (!c || c->cap - c->used < size) {
		size_t cap = c ? 2 * c->cap : first;
		if (cap > most)
			cap = most;
		if (cap < size)
			cap = size;
		rmi_chunk *n;
		if (sizeof(*n) + cap == HUGE_CHUNK) {
			/* Big documents touch hundreds of megabytes of fresh
			 * memory; huge pages cut the page faults that
			 * otherwise cost as much as the parsing. */
			n = aligned_alloc(HUGE_CHUNK / 2, HUGE_CHUNK);
			if (n)
				madvise(n, HUGE_CHUNK, MADV_HUGEPAGE);
		} else {
			n = malloc(sizeof(*n) + cap);
		}
		if (!n)
			return NULL;
		n->next = c;
		n->used = 0;
		n->cap = cap;
		*head = c = n;
	}
	void *p = (char *)c->data + c->used;
	c->used += size;
	return p;
}

static void *arena_alloc(loader *L, size_t size)
{
	return rmi_arena_alloc(&L->arena, size, 16384,
			       HUGE_CHUNK - sizeof(rmi_chunk));
}

void rmi_arena_free(rmi_chunk *c)
{
	while (c) {
		rmi_chunk *next = c->next;
		free(c);
		c = next;
	}
}

void rmi_yaml_free(rmi_ynode *n)
{
	if (!n)
		return;
	ydoc *d = (ydoc *)((char *)n - offsetof(ydoc, root));
	rmi_arena_free(d->arena);
	free(d);
}

static void unwind(loader *L)
{
	for (size_t i = 0; i < RMI_YAML_MAX_DEPTH; i++)
		free(L->stack[i].item);
	rmi_arena_free(L->arena);
	L->arena = NULL;
	L->root = NULL;
}

/* RM_EINPUT at libyaml's 0-based mark `m`. */
#define fail_at(L, m, ...)                                                   \
	rmi_err_cut((L)->err, RM_EINPUT, (L)->file,                          \
		    (unsigned long)(m).line + 1, (unsigned long)(m).column + 1, \
		    768, __VA_ARGS__)

/* libyaml's reader errors carry a byte offset, not a mark. */
static void offset_to_mark(const char *text, size_t len, size_t off,
			   unsigned long *line, unsigned long *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static rm_status libyaml_error(loader *L, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "malformed YAML";
	if (p->error == YAML_MEMORY_ERROR)
		return rmi_err(L->err, RM_ENOMEM, "%s: out of memory", L->file);
	if (p->error == YAML_READER_ERROR) {
		unsigned long line, col;
		offset_to_mark(L->text, L->len, p->problem_offset, &line, &col);
		return rmi_err_at(L->err, RM_EINPUT, L->file, line, col,
				  "%s (byte offset %zu)", problem,
				  p->problem_offset);
	}
	if (p->context)
		return rmi_err_at(L->err, RM_EINPUT, L->file,
				  p->problem_mark.line + 1,
				  p->problem_mark.column + 1,
				  "%s (%s at %lu:%lu)", problem, p->context,
				  (unsigned long)p->context_mark.line + 1,
				  (unsigned long)p->context_mark.column + 1);
	return rmi_err_at(L->err, RM_EINPUT, L->file, p->problem_mark.line + 1,
			  p->problem_mark.column + 1, "%s", problem);
}

static rm_status new_node(loader *L, rmi_ykind kind, yaml_mark_t m,
			  size_t extra, rmi_ynode **out)
{
	if (++L->nodes > RMI_YAML_MAX_NODES)
		return rmi_err_at(L->err, RM_EINPUT, L->file, m.line + 1,
				  m.column + 1,
				  "more than %u nodes in one document",
				  RMI_YAML_MAX_NODES);
	rmi_ynode *n = arena_alloc(L, sizeof(*n) + extra);
	if (!n)
		return rmi_err(L->err, RM_ENOMEM, "%s: out of memory", L->file);
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->line = (unsigned long)m.line + 1;
	n->col = (unsigned long)m.column + 1;
	*out = n;
	return RM_OK;
}

/* Hang a finished node under the innermost open collection (or make it
 * the root). */
static rm_status attach(loader *L, rmi_ynode *n)
{
	if (!L->depth) {
		L->root = n;
		return RM_OK;
	}
	frame *f = &L->stack[L->depth - 1];
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 8;
		rmi_ynode **p = realloc(f->item, cap * sizeof(*p));
		if (!p)
			return rmi_err(L->err, RM_ENOMEM, "%s: out of memory",
				       L->file);
		f->item = p;
		f->cap = cap;
	}
	f->item[f->n++] = n;
	return RM_OK;
}

/* True when the next node under the open collection is a mapping key. */
static bool at_key(const loader *L)
{
	if (!L->depth)
		return false;
	const frame *f = &L->stack[L->depth - 1];
	return f->node->kind == RMI_Y_MAP && f->n % 2 == 0;
}

static rm_status check_props(loader *L, const yaml_event_t *ev,
			     const yaml_char_t *anchor, const yaml_char_t *tag)
{
	char q[96];
	if (anchor)
		return fail_at(
			L, ev->start_mark,
			"anchors and aliases are not allowed (anchor %s)",
			rm_quote((const char *)anchor,
				  strlen((const char *)anchor), q, sizeof(q)));
	if (tag)
		return fail_at(L, ev->start_mark,
			       "explicit tags are not supported (tag %s)",
			       rm_quote((const char *)tag,
					 strlen((const char *)tag), q,
					 sizeof(q)));
	return RM_OK;
}

static rm_status on_scalar(loader *L, const yaml_event_t *ev)
{
	const yaml_char_t *v = ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	rm_status st =
		check_props(L, ev, ev->data.scalar.anchor, ev->data.scalar.tag);
	if (st)
		return st;
	/* "\0" escapes would make C strings lie about their length. */
	if (memchr(v, '\0', len))
		return fail_at(L, ev->start_mark, "NUL byte in a value");
	rmi_ynode *n;
	st = new_node(L, RMI_Y_SCALAR, ev->start_mark, len + 1, &n);
	if (st)
		return st;
	n->str = (char *)(n + 1);
	memcpy(n->str, v, len);
	n->str[len] = '\0';
	n->len = len;
	n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
	return attach(L, n);
}

static rm_status on_start(loader *L, const yaml_event_t *ev, rmi_ykind kind)
{
	const yaml_char_t *anchor = kind == RMI_Y_MAP
					    ? ev->data.mapping_start.anchor
					    : ev->data.sequence_start.anchor;
	const yaml_char_t *tag = kind == RMI_Y_MAP
					 ? ev->data.mapping_start.tag
					 : ev->data.sequence_start.tag;
	rm_status st = check_props(L, ev, anchor, tag);
	if (st)
		return st;
	if (at_key(L))
		return fail_at(L, ev->start_mark,
			       "a mapping key must be a plain value, not a %s",
			       kind == RMI_Y_MAP ? "mapping" : "sequence");
	if (L->depth == RMI_YAML_MAX_DEPTH)
		return rmi_err_at(
			L->err, RM_EINPUT, L->file, ev->start_mark.line + 1,
			ev->start_mark.column + 1,
			"nested deeper than %d levels", RMI_YAML_MAX_DEPTH);
	rmi_ynode *n;
	st = new_node(L, kind, ev->start_mark, 0, &n);
	if (st)
		return st;
	frame *f = &L->stack[L->depth++];
	f->node = n;
	f->n = 0;
	return RM_OK;
}

static bool same_key(const rmi_ynode *a, const rmi_ynode *b)
{
	return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
}

static uint64_t key_hash(const rmi_ynode *k)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < k->len; i++)
		h = (h ^ (unsigned char)k->str[i]) * 0x100000001b3ull;
	return h;
}

/* Duplicate keys in a mapping of `n` pairs: pairwise for small mappings,
 * a hash set for big ones (map files have 100k keys). Keys go in in file
 * order, so the first hit is the earliest repeat and what it hits is the
 * first occurrence. */
static rm_status check_dups(loader *L, rmi_ynode *const *item, size_t n)
{
	const rmi_ynode *first = NULL, *dup = NULL;
	if (n <= 16) {
		for (size_t j = 1; j < n && !dup; j++)
			for (size_t i = 0; i < j; i++)
				if (same_key(item[2 * i], item[2 * j])) {
					first = item[2 * i];
					dup = item[2 * j];
					break;
				}
	} else {
		size_t cap = 32;
		while (cap < 2 * n)
			cap *= 2;
		const rmi_ynode **set = calloc(cap, sizeof(*set));
		if (!set)
			return rmi_err(L->err, RM_ENOMEM, "%s: out of memory",
				       L->file);
		for (size_t i = 0; i < n && !dup; i++) {
			const rmi_ynode *k = item[2 * i];
			size_t h = (size_t)key_hash(k) & (cap - 1);
			while (set[h] && !same_key(set[h], k))
				h = (h + 1) & (cap - 1);
			if (set[h]) {
				first = set[h];
				dup = k;
			}
			set[h] = k;
		}
		free(set);
	}
	if (!dup)
		return RM_OK;
	char q[160];
	return rmi_err_at(L->err, RM_EINPUT, L->file, dup->line, dup->col,
			  "duplicate key %s (first at line %lu)",
			  rm_quote(dup->str, dup->len, q, sizeof(q)),
			  first->line);
}

static rm_status on_end(loader *L)
{
	frame *f = &L->stack[L->depth - 1];
	rmi_ynode *n = f->node;
	if (n->kind == RMI_Y_MAP) {
		n->n = f->n / 2;
		rm_status st = check_dups(L, f->item, n->n);
		if (st)
			return st;
	} else {
		n->n = f->n;
	}
	if (f->n) {
		n->item = arena_alloc(L, f->n * sizeof(*n->item));
		if (!n->item)
			return rmi_err(L->err, RM_ENOMEM, "%s: out of memory",
				       L->file);
		memcpy(n->item, f->item, f->n * sizeof(*n->item));
	}
	L->depth--;
	return attach(L, n);
}

static rm_status on_event(loader *L, const yaml_event_t *ev, int *docs)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++*docs > 1)
			return fail_at(L, ev->start_mark,
				       "only one document is allowed per file");
		return RM_OK;
	case YAML_ALIAS_EVENT: {
		char q[96];
		const char *a = (const char *)ev->data.alias.anchor;
		return fail_at(L, ev->start_mark,
			       "anchors and aliases are not allowed (alias %s)",
			       rm_quote(a, a ? strlen(a) : 0, q, sizeof(q)));
	}
	case YAML_SCALAR_EVENT: return on_scalar(L, ev);
	case YAML_SEQUENCE_START_EVENT: return on_start(L, ev, RMI_Y_SEQ);
	case YAML_MAPPING_START_EVENT: return on_start(L, ev, RMI_Y_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT: return on_end(L);
	default: return RM_OK;
	}
}

rm_status rmi_yaml_load(const char *text, size_t len, const char *file,
			rmi_ynode **root, rm_error *err)
{
	*root = NULL;
	if (!file)
		file = "<input>";
	if (!text)
		return rmi_err_at(err, RM_EINPUT, file, 0, 0, "no input given");
	if (len > RM_MAX_INPUT)
		return rmi_err_at(
			err, RM_EINPUT, file, 0, 0,
			"input is %zu bytes, more than the %u allowed", len,
			RM_MAX_INPUT);
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		unsigned long line, col;
		offset_to_mark(text, len, (size_t)(nul - text), &line, &col);
		return rmi_err_at(err, RM_EINPUT, file, line, col,
				  "NUL byte in the input (a binary file?)");
	}
	loader L;
	memset(&L, 0, sizeof(L));
	L.file = file;
	L.text = text;
	L.len = len;
	L.err = err;
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return rmi_err(err, RM_ENOMEM, "%s: out of memory", file);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	rm_status st = RM_OK;
	int docs = 0;
	for (;;) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			st = libyaml_error(&L, &p);
			break;
		}
		bool end = ev.type == YAML_STREAM_END_EVENT;
		st = on_event(&L, &ev, &docs);
		yaml_event_delete(&ev);
		if (st || end)
			break;
	}
	yaml_parser_delete(&p);
	if (!st && !L.root)
		st = rmi_err_at(err, RM_EINPUT, file, 0, 0, "empty document");
	ydoc *d = NULL;
	if (!st && !(d = malloc(sizeof(*d))))
		st = rmi_err(err, RM_ENOMEM, "%s: out of memory", file);
	if (st) {
		unwind(&L);
		return st;
	}
	for (size_t i = 0; i < RMI_YAML_MAX_DEPTH; i++)
		free(L.stack[i].item);
	/* Only the root moves: nothing points at it. */
	d->arena = L.arena;
	d->root = *L.root;
	*root = &d->root;
	return RM_OK;
}
