/* SPDX-License-Identifier: Apache-2.0 */
/*
 * topology.c - Slurm topology.conf (topology/tree and topology/block) into
 * an rm_fabric. Every complaint names file:line:col and quotes the bad
 * text: this file is written by hand on most clusters.
 */
#include "internal.h"
#include "util/hostname.h"
#include "fabric/topology_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TOPO_MAX_LINE (64u << 10)
/* Far above any real cluster, low enough to bound memory on hostile input. */
#define TOPO_MAX_NODES RM_MAX_HOSTS
#define TOPO_MAX_SWITCHES RM_MAX_HOSTS

enum key { K_SWITCHNAME, K_SWITCHES, K_NODES, K_LINKSPEED, K_BLOCKNAME,
	   K_BLOCKSIZES, K_N };

#define SLURM_SWITCH_NAME_MAX 64

static const char *const key_names[K_N] = { "SwitchName", "Switches",
					     "Nodes",      "LinkSpeed",
					     "BlockName",  "BlockSizes" };

#define tok rmi_topo_tok_s
struct rec {
	rmi_topo_tok t[K_N];
	unsigned n;
};

struct rmi_topo_block {
	const char *name;
	size_t len;
	unsigned long line, col;
};

static const char *qa(ctx *c, const char *v, size_t n)
{
	return rm_quote(v, n, c->qa, sizeof(c->qa));
}

static const char *qb(ctx *c, const char *v, size_t n)
{
	return rm_quote(v, n, c->qb, sizeof(c->qb));
}

static const char *qc(ctx *c, const char *v)
{
	return rm_quote(v, strlen(v), c->qc, sizeof(c->qc));
}

rm_status rmi_topo_oom(const ctx *c)
{
	return rmi_err(c->err, RM_ENOMEM, "%s: out of memory", c->file);
}

static const rmi_topo_tok *get(const struct rec *r, enum key k)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->t[i].key == (int)k)
			return &r->t[i];
	return NULL;
}

static const rmi_topo_words conf_words = { "Nodes=", "Switches=",
					   "SwitchName=", "BlockSizes", "=" };

static rm_status check_name(ctx *c, const rmi_topo_tok *t)
{
	if (t->vlen > RM_MAX_HOSTNAME)
		return rmi_topo_at(c, t->line, t->vc,
				   "name %s longer than %d bytes",
				   qa(c, t->v, t->vlen), RM_MAX_HOSTNAME);
	for (size_t i = 0; i < t->vlen; i++)
		if (!rmi_host_char((unsigned char)t->v[i]))
			return rmi_topo_at(c, t->line, t->vc + i,
					   "name %s: character %s is not allowed in a name",
					   qa(c, t->v, t->vlen),
					   qb(c, t->v + i, 1));
	return RM_OK;
}

static rm_status expand(ctx *c, const rmi_topo_tok *t, rm_hostlist *hl)
{
	size_t col = 0;
	rm_error e;
	rm_status st = rmi_hostlist_parse_n(t->v, t->vlen, hl, &col, &e);
	if (st == RM_ENOMEM)
		return rmi_topo_oom(c);
	if (st)
		return rmi_topo_at(c, t->line, t->vc + (col ? col - 1 : 0),
				   "%.*s%s: %s", (int)t->klen, t->k, c->w->sep,
				   e.msg);
	return RM_OK;
}

static rm_status add_nodes(ctx *c, const rmi_topo_tok *t, int32_t sw,
			   int32_t block)
{
	rm_fabric *f = c->f;
	rm_hostlist hl;
	rm_status st = expand(c, t, &hl);
	if (st)
		return st;
	if (f->nnode + hl.n > TOPO_MAX_NODES) {
		rm_hostlist_clear(&hl);
		return rmi_topo_at(c, t->line, t->vc,
				   "more than %u nodes in one topology",
				   TOPO_MAX_NODES);
	}
	for (size_t i = 0; i < hl.n && !st; i++) {
		int64_t ix = rmi_fabric_add_node(f, hl.host[i]);
		if (ix < 0) {
			st = rmi_topo_oom(c);
			break;
		}
		rmi_fnode *n = &f->node[ix];
		int32_t *slot = sw >= 0 ? &n->leaf : &n->domain;
		int32_t mine = sw >= 0 ? sw : block;
		if (*slot == mine) {
			st = rmi_topo_at(c, t->line, t->vc,
					 "node %s is listed twice on this line",
					 qc(c, n->name));
		} else if (*slot >= 0 && sw >= 0) {
			/* slurmctld warns ("Multiple leaf switches contain
			 * nodes") and keeps the node under both; a map
			 * needs one leaf, so rankmap keeps the first. */
			const rmi_switch *o = &f->sw[*slot];
			if (c->nmultileaf++ == 0)
				snprintf(c->multileaf_eg,
					 sizeof(c->multileaf_eg),
					 "%s:%lu: node %s is under two leaf switches, %s (line %lu) and %s",
					 c->file, t->line, qc(c, n->name),
					 qa(c, o->name, strlen(o->name)),
					 o->line,
					 qb(c, f->sw[sw].name,
					    strlen(f->sw[sw].name)));
		} else if (*slot >= 0) {
			const struct rmi_topo_block *o = &c->blocks[*slot];
			st = rmi_topo_at(c, t->line, t->vc,
					 "node %s is in two blocks: %s (line %lu) and %s",
					 qc(c, n->name), qa(c, o->name, o->len),
					 o->line,
					 qb(c, f->domain_name[block],
					    strlen(f->domain_name[block])));
		} else {
			*slot = mine;
		}
	}
	rm_hostlist_clear(&hl);
	return st;
}

rm_status rmi_topo_switch(ctx *c, const rmi_topo_tok *name,
			  const rmi_topo_tok *nodes, const rmi_topo_tok *kids)
{
	rm_fabric *f = c->f;
	rm_status st = check_name(c, name);
	if (st)
		return st;
	/* slurmctld: "SwitchName (...) must be shorter than 64 chars"
	 * (HOST_NAME_MAX), and the line is refused. */
	if (name->vlen > SLURM_SWITCH_NAME_MAX)
		return rmi_topo_at(c, name->line, name->vc,
				   "switch name %s has %zu characters; slurmctld refuses a SwitchName longer than %d",
				   qa(c, name->v, name->vlen), name->vlen,
				   SLURM_SWITCH_NAME_MAX);
	char buf[RM_MAX_HOSTNAME + 1];
	memcpy(buf, name->v, name->vlen);
	buf[name->vlen] = '\0';
	int64_t prev = rmi_fabric_find_switch(f, buf);
	if (prev >= 0)
		return rmi_topo_at(c, name->line, name->vc,
				   "switch %s defined twice (first on line %lu)",
				   qa(c, name->v, name->vlen),
				   f->sw[prev].line);
	/* Slurm (since 23.02) refuses this too rather than guess which wins. */
	if (nodes && kids)
		return rmi_topo_at(c, kids->line, kids->col,
				   "switch %s has both %s and %s; a switch holds either nodes or switches",
				   qa(c, name->v, name->vlen), c->w->nodes,
				   c->w->switches);
	if (f->nsw >= TOPO_MAX_SWITCHES)
		return rmi_topo_at(c, name->line, name->col,
				   "more than %u switches in one topology",
				   TOPO_MAX_SWITCHES);
	int64_t sw = rmi_fabric_add_switch(f, buf);
	if (sw < 0)
		return rmi_topo_oom(c);
	f->sw[sw].line = name->line;
	f->has_tree = true;
	if (nodes)
		return add_nodes(c, nodes, (int32_t)sw, -1);
	if (kids) {
		if (!rmi_grow((void **)&c->pend, &c->cappend, c->npend + 1,
			      sizeof(*c->pend)))
			return rmi_topo_oom(c);
		c->pend[c->npend++] = (rmi_topo_link){
			(uint32_t)sw, kids->v, kids->vlen, kids->line,
			kids->vc };
	}
	return RM_OK;
}

rm_status rmi_topo_block(ctx *c, const rmi_topo_tok *name,
			 const rmi_topo_tok *nodes)
{
	rm_fabric *f = c->f;
	rm_status st = check_name(c, name);
	if (st)
		return st;
	if (f->ndomain >= TOPO_MAX_NODES)
		return rmi_topo_at(c, name->line, name->col,
				   "more than %u blocks in one topology",
				   TOPO_MAX_NODES);
	if (!rmi_grow((void **)&f->domain_name, &c->capdomain,
		      f->ndomain + 1, sizeof(*f->domain_name)) ||
	    !rmi_grow((void **)&c->blocks, &c->capblocks, c->nblocks + 1,
		      sizeof(*c->blocks)))
		return rmi_topo_oom(c);
	char *dup = strndup(name->v, name->vlen);
	if (!dup)
		return rmi_topo_oom(c);
	uint32_t b = f->ndomain++;
	f->domain_name[b] = dup;
	c->blocks[c->nblocks++] = (struct rmi_topo_block){
		name->v, name->vlen, name->line, name->col };
	f->has_blocks = true;
	/* slurmctld's topology/block refuses a block without nodes (before
	 * 25.05's gaps). */
	if (!nodes && c->gaps)
		return RM_OK;
	if (!nodes)
		return rmi_topo_at(c, name->line, name->col,
				   "block %s has no %s",
				   qa(c, name->v, name->vlen), c->w->nodes);
	return add_nodes(c, nodes, -1, (int32_t)b);
}

rm_status rmi_topo_block_size(ctx *c, uint64_t x, const rmi_topo_tok *t)
{
	uint32_t *v = c->sizes;
	uint32_t n = c->nsizes;
	if (x == 0 || x > RM_MAX_HOSTS)
		return rmi_topo_at(c, t->line, t->vc,
				   "%s: %s is not a block size (a whole number of nodes, 1 to %u)",
				   c->w->blocksizes, qa(c, t->v, t->vlen),
				   RM_MAX_HOSTS);
	if (n == RMI_TOPO_MAX_BLOCK_SIZES)
		return rmi_topo_at(c, t->line, t->vc, "%s: more than %d sizes",
				   c->w->blocksizes, RMI_TOPO_MAX_BLOCK_SIZES);
	/* slurmctld's rule: the first size is the base block, every other
	 * one the base times 2^k, k <= 15. */
	uint64_t k = n ? x / v[0] : 1;
	if (n && (x % v[0] || (k & (k - 1)) || k > (1u << 15)))
		return rmi_topo_at(c, t->line, t->vc,
				   "%s: %s is not the base block size %u times a power of two up to 2^15 (slurmctld: Invalid BlockSizes value)",
				   c->w->blocksizes, qa(c, t->v, t->vlen), v[0]);
	v[c->nsizes++] = (uint32_t)x;
	return RM_OK;
}

static rm_status do_sizes(ctx *c, const rmi_topo_tok *t)
{
	if (c->saw_sizes)
		return rmi_topo_at(c, t->line, t->col,
				   "BlockSizes given twice");
	c->saw_sizes = true;
	size_t i = 0;
	while (i <= t->vlen) {
		size_t s = i, e = i;
		while (e < t->vlen && t->v[e] != ',')
			e++;
		uint64_t x = 0;
		bool ok = e > s && e - s <= 7;
		for (size_t k = s; ok && k < e; k++) {
			ok = t->v[k] >= '0' && t->v[k] <= '9';
			x = x * 10 + (uint64_t)(t->v[k] - '0');
		}
		rmi_topo_tok one = *t;
		one.v = t->v + s;
		one.vlen = e - s;
		one.vc = t->vc + s;
		rm_status st = rmi_topo_block_size(c, ok ? x : 0, &one);
		if (st)
			return st;
		i = e + 1;
	}
	return RM_OK;
}

static const bool allowed[3][K_N] = {
	/* SwitchName, Switches, Nodes, LinkSpeed, BlockName, BlockSizes */
	{ true, true, true, true, false, false },
	{ false, false, true, false, true, false },
	{ false, false, false, false, false, true },
};

static rm_status do_record(ctx *c, const struct rec *r)
{
	const rmi_topo_tok *first = &r->t[0];
	int kind = first->key == K_SWITCHNAME  ? 0
		   : first->key == K_BLOCKNAME ? 1
		   : first->key == K_BLOCKSIZES ? 2
						: -1;
	if (kind < 0)
		return rmi_topo_at(c, first->line, first->col,
				   "a line must start with SwitchName=, BlockName= or BlockSizes=, not %s",
				   qa(c, first->k, first->klen));
	for (unsigned i = 1; i < r->n; i++)
		if (!allowed[kind][r->t[i].key])
			return rmi_topo_at(c, r->t[i].line, r->t[i].col,
					   "key %s does not belong on a %s line",
					   qa(c, r->t[i].k, r->t[i].klen),
					   key_names[first->key]);
	if (kind == 0)
		return rmi_topo_switch(c, first, get(r, K_NODES),
				       get(r, K_SWITCHES));
	if (kind == 1)
		return rmi_topo_block(c, first, get(r, K_NODES));
	return do_sizes(c, first);
}

static rm_status add_tok(ctx *c, struct rec *r, const char *s,
			 size_t len, unsigned long line, unsigned long col)
{
	const char *eq = memchr(s, '=', len);
	if (!eq)
		return rmi_topo_at(c, line, col, "expected Key=Value, found %s",
				   qa(c, s, len));
	rmi_topo_tok t = { K_N, s, eq + 1, (size_t)(eq - s),
			   len - (size_t)(eq - s) - 1, line, col,
			   col + (unsigned long)(eq - s) + 1 };
	for (int k = 0; k < K_N; k++)
		if (strlen(key_names[k]) == t.klen &&
		    strncasecmp(key_names[k], s, t.klen) == 0)
			t.key = (enum key)k;
	/* topology/ring's lines (26.05): say so rather than "unknown". */
	if (t.key == K_N && t.klen == 8 && !strncasecmp(s, "RingName", 8))
		return rmi_topo_at(c, line, col,
				   "RingName= is topology/ring's, which rankmap cannot place on; rankmap supports topology/tree (SwitchName=), topology/block (BlockName=) and topology/flat");
	if (t.key == K_N)
		return rmi_topo_at(c, line, col,
				   "unknown key %s (known: SwitchName, Switches, Nodes, LinkSpeed, BlockName, BlockSizes)",
				   qa(c, s, t.klen));
	if (t.vlen == 0)
		return rmi_topo_at(c, line, col, "missing value for %s",
				   qa(c, s, t.klen));
	if (get(r, t.key))
		return rmi_topo_at(c, line, col,
				   "key %s given twice on one line",
				   qa(c, s, t.klen));
	r->t[r->n++] = t;
	return RM_OK;
}

/* Blank-separated Key=Value words of one physical line into `r`. */
static rm_status tokenize(ctx *c, struct rec *r, const char *s,
			  size_t len, unsigned long line)
{
	size_t i = 0;
	while (i < len) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= len)
			break;
		size_t b = i;
		while (i < len && s[i] != ' ' && s[i] != '\t')
			i++;
		rm_status st = add_tok(c, r, s + b, i - b, line, b + 1);
		if (st)
			return st;
	}
	return RM_OK;
}

static rm_status read_lines(ctx *c, const char *text, size_t len)
{
	struct rec r;
	r.n = 0;
	unsigned long line = 0;
	size_t pos = 0;
	while (pos < len) {
		line++;
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + (nl ? 1 : 0);
		if (n > TOPO_MAX_LINE)
			return rmi_err_at(c->err, RM_EINPUT, c->file, line, 0,
					  "line longer than %u bytes",
					  TOPO_MAX_LINE);
		const char *z = memchr(s, '\0', n);
		if (z)
			return rmi_err_at(c->err, RM_EINPUT, c->file, line,
					  (unsigned long)(z - s) + 1,
					  "NUL byte in a text file");
		const char *hash = memchr(s, '#', n);
		if (hash)
			n = (size_t)(hash - s);
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
			     s[n - 1] == '\r'))
			n--;
		bool cont = n && s[n - 1] == '\\';
		if (cont)
			n--;
		for (size_t i = 0; i < n; i++) {
			unsigned char ch = (unsigned char)s[i];
			if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
				return rmi_topo_at(c, line, i + 1,
						   "control character %s",
						   qa(c, s + i, 1));
		}
		rm_status st = tokenize(c, &r, s, n, line);
		if (st)
			return st;
		if (cont || r.n == 0)
			continue;
		st = do_record(c, &r);
		if (st)
			return st;
		r.n = 0;
	}
	return r.n ? do_record(c, &r) : RM_OK;
}

static int block_cmp(const void *pa, const void *pb)
{
	const struct rmi_topo_block *a = pa, *b = pb;
	int c = rmi_bytes_cmp(a->name, a->len, b->name, b->len);
	return c ? c : RMI_CMP(a->line, b->line);
}

/* slurmctld's topology/block plans in base blocks: the first BlockSizes
 * value, else the first block's node count. A smaller block is refused. */
static rm_status blocks_hold_base(ctx *c)
{
	rm_fabric *f = c->f;
	if (!c->nblocks)
		return RM_OK;
	uint32_t *count = calloc(c->nblocks, sizeof(*count));
	if (!count)
		return rmi_topo_oom(c);
	for (uint32_t i = 0; i < f->nnode; i++)
		if (f->node[i].domain >= 0 &&
		    (size_t)f->node[i].domain < c->nblocks)
			count[f->node[i].domain]++;
	bool given = f->nblock_sizes > 0;
	uint32_t base = given ? f->block_sizes[0] : count[0];
	rm_status st = RM_OK;
	for (size_t b = 0; b < c->nblocks && !st; b++)
		if (count[b] < base)
			st = rmi_topo_at(c, c->blocks[b].line, c->blocks[b].col,
					 "block %s has %u nodes, fewer than the base block size of %u (%s; slurmctld: children count lower than bblock_node_cnt)",
					 qa(c, c->blocks[b].name, c->blocks[b].len),
					 count[b], base,
					 given ? "BlockSizes' first value"
					       : "the first block's node count");
	free(count);
	return st;
}

/* Blocks are few; sorting a copy finds a repeated name without a table. */
static rm_status unique_blocks(ctx *c)
{
	if (c->nblocks < 2)
		return RM_OK;
	struct rmi_topo_block *v = malloc(c->nblocks * sizeof(*v));
	if (!v)
		return rmi_topo_oom(c);
	memcpy(v, c->blocks, c->nblocks * sizeof(*v));
	qsort(v, c->nblocks, sizeof(*v), block_cmp);
	rm_status st = RM_OK;
	for (size_t i = 1; i < c->nblocks && !st; i++)
		if (v[i].len == v[i - 1].len &&
		    memcmp(v[i].name, v[i - 1].name, v[i].len) == 0)
			st = rmi_topo_at(c, v[i].line,
					 v[i].col + strlen("BlockName="),
					 "block %s defined twice (first on line %lu)",
					 qa(c, v[i].name, v[i].len),
					 v[i - 1].line);
	free(v);
	return st;
}

rm_status rmi_topo_begin(ctx *c, rm_fabric *f, const char *name,
			 rm_error *err)
{
	memset(c, 0, sizeof(*c));
	c->w = &conf_words;
	c->err = err;
	if (!f)
		return rmi_err(err, RM_EINPUT, "topology: no fabric given");
	if (f->has_tree || f->has_blocks || f->nsw)
		return rmi_err(err, RM_EINPUT,
			       "%s: this fabric already holds a topology (from %s)",
			       name, f->source ? f->source : "elsewhere");
	/* Block indices double as domain indices, so blocks come first. */
	if (f->ndomain)
		return rmi_err(err, RM_EINPUT,
			       "%s: load the topology before the site's NVLink groups",
			       name);
	free(f->source);
	f->source = strdup(name);
	if (!f->source)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	c->f = f;
	c->file = f->source;
	return RM_OK;
}

rm_status rmi_topo_finish(ctx *c, rm_status st)
{
	if (!st)
		st = unique_blocks(c);
	if (!st && c->nsizes) {
		rm_fabric *f = c->f;
		uint32_t *p = malloc(c->nsizes * sizeof(*p));
		if (!p)
			st = rmi_topo_oom(c);
		else {
			memcpy(p, c->sizes, c->nsizes * sizeof(*p));
			free(f->block_sizes);
			f->block_sizes = p;
			f->nblock_sizes = c->nsizes;
		}
	}
	if (!st && !c->gaps)
		st = blocks_hold_base(c);
	if (!st)
		st = rmi_topo_build_tree(c);
	if (!st && c->nmultileaf)
		rmi_fabric_warn(c->f,
				"%s; %u node(s) under more than one leaf: slurmctld warns and counts them under each, rankmap places each under the first leaf that lists it",
				c->multileaf_eg, c->nmultileaf);
	free(c->pend);
	free(c->blocks);
	c->pend = NULL;
	c->blocks = NULL;
	return st;
}

rm_status rm_fabric_parse_topology(rm_fabric *f, const char *text, size_t len,
				   const char *name, rm_error *err)
{
	if (!name)
		name = "topology.conf";
	if (!text && len)
		return rmi_err(err, RM_EINPUT, "%s: no text given", name);
	if (len > RM_MAX_INPUT)
		return rmi_err(err, RM_EINPUT, "%s: larger than %u bytes",
			       name, RM_MAX_INPUT);
	ctx c;
	rm_status st = rmi_topo_begin(&c, f, name, err);
	if (st)
		return st;
	if (len)
		st = read_lines(&c, text, len);
	/* slurmctld stops on such a file: "No switches configured" under
	 * topology/tree, and topology/block needs a block as well. */
	if (!st && !f->nsw && !c.nblocks)
		st = rmi_err(err, RM_EINPUT,
			     "%s: no SwitchName= or BlockName= line; slurmctld refuses a topology.conf without switches or blocks (remove the file for a flat topology)",
			     name);
	return rmi_topo_finish(&c, st);
}

static rm_status parse_topology(void *f, const char *text, size_t len,
				const char *file, rm_error *err)
{
	return rm_fabric_parse_topology(f, text, len, file, err);
}

rm_status rm_fabric_load_topology(rm_fabric *f, const char *path,
				  rm_error *err)
{
	if (!f || !path)
		return rmi_err(err, RM_EINPUT, "topology: no file given");
	return rmi_parse_file(path, parse_topology, f, err);
}
