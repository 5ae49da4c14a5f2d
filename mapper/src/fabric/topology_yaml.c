/* SPDX-License-Identifier: Apache-2.0 */
/*
 * topology_yaml.c - Slurm 25.05+ topology.yaml into an rm_fabric.
 *
 * The file holds several named topologies; a partition uses the one its
 * Topology= names, every other partition the first with cluster_default:
 * true, else the first one in the file (slurmctld sorts the defaults to
 * the front and takes index 0). slurmctld builds every topology at start,
 * so every tree and block topology here is checked too, each into a
 * scratch fabric, and only the chosen one is kept. The values go through
 * topology.c's checks, so a name, hostlist or block size means the same
 * as in topology.conf, except that blocks may have gaps (fewer nodes than
 * the base block size, or none), as 25.05+ allows. Keys slurmctld does
 * not know it ignores with a
 * warning; so does this reader, so that both pick the same topology.
 */
#include "internal.h"
#include "fabric/topology_int.h"
#include "util/yaml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { T_NONE, T_TREE, T_BLOCK, T_FLAT, T_RING, T_TORUS3D };

static const char *const kind_key[] = { "", "tree", "block", "flat", "ring",
					"torus3d" };

static const rmi_topo_words yaml_words = { "nodes", "children", "switch",
					   "block_sizes", "" };

/* One topology of the file, as far as choosing it needs. */
typedef struct entry {
	const rmi_ynode *map, *name, *key, *body; /* key: of the type */
	enum kind kind;
	bool cluster_default;
} entry;

typedef struct yctx {
	const char *file;
	rm_error *err;
	char q[160];
} yctx;

#define yat(y, n, ...)                                                       \
	rmi_err_cut((y)->err, RM_EINPUT, (y)->file, rmi_y_line(n),            \
		    rmi_y_col(n), 900, __VA_ARGS__)

static const char *yq(yctx *y, const rmi_ynode *n)
{
	return rm_quote(n->str, n->len, y->q, sizeof(y->q));
}

/* A key and its scalar value as a token for topology.c's checks. */
static rm_status tok(yctx *y, const rmi_ynode *map, const char *key,
		     bool need, rmi_topo_tok *t, const rmi_topo_tok **out)
{
	*out = NULL;
	const rmi_ynode *k = NULL, *v = NULL;
	for (size_t i = 0; i < map->n && !k; i++)
		if (!strcmp(map->item[2 * i]->str, key)) {
			k = map->item[2 * i];
			v = map->item[2 * i + 1];
		}
	if (!k)
		return need ? yat(y, map, "missing `%s`", key) : RM_OK;
	const char *s;
	rm_status st = rmi_y_str(v, y->file, key, &s, y->err);
	if (st)
		return st;
	*t = (rmi_topo_tok){ 0, k->str, v->str, k->len, v->len, k->line,
			     k->col, v->col + (v->quoted ? 1 : 0) };
	*out = t;
	return RM_OK;
}

/* body.`key` of a tree or block body: a list of mappings (the items of
 * tree.switches and block.blocks). */
static rm_status list_of_maps(yctx *y, const rmi_ynode *body,
			      const char *type, const char *key,
			      const rmi_ynode **out)
{
	*out = NULL;
	rm_status st = rmi_y_kind(body, y->file, type, RMI_Y_MAP, y->err);
	if (st)
		return st;
	const rmi_ynode *n = *out = rmi_y_get(body, key);
	if (!n)
		return yat(y, body, "%s has no `%s` list", type, key);
	char what[32];
	snprintf(what, sizeof(what), "%s.%s", type, key);
	st = rmi_y_kind(n, y->file, what, RMI_Y_SEQ, y->err);
	for (size_t i = 0; i < n->n && !st; i++)
		st = rmi_y_kind(n->item[i], y->file, what, RMI_Y_MAP, y->err);
	return st;
}

static rm_status read_tree(yctx *y, ctx *c, const rmi_ynode *body)
{
	const rmi_ynode *sw;
	rm_status st = list_of_maps(y, body, "tree", "switches", &sw);
	for (size_t i = 0; !st && i < sw->n; i++) {
		rmi_topo_tok tn, tnodes, tkids;
		const rmi_topo_tok *name, *nodes, *kids;
		const rmi_ynode *m = sw->item[i];
		if (!(st = tok(y, m, "switch", true, &tn, &name)) &&
		    !(st = tok(y, m, "nodes", false, &tnodes, &nodes)) &&
		    !(st = tok(y, m, "children", false, &tkids, &kids)))
			st = rmi_topo_switch(c, name, nodes, kids);
	}
	return st;
}

static rm_status read_sizes(yctx *y, ctx *c, const rmi_ynode *n)
{
	/* One number is a list of one, as slurmctld's parser reads it. */
	size_t count = n->kind == RMI_Y_SEQ ? n->n : 1;
	if (n->kind == RMI_Y_MAP)
		return yat(y, n, "block_sizes must be a list of numbers");
	for (size_t i = 0; i < count; i++) {
		const rmi_ynode *v = n->kind == RMI_Y_SEQ ? n->item[i] : n;
		uint64_t x;
		rm_status st = rmi_y_u64(v, y->file, "a block_sizes value", 1,
					 RM_MAX_HOSTS, &x, y->err);
		if (st)
			return st;
		rmi_topo_tok t = { 0, "block_sizes", v->str, 11, v->len,
				   v->line, v->col, v->col };
		if ((st = rmi_topo_block_size(c, x, &t)))
			return st;
	}
	return RM_OK;
}

static rm_status read_block(yctx *y, ctx *c, const rmi_ynode *body)
{
	const rmi_ynode *bl;
	rm_status st = list_of_maps(y, body, "block", "blocks", &bl);
	const rmi_ynode *sizes = st ? NULL : rmi_y_get(body, "block_sizes");
	if (sizes)
		st = read_sizes(y, c, sizes);
	for (size_t i = 0; !st && i < bl->n; i++) {
		rmi_topo_tok tn, tnodes;
		const rmi_topo_tok *name, *nodes;
		const rmi_ynode *m = bl->item[i];
		if (!(st = tok(y, m, "block", true, &tn, &name)) &&
		    !(st = tok(y, m, "nodes", false, &tnodes, &nodes)))
			st = rmi_topo_block(c, name, nodes);
	}
	return st;
}

/* The topology type of one entry: exactly one of tree, block, flat: true,
 * ring, torus3d, as slurmctld's parser demands. Keys are taken in file
 * order, so a complaint points at the second type. */
static rm_status entry_kind(yctx *y, entry *e)
{
	e->kind = T_NONE;
	for (size_t i = 0; i < e->map->n; i++) {
		const rmi_ynode *key = e->map->item[2 * i];
		const rmi_ynode *v = e->map->item[2 * i + 1];
		int k = T_TREE;
		while (k <= T_TORUS3D && strcmp(key->str, kind_key[k]))
			k++;
		if (k > T_TORUS3D)
			continue;
		if (k == T_FLAT && v->kind == RMI_Y_SCALAR) {
			bool on;
			rm_status st = rmi_y_bool(v, y->file, "flat", &on,
						  y->err);
			if (st)
				return st;
			if (!on)
				continue;
		}
		if (e->kind != T_NONE)
			return yat(y, key,
				   "topology %s has both `%s` and `%s`; a topology is exactly one of tree, block, flat (slurmctld: mutually exclusive)",
				   yq(y, e->name), kind_key[e->kind],
				   kind_key[k]);
		e->kind = (enum kind)k;
		e->key = key;
		e->body = v;
	}
	if (e->kind == T_NONE)
		return yat(y, e->map,
			   "topology %s has no type: give one of `tree`, `block` or `flat: true`",
			   yq(y, e->name));
	return RM_OK;
}

static rm_status read_entry(yctx *y, const rmi_ynode *m, entry *e)
{
	memset(e, 0, sizeof(*e));
	e->map = m;
	rm_status st = rmi_y_kind(m, y->file, "a topology", RMI_Y_MAP, y->err);
	if (st)
		return st;
	const char *s;
	e->name = rmi_y_get(m, "topology");
	if (!e->name)
		return yat(y, m, "a topology without a `topology` name");
	if ((st = rmi_y_str(e->name, y->file, "topology", &s, y->err)))
		return st;
	const rmi_ynode *d = rmi_y_get(m, "cluster_default");
	if (d && (st = rmi_y_bool(d, y->file, "cluster_default",
				  &e->cluster_default, y->err)))
		return st;
	return entry_kind(y, e);
}

/* Build one tree or block topology into `f` (empty). */
static rm_status build(yctx *y, const entry *e, rm_fabric *f)
{
	ctx c;
	rm_status st = rmi_topo_begin(&c, f, y->file, y->err);
	if (st)
		return st;
	c.w = &yaml_words;
	c.gaps = true; /* topology.yaml means 25.05+ */
	if (e->kind == T_TREE)
		st = read_tree(y, &c, e->body);
	else if (e->kind == T_BLOCK)
		st = read_block(y, &c, e->body);
	return rmi_topo_finish(&c, st);
}

static rm_status unsupported(yctx *y, const entry *e)
{
	return yat(y, e->key,
		   "topology %s uses topology/%s, which rankmap cannot place on; rankmap supports topology/tree, topology/block and topology/flat (use a partition with one of those)",
		   yq(y, e->name), kind_key[e->kind]);
}

/* The entry slurmctld uses: `name`'s, else the cluster default. */
static rm_status choose(yctx *y, const entry *v, size_t n, const char *name,
			size_t *out)
{
	for (size_t i = 0; i < n; i++) {
		if (name ? !strcmp(v[i].name->str, name) : v[i].cluster_default) {
			*out = i;
			return RM_OK;
		}
	}
	if (!name) {
		*out = 0;
		return RM_OK;
	}
	char have[512];
	size_t o = 0;
	have[0] = 0;
	for (size_t i = 0; i < n && o < sizeof(have) - 80; i++)
		o += (size_t)snprintf(have + o, sizeof(have) - o, "%s'%.60s'",
				      i ? ", " : "", v[i].name->str);
	char q[96];
	return rmi_err(y->err, RM_EINPUT,
		       "%s: no topology named %s (slurmctld: requested topology configuration unavailable); the file has %s",
		       y->file, rm_quote(name, strlen(name), q, sizeof(q)),
		       have);
}

static rm_status read_doc(yctx *y, const rmi_ynode *root, rm_fabric *f,
			  const char *name)
{
	/* slurmctld takes one mapping as a list of one topology. */
	size_t n = root->kind == RMI_Y_SEQ ? root->n : 1;
	if (root->kind == RMI_Y_SCALAR)
		return yat(y, root, "expected a list of topologies");
	if (!n)
		return yat(y, root, "no topologies in the list");
	entry *v = calloc(n, sizeof(*v));
	if (!v)
		return rmi_err(y->err, RM_ENOMEM, "%s: out of memory", y->file);
	rm_status st = RM_OK;
	/* A name given twice is not refused: slurmctld 26.05 runs such a
	 * file and looks names up first to last, as choose() does. */
	for (size_t i = 0; i < n && !st; i++)
		st = read_entry(y, root->kind == RMI_Y_SEQ ? root->item[i]
							   : root, &v[i]);
	size_t pick = 0;
	if (!st)
		st = choose(y, v, n, name, &pick);
	if (!st && (v[pick].kind == T_RING || v[pick].kind == T_TORUS3D))
		st = unsupported(y, &v[pick]);
	for (size_t i = 0; i < n && !st; i++) {
		if (i == pick) {
			st = build(y, &v[i], f);
			continue;
		}
		if (v[i].kind != T_TREE && v[i].kind != T_BLOCK)
			continue; /* slurmctld's own plugin checks ring/torus */
		rm_fabric *scratch = NULL;
		st = rm_fabric_new(&scratch, y->err);
		if (!st)
			st = build(y, &v[i], scratch);
		rm_fabric_free(scratch);
	}
	free(v);
	return st;
}

rm_status rm_fabric_parse_topology_yaml(rm_fabric *f, const char *text,
					size_t len, const char *file,
					const char *name, rm_error *err)
{
	if (!file)
		file = "topology.yaml";
	if (!f)
		return rmi_err(err, RM_EINPUT, "topology: no fabric given");
	if (f->has_tree || f->has_blocks || f->nsw || f->ndomain)
		return rmi_err(err, RM_EINPUT,
			       "%s: load the topology into a new fabric", file);
	rmi_ynode *root = NULL;
	rm_status st = rmi_yaml_load(text, len, file, &root, err);
	if (st)
		return st;
	yctx y = { file, err, "" };
	st = read_doc(&y, root, f, name);
	rmi_yaml_free(root);
	return st;
}

typedef struct load_arg {
	rm_fabric *f;
	const char *name;
} load_arg;

static rm_status parse_cb(void *obj, const char *text, size_t len,
			  const char *file, rm_error *err)
{
	const load_arg *a = obj;
	return rm_fabric_parse_topology_yaml(a->f, text, len, file, a->name,
					     err);
}

rm_status rm_fabric_load_topology_yaml(rm_fabric *f, const char *path,
				       const char *name, rm_error *err)
{
	if (!f || !path)
		return rmi_err(err, RM_EINPUT, "topology: no file given");
	load_arg a = { f, name };
	return rmi_parse_file(path, parse_cb, &a, err);
}
