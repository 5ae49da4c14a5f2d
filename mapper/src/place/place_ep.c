/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_ep.c - expert parallelism on multi-node NVLink domains.
 *
 * An NVL72 rack with drained trays holds fewer whole EP blocks than the
 * world needs, though it holds every TP group. Refusing such an
 * allocation (EP as a must-rule) leaves a partial rack idle for the sake
 * of a few groups; so EP is a must-rule only where the domains hold the
 * whole world in EP blocks, and elsewhere a score: the planner chooses
 * the candidate that cuts the fewest real (Megatron-Core) EP groups
 * across domains, then the fewest PP crossings, and tries one candidate
 * of its own that packs each domain as a leaf.
 */
#include "place/place.h"

#include <stdlib.h>
#include <string.h>

/* EP joined the block from outside TP (not nested inside it). */
static bool ep_outside(const rm_layout *l, const rmi_rules *r)
{
	int ep = rmi_nest_pos(l, RM_AXIS_EP), tp = rmi_nest_pos(l, RM_AXIS_TP);
	return r->ep_must && ep > tp && (unsigned)ep < r->must_end;
}

void rmi_rules_soften_ep(const rm_layout *l, rmi_rules *r)
{
	if (!ep_outside(l, r))
		return;
	unsigned end = (unsigned)rmi_nest_pos(l, RM_AXIS_EP);
	uint64_t m = 1;
	r->cp_must = false;
	for (unsigned i = 0; i < end; i++) {
		rm_axis a = l->nest[i];
		m *= l->size[a];
		if (a == RM_AXIS_CP && l->size[a] > 1)
			r->cp_must = true;
	}
	r->must = m;
	r->must_end = end;
	r->ep_must = false;
}

/* GPUs the hosts' domains hold in whole blocks of `must`. */
static uint64_t block_gpus(const rmi_hostinfo *info, uint32_t n, uint32_t g,
			   uint64_t must, bool *oom)
{
	if (must <= g)
		return g % must ? 0 : (uint64_t)n * g;
	uint32_t nd = 0;
	for (uint32_t h = 0; h < n; h++)
		nd = info[h].dom >= nd ? info[h].dom + 1 : nd;
	uint32_t *cnt = calloc((size_t)nd + 1, sizeof(*cnt));
	if (!cnt) {
		*oom = true;
		return 0;
	}
	for (uint32_t h = 0; h < n; h++)
		cnt[info[h].dom]++;
	uint64_t cn = must / g, sum = 0;
	for (uint32_t d = 0; d < nd; d++)
		sum += cnt[d] / cn * must;
	free(cnt);
	return sum;
}

rm_status rmi_rules_fit_ep(const rm_layout *l, const rmi_hostinfo *info,
			   uint32_t n, uint32_t g, uint64_t world,
			   rmi_rules *r, rm_error *err)
{
	if (!ep_outside(l, r))
		return RM_OK;
	bool oom = false;
	uint64_t cap = block_gpus(info, n, g, r->must, &oom);
	if (oom)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	if (cap < world)
		rmi_rules_soften_ep(l, r);
	return RM_OK;
}

rm_status rmi_rules_fit_ep_auto(const rm_layout *l, const rmi_hostinfo *info,
				uint32_t n, uint32_t g, bool exact,
				rmi_rules *r, rm_error *err)
{
	rm_layout lw = *l;
	rmi_rules soft = *r;
	rmi_rules_soften_ep(&lw, &soft);
	if (soft.ep_must == r->ep_must)
		return RM_OK;
	if (lw.dp_auto) {
		/* the world dp=auto gives where EP is no must-rule */
		rmi_cells cl;
		rm_error e;
		uint32_t cn = soft.must > g ? (uint32_t)(soft.must / g) : 1;
		rm_status st = rmi_cells_build(info, n, cn, &cl, err);
		if (st)
			return st;
		st = rm_layout_resolve(&lw, cl.ncell * cn * g, exact, &e);
		rmi_cells_free(&cl);
		/* a layout that does not resolve is for the planner to
		 * refuse, in its own words */
		if (st)
			return RM_OK;
	}
	return rmi_rules_fit_ep(&lw, info, n, g, rm_layout_world(&lw), r,
				err);
}

rm_status rmi_ep_init(rmi_ep *e, const rm_layout *l, const rm_order *o,
		      uint32_t bg, rm_error *err)
{
	memset(e, 0, sizeof(*e));
	if (rm_layout_ep(l) <= 1)
		return RM_OK;
	rm_groups gr;
	rm_status st = rm_layout_groups(l, o, RM_GROUP_EP, &gr, err);
	if (st)
		return st;
	uint64_t nstride[RM_NAXES] = { 0 }, s = 1;
	for (unsigned i = 0; i < l->naxes; i++) {
		nstride[l->nest[i]] = s;
		s *= l->size[l->nest[i]];
	}
	e->piece = malloc(((size_t)gr.world + 1) * sizeof(*e->piece));
	if (!e->piece) {
		rm_groups_clear(&gr);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	/* each member's piece: its slot in nesting order, bg to a piece */
	for (uint64_t i = 0; i < gr.world; i++) {
		uint32_t coord[RM_NAXES];
		rm_rank_decode(l, o, gr.rank[i], coord);
		uint64_t slot = 0;
		for (int a = 0; a < RM_NAXES; a++)
			slot += coord[a] * nstride[a];
		e->piece[i] = (uint32_t)(slot / bg);
	}
	e->ngroups = gr.ngroups;
	e->size = gr.size;
	e->rank = gr.rank;
	gr.rank = NULL;
	rm_groups_clear(&gr);
	e->on = true;
	return RM_OK;
}

void rmi_ep_free(rmi_ep *e)
{
	free(e->piece);
	free(e->rank);
	memset(e, 0, sizeof(*e));
}

uint64_t rmi_ep_cut(const rmi_ep *e, const rmi_piece *p,
		    const rmi_hostinfo *info)
{
	uint64_t cut = 0;
	for (uint64_t k = 0; e->on && k < e->ngroups; k++) {
		const uint32_t *m = e->piece + k * e->size;
		uint32_t d = info[p[m[0]].host].dom;
		for (uint32_t i = 1; i < e->size; i++)
			if (info[p[m[i]].host].dom != d) {
				cut++;
				break;
			}
	}
	return cut;
}

/* A domain's cells: where they start in the cell list and how many. */
typedef struct dom_run {
	uint64_t start, len;
	uint32_t dom;
} dom_run;

static int cmp_run_dom(const void *a, const void *b)
{
	const dom_run *x = a, *y = b;
	return RMI_CMP(x->dom, y->dom) ? RMI_CMP(x->dom, y->dom)
					: RMI_CMP(x->start, y->start);
}

/* Leftovers largest first: a cut block then spans the fewest domains. */
static int cmp_left(const void *a, const void *b)
{
	const dom_run *x = a, *y = b;
	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return RMI_CMP(x->dom, y->dom);
}

/*
 * Each domain as a leaf: blocks of u cells (the nesting prefix up to EP,
 * in cells) whole inside one domain first, the fullest domains first, so
 * that whole pipelines stay together; the blocks no domain holds whole
 * are cut from the domains' leftovers, largest first. Every block of the
 * second kind is cut and every other block is not, so the plan cuts
 * max(0, blocks - sum of floor(cells_d / u)) blocks: no fewer exist.
 */
rm_status rmi_ep_domain_seq(const rm_layout *l, const rmi_hostinfo *info,
			    const rmi_cells *cl, uint32_t g, uint32_t *seq,
			    uint64_t *nseq, rm_error *err)
{
	uint64_t cg = (uint64_t)cl->c * g, b = 1;
	int pos = rmi_nest_pos(l, RM_AXIS_EP);
	for (int i = 0; i <= pos; i++)
		b *= l->size[l->nest[i]];
	uint64_t world = rm_layout_world(l), need = world / cg, u = b / cg;
	*nseq = 0;
	/* blocks inside a cell are never cut; blocks not of whole cells
	 * are not this candidate's to place */
	if (b <= cg || b % cg || world % cg)
		return RM_OK;
	uint64_t n = cl->ncell, w = 0, nr = 0;
	dom_run *r = malloc((n + 1) * sizeof(*r));
	uint64_t *ix = malloc((n + 1) * sizeof(*ix));
	if (!r || !ix) {
		free(r);
		free(ix);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	/* cells by domain, each domain's in list order */
	for (uint64_t i = 0; i < n; i++)
		r[i] = (dom_run){ i, 1, info[cl->node[i * cl->c]].dom };
	qsort(r, n, sizeof(*r), cmp_run_dom);
	for (uint64_t i = 0; i < n; i++)
		ix[i] = r[i].start;
	for (uint64_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && r[j].dom == r[i].dom; j++)
			;
		r[nr++] = (dom_run){ i, j - i, r[i].dom };
	}
	/* fullest first: stable by domain among equals */
	qsort(r, nr, sizeof(*r), cmp_left);
	for (uint64_t k = 0; k < nr && w + u <= need; k++) {
		uint64_t whole = r[k].len / u * u;
		while (whole && w + u <= need) {
			for (uint64_t t = 0; t < u; t++)
				seq[w++] = (uint32_t)ix[r[k].start++];
			r[k].len -= u;
			whole -= u;
		}
	}
	qsort(r, nr, sizeof(*r), cmp_left);
	for (uint64_t k = 0; k < nr && w < need; k++)
		for (uint64_t t = 0; t < r[k].len && w < need; t++)
			seq[w++] = (uint32_t)ix[r[k].start + t];
	free(r);
	free(ix);
	if (w < need)
		return rmi_err(err, RM_ERULE,
			       "internal: domains held %llu of %llu cells",
			       (unsigned long long)w, (unsigned long long)need);
	*nseq = need;
	return RM_OK;
}
