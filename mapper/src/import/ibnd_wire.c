/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ibnd_wire.c - the wiring graph of a capture into a switch tree and rail
 * units, from the cables alone (names are only read for host names).
 *
 *  - Compute HCAs: CAs described "HOST LABEL" (LABEL like mlx5_3, HCA-4)
 *    whose HOST passes --hosts. Everything else is counted: HCAs whose
 *    description names no host, SHARP aggregation nodes, "localhost".
 *  - Leaves: switches a compute HCA is cabled to. Tiers: distance from the
 *    nearest leaf over switch-to-switch cables.
 *  - Rail units: leaves that share hosts. Two leaves join when at least
 *    half of the hosts of the smaller one also use the other (so one
 *    miscabled HCA does not fuse two units); a group of two or more leaves
 *    is a unit, its rails the leaves ordered by the HCA number they carry.
 *  - The tree Slurm's topology/tree sees: a unit is one switch, a lone
 *    leaf is itself; above, the switches a lower tree switch is cabled to
 *    merge into one (a tree has one parent per switch; for Slurm the
 *    spines above the same leaves are interchangeable).
 */
#include "import/import_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct hca {
	const char *host;            /* into the node's desc copy */
	const char *label;
	int rail_no;                 /* from the label; -1 unknown */
	uint32_t node;               /* graph node */
	int32_t leaf;                /* leaf index */
} hca;

typedef struct wctx {
	rm_import *im;
	const rmi_ibgraph *g;
	rm_error *err;
	char **dup;                  /* host/label copies */
	size_t ndup, dup_cap;
	hca *h;
	size_t nh, h_cap;
	int32_t *leaf_of;            /* graph node -> leaf index, -1 */
	uint32_t *leaf_node;         /* leaf index -> graph node */
	size_t nleaf;
	int32_t *uf;                 /* union-find over leaves */
	int32_t *level;              /* graph node (switch) -> tier, -1 */
	char **swname;               /* graph node -> clean name */
} wctx;

static int32_t find(int32_t *uf, int32_t i)
{
	while (uf[i] != i)
		i = uf[i] = uf[uf[i]];
	return i;
}

static void unite(int32_t *uf, int32_t a, int32_t b)
{
	a = find(uf, a);
	b = find(uf, b);
	if (a != b)
		uf[a > b ? a : b] = a < b ? a : b;
}

static bool host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/* "mlx5_3" -> 3, "HCA-4" -> 3 (counts from 1), else -1; NULL if not an
 * HCA label at all. */
static bool hca_label(const char *s, int *rail)
{
	size_t n = strlen(s), d = n;
	while (d && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	if (d == n || d < 2 || (s[d - 1] != '_' && s[d - 1] != '-') ||
	    n - d > 4)
		return false;
	for (size_t i = 0; i + 1 < d; i++)
		if (!host_char(s[i]))
			return false;
	int v = atoi(s + d);
	if (!strncmp(s, "HCA-", 4) && d == 4)
		*rail = v - 1;
	else if (!strncmp(s, "mlx", 3))
		*rail = v;
	else
		*rail = -1;
	return true;
}

static rm_status oom(wctx *w)
{
	return rmi_err(w->err, RM_ENOMEM, "out of memory");
}

static int hca_cmp(const void *pa, const void *pb)
{
	const hca *a = pa, *b = pb;
	int c = rm_host_cmp(a->host, b->host);
	if (!c)
		c = strcmp(a->label, b->label);
	return c ? c : RMI_CMP(a->node, b->node);
}

/* The switch a CA is cabled to, -2 for two different ones, -1 none. */
static int64_t ca_switch(const rmi_ibgraph *g, const uint32_t *first,
			 const uint32_t *adj, uint32_t node)
{
	int64_t sw = -1;
	for (uint32_t k = first[node]; k < first[node + 1]; k++) {
		const rmi_iblink *l = &g->link[adj[k]];
		uint32_t o = l->a == node ? l->b : l->a;
		if (g->node[o].type != RMI_IB_SWITCH)
			continue;
		if (sw >= 0 && sw != o)
			return -2;
		sw = o;
	}
	return sw;
}

/* Adjacency (link indices per node) in CSR form. */
static bool csr(const rmi_ibgraph *g, uint32_t **first, uint32_t **adj)
{
	*first = calloc(g->nnode + 1, sizeof(uint32_t));
	*adj = malloc((g->nlink * 2 + 1) * sizeof(uint32_t));
	if (!*first || !*adj)
		return false;
	for (size_t i = 0; i < g->nlink; i++) {
		(*first)[g->link[i].a + 1]++;
		(*first)[g->link[i].b + 1]++;
	}
	for (size_t i = 0; i < g->nnode; i++)
		(*first)[i + 1] += (*first)[i];
	uint32_t *at = malloc((g->nnode + 1) * sizeof(uint32_t));
	if (!at)
		return false;
	memcpy(at, *first, (g->nnode + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < g->nlink; i++) {
		(*adj)[at[g->link[i].a]++] = (uint32_t)i;
		(*adj)[at[g->link[i].b]++] = (uint32_t)i;
	}
	free(at);
	return true;
}

/* Counts for the report, and the first example of each. */
typedef struct tally {
	size_t n;
	unsigned long line;
	char ex[80];
} tally;

static void count(tally *t, const char *ex, unsigned long line)
{
	if (!t->n++) {
		rm_quote(ex, strlen(ex), t->ex, sizeof(t->ex));
		t->line = line;
	}
}

static void say(rm_buf *b, const char *what, const tally *t,
		const char *tail)
{
	rm_buf_printf(b, "  %-38s %zu", what, t->n);
	if (t->n && t->ex[0])
		rm_buf_printf(b, " (first: %s%s%.0lu)", t->ex,
			      t->line ? ", line " : "", t->line);
	rm_buf_printf(b, "%s\n", t->n && tail ? tail : "");
}

typedef struct tallies {
	tally nohost, sharp, localhost, filtered, router, unwired, notleaf,
		remote_only, one_end, missing_hca, off_rail, two_units,
		several_leaves, dup_label, two_on_leaf, lateral, short_unit;
	bool hca_n, mlx_n;
} tallies;

/* Compute HCAs out of the CAs; the rest counted. */
static rm_status collect(wctx *w, tallies *t, const uint32_t *first,
			 const uint32_t *adj, const rm_hostlist *hl)
{
	const rmi_ibgraph *g = w->g;
	for (uint32_t i = 0; i < g->nnode; i++) {
		const rmi_ibnode *nd = &g->node[i];
		if (nd->type == RMI_IB_SWITCH)
			continue;
		const char *d = nd->desc ? nd->desc : "";
		if (nd->type == RMI_IB_ROUTER) {
			count(&t->router, d, nd->line);
			continue;
		}
		if (strstr(d, "Aggregation Node")) {
			count(&t->sharp, d, nd->line);
			continue;
		}
		const char *sp = strchr(d, ' ');
		int rail = -1;
		if (!sp || strchr(sp + 1, ' ') || sp == d ||
		    !hca_label(sp + 1, &rail)) {
			count(&t->nohost, d, nd->line);
			continue;
		}
		size_t hn = (size_t)(sp - d);
		for (size_t k = 0; k < hn; k++)
			if (!host_char(d[k]) || (!k && (d[k] == '-' ||
							d[k] == '.')))
				return rmi_err_at(w->err, RM_EINPUT, g->file,
						  nd->line, nd->col,
						  "node description %s: %s is "
						  "not a host name (letters, "
						  "digits, - _ .)",
						  rm_quote(d, strlen(d),
							   (char[96]){ 0 }, 96),
						  rm_quote(d, hn,
							   (char[96]){ 0 }, 96));
		if (hn > 63)
			return rmi_err_at(w->err, RM_EINPUT, g->file,
					  nd->line, nd->col, "host name of "
					  "%zu bytes (at most 63)", hn);
		char *host = strndup(d, hn), *label = strdup(sp + 1);
		if (!host || !label || !rmi_grow((void **)&w->dup, &w->dup_cap,
						 w->ndup + 2, sizeof(char *))) {
			free(host);
			free(label);
			return oom(w);
		}
		w->dup[w->ndup++] = host;
		w->dup[w->ndup++] = label;
		if (!strcmp(host, "localhost")) {
			count(&t->localhost, d, nd->line);
			continue;
		}
		if (!rmi_import_host_wanted(w->im, hl, host)) {
			count(&t->filtered, host, 0);
			continue;
		}
		int64_t sw = ca_switch(g, first, adj, i);
		if (sw == -2)
			return rmi_err_at(w->err, RM_EINPUT, g->file, nd->line,
					  nd->col, "host %s: HCA %s is cabled "
					  "to two switches: one HCA, one leaf",
					  host, label);
		if (sw < 0) {
			count(&t->unwired, d, nd->line);
			continue;
		}
		if (label[0] == 'H')
			t->hca_n = true;
		else if (label[0] == 'm')
			t->mlx_n = true;
		if (!rmi_grow((void **)&w->h, &w->h_cap, w->nh + 1,
			      sizeof(hca)))
			return oom(w);
		w->h[w->nh++] = (hca){ .host = host, .label = label,
				       .rail_no = rail, .node = i,
				       .leaf = (int32_t)sw };
	}
	return RM_OK;
}

/* A clean switch name from "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1". */
static char *clean_name(const rmi_ibnode *nd)
{
	const char *d = nd->desc ? nd->desc : "";
	const char *semi = strchr(d, ';');
	if (semi)
		d = semi + 1;
	size_t n = strcspn(d, ":");
	char *s = malloc(n + 24);
	if (!s)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n && k < 63; i++)
		s[k++] = host_char(d[i]) ? d[i] : '_';
	if (!k)
		k = (size_t)sprintf(s, "S-%016llx",
				    (unsigned long long)nd->guid);
	s[k] = '\0';
	return s;
}

/* Hosts' HCAs grouped: index of each host's first HCA in w->h. */
static rm_status leaves(wctx *w, tallies *t, size_t **hfirst, size_t *nhost)
{
	const rmi_ibgraph *g = w->g;
	qsort(w->h, w->nh, sizeof(hca), hca_cmp);
	*hfirst = malloc((w->nh + 1) * sizeof(size_t));
	w->leaf_of = malloc(g->nnode * sizeof(int32_t));
	w->leaf_node = malloc((w->nh + 1) * sizeof(uint32_t));
	if (!*hfirst || !w->leaf_of || !w->leaf_node)
		return oom(w);
	for (size_t i = 0; i < g->nnode; i++)
		w->leaf_of[i] = -1;
	*nhost = 0;
	for (size_t i = 0; i < w->nh; i++) {
		hca *h = &w->h[i];
		if (!i || strcmp(h->host, h[-1].host))
			(*hfirst)[(*nhost)++] = i;
		else if (!strcmp(h->label, h[-1].label)) {
			if (h->leaf != h[-1].leaf)
				return rmi_err_at(
					w->err, RM_EINPUT, g->file,
					g->node[h->node].line,
					g->node[h->node].col,
					"host %s: two HCAs called %s on two "
					"leaves (the other at line %lu): one "
					"HCA, one leaf", h->host, h->label,
					g->node[h[-1].node].line);
			count(&t->dup_label, g->node[h->node].desc,
			      g->node[h->node].line);
		}
		uint32_t sw = (uint32_t)h->leaf;
		if (w->leaf_of[sw] < 0) {
			w->leaf_node[w->nleaf] = sw;
			w->leaf_of[sw] = (int32_t)w->nleaf++;
		}
		h->leaf = w->leaf_of[sw];
	}
	(*hfirst)[*nhost] = w->nh;
	return RM_OK;
}

/* Union leaves that share at least half the hosts of the smaller. */
static rm_status group_leaves(wctx *w, const size_t *hfirst, size_t nhost)
{
	uint32_t *hosts = calloc(w->nleaf + 1, sizeof(uint32_t));
	w->uf = malloc((w->nleaf + 1) * sizeof(int32_t));
	rmi_u64map pairs = { 0 };
	if (!hosts || !w->uf) {
		free(hosts);
		return oom(w);
	}
	for (size_t i = 0; i < w->nleaf; i++)
		w->uf[i] = (int32_t)i;
	bool ok = true;
	for (size_t hi = 0; hi < nhost && ok; hi++)
		for (size_t a = hfirst[hi]; a < hfirst[hi + 1] && ok; a++) {
			bool seen = false;
			for (size_t b = hfirst[hi]; b < a; b++)
				seen |= w->h[b].leaf == w->h[a].leaf;
			if (seen)
				continue;
			hosts[w->h[a].leaf]++;
			for (size_t b = hfirst[hi]; b < a && ok; b++) {
				uint64_t x = (uint64_t)w->h[a].leaf,
					 y = (uint64_t)w->h[b].leaf;
				if (x == y)
					continue;
				uint64_t k = x < y ? x * w->nleaf + y
						   : y * w->nleaf + x;
				int64_t c = rmi_u64map_get(&pairs, k);
				ok = rmi_u64map_put(&pairs, k,
						    (uint32_t)(c < 0 ? 1 : c + 1));
			}
		}
	for (size_t i = 0; i < pairs.cap && ok; i++) {
		if (!pairs.val[i])
			continue;
		uint32_t a = (uint32_t)(pairs.key[i] / w->nleaf),
			 b = (uint32_t)(pairs.key[i] % w->nleaf);
		uint32_t c = pairs.val[i] - 1,
			 m = hosts[a] < hosts[b] ? hosts[a] : hosts[b];
		if (2 * c >= m)
			unite(w->uf, (int32_t)a, (int32_t)b);
	}
	rmi_u64map_free(&pairs);
	free(hosts);
	return ok ? RM_OK : oom(w);
}

/* Tiers: distance from the nearest leaf over switch-to-switch cables. */
static rm_status tiers(wctx *w, tallies *t, const uint32_t *first,
		       const uint32_t *adj, uint32_t *top)
{
	const rmi_ibgraph *g = w->g;
	w->level = malloc(g->nnode * sizeof(int32_t));
	uint32_t *q = malloc((g->nnode + 1) * sizeof(uint32_t));
	if (!w->level || !q) {
		free(q);
		return oom(w);
	}
	size_t qh = 0, qt = 0;
	for (uint32_t i = 0; i < g->nnode; i++) {
		w->level[i] = w->leaf_of[i] >= 0 ? 0 : -1;
		if (!w->level[i])
			q[qt++] = i;
	}
	*top = 0;
	while (qh < qt) {
		uint32_t s = q[qh++];
		for (uint32_t k = first[s]; k < first[s + 1]; k++) {
			const rmi_iblink *l = &g->link[adj[k]];
			uint32_t o = l->a == s ? l->b : l->a;
			if (g->node[o].type != RMI_IB_SWITCH)
				continue;
			if (w->level[o] < 0) {
				w->level[o] = w->level[s] + 1;
				*top = (uint32_t)w->level[o] > *top
					       ? (uint32_t)w->level[o] : *top;
				q[qt++] = o;
			}
		}
	}
	free(q);
	for (size_t i = 0; i < g->nlink; i++) {
		const rmi_iblink *l = &g->link[i];
		if (g->node[l->a].type == RMI_IB_SWITCH &&
		    g->node[l->b].type == RMI_IB_SWITCH && w->level[l->a] >= 0 &&
		    w->level[l->a] == w->level[l->b])
			count(&t->lateral, g->node[l->a].desc
						   ? g->node[l->a].desc : "",
			      l->line);
	}
	for (uint32_t i = 0; i < g->nnode; i++)
		if (g->node[i].type == RMI_IB_SWITCH && w->level[i] < 0)
			count(&t->notleaf, g->node[i].desc ? g->node[i].desc
							   : "",
			      g->node[i].line);
	return RM_OK;
}

typedef struct lv0 {
	int32_t *tree_of_root;       /* leaf root -> tree switch, -1 */
	int32_t *unit_of_root;       /* leaf root -> unit, -1 */
	int *major;                  /* leaf -> most common rail number */
} lv0;

/* For sorting a unit's leaves into rail order. */
typedef struct rleaf {
	int major;
	const char *name;
	uint32_t leaf;
} rleaf;

static int rleaf_cmp(const void *pa, const void *pb)
{
	const rleaf *a = pa, *b = pb;
	if (a->major != b->major)
		return RMI_CMP(a->major, b->major);
	return rm_host_cmp(a->name, b->name);
}

/* One tree switch (and maybe a unit) per group of leaves. */
static rm_status level0(wctx *w, lv0 *z)
{
	rm_import *im = w->im;
	size_t n = w->nleaf;
	z->tree_of_root = malloc((n + 1) * sizeof(int32_t));
	z->unit_of_root = malloc((n + 1) * sizeof(int32_t));
	z->major = malloc((n + 1) * sizeof(int));
	rleaf *rl = malloc((n + 1) * sizeof(rleaf));
	if (!z->tree_of_root || !z->unit_of_root || !z->major || !rl) {
		free(rl);
		return oom(w);
	}
	/* per-leaf rail numbers in one pass instead of one per leaf */
	int *cnt = calloc(n * 65 + 1, sizeof(int));
	if (!cnt) {
		free(rl);
		return oom(w);
	}
	for (size_t i = 0; i < w->nh; i++)
		if (w->h[i].rail_no >= 0 && w->h[i].rail_no < 64)
			cnt[(size_t)w->h[i].leaf * 65 + (size_t)w->h[i].rail_no]++;
	for (size_t l = 0; l < n; l++) {
		int best = -1;
		for (int r = 0; r < 64; r++)
			if (cnt[l * 65 + (size_t)r] &&
			    (best < 0 || cnt[l * 65 + (size_t)r] >
						 cnt[l * 65 + (size_t)best]))
				best = r;
		z->major[l] = best;
		z->tree_of_root[l] = z->unit_of_root[l] = -1;
	}
	free(cnt);
	rm_status st = RM_OK;
	/* in host order, so units are numbered as their first host sorts */
	for (size_t i = 0; i < w->nh && !st; i++) {
		int32_t r = find(w->uf, w->h[i].leaf);
		if (z->tree_of_root[r] >= 0)
			continue;
		size_t k = 0;
		for (size_t l = 0; l < n; l++)
			if (find(w->uf, (int32_t)l) == r)
				rl[k++] = (rleaf){ z->major[l],
						   w->swname[w->leaf_node[l]],
						   (uint32_t)l };
		qsort(rl, k, sizeof(rleaf), rleaf_cmp);
		char nm[32];
		if (k > 1)
			snprintf(nm, sizeof(nm), "su%zu", im->nunit + 1);
		int64_t t = rmi_import_add_switch(im, k > 1 ? nm : rl[0].name,
						  0);
		if (t < 0)
			return oom(w);
		z->tree_of_root[r] = (int32_t)t;
		if (k < 2)
			continue;
		rm_buf b;
		rm_buf_init(&b);
		rm_buf_printf(&b, "rail unit of %zu leaves:", k);
		for (size_t j = 0; j < k; j++)
			if (rl[j].major >= 0)
				rm_buf_printf(&b, " %s (mlx5_%d)", rl[j].name,
					      rl[j].major);
			else
				rm_buf_printf(&b, " %s", rl[j].name);
		im->sw[t].stands_for = rm_buf_take(&b, NULL);
		rm_buf_clear(&b);
		rmi_unit *u = realloc(im->unit, (im->nunit + 1) * sizeof(*u));
		if (!u || !im->sw[t].stands_for)
			return oom(w);
		im->unit = u;
		memset(&u[im->nunit], 0, sizeof(*u));
		u[im->nunit].nrails = (uint32_t)k;
		if (!(u[im->nunit].name = strdup(nm)))
			return oom(w);
		z->unit_of_root[r] = (int32_t)im->nunit++;
		if (k > im->rails)
			im->rails = (uint32_t)k;
	}
	free(rl);
	return st;
}

/* Each host under the tree switch holding most of its HCAs; into its unit
 * when every HCA is on its own leaf of that unit. */
static rm_status place_hosts(wctx *w, tallies *t, const lv0 *z,
			     const size_t *hfirst, size_t nhost)
{
	rm_import *im = w->im;
	for (size_t hi = 0; hi < nhost; hi++) {
		size_t a = hfirst[hi], e = hfirst[hi + 1];
		int32_t best = -1;
		size_t bestn = 0, groups = 0;
		for (size_t i = a; i < e; i++) {
			int32_t r = find(w->uf, w->h[i].leaf);
			size_t c = 0;
			bool first = true;
			for (size_t j = a; j < e; j++) {
				int32_t rj = find(w->uf, w->h[j].leaf);
				if (rj == r) {
					c++;
					first &= j >= i;
				}
			}
			if (!first)
				continue;
			groups++;
			if (c > bestn || (c == bestn && r < best)) {
				best = r;
				bestn = c;
			}
		}
		const char *host = w->h[a].host;
		if (!rmi_import_add_host(&im->sw[z->tree_of_root[best]], host))
			return oom(w);
		int32_t u = z->unit_of_root[best];
		if (u < 0) {
			if (groups > 1 || e - a > 1) {
				bool many = false;
				for (size_t i = a + 1; i < e; i++)
					many |= w->h[i].leaf != w->h[a].leaf;
				if (many)
					count(&t->several_leaves, host, 0);
			}
			continue;
		}
		if (groups > 1) {
			count(&t->two_units, host, 0);
			continue;
		}
		bool twice = false, off = false;
		for (size_t i = a; i < e; i++) {
			for (size_t j = a; j < i; j++)
				twice |= w->h[j].leaf == w->h[i].leaf;
			int mj = z->major[w->h[i].leaf];
			off |= w->h[i].rail_no >= 0 && mj >= 0 &&
			       w->h[i].rail_no != mj;
		}
		if (twice) {
			count(&t->two_on_leaf, host, 0);
			continue;
		}
		if (off)
			count(&t->off_rail, host, 0);
		rmi_unit *un = &im->unit[u];
		if (e - a < un->nrails)
			count(&t->missing_hca, host, 0);
		char **v = realloc(un->host, (un->nhost + 1) * sizeof(char *));
		if (!v)
			return oom(w);
		un->host = v;
		if (!(v[un->nhost] = strdup(host)))
			return oom(w);
		un->nhost++;
	}
	return RM_OK;
}

/* Tiers above the leaves: per tree switch of level L-1, the capture
 * switches of level L it is cabled to merge into one tree switch. */
static rm_status upper(wctx *w, const lv0 *z, const uint32_t *first,
		       const uint32_t *adj, uint32_t top)
{
	rm_import *im = w->im;
	const rmi_ibgraph *g = w->g;
	int32_t *tree = malloc(g->nnode * sizeof(int32_t));
	int32_t *uf = malloc(g->nnode * sizeof(int32_t));
	int32_t *up = NULL;
	if (!tree || !uf)
		goto nomem;
	for (uint32_t i = 0; i < g->nnode; i++) {
		uf[i] = (int32_t)i;
		tree[i] = w->leaf_of[i] >= 0
				  ? z->tree_of_root[find(w->uf, w->leaf_of[i])]
				  : -1;
	}
	for (uint32_t lv = 1; lv <= top; lv++) {
		size_t nt = im->nsw;
		free(up);
		if (!(up = malloc((nt + 1) * sizeof(int32_t))))
			goto nomem;
		for (size_t i = 0; i < nt; i++)
			up[i] = -1;
		for (uint32_t s = 0; s < g->nnode; s++) {
			if (w->level[s] != (int32_t)lv - 1 || tree[s] < 0)
				continue;
			for (uint32_t k = first[s]; k < first[s + 1]; k++) {
				const rmi_iblink *l = &g->link[adj[k]];
				uint32_t o = l->a == s ? l->b : l->a;
				if (w->level[o] != (int32_t)lv)
					continue;
				if (up[tree[s]] < 0)
					up[tree[s]] = (int32_t)o;
				else
					unite(uf, up[tree[s]], (int32_t)o);
			}
		}
		/* one tree switch per group, named after its first member */
		for (uint32_t s = 0; s < g->nnode; s++) {
			if (w->level[s] != (int32_t)lv)
				continue;
			int32_t r = find(uf, (int32_t)s);
			if (tree[r] >= 0) {
				tree[s] = tree[r];
				continue;
			}
			size_t nm = 0;
			const char *lo = w->swname[s];
			for (uint32_t o = 0; o < g->nnode; o++)
				if (w->level[o] == (int32_t)lv &&
				    find(uf, (int32_t)o) == r) {
					nm++;
					if (rm_host_cmp(w->swname[o], lo) < 0)
						lo = w->swname[o];
				}
			char name[96];
			snprintf(name, sizeof(name), nm > 1 ? "%s-x%zu" : "%s",
				 lo, nm);
			int64_t t = rmi_import_add_switch(im, name, lv);
			if (t < 0)
				goto nomem;
			tree[r] = tree[s] = (int32_t)t;
			if (nm > 1) {
				rm_buf b;
				rm_buf_init(&b);
				rm_buf_printf(&b, "%zu switches at tier %u "
					      "cabled to the same switches "
					      "below:", nm, lv + 1);
				size_t shown = 0;
				for (uint32_t o = 0; o < g->nnode; o++)
					if (w->level[o] == (int32_t)lv &&
					    find(uf, (int32_t)o) == r &&
					    shown++ < 12)
						rm_buf_printf(&b, " %s",
							      w->swname[o]);
				if (shown > 12)
					rm_buf_puts(&b, " ...");
				im->sw[t].stands_for = rm_buf_take(&b, NULL);
				rm_buf_clear(&b);
				if (!im->sw[t].stands_for)
					goto nomem;
			}
		}
		for (size_t i = 0; i < nt; i++)
			if (up[i] >= 0)
				im->sw[i].parent = tree[find(uf, up[i])];
	}
	free(up);
	free(tree);
	free(uf);
	return RM_OK;
nomem:
	free(up);
	free(tree);
	free(uf);
	return oom(w);
}

static void report(wctx *w, const tallies *t, size_t nhost, uint32_t top)
{
	rm_import *im = w->im;
	const rmi_ibgraph *g = w->g;
	size_t nsw = 0, nca = 0, one_end = 0, remote_only = 0;
	for (size_t i = 0; i < g->nnode; i++) {
		nsw += g->node[i].type == RMI_IB_SWITCH;
		nca += g->node[i].type != RMI_IB_SWITCH;
		remote_only += !g->node[i].header;
	}
	for (size_t i = 0; i < g->nlink; i++)
		one_end += g->link[i].seen != 3;
	/* cables per pair of switches */
	rmi_u64map pairs = { 0 };
	size_t hist[5] = { 0 };
	bool ok = true;
	for (size_t i = 0; i < g->nlink && ok; i++) {
		const rmi_iblink *l = &g->link[i];
		if (g->node[l->a].type != RMI_IB_SWITCH ||
		    g->node[l->b].type != RMI_IB_SWITCH)
			continue;
		uint64_t a = l->a < l->b ? l->a : l->b,
			 b = l->a < l->b ? l->b : l->a;
		int64_t c = rmi_u64map_get(&pairs, a * g->nnode + b);
		ok = rmi_u64map_put(&pairs, a * g->nnode + b,
				    (uint32_t)(c < 0 ? 1 : c + 1));
	}
	for (size_t i = 0; i < pairs.cap; i++)
		if (pairs.val[i])
			hist[pairs.val[i] - 2 > 4 ? 4 : pairs.val[i] - 2]++;
	rmi_u64map_free(&pairs);

	rm_buf *f = &im->found;
	rm_buf_printf(f, "  %-38s %s form: %zu switches, %zu CAs, %zu links\n",
		      "capture", g->ports_form ? "ports-report (-p)"
					       : "topology", nsw, nca,
		      g->nlink);
	rm_buf_printf(f, "  %-38s %zu (switches compute HCAs are cabled to)\n",
		      "leaves", w->nleaf);
	size_t per[16] = { 0 };
	for (size_t i = 0; i < g->nnode; i++)
		if (w->level[i] >= 0 && w->level[i] < 16)
			per[w->level[i]]++;
	rm_buf_printf(f, "  %-38s %u:", "tiers", top + 1);
	for (uint32_t l = 0; l <= top && l < 16; l++)
		rm_buf_printf(f, "%s tier %u %zu switch%s", l ? "," : "", l + 1,
			      per[l], per[l] == 1 ? "" : "es");
	rm_buf_printf(f, "\n  %-38s %zu, %zu HCAs\n", "compute hosts", nhost,
		      w->nh);
	rm_buf_printf(f, "  %-38s %zu", "rail units", im->nunit);
	if (im->nunit)
		rm_buf_printf(f, " of up to %u rails", im->rails);
	rm_buf_puts(f, "\n");
	for (size_t i = 0; i < im->nunit; i++) {
		char *hl = NULL;
		rm_error e;
		if (rm_hostlist_format((const char *const *)im->unit[i].host,
				       im->unit[i].nhost, &hl, &e))
			continue;
		rm_buf_printf(f, "    %-36s %u rails, %zu hosts %s\n",
			      im->unit[i].name, im->unit[i].nrails,
			      im->unit[i].nhost, hl);
		free(hl);
	}
	rm_buf_printf(f, "  %-38s", "cables between two switches");
	for (int k = 0; k < 5; k++)
		if (hist[k])
			rm_buf_printf(f, "%s %zu pair%s with %d%s",
				      f->data[f->len - 1] == ' ' ? "" : ",", hist[k],
				      hist[k] == 1 ? "" : "s", k + 1,
				      k == 4 ? " or more" : "");
	rm_buf_puts(f, hist[0] + hist[1] + hist[2] + hist[3] + hist[4]
			       ? "\n" : " none\n");
	size_t tops = 0;
	for (size_t i = 0; i < im->nsw; i++)
		tops += im->sw[i].parent < 0;
	rm_buf_printf(f, "  %-38s %zu switches, %zu top-level\n",
		      "topology.conf", im->nsw, tops);

	rm_buf *u = &im->unplaced;
	say(u, "HCAs whose description names no host", &t->nohost, NULL);
	say(u, "SHARP aggregation nodes", &t->sharp, NULL);
	say(u, "HCAs of hosts named localhost", &t->localhost, NULL);
	say(u, "HCAs of hosts left out by --hosts", &t->filtered, NULL);
	say(u, "routers", &t->router, NULL);
	say(u, "HCAs cabled to no switch", &t->unwired, NULL);
	say(u, "switches with no path to a leaf", &t->notleaf, NULL);

	rm_buf *a = &im->assumed;
	if (t->hca_n)
		rm_buf_printf(a, "  %-38s HCA-N is rail N-1 (counts from 1), "
			      "mlx5_N is rail N\n", "HCA numbering");
	tally ro = { .n = remote_only }, oe = { .n = one_end };
	say(a, "nodes seen only as a remote end", &ro,
	    ": a partial capture; their cables are kept");
	say(a, "links seen at one end only", &oe,
	    ": a partial capture; kept");
	say(a, "hosts with fewer HCAs than rails", &t->missing_hca,
	    ": missing HCAs assumed on their rails");
	say(a, "hosts cabled off their rails", &t->off_rail,
	    ": kept in their unit");
	say(a, "hosts cabled into two units", &t->two_units,
	    ": under the unit holding most HCAs, in no unit");
	say(a, "hosts with two HCAs on one leaf", &t->two_on_leaf,
	    ": under that unit's switch, in no unit");
	say(a, "hosts on several leaves, no unit", &t->several_leaves,
	    ": under the leaf holding most HCAs");
	say(a, "HCA names given twice on one leaf", &t->dup_label, NULL);
	say(a, "cables within one tier", &t->lateral,
	    ": not part of the tree");
	tally su = { 0 };
	for (size_t i = 0; i < im->nunit; i++)
		if (im->unit[i].nrails < im->rails)
			count(&su, im->unit[i].name, 0);
	say(a, "units with fewer rails than the most", &su,
	    ": rail leaves missing from the capture?");
	if (!im->opts.gpus_per_node)
		rm_buf_printf(a, "  %-38s not in the capture: the site file "
			      "leaves it out (8)\n", "GPUs per node");
}

rm_status rmi_ibnd_build(rm_import *im, const rmi_ibgraph *g, rm_error *err)
{
	wctx w = { .im = im, .g = g, .err = err };
	tallies t;
	memset(&t, 0, sizeof(t));
	uint32_t *first = NULL, *adj = NULL;
	size_t *hfirst = NULL, nhost = 0;
	uint32_t top = 0;
	lv0 z = { 0 };
	rm_hostlist hl = { 0 };
	bool pattern = im->o_hosts && strpbrk(im->o_hosts, "*?");
	rm_status st = RM_OK;
	if (im->o_hosts && !pattern &&
	    (st = rm_hostlist_parse(im->o_hosts, &hl, err)))
		return st;
	size_t nsw = 0;
	for (size_t i = 0; i < g->nnode; i++)
		nsw += g->node[i].type == RMI_IB_SWITCH;
	if (!nsw) {
		rm_hostlist_clear(&hl);
		return rmi_err(err, RM_EINPUT, "%s: no switch in the capture "
			       "(%zu CA%s, %zu links): nothing to build a "
			       "topology from", g->file, g->nnode,
			       g->nnode == 1 ? "" : "s", g->nlink);
	}
	if (!csr(g, &first, &adj) ||
	    !(w.swname = calloc(g->nnode, sizeof(char *)))) {
		st = oom(&w);
		goto out;
	}
	for (size_t i = 0; i < g->nnode; i++)
		if (g->node[i].type == RMI_IB_SWITCH &&
		    !(w.swname[i] = clean_name(&g->node[i]))) {
			st = oom(&w);
			goto out;
		}
	if ((st = collect(&w, &t, first, adj, pattern ? NULL : &hl)))
		goto out;
	if (!w.nh) {
		st = rmi_err(err, RM_EINPUT, "%s: no compute host: no CA "
			     "described \"HOST mlx5_N\" or \"HOST HCA-N\"%s is "
			     "cabled to a switch", g->file,
			     im->o_hosts ? " and passing --hosts" : "");
		goto out;
	}
	if ((st = leaves(&w, &t, &hfirst, &nhost)) ||
	    (st = group_leaves(&w, hfirst, nhost)) ||
	    (st = tiers(&w, &t, first, adj, &top)) || (st = level0(&w, &z)) ||
	    (st = place_hosts(&w, &t, &z, hfirst, nhost)) ||
	    (st = upper(&w, &z, first, adj, top)))
		goto out;
	/* names must be unique in topology.conf */
	for (size_t i = 0; i < im->nsw; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(im->sw[i].name, im->sw[j].name)) {
				char *n = malloc(strlen(im->sw[i].name) + 24);
				if (!n) {
					st = oom(&w);
					goto out;
				}
				sprintf(n, "%s-%zu", im->sw[i].name, i);
				free(im->sw[i].name);
				im->sw[i].name = n;
				j = (size_t)-1;
			}
	report(&w, &t, nhost, top);
out:
	rm_hostlist_clear(&hl);
	free(first);
	free(adj);
	free(hfirst);
	free(z.tree_of_root);
	free(z.unit_of_root);
	free(z.major);
	free(w.h);
	rmi_strv_free(w.dup, w.ndup);
	free(w.leaf_of);
	free(w.leaf_node);
	free(w.uf);
	free(w.level);
	if (w.swname)
		for (size_t i = 0; i < g->nnode; i++)
			free(w.swname[i]);
	free(w.swname);
	return st;
}
