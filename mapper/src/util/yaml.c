/* SPDX-License-Identifier: Apache-2.0 */
/*
 * yaml.c - the one tree builder over the event source (ysrc.c), its arena
 * and the whole-document loader.
 *
 * Every YAML or JSON file rankmap reads builds its trees here: whole for
 * site, model and hardware files and importers, one rank record or group
 * list at a time for map files. So duplicate keys and node counts are
 * refused in one place with one message, the source having refused the
 * rest (aliases, tags, bad bytes, deep nesting). The tree keeps every
 * node's position so callers can point at the input too.
 */
#include "util/yaml.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* What rmi_yaml_load hands out: the root node with the arena behind it. */
typedef struct ydoc {
	rmi_chunk *arena;
	rmi_ynode root;
} ydoc;

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

void rmi_arena_free(rmi_chunk *c)
{
	while (c) {
		rmi_chunk *next = c->next;
		free(c);
		c = next;
	}
}

/* ---- the builder ---- */

/* Pairs up to this many are checked for duplicates pairwise; past it a
 * hash set (map files have mappings of 100k keys). */
#define SMALL 16

/* One open collection: its items so far, and for a big mapping the set
 * of its keys. Kept for the next collection at the same depth. */
typedef struct frame {
	rmi_ynode **item;
	size_t cap;
	const rmi_ynode **set;
	size_t set_cap;              /* allocated */
	size_t set_used;             /* in use for this mapping: a power of 2 */
} frame;

struct rmi_ytree {
	rmi_chunk *arena;
	rmi_chunk *spare;            /* dropped by a reset, kept for reuse */
	size_t first, most;
	size_t nodes;
	frame f[RMI_YAML_MAX_DEPTH + 1];
};

rmi_ytree *rmi_ytree_new(size_t first, size_t most)
{
	rmi_ytree *t = calloc(1, sizeof(*t));
	if (t) {
		t->first = first;
		t->most = most;
	}
	return t;
}

void rmi_ytree_free(rmi_ytree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i <= RMI_YAML_MAX_DEPTH; i++) {
		free(t->f[i].item);
		free(t->f[i].set);
	}
	rmi_arena_free(t->arena);
	rmi_arena_free(t->spare);
	free(t);
}

rmi_ymark rmi_ytree_mark(const rmi_ytree *t)
{
	return (rmi_ymark){ t->arena, t->arena ? t->arena->used : 0,
			    t->nodes };
}

/* The chunks dropped are kept, not freed: a streamed map resets after
 * every record, and a chunk freed and allocated again costs its page
 * faults each time (more than the parsing). */
void rmi_ytree_reset(rmi_ytree *t, rmi_ymark m)
{
	while (t->arena && t->arena != m.chunk) {
		rmi_chunk *n = t->arena->next;
		t->arena->next = t->spare;
		t->spare = t->arena;
		t->arena = n;
	}
	if (t->arena)
		t->arena->used = m.used;
	t->nodes = m.nodes;
}

/* The bump inline, a new chunk through rmi_arena_alloc. */
static inline void *alloc(rmi_ytree *t, size_t size)
{
	size_t a = _Alignof(rmi_ynode);
	size = (size + a - 1) / a * a;
	rmi_chunk *c = t->arena;
	if (!c || c->cap - c->used < size) {
		if (!t->spare || t->spare->cap < size)
			return rmi_arena_alloc(&t->arena, size, t->first,
					       t->most);
		c = t->spare;
		t->spare = c->next;
		c->next = t->arena;
		c->used = 0;
		t->arena = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += size;
	return p;
}

/* One node per event of every file read: kept inline in the builder. */
static inline rm_status new_node(rmi_ytree *t, rmi_ysrc *s,
				 const rmi_yevent *e, rmi_ynode **out)
{
	if (++t->nodes > RMI_YAML_MAX_NODES)
		return rmi_ysrc_fail(s, e->line, e->col,
				     "more than %u nodes in one document",
				     RMI_YAML_MAX_NODES);
	bool scalar = e->k == RMI_EV_SCALAR;
	rmi_ynode *n = alloc(t, sizeof(*n) + (scalar ? e->len + 1 : 0));
	if (!n)
		return rmi_ysrc_oom(s);
	memset(n, 0, sizeof(*n));
	n->kind = scalar ? RMI_Y_SCALAR : e->k == RMI_EV_MAP ? RMI_Y_MAP
							     : RMI_Y_SEQ;
	n->line = e->line;
	n->col = e->col;
	if (scalar) {
		n->str = (char *)(n + 1);
		memcpy(n->str, e->s, e->len);
		n->str[e->len] = '\0';
		n->len = e->len;
		n->quoted = e->quoted;
	}
	*out = n;
	return RM_OK;
}

rm_status rmi_ytree_node(rmi_ytree *t, rmi_ysrc *s, const rmi_yevent *e,
			 rmi_ynode **out)
{
	return new_node(t, s, e, out);
}

static bool same_key(const rmi_ynode *a, const rmi_ynode *b)
{
	return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
}

rm_status rmi_ytree_key_new(rmi_ysrc *s, rmi_ynode *const *item,
			    size_t pairs)
{
	const rmi_ynode *k = item[2 * (pairs - 1)];
	for (size_t i = 0; i + 1 < pairs; i++)
		if (same_key(item[2 * i], k))
			return rmi_ysrc_dup(s, k, item[2 * i]->line);
	return RM_OK;
}

static size_t key_hash(const rmi_ynode *k)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < k->len; i++)
		h = (h ^ (unsigned char)k->str[i]) * 0x100000001b3ull;
	return (size_t)h;
}

/* Key `k` into the set; the key it repeats, or NULL. */
static const rmi_ynode *set_add(frame *f, const rmi_ynode *k)
{
	size_t h = key_hash(k) & (f->set_used - 1);
	while (f->set[h] && !same_key(f->set[h], k))
		h = (h + 1) & (f->set_used - 1);
	const rmi_ynode *was = f->set[h];
	f->set[h] = k;
	return was;
}

/* The mapping's keys, all but the last known distinct, in a set at most
 * half full; false when out of memory. */
static bool set_fill(frame *f, size_t pairs)
{
	size_t cap = 4 * SMALL;
	while (cap < 2 * pairs)
		cap *= 2;
	if (cap > f->set_cap) {
		const rmi_ynode **p = realloc(f->set, cap * sizeof(*p));
		if (!p)
			return false;
		f->set = p;
		f->set_cap = cap;
	}
	f->set_used = cap;
	memset(f->set, 0, cap * sizeof(*f->set));
	for (size_t i = 0; i + 1 < pairs; i++)
		set_add(f, f->item[2 * i]);
	return true;
}

/* The key just added as pair number `pairs` against the earlier ones,
 * so a repeat is named as soon as it is read, in file order. */
static rm_status key_check(rmi_ysrc *s, frame *f, size_t pairs)
{
	if (pairs <= SMALL)
		return rmi_ytree_key_new(s, f->item, pairs);
	if ((pairs == SMALL + 1 || 2 * pairs > f->set_used) &&
	    !set_fill(f, pairs))
		return rmi_ysrc_oom(s);
	const rmi_ynode *k = f->item[2 * (pairs - 1)];
	const rmi_ynode *was = set_add(f, k);
	return was ? rmi_ysrc_dup(s, k, was->line) : RM_OK;
}

/* The collection `n` opened, to its end; `d` is its depth in this build. */
static rm_status items(rmi_ytree *t, rmi_ysrc *s, rmi_ynode *n, unsigned d)
{
	frame *f = &t->f[d];
	bool map = n->kind == RMI_Y_MAP;
	size_t cnt = 0;
	rm_status st;
	for (;;) {
		rmi_yevent x;
		if ((st = rmi_ysrc_next(s, &x)))
			return st;
		if (x.k == RMI_EV_END)
			break;
		if (x.k == RMI_EV_EOF)
			return rmi_ysrc_fail(s, x.line, x.col,
					     "the file ends too early");
		rmi_ynode *child = NULL;
		if ((st = new_node(t, s, &x, &child)))
			return st;
		if (x.k != RMI_EV_SCALAR && (st = items(t, s, child, d + 1)))
			return st;
		if (cnt == f->cap) {
			size_t cap = cnt ? 2 * cnt : 16;
			rmi_ynode **p = realloc(f->item, cap * sizeof(*p));
			if (!p)
				return rmi_ysrc_oom(s);
			f->item = p;
			f->cap = cap;
		}
		f->item[cnt++] = child;
		if (map && cnt % 2 && (st = key_check(s, f, cnt / 2 + 1)))
			return st;
	}
	n->n = map ? cnt / 2 : cnt;
	if (cnt) {
		if (!(n->item = alloc(t, cnt * sizeof(*n->item))))
			return rmi_ysrc_oom(s);
		memcpy(n->item, f->item, cnt * sizeof(*n->item));
	}
	return RM_OK;
}

rm_status rmi_ytree_value(rmi_ytree *t, rmi_ysrc *s, const rmi_yevent *e,
			  rmi_ynode **out)
{
	if (e->k != RMI_EV_SCALAR && e->k != RMI_EV_MAP && e->k != RMI_EV_SEQ)
		return rmi_ysrc_fail(s, e->line, e->col, "expected a value");
	rm_status st = new_node(t, s, e, out);
	/* the source stops nesting at RMI_YAML_MAX_DEPTH: frames suffice */
	if (!st && e->k != RMI_EV_SCALAR)
		st = items(t, s, *out, 0);
	return st;
}

/* ---- the whole-document loader ---- */

void rmi_yaml_free(rmi_ynode *n)
{
	if (!n)
		return;
	ydoc *d = (ydoc *)((char *)n - offsetof(ydoc, root));
	rmi_arena_free(d->arena);
	free(d);
}

static rm_status load(rmi_ysrc *s, rmi_ytree *t, rmi_ynode **root)
{
	rmi_yevent e;
	rm_status st = rmi_ysrc_next(s, &e);
	if (!st && e.k == RMI_EV_EOF)
		st = rmi_ysrc_fail(s, 0, 0, "empty document");
	if (!st)
		st = rmi_ytree_value(t, s, &e, root);
	if (!st)
		st = rmi_ysrc_next(s, &e);
	if (!st && e.k != RMI_EV_EOF)   /* the source allows one value */
		st = rmi_ysrc_fail(s, e.line, e.col, "more after the document");
	return st;
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
	rmi_ysrc *s;
	rm_status st = rmi_ysrc_text(text, len, file, err, &s);
	if (st)
		return st;
	rmi_ytree *t = rmi_ytree_new(16384, HUGE_CHUNK - sizeof(rmi_chunk));
	ydoc *d = malloc(sizeof(*d));
	rmi_ynode *n = NULL;
	st = t && d ? load(s, t, &n)
			      : rmi_err(err, RM_ENOMEM, "%s: out of memory",
					file);
	rmi_ysrc_free(s);
	if (st) {
		free(d);
		rmi_ytree_free(t);
		return st;
	}
	/* Only the root moves: nothing points at it. */
	d->arena = t->arena;
	t->arena = NULL;
	d->root = *n;
	rmi_ytree_free(t);
	*root = &d->root;
	return RM_OK;
}
