/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place.c - the placement behind rm_plan: validate the inputs, resolve the
 * layout against the GPUs the must-rule can use, choose and order the
 * hosts (place_pack.c) and number the slots into the caller's map.
 * map/plan.c scores it with rm_check: place/ comes before map/.
 */
#include "place/place.h"
#include "internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define RMI_MAX_GPUS_PER_NODE 1024u

/* The hosts in natural order, each with its index in opts->nodes. */
typedef rmi_named sorted_host;

static rm_status check_opts(const rm_plan_options *o, rm_error *err)
{
	char q[96];
	if (!o || !o->layout)
		return rmi_err(err, RM_EINPUT, "plan: no layout given");
	if (!o->nodes || o->nnodes == 0)
		return rmi_err(err, RM_EINPUT, "plan: no nodes given");
	if (o->nnodes > RM_MAX_HOSTS)
		return rmi_err(err, RM_EINPUT,
			       "plan: %zu nodes, more than the limit of %u",
			       o->nnodes, RM_MAX_HOSTS);
	if (o->gpus_per_node == 0 ||
	    o->gpus_per_node > RMI_MAX_GPUS_PER_NODE)
		return rmi_err(err, RM_EINPUT,
			       "plan: %" PRIu32
			       " GPUs per node is out of range (1..%u)",
			       o->gpus_per_node, RMI_MAX_GPUS_PER_NODE);
	for (size_t i = 0; i < o->nnodes; i++) {
		const char *h = o->nodes[i];
		size_t n = h ? strnlen(h, RM_MAX_HOSTNAME + 1) : 0;
		if (n == 0)
			return rmi_err(err, RM_EINPUT,
				       "plan: node %zu has an empty name", i);
		if (n > RM_MAX_HOSTNAME)
			return rmi_err(err, RM_EINPUT,
				       "plan: node name %s is longer than %d bytes",
				       rm_quote(h, n, q, sizeof(q)),
				       RM_MAX_HOSTNAME);
	}
	return RM_OK;
}

/* Nodes absent from the topology: an error naming a few, or (allowed)
 * each becomes a leaf of its own and rm_check says so. */
static rm_status check_missing(const rm_plan_options *o, const rmi_hostinfo *info,
			       const sorted_host *sh, uint32_t n,
			       rm_error *err)
{
	uint32_t miss = 0;
	for (uint32_t i = 0; i < n; i++)
		miss += info[i].missing;
	if (!miss || o->allow_missing)
		return RM_OK;
	char list[400], q[80];
	size_t off = 0;
	uint32_t shown = 0;
	list[0] = '\0';
	for (uint32_t i = 0; i < n && shown < 5; i++) {
		if (!info[i].missing)
			continue;
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
					shown ? ", " : "",
					rm_quote(sh[i].name, strlen(sh[i].name),
						  q, sizeof(q)));
		shown++;
	}
	const char *src = o->fabric && o->fabric->source ? o->fabric->source
							  : "the topology";
	return rmi_err(err, RM_EINPUT,
		       "%" PRIu32 " node%s not in %.200s: %s%s; add %s or allow missing nodes (each then gets a leaf of its own)",
		       miss, miss == 1 ? " is" : "s are", src, list,
		       miss > shown ? ", ..." : "", miss == 1 ? "it" : "them");
}

/* GPUs of one replica: the nesting prefix up to the outermost non-DP axis. */
static uint64_t replica_gpus(const rm_layout *l)
{
	uint64_t p = 1, r = 1;
	for (unsigned i = 0; i < l->naxes; i++) {
		p *= l->size[l->nest[i]];
		if (l->nest[i] != RM_AXIS_DP)
			r = p;
	}
	return r;
}

/* Cells per packing unit: a replica when it covers whole cells, one cell
 * when several replicas share a cell, else the smallest run of cells that
 * holds whole replicas. */
static uint64_t unit_cells(uint64_t rg, uint64_t cell_gpus, uint64_t need)
{
	if (rg % cell_gpus == 0)
		return rg / cell_gpus;
	if (cell_gpus % rg == 0)
		return 1;
	uint64_t u = rg / rmi_gcd(rg, cell_gpus);
	return u > need ? need : u;
}

typedef struct plan_ctx {
	const rm_plan_options *o;
	const char *fabric_digest;   /* the caller's, or NULL: hash it */
	rm_layout l;
	rm_order ord;
	rmi_rules rules;
	sorted_host *sh;
	rmi_hostinfo *info;
	rmi_where where;
	rmi_cells cells;
	rmi_cells blocks;            /* one cell per must-block (TP below a
				      * node), when the plan may try them */
	uint32_t *seq;               /* cell indices, placement order */
	uint32_t bg;                 /* GPUs per piece */
	uint64_t npiece;
	rmi_piece *best, *tmp;       /* chosen placement, and a try */
	rm_report score;             /* best's pp_cross and pp_cross_top */
	bool have;
	uint64_t *cap, *capt;        /* bound capacities: leaves, subtrees */
	uint64_t bound, bound_top;
	rmi_ep ep;                   /* scored EP groups (soft EP) */
	uint64_t ep_cut;             /* best's cut EP groups */
	uint32_t n;
} plan_ctx;

/* "; the allocation's NVLink domains: nvl1 2 nodes, nvl2 2 nodes" (named
 * domains only, e.g. Slurm blocks), so a refusal says what Slurm gave. */
static void alloc_domains(const plan_ctx *c, char *buf, size_t len)
{
	buf[0] = 0;
	uint32_t nd = c->where.ndom;
	if (!nd || !c->where.f || !c->where.f->domain_name)
		return;
	uint32_t *cnt = calloc(nd, sizeof(*cnt));
	if (!cnt)
		return;
	for (uint32_t h = 0; h < c->n; h++)
		if (c->info[h].dom < nd)
			cnt[c->info[h].dom]++;
	size_t o = 0;
	unsigned shown = 0;
	for (uint32_t d = 0; d < nd && o + 40 < len; d++) {
		if (!cnt[d])
			continue;
		if (shown++ == 8) {
			o += (size_t)snprintf(buf + o, len - o, ", ...");
			break;
		}
		o += (size_t)snprintf(buf + o, len - o, "%s%.24s %" PRIu32 " node%s",
				      o ? ", " : "; the allocation's NVLink domains: ",
				      c->where.f->domain_name[d], cnt[d],
				      cnt[d] == 1 ? "" : "s");
	}
	free(cnt);
}

static rm_status resolve_layout(plan_ctx *c, rm_error *err)
{
	const rm_plan_options *o = c->o;
	uint32_t g = o->gpus_per_node;
	uint64_t total = (uint64_t)c->n * g;
	if (o->baseline)
		return rm_layout_resolve(&c->l, total, o->exact, err);
	int dp = rmi_nest_pos(&c->l, RM_AXIS_DP);
	int tp = rmi_nest_pos(&c->l, RM_AXIS_TP);
	if (c->l.dp_auto && dp >= 0 && dp < tp) {
		rm_status st = rm_layout_resolve(&c->l, total, o->exact, err);
		if (st)
			return st;
	}
	rm_status st = rmi_rules_get(&c->l, o->fabric, g, &c->rules, err);
	if (!st)
		st = rmi_rules_fit_ep_auto(&c->l, c->info, c->n, g, o->exact,
					   &c->rules, err);
	if (!st)
		st = rmi_rules_feasible(&c->l, &c->rules, g, err);
	uint32_t cn = c->rules.must > g ? (uint32_t)(c->rules.must / g) : 1;
	if (!st)
		st = rmi_cells_build(c->info, c->n, cn, &c->cells, err);
	if (st)
		return st;
	uint64_t usable = c->cells.ncell * cn * g;
	/* dp=auto: as many whole replicas as the usable cells hold */
	st = rm_layout_resolve(&c->l, c->l.dp_auto ? usable : total, o->exact,
			       err);
	if (st)
		return st;
	uint64_t world = rm_layout_world(&c->l);
	if (world > usable || (o->exact && usable < total)) {
		char lay[160], doms[400];
		rm_layout_format(&c->l, lay, sizeof(lay));
		alloc_domains(c, doms, sizeof(doms));
		return rmi_err(err, RM_ERULE,
			       "layout %s needs %" PRIu64
			       " GPUs in whole TP blocks of %" PRIu32
			       " node%s of one NVLink domain; the allocation's domains hold %"
			       PRIu64 " such blocks (%" PRIu64
			       " GPUs) of its %" PRIu64
			       " GPUs%s; allocate whole domains or use a smaller dp",
			       lay, world, cn, cn == 1 ? "" : "s",
			       c->cells.ncell, usable, total, doms);
	}
	return RM_OK;
}

static rm_status build_map(plan_ctx *c, rm_map *m, rm_error *err)
{
	uint32_t g = c->o->gpus_per_node;
	uint64_t world = rm_layout_world(&c->l);
	bool oom = false;
	m->layout = c->l;
	m->order = c->ord;
	m->world = (uint32_t)world;
	m->gpus_per_node = g;
	/* hosts in the order their first piece comes */
	uint32_t *pos = malloc(((size_t)c->n + 1) * sizeof(*pos));
	if (!pos)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < c->n; i++)
		pos[i] = UINT32_MAX;
	uint32_t nh = 0;
	for (uint64_t i = 0; i < c->npiece; i++)
		if (pos[c->best[i].host] == UINT32_MAX)
			pos[c->best[i].host] = nh++;
	m->nhost = nh;
	m->nspare = c->n - m->nhost;
	m->host = calloc(m->nhost + 1, sizeof(char *));
	m->host_leaf = calloc(m->nhost + 1, sizeof(char *));
	m->host_unit = calloc(m->nhost + 1, sizeof(char *));
	m->spare = calloc(m->nspare + 1, sizeof(char *));
	m->rank = malloc((world + 1) * sizeof(rm_rank));
	if (!m->host || !m->host_leaf || !m->host_unit || !m->spare ||
	    !m->rank) {
		free(pos);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (uint32_t h = 0, s = 0; h < c->n; h++) {
		const char *name = c->sh[h].name;
		if (pos[h] == UINT32_MAX) {
			m->spare[s++] = rmi_dup_or_null(name, &oom);
			continue;
		}
		uint32_t i = pos[h];
		m->host[i] = rmi_dup_or_null(name, &oom);
		m->host_leaf[i] = rmi_dup_or_null(
			rmi_where_loc_name(&c->where, &c->info[h], name), &oom);
		m->host_unit[i] = rmi_dup_or_null(
			rmi_where_unit_name(&c->where, &c->info[h]), &oom);
	}
	if (oom) {
		free(pos);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}

	uint64_t stride[RM_NAXES];
	rm_status st = rmi_order_strides(&c->l, &c->ord, stride, err);
	if (st) {
		free(pos);
		return st;
	}
	uint32_t coord[RM_NAXES] = { 0 };
	uint64_t piece = 0;
	uint32_t lane = 0;
	for (uint64_t s = 0; s < world; s++) {
		rm_rank *r;
		if (c->o->baseline) {
			/* The framework's convention: coordinates from RANK. */
			r = &m->rank[s];
			rm_rank_decode(&c->l, &c->ord, (uint32_t)s, r->coord);
		} else {
			uint64_t rank = 0;
			for (int a = 0; a < RM_NAXES; a++)
				rank += coord[a] * stride[a];
			r = &m->rank[rank];
			memcpy(r->coord, coord, sizeof(coord));
			/* next slot: odometer in nesting order */
			for (unsigned i = 0; i < c->l.naxes; i++) {
				rm_axis a = c->l.nest[i];
				if (++coord[a] < c->l.size[a])
					break;
				coord[a] = 0;
			}
		}
		const rmi_piece *p = &c->best[piece];
		r->node = pos[p->host];
		r->local_gpu = p->off + lane;
		if (++lane == c->bg) {
			lane = 0;
			piece++;
		}
	}
	free(pos);
	return RM_OK;
}

/*
 * Rails with a must-block smaller than a node: a pipeline that leaves a
 * node leaves it from its last block and enters the next node at its
 * first, which sits on another rail. Running the blocks of every other
 * node backwards puts the two on the same local GPU index, so the pair
 * stays on one rail; TP groups, node choice and numbering are untouched.
 * Used when rm_check counts fewer crossings that way.
 */
static bool snake_may_help(const plan_ctx *c)
{
	uint32_t g = c->o->gpus_per_node;
	const rm_fabric *f = c->o->fabric;
	return !c->o->baseline && f && f->nunit > 0 && c->rules.must &&
	       c->rules.must < g && g % c->rules.must == 0 &&
	       c->l.size[RM_AXIS_PP] > 1;
}

/* The hosts span more than one top-level subtree (pods). */
static bool several_tops(const plan_ctx *c)
{
	if (c->o->baseline)
		return false;
	for (uint32_t i = 1; i < c->n; i++)
		if (c->info[i].top != c->info[0].top)
			return true;
	return false;
}

/* 1 / (GB/s per GPU after oversubscription) of tier i, 0 if unknown. */
static double tier_cost(const rm_fabric *f, size_t i)
{
	const rm_tier *t = &f->tier[i];
	if (t->gbytes_per_s <= 0)
		return 0;
	return (t->oversubscription >= 1 ? t->oversubscription : 1) /
	       t->gbytes_per_s;
}

/* Is map b better than a under the site's policy.crossings? */
static bool better(const rm_fabric *f, const rm_report *a, const rm_report *b)
{
	rm_cross_policy p = f ? f->cross_policy : RM_CROSS_CHEAPEST;
	if (p == RM_CROSS_CHEAPEST) {
		/* the two outermost tiers: leaving a leaf inside a pod, and
		 * leaving the pod; unknown figures mean leaves first */
		size_t n = f ? f->ntiers : 0;
		double in = n >= 3 ? tier_cost(f, n - 2) : 0;
		double out = n >= 3 ? tier_cost(f, n - 1) : 0;
		if (in > 0 && out > 0) {
			double ca = (double)(a->pp_cross - a->pp_cross_top) * in +
				    (double)a->pp_cross_top * out;
			double cb = (double)(b->pp_cross - b->pp_cross_top) * in +
				    (double)b->pp_cross_top * out;
			if (cb != ca)
				return cb < ca;
		}
		p = RM_CROSS_LEAVES_FIRST;
	}
	if (p == RM_CROSS_PODS_FIRST)
		return b->pp_cross_top < a->pp_cross_top ||
		       (b->pp_cross_top == a->pp_cross_top &&
			b->pp_cross < a->pp_cross);
	return b->pp_cross < a->pp_cross ||
	       (b->pp_cross == a->pp_cross && b->pp_cross_top < a->pp_cross_top);
}

/* Pieces per PP stride (0: PP is not a whole number of pieces apart). */
static uint64_t pp_step(const plan_ctx *c)
{
	uint64_t step = 1;
	int pos = rmi_nest_pos(&c->l, RM_AXIS_PP);
	for (int i = 0; i < pos; i++)
		step *= c->l.size[c->l.nest[i]];
	return pos >= 0 && step % c->bg == 0 ? step / c->bg : 0;
}

/* Score the pieces in c->tmp; keep them when better. */
static void keep_if_better(plan_ctx *c)
{
	rm_report r;
	memset(&r, 0, sizeof(r));
	uint64_t step = pp_step(c);
	/* PP inside a piece: no pair ever leaves a node */
	if (step)
		rmi_pieces_score(c->tmp, c->npiece, step,
				 c->l.size[RM_AXIS_PP], c->bg, c->info,
				 &r.pp_cross, &r.pp_cross_top);
	uint64_t ep = rmi_ep_cut(&c->ep, c->tmp, c->info);
	if (!c->have || ep < c->ep_cut ||
	    (ep == c->ep_cut && better(c->o->fabric, &c->score, &r))) {
		c->ep_cut = ep;
		rmi_piece *t = c->best;
		c->best = c->tmp;
		c->tmp = t;
		c->score = r;
		c->have = true;
	}
}

/* Score the cells in c->seq as pieces; keep them when better. */
static rm_status consider(plan_ctx *c, const rmi_cells *cl, uint64_t ncell,
			  bool snake, rm_error *err)
{
	uint32_t g = c->o->gpus_per_node;
	uint64_t w = rmi_cells_pieces(cl, c->seq, ncell, g, c->bg, snake,
				      c->tmp, c->npiece);
	if (w < c->npiece)
		return rmi_err(err, RM_ERULE,
			       "internal: a placement of %llu pieces, %llu wanted",
			       (unsigned long long)w,
			       (unsigned long long)c->npiece);
	keep_if_better(c);
	return RM_OK;
}

/*
 * Rails with TP below a node: the rail snake (rmi_rail_snake), whole
 * pipelines cut per unit, which the packings miss when a unit's blocks
 * hold whole pipelines but its nodes do not hold whole replicas.
 */
static rm_status try_rail_snake(plan_ctx *c, rm_error *err)
{
	uint32_t g = c->o->gpus_per_node;
	uint64_t step = pp_step(c), w = 0;
	if (!step)
		return RM_OK;
	rm_status st = rmi_rail_snake(c->info, c->n, g / c->bg, c->bg,
				      step * c->l.size[RM_AXIS_PP], c->tmp,
				      c->npiece, &w, err);
	if (!st && w == c->npiece)
		keep_if_better(c);
	return st;
}

/*
 * The orders a user gets without rankmap (rm_baseline: a sorted hostfile,
 * Slurm's switch ranks) as fills of whole nodes, so that no baseline the
 * CLI shows beside the plan beats it. Only where a cell is one node:
 * multi-node domains have their own cells.
 */
static rm_status try_orders(plan_ctx *c, rm_error *err)
{
	uint32_t g = c->o->gpus_per_node, per = g / c->bg;
	if (c->cells.c != 1)
		return RM_OK;
	uint32_t *ord = malloc(((size_t)c->n + 1) * sizeof(*ord));
	if (!ord)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	rm_status st = RM_OK;
	for (int k = RM_BASELINE_SORTED; !st && k <= RM_BASELINE_SWITCH_RANK;
	     k++) {
		rm_plan_options o = *c->o;
		o.baseline_kind = (rm_baseline)k;
		st = rmi_baseline_order(&o, c->sh, c->info, c->n, ord, err);
		for (int snake = 0; !st && snake <= snake_may_help(c); snake++) {
			uint64_t w = 0;
			for (uint32_t i = 0; i < c->n && w < c->npiece; i++)
				for (uint32_t b = 0; b < per && w < c->npiece;
				     b++)
					c->tmp[w++] = (rmi_piece){
						ord[i],
						(snake && i % 2 ? per - 1 - b : b) *
							c->bg };
			if (w == c->npiece)
				keep_if_better(c);
		}
	}
	free(ord);
	return st;
}

/* Pack `cl` (pods first when by_top) and consider it, rails also with
 * every other node's blocks reversed. */
static rm_status try_pack_on(plan_ctx *c, const rmi_hostinfo *info,
			     const rmi_cells *cl, bool by_top, rm_error *err)
{
	uint64_t cg = cl->blk ? cl->blk : (uint64_t)cl->c * c->o->gpus_per_node;
	uint64_t world = rm_layout_world(&c->l);
	uint64_t need = (world + cg - 1) / cg, nseq = 0;
	uint64_t u = unit_cells(replica_gpus(&c->l), cg, need);
	rm_status st = rmi_pack(info, cl, need, u, by_top, c->seq, &nseq,
				err);
	if (!st)
		st = consider(c, cl, nseq, false, err);
	if (!st && !cl->blk && snake_may_help(c))
		st = consider(c, cl, nseq, true, err);
	return st;
}

/* The simple fills over `cl`, each considered as it is. */
static rm_status try_pack(plan_ctx *c, const rmi_cells *cl, bool by_top,
			  rm_error *err)
{
	return try_pack_on(c, c->info, cl, by_top, err);
}

/* Rails, must-blocks as cells: a pipeline stays on its rail only inside
 * a node or at one offset, so packing each node as a leaf of its own
 * keeps whole replicas inside nodes. */
static rm_status try_pack_nodes(plan_ctx *c, rm_error *err)
{
	rmi_hostinfo *own = malloc(((size_t)c->n + 1) * sizeof(*own));
	if (!own)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	uint32_t base = rmi_where_nids(&c->where);
	for (uint32_t h = 0; h < c->n; h++) {
		own[h] = c->info[h];
		own[h].loc = base + h;
	}
	rm_status st = try_pack_on(c, own, &c->blocks, false, err);
	free(own);
	return st;
}

static rm_status try_floors(plan_ctx *c, const rmi_cells *cl, rm_error *err)
{
	uint64_t cg = cl->blk ? cl->blk : (uint64_t)cl->c * c->o->gpus_per_node;
	uint64_t world = rm_layout_world(&c->l);
	uint64_t need = (world + cg - 1) / cg;
	uint64_t u = unit_cells(replica_gpus(&c->l), cg, need);
	uint32_t *seq[3], *keep = c->seq;
	for (int i = 0; i < 3; i++)
		seq[i] = malloc((need + 1) * sizeof(uint32_t));
	rm_status st = seq[0] && seq[1] && seq[2]
			       ? rmi_floor_fill(c->info, cl, need, u, seq, err)
			       : rmi_err(err, RM_ENOMEM, "out of memory");
	for (int i = 0; i < 3 && !st; i++) {
		c->seq = seq[i];
		st = consider(c, cl, need, false, err);
		if (!st && !cl->blk && snake_may_help(c))
			st = consider(c, cl, need, true, err);
	}
	c->seq = keep;
	for (int i = 0; i < 3; i++)
		free(seq[i]);
	return st;
}

/* Each NVLink domain as a leaf (place_ep.c), where it applies. */
static rm_status try_domains(plan_ctx *c, rm_error *err)
{
	uint64_t need = 0;
	rm_status st = rmi_ep_domain_seq(&c->l, c->info, &c->cells,
					 c->o->gpus_per_node, c->seq, &need,
					 err);
	return st || !need ? st : consider(c, &c->cells, need, false, err);
}

/* The best so far meets both lower bounds: nothing can beat it under any
 * policy. The bounds are those rm_check reports. */
static rm_status at_bounds(plan_ctx *c, bool *yes, bool *top_ok,
			   rm_error *err)
{
	uint32_t nids = rmi_where_nids(&c->where), nd = c->where.ndom + c->n;
	bool merged, exact;
	rm_status st = RM_OK;
	if (!c->cap) {
		c->cap = calloc((size_t)nids + 1, sizeof(uint64_t));
		c->capt = calloc((size_t)nids + 1, sizeof(uint64_t));
		if (!c->cap || !c->capt)
			return rmi_err(err, RM_ENOMEM, "out of memory");
		st = rmi_bound_caps(c->info, c->n, c->o->gpus_per_node,
				    &c->rules, nids, nd, false, c->cap, &merged,
				    err);
		if (!st)
			st = rmi_bound_caps(c->info, c->n, c->o->gpus_per_node,
					    &c->rules, nids, nd, true, c->capt,
					    &merged, err);
	}
	*yes = *top_ok = false;
	if (st)
		return st;
	*top_ok = c->score.pp_cross_top == 0 ||
		  rmi_pp_lower_bound(&c->l, &c->rules, c->capt, nids,
				     c->score.pp_cross_top,
				     &exact) >= c->score.pp_cross_top;
	*yes = *top_ok &&
	       (c->score.pp_cross == 0 ||
		rmi_pp_lower_bound(&c->l, &c->rules, c->cap, nids,
				   c->score.pp_cross,
				   &exact) >= c->score.pp_cross);
	return RM_OK;
}

/*
 * The planner's packing first; when it is above a lower bound, the
 * alternatives: whole subtrees first (three-level trees), must-blocks as
 * cells (TP below a node: a node's blocks may go to different replicas
 * and part of a node may stay idle), and the simple fills as floors. The
 * best under policy.crossings wins; the first on a tie.
 */
static rm_status choose_hosts(plan_ctx *c, rm_error *err)
{
	uint32_t g = c->o->gpus_per_node;
	uint64_t world = rm_layout_world(&c->l);
	c->seq = malloc(((size_t)c->n + 1) * sizeof(*c->seq));
	if (!c->seq)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	if (c->o->baseline) {
		/* Slurm's block distribution over the nodes in the
		 * baseline's order. */
		c->bg = g;
		c->npiece = (world + g - 1) / g;
		c->best = malloc((c->npiece + 1) * sizeof(*c->best));
		uint32_t *pos = malloc(((size_t)c->n + 1) * sizeof(*pos));
		if (!c->best || !pos) {
			free(pos);
			return rmi_err(err, RM_ENOMEM, "out of memory");
		}
		rm_status st = rmi_baseline_order(c->o, c->sh, c->info, c->n,
						  pos, err);
		for (uint64_t i = 0; !st && i < c->npiece; i++)
			c->best[i] = (rmi_piece){ pos[i], 0 };
		free(pos);
		return st;
	}
	uint32_t must = (uint32_t)c->rules.must;
	c->bg = must && must < g && g % must == 0 ? must : g;
	c->npiece = (world + c->bg - 1) / c->bg;
	c->best = malloc((c->npiece + 1) * sizeof(*c->best));
	c->tmp = malloc((c->npiece + 1) * sizeof(*c->tmp));
	if (!c->best || !c->tmp)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	rm_status st = RM_OK;
	/* cut EP groups come first only where domains span nodes: on
	 * node domains PP crossings decide, as they always did */
	if (!c->rules.ep_must && !c->rules.node_domain)
		st = rmi_ep_init(&c->ep, &c->l, &c->ord, c->bg, err);
	if (!st)
		st = try_pack(c, &c->cells, false, err);
	bool done = false, top_ok = false;
	if (!st)
		st = at_bounds(c, &done, &top_ok, err);
	if (!st && c->ep.on)
		st = try_domains(c, err);
	if (st || (done && !c->ep_cut))
		return st;
	/* pods first can only differ where the pods are above their bound */
	bool tops = several_tops(c) && !top_ok;
	if (tops && (st = try_pack(c, &c->cells, true, err)))
		return st;
	const rmi_cells *fine = &c->cells;
	if (c->bg < g && world % c->bg == 0) {
		free(c->seq);
		c->seq = malloc(((size_t)c->n * (g / c->bg) + 1) *
				sizeof(*c->seq));
		if (!c->seq)
			return rmi_err(err, RM_ENOMEM, "out of memory");
		if ((st = rmi_cells_blocks(c->n, g, c->bg, &c->blocks, err)) ||
		    (st = try_pack(c, &c->blocks, false, err)) ||
		    (tops && (st = try_pack(c, &c->blocks, true, err))) ||
		    (c->o->fabric && c->o->fabric->nunit > 0 &&
		     (st = try_pack_nodes(c, err))) ||
		    (snake_may_help(c) && (st = try_rail_snake(c, err))))
			return st;
		fine = &c->blocks;
	}
	if ((st = try_floors(c, fine, err)) || (st = try_orders(c, err)))
		return st;
	return RM_OK;
}

static void inputs_digest(const plan_ctx *c, char hex[65])
{
	rm_sha256_ctx h;
	char buf[256], fd[65];
	rm_sha256_init(&h);
	int k = snprintf(buf, sizeof(buf), "rankmap-inputs/1\nlayout=");
	rm_sha256_add(&h, buf, (size_t)k);
	rm_layout_format(&c->l, buf, sizeof(buf));
	rm_sha256_add(&h, buf, strlen(buf));
	rm_order_format(&c->ord, buf, sizeof(buf));
	rm_sha256_add(&h, "\norder=", 7);
	rm_sha256_add(&h, buf, strlen(buf));
	if (c->fabric_digest && strlen(c->fabric_digest) == 64)
		memcpy(fd, c->fabric_digest, 65);
	else
		rm_fabric_digest(c->o->fabric, fd);
	k = snprintf(buf, sizeof(buf),
		     "\ngpus_per_node=%" PRIu32
		     "\nexact=%d\nbaseline=%d\nallow_missing=%d\nfabric=%s\nnodes=%zu\n",
		     c->o->gpus_per_node, c->o->exact, c->o->baseline,
		     c->o->allow_missing, fd, (size_t)c->n);
	rm_sha256_add(&h, buf, (size_t)k);
	/* Slurm's order is the only baseline whose result depends on the
	 * order the nodes were given in; the others hash its name (the
	 * text stays that of before kinds for Slurm's). */
	bool given = c->o->baseline &&
		     c->o->baseline_kind == RM_BASELINE_SLURM;
	if (c->o->baseline && !given) {
		k = snprintf(buf, sizeof(buf), "baseline_kind=%s\n",
			     rm_baseline_name(c->o->baseline_kind));
		rm_sha256_add(&h, buf, (size_t)k);
	}
	for (uint32_t i = 0; i < c->n; i++) {
		const char *name = given ? c->o->nodes[i] : c->sh[i].name;
		rm_sha256_add(&h, name, strlen(name));
		rm_sha256_add(&h, "\n", 1);
	}
	rm_sha256_end_hex(&h, hex);
}

static void ctx_free(plan_ctx *c)
{
	free(c->sh);
	free(c->info);
	free(c->seq);
	free(c->best);
	free(c->tmp);
	free(c->cap);
	free(c->capt);
	rmi_where_free(&c->where);
	rmi_cells_free(&c->cells);
	rmi_cells_free(&c->blocks);
	rmi_ep_free(&c->ep);
}

static rm_status plan(plan_ctx *c, rm_map *m, rm_error *err)
{
	const rm_plan_options *o = c->o;
	char q[96];
	c->sh = malloc((o->nnodes + 1) * sizeof(*c->sh));
	c->info = malloc((o->nnodes + 1) * sizeof(*c->info));
	if (!c->sh || !c->info)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	for (size_t i = 0; i < o->nnodes; i++)
		c->sh[i] = (sorted_host){ o->nodes[i], i };
	rmi_sort_hosts(c->sh, o->nnodes);
	for (uint32_t i = 1; i < c->n; i++)
		if (strcmp(c->sh[i - 1].name, c->sh[i].name) == 0)
			return rmi_err(err, RM_EINPUT,
				       "node %s is listed more than once",
				       rm_quote(c->sh[i].name,
						 strlen(c->sh[i].name), q,
						 sizeof(q)));
	rm_status st = rmi_where_init(&c->where, o->fabric, c->n, err);
	if (st)
		return st;
	for (uint32_t i = 0; i < c->n; i++)
		rmi_where_host(&c->where, c->sh[i].name, i, &c->info[i]);
	if ((st = check_missing(o, c->info, c->sh, c->n, err)) ||
	    (st = resolve_layout(c, err)))
		return st;
	uint64_t world = rm_layout_world(&c->l);
	if (world == 0 || world > RM_MAX_WORLD)
		return rmi_err(err, RM_EINPUT,
			       "plan: a world of %" PRIu64
			       " GPUs is outside 1..%u",
			       world, RM_MAX_WORLD);
	if (o->order) {
		c->ord = *o->order;
		c->ord.name[sizeof(c->ord.name) - 1] = '\0';
	} else {
		rm_order_from_nest(&c->l, &c->ord);
	}
	uint64_t stride[RM_NAXES];
	if ((st = rmi_order_strides(&c->l, &c->ord, stride, err)) ||
	    (st = choose_hosts(c, err)))
		return st;
	/* what only the choice needed goes before the map is built */
	free(c->seq);
	free(c->tmp);
	free(c->cap);
	free(c->capt);
	c->seq = NULL;
	c->tmp = NULL;
	c->cap = c->capt = NULL;
	rmi_cells_free(&c->blocks);
	if ((st = build_map(c, m, err)))
		return st;
	inputs_digest(c, m->inputs_sha256);
	return RM_OK;
}

rm_status rmi_place(const rm_plan_options *opts, const char *fabric_digest,
		    rm_map *m, rm_error *err)
{
	rm_status st = check_opts(opts, err);
	if (st)
		return st;
	plan_ctx c;
	memset(&c, 0, sizeof(c));
	c.o = opts;
	c.fabric_digest = fabric_digest;
	c.l = *opts->layout;
	c.n = (uint32_t)opts->nnodes;
	if ((st = rmi_layout_ok(&c.l, err)))
		return st;
	st = plan(&c, m, err);
	ctx_free(&c);
	return st;
}
