/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_base.c - the order a baseline takes the allocation's nodes in
 * (rm_baseline; docs/placement.md, "Baselines"): as given, sorted by
 * where they sit, or by leaf switch in the topology file's order as
 * Slurm ranks nodes for TopologyParam=SwitchAsNodeRank and for 26.05's
 * topology-ordered step layout. Slurm's block distribution then fills
 * the nodes in that order (place.c).
 */
#include "place/place.h"

#include <stdlib.h>
#include <string.h>

/* The kinds' names live with their orders: place/ may not call map/. */
static const char *const baseline_names[RM_BASELINE_COUNT] = {
	[RM_BASELINE_SLURM] = "slurm",
	[RM_BASELINE_SORTED] = "sorted",
	[RM_BASELINE_SWITCH_RANK] = "switch-rank",
};

const char *rm_baseline_name(rm_baseline b)
{
	return (unsigned)b < RM_BASELINE_COUNT ? baseline_names[b] : NULL;
}

rm_status rm_baseline_parse(const char *s, rm_baseline *out, rm_error *err)
{
	for (unsigned i = 0; s && i < RM_BASELINE_COUNT; i++)
		if (!strcmp(s, baseline_names[i])) {
			*out = (rm_baseline)i;
			return RM_OK;
		}
	char q[80];
	return rmi_err(err, RM_EINPUT,
		       "unknown baseline %s (known: slurm, sorted, switch-rank)",
		       rm_quote(s ? s : "", s ? strlen(s) : 0, q, sizeof(q)));
}


typedef struct keyed {
	uint32_t k[3];
	uint32_t ix;                 /* index in natural name order */
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	for (int i = 0; i < 3; i++)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i] ? -1 : 1;
	return RMI_CMP(x->ix, y->ix);
}

/*
 * Slurm's rank of a node's leaf (topology/tree: the leaf switches in the
 * order their lines come, from 1; topology_tree.c get_rank and
 * generate_node_ranking) or, on a fabric of blocks only, of its block
 * (topology/block likewise); 0 for a node under none, which Slurm puts
 * first.
 */
static uint32_t *switch_ranks(const rm_fabric *f, bool *oom)
{
	*oom = false;
	if (!f || !f->nsw)
		return NULL;
	uint32_t *r = calloc(f->nsw, sizeof(*r));
	if (!r) {
		*oom = true;
		return NULL;
	}
	uint32_t next = 1;
	for (uint32_t s = 0; s < f->nsw; s++)
		if (f->sw[s].level == 0)
			r[s] = next++;
	return r;
}

static uint32_t switch_key(const rm_fabric *f, const uint32_t *leaf_rank,
			   const rmi_hostinfo *h)
{
	if (!f || h->fnode < 0 || (uint32_t)h->fnode >= f->nnode)
		return 0;
	const rmi_fnode *n = &f->node[h->fnode];
	if (f->has_tree)
		return n->leaf >= 0 && (uint32_t)n->leaf < f->nsw && leaf_rank
			       ? leaf_rank[n->leaf] : 0;
	return n->domain >= 0 ? (uint32_t)n->domain + 1 : 0;
}

rm_status rmi_baseline_order(const rm_plan_options *o, const rmi_named *sh,
			     const rmi_hostinfo *info, uint32_t n,
			     uint32_t *order, rm_error *err)
{
	if (o->baseline_kind == RM_BASELINE_SLURM) {
		/* the nodes as given: sh[i] was given at sh[i].ix */
		for (uint32_t i = 0; i < n; i++)
			order[sh[i].ix] = i;
		return RM_OK;
	}
	keyed *v = malloc(((size_t)n + 1) * sizeof(*v));
	bool oom = false;
	uint32_t *leaf_rank = o->baseline_kind == RM_BASELINE_SWITCH_RANK
				      ? switch_ranks(o->fabric, &oom) : NULL;
	if (!v || oom) {
		free(v);
		free(leaf_rank);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		const rmi_hostinfo *h = &info[i];
		/* place_where.c's ids are DFS keys: pod, then leaf or rail
		 * unit, then NVLink domain walks the fabric */
		if (o->baseline_kind == RM_BASELINE_SORTED)
			v[i] = (keyed){ { h->top, h->loc, h->dom }, i };
		else
			v[i] = (keyed){ { switch_key(o->fabric, leaf_rank, h),
					  0, 0 }, i };
	}
	qsort(v, n, sizeof(*v), cmp_keyed);
	for (uint32_t i = 0; i < n; i++)
		order[i] = v[i].ix;
	free(v);
	free(leaf_rank);
	return RM_OK;
}
