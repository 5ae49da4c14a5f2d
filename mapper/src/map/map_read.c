/* SPDX-License-Identifier: Apache-2.0 */
/*
 * map_read.c - rm_map_read: a rankmap-map/1 file (JSON or YAML) back into
 * an rm_map. A map file may have been edited by hand or by a script, so
 * nothing in it is trusted: every rank must be a coordinate the order
 * actually gives it, sit on a listed node and a GPU of its own, and every
 * derived field (axes, nesting, groups) must agree with the rest.
 */
#include "map/mapio.h"

#include <stdlib.h>
#include <string.h>

#define MAX_GPUS_PER_NODE 1024

typedef struct rd {
	const char *file;
	rm_error *err;
	rm_map *m;
	/* What the layout shows per rank, and how to compute it. */
	rm_group_kind kind[RMI_MAX_KINDS];
	rmi_coord co[RMI_MAX_KINDS];
	unsigned nkind;
} rd;

static int kind_index(const rd *r, const char *s, size_t len)
{
	for (unsigned i = 0; i < r->nkind; i++) {
		const char *name = rm_group_kind_name(r->kind[i]);
		if (strlen(name) == len && memcmp(name, s, len) == 0)
			return (int)i;
	}
	return -1;
}

/* RM_EINPUT at node `n` (NULL: the file as a whole). */
#define bad(r, n, ...)                                                       \
	rmi_err_cut((r)->err, RM_EINPUT, (r)->file, rmi_y_line(n),           \
		    rmi_y_col(n), 768, __VA_ARGS__)

static rm_status oom(rd *r)
{
	return rmi_err(r->err, RM_ENOMEM, "%s: out of memory", r->file);
}

/* A name (host, leaf, unit, warning): a non-empty string without NUL. */
static rm_status name(rd *r, const rmi_ynode *n, const char *what,
		      size_t maxlen, char **out)
{
	const char *s;
	rm_status st = rmi_y_str(n, r->file, what, &s, r->err);
	if (st)
		return st;
	if (strlen(s) != n->len || n->len == 0 || n->len > maxlen)
		return bad(r, n, "%s must be 1 to %zu bytes without NUL", what,
			   maxlen);
	*out = strdup(s);
	return *out ? RM_OK : oom(r);
}

static rm_status u32(rd *r, const rmi_ynode *n, const char *what,
		     uint64_t max, uint32_t *out)
{
	uint64_t v;
	rm_status st = rmi_y_u64(n, r->file, what, 0, max, &v, r->err);
	if (st == RM_OK)
		*out = (uint32_t)v;
	return st;
}

static rm_status layout(rd *r, const rmi_ynode *root)
{
	rm_map *m = r->m;
	const rmi_ynode *n = rmi_y_get(root, "layout");
	const char *s;
	rm_error e;
	char q[160];
	rm_status st = rmi_y_str(n, r->file, "layout", &s, r->err);
	if (st)
		return st;
	if (rm_layout_parse(s, &m->layout, &e) != RM_OK)
		return bad(r, n, "%s", e.msg);
	if (m->layout.dp_auto)
		return bad(r, n, "layout %s: a map needs a resolved dp size",
			   rm_quote(s, n->len, q, sizeof(q)));
	uint64_t world = rm_layout_world(&m->layout);
	n = rmi_y_get(root, "world_size");
	st = u32(r, n, "world_size", RM_MAX_WORLD, &m->world);
	if (st)
		return st;
	if (m->world != world)
		return bad(r, n, "world_size %u differs from the layout's %llu",
			   m->world, (unsigned long long)world);

	if ((n = rmi_y_get(root, "axes"))) {
		if ((st = rmi_y_kind(n, r->file, "axes", RMI_Y_MAP, r->err)))
			return st;
		r->nkind = rmi_map_kinds(&m->layout, r->kind);
		unsigned seen = 0;
		for (size_t i = 0; i < n->n; i++) {
			const rmi_ynode *k = n->item[2 * i];
			int a = kind_index(r, k->str, k->len);
			if (a < 0)
				return bad(r, k, "axes: %s is not an axis of "
					   "this layout",
					   rm_quote(k->str, k->len, q,
						     sizeof(q)));
			uint32_t v, want = rmi_kind_size(&m->layout,
							  r->kind[a]);
			if ((st = u32(r, n->item[2 * i + 1], "axis size",
				      RM_MAX_WORLD, &v)))
				return st;
			if (v != want)
				return bad(r, n->item[2 * i + 1],
					   "axes: %s is %u, the layout says %u",
					   rm_group_kind_name(r->kind[a]), v,
					   want);
			seen |= 1u << a;
		}
		for (unsigned a = 0; a < r->nkind; a++)
			if (!(seen & (1u << a)))
				return bad(r, n, "axes: %s is missing",
					   rm_group_kind_name(r->kind[a]));
	}
	if ((n = rmi_y_get(root, "nesting"))) {
		if ((st = rmi_y_kind(n, r->file, "nesting", RMI_Y_SEQ, r->err)))
			return st;
		bool same = n->n == m->layout.naxes;
		for (size_t i = 0; same && i < n->n; i++) {
			const rmi_ynode *x = n->item[i];
			same = x->kind == RMI_Y_SCALAR &&
			       rm_axis_from_name(x->str, x->len) ==
				       (int)m->layout.nest[i];
		}
		if (!same)
			return bad(r, n, "nesting does not match the layout "
				   "(innermost first, as in the layout string)");
	}

	const rmi_ynode *o = rmi_y_get(root, "order");
	static const char *const okeys[] = { "name", "permutation", NULL };
	if ((st = rmi_y_keys(o, r->file, "order", okeys, r->err)))
		return st;
	n = rmi_y_get(o, "permutation");
	if ((st = rmi_y_str(n, r->file, "order permutation", &s, r->err)))
		return st;
	if (rm_order_parse(s, &m->layout, &m->order, &e) != RM_OK)
		return bad(r, n, "%s", e.msg);
	n = rmi_y_get(o, "name");
	if ((st = rmi_y_str(n, r->file, "order name", &s, r->err)))
		return st;
	if (n->len >= sizeof(m->order.name) ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") != n->len)
		return bad(r, n, "order name %s: expected up to %zu of a-z, "
			   "0-9, '-', '_'", rm_quote(s, n->len, q, sizeof(q)),
			   sizeof(m->order.name) - 1);
	memcpy(m->order.name, s, n->len + 1);
	r->nkind = rmi_map_kinds(&m->layout, r->kind);
	for (unsigned i = 0; i < r->nkind; i++)
		if (rmi_coord_prep(&m->layout, &m->order, r->kind[i], &r->co[i],
				   &e) != RM_OK)
			return bad(r, o, "%s", e.msg);

	n = rmi_y_get(root, "gpus_per_node");
	if ((st = u32(r, n, "gpus_per_node", MAX_GPUS_PER_NODE,
		      &m->gpus_per_node)))
		return st;
	return m->gpus_per_node ? RM_OK : bad(r, n, "gpus_per_node is 0");
}

typedef struct hostref {
	const char *name;
	const rmi_ynode *at;
} hostref;

static int cmp_hostref(const void *a, const void *b)
{
	return strcmp(((const hostref *)a)->name, ((const hostref *)b)->name);
}

/* Nodes used and spares together: a host appears once in all. */
static rm_status nodes(rd *r, const rmi_ynode *root)
{
	rm_map *m = r->m;
	rm_status st;
	const rmi_ynode *n = rmi_y_get(root, "nodes");
	if ((st = rmi_y_kind(n, r->file, "nodes", RMI_Y_SEQ, r->err)))
		return st;
	const rmi_ynode *sp = rmi_y_get(root, "spares");
	if (sp && (st = rmi_y_kind(sp, r->file, "spares", RMI_Y_SEQ, r->err)))
		return st;
	size_t nsp = sp ? sp->n : 0;
	if (n->n > RM_MAX_HOSTS || nsp > RM_MAX_HOSTS - n->n)
		return bad(r, n, "more than %u nodes", RM_MAX_HOSTS);
	m->host = calloc(n->n + 1, sizeof(char *));
	m->host_leaf = calloc(n->n + 1, sizeof(char *));
	m->host_unit = calloc(n->n + 1, sizeof(char *));
	m->spare = calloc(nsp + 1, sizeof(char *));
	if (!m->host || !m->host_leaf || !m->host_unit || !m->spare)
		return oom(r);
	static const char *const keys[] = { "host", "leaf", "unit", NULL };
	for (size_t i = 0; i < n->n; i++) {
		const rmi_ynode *x = n->item[i], *v;
		if ((st = rmi_y_keys(x, r->file, "node", keys, r->err)))
			return st;
		if ((st = name(r, rmi_y_get(x, "host"), "node host",
			       RM_MAX_HOSTNAME, &m->host[i])))
			return st;
		m->nhost = (uint32_t)i + 1;
		if ((v = rmi_y_get(x, "leaf")) &&
		    (st = name(r, v, "node leaf", 4096, &m->host_leaf[i])))
			return st;
		if ((v = rmi_y_get(x, "unit")) &&
		    (st = name(r, v, "node unit", 4096, &m->host_unit[i])))
			return st;
	}
	for (size_t i = 0; i < nsp; i++) {
		if ((st = name(r, sp->item[i], "spare", RM_MAX_HOSTNAME,
			       &m->spare[i])))
			return st;
		m->nspare = (uint32_t)i + 1;
	}
	hostref *all = malloc((n->n + nsp + 1) * sizeof(*all));
	if (!all)
		return oom(r);
	for (size_t i = 0; i < n->n; i++)
		all[i] = (hostref){ m->host[i], n->item[i] };
	for (size_t i = 0; i < nsp; i++)
		all[n->n + i] = (hostref){ m->spare[i], sp->item[i] };
	qsort(all, n->n + nsp, sizeof(*all), cmp_hostref);
	for (size_t i = 1; i < n->n + nsp && st == RM_OK; i++)
		if (!strcmp(all[i].name, all[i - 1].name)) {
			char q[160];
			const rmi_ynode *later =
				all[i].at->line > all[i - 1].at->line ||
						(all[i].at->line == all[i - 1].at->line &&
						 all[i].at->col > all[i - 1].at->col)
					? all[i].at : all[i - 1].at;
			st = bad(r, later, "host %s is listed twice",
				 rm_quote(all[i].name, strlen(all[i].name), q,
					   sizeof(q)));
		}
	free(all);
	return st;
}

typedef struct slot {
	uint64_t key;                /* node * gpus_per_node + local_gpu */
	uint32_t rank;
	uint32_t line, col;          /* where its record starts */
} slot;

struct rmi_mapread {
	rd r;
	const rmi_ynode *at;         /* "ranks", for messages */
	unsigned char *seen;         /* per rank */
	slot *sl;                    /* per record */
	uint64_t nrank;
};

static int cmp_slot(const void *a, const void *b)
{
	const slot *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static rm_status one_rank(rd *r, const rmi_ynode *x, unsigned char *seen,
			  slot *sl)
{
	rm_map *m = r->m;
	static const char *const keys[] = { "rank", "host", "node", "local_gpu",
					    "tp", "cp", "ep", "etp", "edp",
					    "pp", "dp", "dp_replicate",
					    "dp_shard", "leaf", "unit", NULL };
	rm_status st = rmi_y_keys(x, r->file, "rank record", keys, r->err);
	if (st)
		return st;
	uint32_t rank, node, gpu;
	const rmi_ynode *n = rmi_y_get(x, "rank");
	if ((st = u32(r, n, "rank", m->world - 1, &rank)))
		return st;
	if (seen[rank])
		return bad(r, n, "rank %u appears twice", rank);
	seen[rank] = 1;
	if ((st = u32(r, rmi_y_get(x, "node"), "node", m->nhost ? m->nhost - 1 : 0,
		      &node)))
		return st;
	if (!m->nhost)
		return bad(r, x, "rank %u: the map lists no nodes", rank);
	n = rmi_y_get(x, "local_gpu");
	if ((st = u32(r, n, "local_gpu", m->gpus_per_node - 1, &gpu)))
		return st;
	const char *s;
	n = rmi_y_get(x, "host");
	if ((st = rmi_y_str(n, r->file, "host", &s, r->err)))
		return st;
	char q[160];
	if (strcmp(s, m->host[node]))
		return bad(r, n, "rank %u: host %s is not node %u (%s)", rank,
			   rm_quote(s, n->len, q, sizeof(q)), node,
			   m->host[node]);
	static const char *const loc[] = { "leaf", "unit" };
	char *const *want[] = { m->host_leaf, m->host_unit };
	for (int k = 0; k < 2; k++) {
		n = rmi_y_get(x, loc[k]);
		if (!n)
			continue;
		if ((st = rmi_y_str(n, r->file, loc[k], &s, r->err)))
			return st;
		if (!want[k][node] || strcmp(s, want[k][node]))
			return bad(r, n, "rank %u: %s %s differs from node "
				   "%s's", rank, loc[k],
				   rm_quote(s, n->len, q, sizeof(q)),
				   m->host[node]);
	}
	rm_rank *rk = &m->rank[rank];
	rk->node = node;
	rk->local_gpu = gpu;
	rm_rank_decode(&m->layout, &m->order, rank, rk->coord);
	for (unsigned a = 0; a < r->nkind; a++) {
		const char *an = rm_group_kind_name(r->kind[a]);
		n = rmi_y_get(x, an);
		if (!n)
			return bad(r, x, "rank %u: %s is missing", rank, an);
		uint32_t c, got = rmi_coord_of(&r->co[a], rank);
		if ((st = u32(r, n, an, RM_MAX_WORLD, &c)))
			return st;
		if (c != got)
			return bad(r, n, "rank %u: %s is %u, but order %s "
				   "gives rank %u %s %u", rank, an, c,
				   m->order.name, rank, an, got);
	}
	*sl = (slot){ (uint64_t)node * m->gpus_per_node + gpu, rank,
		      (uint32_t)x->line, (uint32_t)x->col };
	return RM_OK;
}

/* The rank records, one at a time: the tree reader hands over each item
 * of "ranks", the stream reader (map_stream.c) each record as it is
 * parsed. */
static rm_status ranks_begin(rmi_mapread *mr, const rmi_ynode *n)
{
	rd *r = &mr->r;
	rm_map *m = r->m;
	rm_status st = rmi_y_kind(n, r->file, "ranks", RMI_Y_SEQ, r->err);
	if (st)
		return st;
	mr->at = n;
	m->rank = calloc((size_t)m->world + 1, sizeof(rm_rank));
	mr->seen = calloc((size_t)m->world + 1, 1);
	mr->sl = malloc(((size_t)m->world + 1) * sizeof(*mr->sl));
	return m->rank && mr->seen && mr->sl ? RM_OK : oom(r);
}

rm_status rmi_mr_rank(rmi_mapread *mr, const rmi_ynode *x)
{
	if (mr->nrank >= mr->r.m->world)
		return bad(&mr->r, x, "more than %u rank records for a world "
			   "of %u", mr->r.m->world, mr->r.m->world);
	return one_rank(&mr->r, x, mr->seen, &mr->sl[mr->nrank++]);
}

rm_status rmi_mr_ranks_end(rmi_mapread *mr)
{
	rd *r = &mr->r;
	rm_map *m = r->m;
	if (mr->nrank != m->world)
		return bad(r, mr->at, "%llu rank records for a world of %u",
			   (unsigned long long)mr->nrank, m->world);
	qsort(mr->sl, m->world, sizeof(*mr->sl), cmp_slot);
	for (uint32_t i = 1; i < m->world; i++)
		if (mr->sl[i].key == mr->sl[i - 1].key) {
			const slot *x = &mr->sl[i];
			rmi_ynode at = { .line = x->line, .col = x->col };
			return bad(r, &at, "ranks %u and %u share GPU %u of %s",
				   mr->sl[i - 1].rank, x->rank,
				   m->rank[x->rank].local_gpu,
				   m->host[m->rank[x->rank].node]);
		}
	return RM_OK;
}

/* One kind's lists must be exactly what rm_map_groups gives. */
static rm_status group_list(rd *r, const rmi_ynode *k, const rmi_ynode *v,
			    rm_group_kind kind)
{
	rm_groups g;
	rm_status st = rm_map_groups(r->m, kind, &g, r->err);
	if (st)
		return st;
	if ((st = rmi_y_kind(v, r->file, "group list", RMI_Y_SEQ, r->err)))
		goto out;
	if (v->n != g.ngroups) {
		st = bad(r, v, "%zu %s groups, expected %u", v->n, k->str,
			 g.ngroups);
		goto out;
	}
	for (size_t j = 0; j < v->n && st == RM_OK; j++) {
		const rmi_ynode *grp = v->item[j];
		if ((st = rmi_y_kind(grp, r->file, "group", RMI_Y_SEQ,
				     r->err)))
			break;
		if (grp->n != g.size) {
			st = bad(r, grp, "%s group of %zu ranks, expected %u",
				 k->str, grp->n, g.size);
			break;
		}
		for (size_t t = 0; t < g.size && st == RM_OK; t++) {
			uint32_t x, want = g.rank[j * g.size + t];
			if ((st = u32(r, grp->item[t], "rank", r->m->world - 1,
				      &x)))
				break;
			if (x != want)
				st = bad(r, grp->item[t],
					 "%s group %zu: member %zu is rank %u, expected %u",
					 k->str, j, t, x, want);
		}
	}
out:
	rm_groups_clear(&g);
	return st;
}

/* Groups are derived data: dense ones under "groups", expert ones under
 * "expert_groups"; one kind (key k, lists v) at a time. */
rm_status rmi_mr_groups(rmi_mapread *mr, const rmi_ynode *k,
			const rmi_ynode *v, bool expert)
{
	rd *r = &mr->r;
	const char *what = expert ? "expert_groups" : "groups";
	char q[160];
	int a = kind_index(r, k->str, k->len);
	if (a < 0 || rmi_kind_expert(r->kind[a]) != expert)
		return bad(r, k, "%s: %s is not an axis of this layout", what,
			   rm_quote(k->str, k->len, q, sizeof(q)));
	return group_list(r, k, v, r->kind[a]);
}

static rm_status validation(rd *r, const rmi_ynode *root)
{
	const rmi_ynode *v = rmi_y_get(root, "validation");
	return v ? rmi_report_read(v, r->file, &r->m->report, r->err) : RM_OK;
}

static const char *const top_keys[] = {
	"schema", "generator", "layout", "axes", "nesting", "order",
	"world_size", "gpus_per_node", "nodes", "spares", "ranks",
	"groups", "expert_groups", "validation", "inputs_sha256", NULL
};

/* Everything before the rank records: keys, schema, layout, nodes. */
rm_status rmi_mr_head(rmi_mapread *mr, const rmi_ynode *root)
{
	rd *r = &mr->r;
	rm_status st = rmi_y_keys(root, r->file, "map file", top_keys, r->err);
	if (st)
		return st;
	const rmi_ynode *n = rmi_y_get(root, "schema");
	const char *s;
	char q[160];
	if ((st = rmi_y_str(n, r->file, "schema", &s, r->err)))
		return st;
	if (strcmp(s, RM_MAP_SCHEMA))
		return bad(r, n, "schema %s is not %s", rm_quote(s, n->len, q,
								  sizeof(q)),
			   RM_MAP_SCHEMA);
	if ((n = rmi_y_get(root, "generator")) &&
	    (st = rmi_y_str(n, r->file, "generator", &s, r->err)))
		return st;
	if ((st = layout(r, root)) || (st = nodes(r, root)))
		return st;
	return ranks_begin(mr, rmi_y_get(root, "ranks"));
}

/* Everything after the groups: the validation object, the digest. */
rm_status rmi_mr_tail(rmi_mapread *mr, const rmi_ynode *root)
{
	rd *r = &mr->r;
	const rmi_ynode *n;
	const char *s;
	rm_status st = rmi_y_keys(root, r->file, "map file", top_keys, r->err);
	if (!st)
		st = validation(r, root);
	if (st)
		return st;
	/* "" stands for a map whose inputs are not known (built by hand). */
	if ((n = rmi_y_get(root, "inputs_sha256")) &&
	    !(n->quoted && n->len == 0)) {
		if ((st = rmi_y_str(n, r->file, "inputs_sha256", &s, r->err)))
			return st;
		if (n->len != 64 || strspn(s, "0123456789abcdef") != 64)
			return bad(r, n, "inputs_sha256 must be 64 lowercase "
				   "hex digits");
		memcpy(r->m->inputs_sha256, s, 65);
	}
	return RM_OK;
}

rmi_mapread *rmi_mr_new(const char *file, rm_error *err)
{
	rmi_mapread *mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	mr->r.file = file;
	mr->r.err = err;
	mr->r.m = calloc(1, sizeof(rm_map));
	if (!mr->r.m) {
		free(mr);
		return NULL;
	}
	return mr;
}

rm_map *rmi_mr_free(rmi_mapread *mr, bool keep)
{
	if (!mr)
		return NULL;
	rm_map *m = mr->r.m;
	free(mr->seen);
	free(mr->sl);
	free(mr);
	if (keep)
		return m;
	rm_map_free(m);
	return NULL;
}

rm_status rm_map_read(const char *path, rm_map **out, rm_error *err)
{
	return rmi_map_read_file(path, out, NULL, err);
}
