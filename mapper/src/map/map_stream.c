/* SPDX-License-Identifier: Apache-2.0 */
/*
 * map_stream.c - map files of any size in one pass with bounded memory.
 *
 * A map of a million GPUs is 145 MB of JSON: a whole-document tree would
 * be tens of millions of nodes. Here the events of util/'s one source
 * (its JSON lexer, or libyaml for YAML) feed a tree of the top-level keys
 * only; each rank record and each axis of "groups" is built on its own by
 * util/'s one builder, checked by the same code as the tree reader
 * (map_read.c, rmi_mr_*), and dropped. What stays is the map itself.
 * Records are checked as they arrive, so they need the keys they depend
 * on (layout, order, world_size, gpus_per_node, nodes) first, and the
 * group lists need the ranks. rankmap writes them in that order; a file
 * in another order (keys sorted by a JSON tool) is read in up to three
 * passes over the same bytes instead: each pass skips what it cannot
 * check yet, the next takes it up. Memory stays bounded either way.
 *
 * This is the only map reader: small maps go through it too, so a map
 * costs the same per byte at every size, and since the events and their
 * messages come from util/, a map file and a site file with the same
 * mistake are told the same thing.
 */
#include "map/mapio.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TOP 64                    /* top-level keys */
#define CHUNK ((size_t)256 << 10)

/* Fixed 256 KiB arena chunks: each rank record's or group list's tree is
 * dropped once it is read, so the arena never grows large. */
typedef struct sr {
	rmi_ysrc *src;
	rmi_ytree *tree;
	rm_error *err;
	const char *file;
	char *hex;                   /* the digest wanted, or NULL */
	rm_sha256_ctx sha;
	bool hex_done;
} sr;

static rm_status next(sr *S, rmi_yevent *e)
{
	return rmi_ysrc_next(S->src, e);
}

static rm_status build(sr *S, const rmi_yevent *e, rmi_ynode **out)
{
	return rmi_ytree_value(S->tree, S->src, e, out);
}

/* ---- the map ---- */

typedef struct top {
	rmi_ynode root;
	rmi_ynode *item[2 * MAX_TOP];
} top;

static const rmi_ynode *top_get(const top *t, const char *key)
{
	return rmi_y_get(&t->root, key);
}

/* Key `k` at the top level, refused when it is there already (before
 * its value is read, as the builder does); `v` may follow later. */
static rm_status top_key(sr *S, top *t, rmi_ynode *k)
{
	if (t->root.n >= MAX_TOP)
		return rmi_ysrc_fail(S->src, k->line, k->col,
				     "more than %d keys in the map file",
				     MAX_TOP);
	t->item[2 * t->root.n] = k;
	return rmi_ytree_key_new(S->src, t->item, t->root.n + 1);
}

static void top_value(top *t, rmi_ynode *v)
{
	t->item[2 * t->root.n++ + 1] = v;
}

/* "ranks": the records one by one. */
static rm_status stream_ranks(sr *S, rmi_mapread *mr, top *t)
{
	rmi_yevent e;
	rm_status st = next(S, &e);
	if (st)
		return st;
	rmi_ynode *v;
	/* the list itself, with no items, stands in the top-level tree */
	if ((st = rmi_ytree_node(S->tree, S->src, &e, &v)))
		return st;
	top_value(t, v);
	if ((st = rmi_mr_head(mr, &t->root)))
		return st;
	rmi_ymark m = rmi_ytree_mark(S->tree);
	while (!(st = next(S, &e)) && e.k != RMI_EV_END) {
		rmi_ynode *rec;
		if ((st = build(S, &e, &rec)) || (st = rmi_mr_rank(mr, rec)))
			return st;
		rmi_ytree_reset(S->tree, m);
	}
	return st ? st : rmi_mr_ranks_end(mr);
}

/* "groups" or "expert_groups": one kind's lists at a time. */
static rm_status stream_groups(sr *S, rmi_mapread *mr, top *t,
			       const rmi_ynode *key, bool expert)
{
	rmi_yevent e;
	rm_status st = next(S, &e);
	if (st)
		return st;
	if (e.k != RMI_EV_MAP)
		return rmi_ysrc_fail(S->src, e.line, e.col,
				     "%s must be a mapping", key->str);
	rmi_ynode *v;
	if ((st = rmi_ytree_node(S->tree, S->src, &e, &v)))
		return st;
	top_value(t, v);
	rmi_ymark m = rmi_ytree_mark(S->tree);
	/* the kinds read so far, for duplicates: a handful of short names */
	struct { char name[16]; unsigned long line; } seen[16];
	size_t nseen = 0;
	while (!(st = next(S, &e)) && e.k != RMI_EV_END) {
		rmi_ynode *k, *list;
		rmi_yevent x;
		if ((st = build(S, &e, &k)))
			return st;
		for (size_t i = 0; i < nseen; i++)
			if (!strcmp(seen[i].name, k->str))
				return rmi_ysrc_dup(S->src, k, seen[i].line);
		if (nseen < 16 && k->len < sizeof(seen[0].name)) {
			memcpy(seen[nseen].name, k->str, k->len + 1);
			seen[nseen++].line = k->line;
		}
		if ((st = next(S, &x)) || (st = build(S, &x, &list)) ||
		    (st = rmi_mr_groups(mr, k, list, expert)))
			return st;
		rmi_ytree_reset(S->tree, m);
	}
	return st;
}

/* One value, read and dropped: a pass that cannot check it yet. */
static rm_status skip_value(sr *S)
{
	rmi_yevent e;
	rm_status st = next(S, &e);
	return st ? st : rmi_ysrc_skip(S->src, &e);
}

/* What the passes have done so far. */
typedef struct progress {
	bool ranks, groups[2];       /* checked */
	unsigned long skipped[3];    /* line of a key skipped in pass 0 */
	bool pending;                /* this pass skipped something */
} progress;

static bool head_ready(const top *t)
{
	static const char *const need[] = { "layout", "order", "world_size",
					    "gpus_per_node", "nodes", NULL };
	for (int i = 0; need[i]; i++)
		if (!top_get(t, need[i]))
			return false;
	return true;
}

/* "ranks", "groups" or "expert_groups", in whichever pass can check it. */
static rm_status streamed_key(sr *S, rmi_mapread *mr, top *t, rmi_ynode *k,
			      int which, int pass, progress *p)
{
	bool done = which == 0 ? p->ranks : p->groups[which - 1];
	if (pass == 0 && (done || p->skipped[which])) {
		const rmi_ynode *first = top_get(t, k->str);
		unsigned long line = p->skipped[which];
		for (size_t i = 0; !line && first && i < t->root.n; i++)
			if (t->item[2 * i + 1] == first)
				line = t->item[2 * i]->line;
		return rmi_ysrc_dup(S->src, k, line);
	}
	if (done)
		return skip_value(S);
	/* after pass 0 every head key there is has been seen */
	bool ready = which == 0 ? pass > 0 || head_ready(t) : p->ranks;
	if (!ready) {
		if (pass == 0)
			p->skipped[which] = k->line;
		p->pending = true;
		return skip_value(S);
	}
	rm_status st = top_key(S, t, k);
	if (!st)
		st = which == 0 ? stream_ranks(S, mr, t)
				: stream_groups(S, mr, t, k, which == 2);
	if (!st && which == 0)
		p->ranks = true;
	else if (!st)
		p->groups[which - 1] = true;
	return st;
}

static rm_status one_pass(sr *S, rmi_mapread *mr, top *t, int pass,
			  progress *p)
{
	rmi_yevent e;
	rm_status st = next(S, &e);
	if (st)
		return st;
	if (e.k == RMI_EV_EOF)
		return rmi_ysrc_fail(S->src, 0, 0, "empty document");
	if (e.k != RMI_EV_MAP)
		return rmi_ysrc_fail(S->src, e.line, e.col, "a map file is one "
				     "mapping (a JSON object)");
	if (pass == 0) {
		t->root.line = e.line;
		t->root.col = e.col;
	}
	p->pending = false;
	while (!(st = next(S, &e)) && e.k != RMI_EV_END) {
		rmi_ynode *k, *v;
		if ((st = build(S, &e, &k)))
			return st;
		int which = !strcmp(k->str, "ranks") ? 0
			    : !strcmp(k->str, "groups") ? 1
			    : !strcmp(k->str, "expert_groups") ? 2 : -1;
		if (which >= 0) {
			st = streamed_key(S, mr, t, k, which, pass, p);
		} else if (pass > 0) {
			st = skip_value(S);
		} else if (!(st = top_key(S, t, k))) {
			rmi_yevent x;
			if (!(st = next(S, &x)) && !(st = build(S, &x, &v)))
				top_value(t, v);
		}
		if (st)
			return st;
	}
	if (!st && (st = next(S, &e)) == RM_OK && e.k != RMI_EV_EOF)
		st = rmi_ysrc_fail(S->src, e.line, e.col,
				   "more after the document");
	return st;
}

/* The digest of every byte, once the first pass has read them (the rest
 * of the file counts too: trailing space). */
static rm_status digest(sr *S)
{
	if (!S->hex || S->hex_done)
		return RM_OK;
	rm_status st = rmi_ysrc_drain(S->src);
	if (!st)
		rm_sha256_end_hex(&S->sha, S->hex);
	S->hex_done = true;
	return st;
}

static rm_status stream(sr *S, rm_map **out)
{
	rmi_mapread *mr = rmi_mr_new(S->file, S->err);
	top *t = calloc(1, sizeof(*t));
	if (!mr || !t) {
		rmi_mr_free(mr, false);
		free(t);
		return rmi_ysrc_oom(S->src);
	}
	t->root.kind = RMI_Y_MAP;
	t->root.item = t->item;
	progress p = { 0 };
	rm_status st = RM_OK;
	/* ranks wait for the head (pass 1), groups for the ranks (pass 2) */
	for (int pass = 0; pass < 3 && !st; pass++) {
		if (pass && (st = rmi_ysrc_rewind(S->src)))
			break;
		if ((st = one_pass(S, mr, t, pass, &p)) || !p.pending)
			break;
		st = digest(S);
	}
	if (!st)
		st = digest(S);
	if (!st && !p.ranks)
		st = rmi_mr_head(mr, &t->root);   /* says what is missing */
	if (!st)
		st = rmi_mr_tail(mr, &t->root);
	free(t);
	*out = rmi_mr_free(mr, st == RM_OK);
	return st;
}

static void seen(void *ctx, const void *bytes, size_t n)
{
	rm_sha256_add(ctx, bytes, n);
}

/* Over an open file (fd >= 0) or text in memory. */
static rm_status read_map(int fd, const char *text, size_t len,
			  const char *file, rm_map **out, char *hex,
			  rm_error *err)
{
	sr S = { .err = err, .file = file, .hex = hex };
	rm_sha256_init(&S.sha);
	rm_status st = fd >= 0 ? rmi_ysrc_fd(fd, file, hex ? seen : NULL,
					     &S.sha, err, &S.src)
			       : rmi_ysrc_text(text, len, file, err, &S.src);
	if (st)
		return st;
	if (!(S.tree = rmi_ytree_new(CHUNK, CHUNK)))
		st = rmi_ysrc_oom(S.src);
	else
		st = stream(&S, out);
	rmi_ytree_free(S.tree);
	rmi_ysrc_free(S.src);
	return st;
}

rm_status rmi_map_stream_text(const char *text, size_t len, const char *name,
			      rm_map **out, rm_error *err)
{
	*out = NULL;
	return read_map(-1, text ? text : "", text ? len : 0,
			name ? name : "<input>", out, NULL, err);
}

rm_status rmi_map_read_file(const char *path, rm_map **out, char *hex,
			    rm_error *err)
{
	*out = NULL;
	int fd;
	uint64_t size;
	rm_status st = rmi_open_file(path, &fd, &size, err);
	if (st)
		return st;
	(void)size;
	st = read_map(fd, NULL, 0, path, out, hex, err);
	close(fd);
	return st;
}

rm_status rm_map_read_digest(const char *path, rm_map **out,
			     char sha256_hex[65], rm_error *err)
{
	if (out)
		*out = NULL;
	if (!path || !out || !sha256_hex)
		return rmi_err(err, RM_EINPUT, "map read: no path or output");
	return rmi_map_read_file(path, out, sha256_hex, err);
}
