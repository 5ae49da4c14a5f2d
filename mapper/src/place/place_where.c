/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_where.c - where a host sits in the fabric: its PP locality group
 * (rail unit, leaf switch, block, the one flat switch, or a leaf of its
 * own), its top-level subtree and its NVLink domain. Ids double as DFS
 * sort keys so that sorting hosts by them walks the tree.
 */
#include "place/place.h"

#include <stdlib.h>
#include <string.h>

/* Rank of every name in natural order. */
static bool rank_names(char **names, uint32_t n, uint32_t *rank)
{
	if (!n)
		return true;
	rmi_named *v = malloc(n * sizeof(*v));
	if (!v)
		return false;
	for (uint32_t i = 0; i < n; i++)
		v[i] = (rmi_named){ names[i], i };
	qsort(v, n, sizeof(*v), rmi_named_host_cmp);
	for (uint32_t i = 0; i < n; i++)
		rank[v[i].ix] = i;
	free(v);
	return true;
}

/* Preorder over the switch forest, roots and children by name; iterative
 * with a queued mark so a malformed parent/child cycle cannot loop. */
static bool dfs_switches(const rm_fabric *f, uint32_t *pre, uint32_t *root,
			 bool *pods)
{
	uint32_t n = f->nsw, next = 0;
	rmi_named *v = malloc((n + 1) * sizeof(*v));
	uint32_t *stack = malloc((n + 1) * sizeof(*stack));
	uint32_t *srank = malloc((n + 1) * sizeof(*srank));
	bool *queued = calloc(n + 1, sizeof(*queued));
	bool ok = v && stack && srank && queued;
	if (ok) {
		for (uint32_t i = 0; i < n; i++)
			v[i] = (rmi_named){ f->sw[i].name, i };
		qsort(v, n, sizeof(*v), rmi_named_host_cmp);
		for (uint32_t i = 0; i < n; i++)
			srank[v[i].ix] = i;
	}
	/* One spine above pods: the pods are the subtrees worth counting,
	 * so the children of a lone root that have children themselves act
	 * as the top level. */
	uint32_t roots = 0, lone = UINT32_MAX;
	for (uint32_t i = 0; ok && i < n; i++)
		if (f->sw[i].parent < 0) {
			roots++;
			lone = i;
		}
	bool split = false;
	if (roots == 1)
		for (uint32_t c = 0; c < f->sw[lone].nchild; c++) {
			int32_t ch = f->sw[lone].child[c];
			if (ch >= 0 && (uint32_t)ch < n && f->sw[ch].nchild)
				split = true;
		}
	*pods = split || roots > 1;
	/* Real roots first, then whatever a cycle left unreached. */
	for (int pass = 0; ok && pass < 2; pass++) {
		for (uint32_t k = 0; k < n; k++) {
			uint32_t s = v[k].ix;
			if (queued[s] || (pass == 0 && f->sw[s].parent >= 0))
				continue;
			uint32_t sp = 0;
			stack[sp++] = s;
			queued[s] = true;
			root[s] = s;
			while (sp) {
				uint32_t cur = stack[--sp];
				pre[cur] = next++;
				const rmi_switch *w = &f->sw[cur];
				uint32_t mark = sp;
				for (uint32_t c = 0; c < w->nchild; c++) {
					int32_t ch = w->child[c];
					if (ch < 0 || (uint32_t)ch >= n ||
					    queued[ch])
						continue;
					queued[ch] = true;
					root[ch] = split && cur == lone
							   ? (uint32_t)ch
							   : root[cur];
					/* insertion keeps the pushed children in
					 * descending name order: the smallest
					 * name pops first */
					uint32_t b = sp++;
					while (b > mark &&
					       srank[stack[b - 1]] < srank[ch]) {
						stack[b] = stack[b - 1];
						b--;
					}
					stack[b] = (uint32_t)ch;
				}
			}
		}
	}
	free(v);
	free(stack);
	free(srank);
	free(queued);
	return ok;
}

rm_status rmi_where_init(rmi_where *w, const rm_fabric *f, uint32_t nown,
			 rm_error *err)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->nown = nown;
	if (!f)
		return RM_OK;
	w->nsw = f->nsw;
	w->nunit = f->nunit;
	w->ndom = f->ndomain;
	w->sw_pre = malloc((w->nsw + 1) * sizeof(uint32_t));
	w->sw_root = malloc((w->nsw + 1) * sizeof(uint32_t));
	w->unit_rank = malloc((w->nunit + 1) * sizeof(uint32_t));
	w->dom_rank = malloc((w->ndom + 1) * sizeof(uint32_t));
	if (!w->sw_pre || !w->sw_root || !w->unit_rank || !w->dom_rank ||
	    !dfs_switches(f, w->sw_pre, w->sw_root, &w->pods) ||
	    !rank_names(f->unit_name, w->nunit, w->unit_rank) ||
	    !rank_names(f->domain_name, w->ndom, w->dom_rank)) {
		rmi_where_free(w);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	return RM_OK;
}

void rmi_where_free(rmi_where *w)
{
	free(w->sw_pre);
	free(w->sw_root);
	free(w->unit_rank);
	free(w->dom_rank);
	memset(w, 0, sizeof(*w));
}

/* Id layout (loc and top share it): switches by preorder, then units,
 * then blocks, then the flat switch / spine, then one per own host. */
uint32_t rmi_where_nids(const rmi_where *w)
{
	return w->nsw + w->nunit + w->ndom + 1 + w->nown;
}

void rmi_where_host(const rmi_where *w, const char *name, uint32_t own,
		    rmi_hostinfo *h)
{
	const rm_fabric *f = w->f;
	uint32_t unit0 = w->nsw, dom0 = unit0 + w->nunit,
		 flat = dom0 + w->ndom, own_id = flat + 1 + own;
	h->unit = -1;
	h->fnode = -1;
	h->missing = false;
	h->dom = w->ndom + own;
	h->loc = flat;
	h->top = flat;
	if (!f || f->nnode == 0)
		return;
	int64_t ix = rmi_fabric_find(f, name);
	if (ix < 0 || (uint64_t)ix >= f->nnode) {
		/* Only a topology can leave a node out; site groups and
		 * units alone describe part of an otherwise flat fabric. */
		if (f->has_tree || f->has_blocks) {
			h->missing = true;
			h->loc = h->top = own_id;
		}
		return;
	}
	h->fnode = (int32_t)ix;
	const rmi_fnode *n = &f->node[ix];
	if (n->domain >= 0 && (uint32_t)n->domain < w->ndom)
		h->dom = (uint32_t)n->domain;
	bool leaf = n->leaf >= 0 && (uint32_t)n->leaf < w->nsw;
	if (leaf)
		h->top = w->sw_pre[w->sw_root[n->leaf]];
	if (n->unit >= 0 && (uint32_t)n->unit < w->nunit) {
		h->unit = n->unit;
		h->loc = unit0 + w->unit_rank[n->unit];
	} else if (leaf) {
		h->loc = w->sw_pre[n->leaf];
	} else if (n->domain >= 0 && (uint32_t)n->domain < w->ndom &&
		   !f->has_tree) {
		h->loc = dom0 + w->dom_rank[n->domain];
	} else if (f->has_tree) {
		/* known from the site file only, under no switch */
		h->missing = true;
		h->loc = h->top = own_id;
	}
}

const char *rmi_where_loc_name(const rmi_where *w, const rmi_hostinfo *h,
			       const char *host)
{
	const rm_fabric *f = w->f;
	uint32_t unit0 = w->nsw, dom0 = unit0 + w->nunit,
		 flat = dom0 + w->ndom;
	if (!f || h->loc == flat)
		return "flat";
	if (h->loc > flat)
		return host;
	if (h->loc >= unit0 && h->loc < dom0 && h->unit >= 0)
		return f->unit_name[h->unit];
	if (h->fnode < 0 || (uint32_t)h->fnode >= f->nnode)
		return host;
	const rmi_fnode *n = &f->node[h->fnode];
	if (h->loc >= dom0 && n->domain >= 0)
		return f->domain_name[n->domain];
	if (h->loc < unit0 && n->leaf >= 0)
		return f->sw[n->leaf].name;
	return host;
}

const char *rmi_where_unit_name(const rmi_where *w, const rmi_hostinfo *h)
{
	if (!w->f || h->unit < 0 || (uint32_t)h->unit >= w->nunit)
		return NULL;
	return w->f->unit_name[h->unit];
}
