/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_rules.c - the must-rule (which axes share an NVLink domain), the
 * numbering strides and the lower bound on pipeline crossings. Shared by
 * the planner and the checker so both judge a map by the same rules.
 */
#include "place/place.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

rm_status rmi_layout_ok(const rm_layout *l, rm_error *err)
{
	bool seen[RM_NAXES] = { false };
	if (!l || l->naxes > RM_NAXES)
		return rmi_err(err, RM_EINPUT, "malformed layout");
	for (unsigned i = 0; i < l->naxes; i++) {
		rm_axis a = l->nest[i];
		if ((unsigned)a >= RM_NAXES || seen[a])
			return rmi_err(err, RM_EINPUT,
				       "malformed layout: nesting order repeats or names an unknown axis");
		seen[a] = true;
	}
	for (int a = 0; a < RM_NAXES; a++) {
		if (l->size[a] == 0 && !(a == RM_AXIS_DP && l->dp_auto))
			return rmi_err(err, RM_EINPUT,
				       "malformed layout: %s has size 0",
				       rm_axis_name((rm_axis)a));
		if (!seen[a] && l->size[a] > 1)
			return rmi_err(err, RM_EINPUT,
				       "malformed layout: %s has size %" PRIu32
				       " but no place in the nesting order",
				       rm_axis_name((rm_axis)a), l->size[a]);
	}
	return RM_OK;
}

int rmi_nest_pos(const rm_layout *l, rm_axis a)
{
	return rmi_layout_pos(l, a);
}

static bool fits_nodes(uint64_t m, uint32_t g)
{
	return (m <= g && g % m == 0) || (m > g && m % g == 0);
}

rm_status rmi_rules_get(const rm_layout *l, const rm_fabric *f, uint32_t g,
			rmi_rules *r, rm_error *err)
{
	memset(r, 0, sizeof(*r));
	r->node_domain = true;
	r->domain_nodes = 1;
	if (f && f->ndomain > 0) {
		uint32_t *cnt = calloc(f->ndomain, sizeof(*cnt));
		if (!cnt)
			return rmi_err(err, RM_ENOMEM, "out of memory");
		uint32_t best = 1;
		for (uint32_t i = 0; i < f->nnode; i++) {
			int32_t d = f->node[i].domain;
			if (d >= 0 && (uint32_t)d < f->ndomain &&
			    ++cnt[d] > best)
				best = cnt[d];
		}
		free(cnt);
		r->node_domain = false;
		r->domain_nodes = best;
	}
	r->domain_gpus = (uint64_t)r->domain_nodes * g;
	if (f && f->ndomain > 0 && f->nvl_domain_gpus)
		r->domain_gpus = f->nvl_domain_gpus;

	/* Everything nested inside TP travels with it; CP/EP right outside
	 * join the block only while the block still fits a domain on whole
	 * nodes, otherwise they are scored, not required. */
	uint64_t m = 1;
	int tp = rmi_nest_pos(l, RM_AXIS_TP);
	unsigned end = 0;
	for (int i = 0; i <= tp; i++) {
		rm_axis a = l->nest[i];
		m *= l->size[a];
		if (a == RM_AXIS_CP && l->size[a] > 1)
			r->cp_must = true;
		if (a == RM_AXIS_EP && l->size[a] > 1)
			r->ep_must = true;
	}
	end = tp < 0 ? 0 : (unsigned)tp + 1;
	for (; end < l->naxes; end++) {
		rm_axis a = l->nest[end];
		if (a != RM_AXIS_CP && a != RM_AXIS_EP)
			break;
		uint64_t m2 = m * l->size[a];
		if (m2 > r->domain_gpus || !fits_nodes(m2, g))
			break;
		m = m2;
		if (l->size[a] > 1) {
			if (a == RM_AXIS_CP)
				r->cp_must = true;
			else
				r->ep_must = true;
		}
	}
	r->must = m;
	r->must_end = end;
	return RM_OK;
}

static void block_name(const rm_layout *l, const rmi_rules *r, char *buf,
		       size_t n)
{
	size_t o = 0;
	unsigned big = 0;
	for (unsigned i = 0; i < r->must_end; i++)
		if (l->size[l->nest[i]] > 1)
			big++;
	if (big <= 1) {
		snprintf(buf, n, "TP=%" PRIu64, r->must);
		return;
	}
	o += (size_t)snprintf(buf + o, n - o, "the TP block (");
	for (unsigned i = 0, k = 0; i < r->must_end && o < n; i++) {
		rm_axis a = l->nest[i];
		if (l->size[a] <= 1)
			continue;
		o += (size_t)snprintf(buf + o, n - o, "%s%s=%" PRIu32,
				      k++ ? " x " : "", rm_axis_name(a),
				      l->size[a]);
	}
	if (o < n)
		snprintf(buf + o, n - o, " = %" PRIu64 " GPUs)", r->must);
}

static void divisors(uint32_t g, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = '\0';
	for (uint32_t d = 1; d <= g && o + 12 < n; d++)
		if (g % d == 0)
			o += (size_t)snprintf(buf + o, n - o, "%s%" PRIu32,
					      o ? ", " : "", d);
}

rm_status rmi_rules_feasible(const rm_layout *l, const rmi_rules *r,
			     uint32_t g, rm_error *err)
{
	char what[128], div[96];
	block_name(l, r, what, sizeof(what));
	divisors(g, div, sizeof(div));
	if (r->must > r->domain_gpus) {
		if (r->node_domain)
			return rmi_err(err, RM_ERULE,
				       "%s needs an NVLink domain of %" PRIu64
				       " GPUs; nodes here have %" PRIu32
				       " (domain: node); use tp<=%" PRIu32
				       " or a site file with NVLink groups",
				       what, r->must, g, g);
		return rmi_err(err, RM_ERULE,
			       "%s needs an NVLink domain of %" PRIu64
			       " GPUs; the largest domain here has %" PRIu64
			       " (%" PRIu32 " nodes of %" PRIu32
			       " GPUs); use tp<=%" PRIu64,
			       what, r->must, r->domain_gpus, r->domain_nodes,
			       g, r->domain_gpus);
	}
	if (r->must <= g && g % r->must != 0)
		return rmi_err(err, RM_ERULE,
			       "%s does not divide the %" PRIu32
			       " GPUs of a node, so its groups would straddle nodes; use one of %s",
			       what, g, div);
	if (r->must > g && r->must % g != 0)
		return rmi_err(err, RM_ERULE,
			       "%s covers %" PRIu64 " GPUs, not whole nodes of %"
			       PRIu32 "; use one of %s or a multiple of %" PRIu32
			       " up to %" PRIu64,
			       what, r->must, g, div, g, r->domain_gpus);
	return RM_OK;
}

rm_status rmi_order_strides(const rm_layout *l, const rm_order *o,
			    uint64_t stride[RM_NAXES], rm_error *err)
{
	bool seen[RM_NAXES] = { false };
	uint64_t s = 1;
	for (int a = 0; a < RM_NAXES; a++)
		stride[a] = 0;
	for (unsigned i = 0; i < o->naxes; i++) {
		rm_axis a = o->axis[i];
		if (i >= RM_NAXES || (unsigned)a >= RM_NAXES || seen[a])
			return rmi_err(err, RM_EINPUT,
				       "numbering order repeats or names an unknown axis");
		seen[a] = true;
		stride[a] = s;
		s *= l->size[a];
	}
	for (int a = 0; a < RM_NAXES; a++)
		if (!seen[a] && l->size[a] > 1)
			return rmi_err(err, RM_EINPUT,
				       "numbering order '%.31s' leaves out %s (size %"
				       PRIu32 ")",
				       o->name, rm_axis_name((rm_axis)a),
				       l->size[a]);
	return RM_OK;
}

/*
 * A must-block never leaves its leaf (the domain sits under one leaf), and
 * the PP peers of a must-block are the must-blocks with the same inner
 * coordinates at the next stage. So the GPUs reachable from one must-block
 * through PP pairs form a chain of PP x must GPUs; each leaf change along
 * a chain costs `must` pairs, and a chain whose GPUs sit in p distinct
 * leaves ("pieces") changes leaf at least p - 1 times. Two counts bound the
 * pieces from below:
 *  - per chain: a leaf of c GPUs holds at most floor(c/chain) whole
 *    chains; every other chain has at least max(2, k) pieces, k being the
 *    fewest leaves whose capacities add up to one chain;
 *  - in total: every leaf in use holds at least one piece, and the leaves
 *    in use hold the whole world, so there are at least L pieces, L being
 *    the fewest leaves whose capacities add up to the world.
 */
static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x > y ? -1 : x < y;
}

/* Fewest of the largest leaves that add up to `want`; `fallback` when
 * they never do (the layout did not fit: nothing to bound). */
static uint64_t fewest(const uint64_t *sorted, uint32_t k, uint64_t want,
		       uint64_t fallback)
{
	uint64_t sum = 0, n = 0;
	while (n < k && sum < want)
		sum += sorted[n++];
	return sum < want ? fallback : n;
}

/*
 * The exact count when the search finishes (else the bound it proved,
 * and false; it looks below `ub` only, and says ub when nothing there
 * works): leaves hold floor(c / must)
 * must-blocks, a chain is PP blocks, and the fewest pieces of `chains`
 * chains cut from those capacities is the packing problem place_exact.c
 * solves (whole chains from single leaves, residues grouped). Any map
 * that keeps its must-blocks whole has at least that many pieces.
 */
static bool exact_pieces(const uint64_t *loc_gpus, uint32_t nloc,
			 uint64_t must, uint64_t pp, uint64_t chains,
			 uint64_t ub, uint64_t *extra)
{
	uint64_t *res = malloc(((size_t)nloc + 1) * sizeof(*res));
	uint64_t *val = malloc(((size_t)nloc + 1) * sizeof(*val));
	uint64_t *cnt = malloc(((size_t)nloc + 1) * sizeof(*cnt));
	bool ok = false;
	uint64_t whole = 0;
	uint32_t n = 0, d = 0;
	if (!res || !val || !cnt)
		goto out;
	for (uint32_t i = 0; i < nloc; i++) {
		uint64_t b = loc_gpus[i] / must;
		whole += b / pp;
		if (b % pp)
			res[n++] = b % pp;
	}
	if (whole >= chains) {
		*extra = 0;
		ok = true;
		goto out;
	}
	qsort(res, n, sizeof(*res), cmp_desc);
	for (uint32_t i = 0; i < n; i++) {
		if (!d || val[d - 1] != res[i]) {
			val[d] = res[i];
			cnt[d++] = 0;
		}
		cnt[d - 1]++;
	}
	rmi_xsol sol;
	rm_error e;
	if (rmi_split_exact(val, cnt, d, pp, chains - whole, 0,
			    RMI_EXACT_BUDGET, ub, &sol, &e) == RM_OK) {
		*extra = sol.exact ? sol.cost : sol.lower;
		ok = sol.exact;
	}
	rmi_xsol_free(&sol);
out:
	free(res);
	free(val);
	free(cnt);
	return ok;
}

uint64_t rmi_pp_lower_bound(const rm_layout *l, const rmi_rules *r,
			    const uint64_t *loc_gpus, uint32_t nloc,
			    uint64_t reached, bool *exact)
{
	uint32_t pp = l->size[RM_AXIS_PP];
	int pos = rmi_nest_pos(l, RM_AXIS_PP);
	*exact = false;
	if (pp <= 1 || pos < 0 || (unsigned)pos < r->must_end) {
		*exact = true;
		return 0;
	}
	uint64_t chain = (uint64_t)pp * r->must;
	uint64_t world = 1;
	for (int a = 0; a < RM_NAXES; a++)
		world *= l->size[a];
	uint64_t chains = world / chain, whole = 0;
	for (uint32_t i = 0; i < nloc; i++)
		whole += loc_gpus[i] / chain;
	if (whole > chains)
		whole = chains;
	uint64_t *v = malloc(((size_t)nloc + 1) * sizeof(*v));
	if (!v) /* still a bound: one crossing per chain that is not whole */
		return (chains - whole) * r->must;
	uint32_t k = 0;
	for (uint32_t i = 0; i < nloc; i++)
		if (loc_gpus[i])
			v[k++] = loc_gpus[i];
	qsort(v, k, sizeof(*v), cmp_desc);
	uint64_t per = fewest(v, k, chain, 2);
	uint64_t total = fewest(v, k, world, 0);
	free(v);
	uint64_t a = (chains - whole) * (per > 2 ? per - 1 : 1);
	uint64_t b = total > chains ? total - chains : 0;
	uint64_t bound = a > b ? a : b, x;
	if (bound * r->must >= reached) {
		/* a map already meets it: it is the fewest there is */
		*exact = bound * r->must == reached;
		return bound * r->must;
	}
	if (world % chain == 0) {
		/* when the search stops at its limit, x is still what it
		 * proved, and meeting it is still proof */
		x = 0;
		/* only below the map's count: proving there is nothing
		 * there is all it takes, and cheaper than finding it */
		uint64_t ub = reached % r->must ? UINT64_MAX
						 : reached / r->must;
		*exact = exact_pieces(loc_gpus, nloc, r->must, pp, chains, ub,
				      &x);
		if (x > bound)
			bound = x;
		*exact = *exact || bound * r->must == reached;
	}
	return bound * r->must;
}

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/*
 * What each locality group (or top-level subtree, `top`) can hold in
 * whole must-blocks, in GPUs. A block larger than a node needs whole
 * nodes of one NVLink domain, so a domain of k nodes holds
 * floor(k / (must / g)) blocks and its other nodes count for nothing
 * (a leaf of two 3-node domains holds two 16-GPU blocks, not three).
 * A block never spans two domains, but a domain can span groups, and
 * then so can a block: such groups are counted as one (*merged), which
 * keeps the bound true but makes it no proof of what a map can reach.
 */
rm_status rmi_bound_caps(const rmi_hostinfo *info, uint32_t n, uint32_t g,
			 const rmi_rules *r, uint32_t nids, uint32_t ndom,
			 bool top, uint64_t *cap, bool *merged, rm_error *err)
{
	uint32_t *up = malloc(((size_t)nids + 1) * sizeof(*up));
	uint32_t *first = malloc(((size_t)ndom + 1) * sizeof(*first));
	uint32_t *dn = calloc((size_t)ndom + 1, sizeof(*dn));
	*merged = false;
	if (!up || !first || !dn) {
		free(up);
		free(first);
		free(dn);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < nids; i++)
		up[i] = i;
	for (uint32_t d = 0; d < ndom; d++)
		first[d] = UINT32_MAX;
	for (uint32_t h = 0; h < n; h++) {
		uint32_t id = top ? info[h].top : info[h].loc, d = info[h].dom;
		if (id >= nids || d >= ndom)
			continue;
		dn[d]++;
		if (first[d] == UINT32_MAX) {
			first[d] = id;
		} else {
			uint32_t a = uf_find(up, id), b = uf_find(up, first[d]);
			if (a != b) {
				up[a] = b;
				*merged = true;
			}
		}
	}
	/* no map keeps such blocks whole: count GPUs as they are */
	bool by_dom = r->must > g && r->must <= r->domain_gpus;
	uint64_t cn = by_dom ? r->must / g : 1;
	for (uint32_t h = 0; h < n; h++) {
		uint32_t id = top ? info[h].top : info[h].loc, d = info[h].dom;
		if (id >= nids || d >= ndom)
			continue;
		if (!by_dom)
			cap[uf_find(up, id)] += g;
		else if (first[d] == id && dn[d]) {
			cap[uf_find(up, id)] += dn[d] / cn * r->must;
			dn[d] = 0;       /* counted once */
		}
	}
	free(up);
	free(first);
	free(dn);
	return RM_OK;
}
