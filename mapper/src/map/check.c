/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check.c - rm_check: validate any rank map (ours, the baseline, or a
 * user's own assignment) and score it against the fabric. Every figure is
 * one linear pass over the ranks; groups are walked through the numbering
 * strides, so nothing here trusts the planner.
 */
#include "place/place.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct warns {
	char **v;
	size_t n, cap;
	bool oom;
} warns;

static void warn(warns *w, const char *fmt, ...) RMI_PRINTF(2, 3);
static void warn(warns *w, const char *fmt, ...)
{
	if (w->oom)
		return;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4;
		char **v = realloc(w->v, cap * sizeof(*v));
		if (!v) {
			w->oom = true;
			return;
		}
		w->v = v;
		w->cap = cap;
	}
	char buf[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!(w->v[w->n] = strdup(buf)))
		w->oom = true;
	else
		w->n++;
}

typedef struct ck {
	rm_map *m;
	const rm_fabric *f;
	uint64_t stride[RM_NAXES];
	uint64_t world;
	uint32_t g;
	rmi_where where;
	rmi_hostinfo *info;          /* hosts, then spares */
	uint32_t *stamp_a, *stamp_b;
	uint32_t nids;
	uint32_t mark;               /* last stamp handed out (spans) */
	rmi_rules rules;
	warns w;
} ck;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static rm_status check_names(const rm_map *m, rm_error *err)
{
	char q[96];
	size_t n = (size_t)m->nhost + m->nspare;
	const char **v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < m->nhost + m->nspare; i++) {
		const char *s = i < m->nhost ? m->host[i]
					     : m->spare[i - m->nhost];
		if (!s || !*s) {
			free(v);
			return rmi_err(err, RM_EINPUT,
				       "map: host %" PRIu32 " has no name", i);
		}
		v[i] = s;
	}
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 1; i < n; i++)
		if (strcmp(v[i - 1], v[i]) == 0) {
			rmi_err(err, RM_EINPUT,
				"map: host %s is listed more than once",
				rm_quote(v[i], strlen(v[i]), q, sizeof(q)));
			free(v);
			return RM_EINPUT;
		}
	free(v);
	return RM_OK;
}

static rm_status check_shape(ck *c, rm_error *err)
{
	rm_map *m = c->m;
	const rm_layout *l = &m->layout;
	if (l->dp_auto)
		return rmi_err(err, RM_EINPUT, "map: the layout is unresolved");
	rm_status st = rmi_layout_ok(l, err);
	if (st)
		return st;
	uint64_t w = 1;
	for (int a = 0; a < RM_NAXES; a++) {
		if (l->size[a] == 0)
			return rmi_err(err, RM_EINPUT,
				       "map: axis %s has size 0",
				       rm_axis_name((rm_axis)a));
		w *= l->size[a];
		if (w > RM_MAX_WORLD)
			return rmi_err(err, RM_EINPUT,
				       "map: the layout has more than %u GPUs",
				       RM_MAX_WORLD);
	}
	if (w != m->world)
		return rmi_err(err, RM_EINPUT,
			       "map: world is %" PRIu32
			       " but the layout multiplies to %" PRIu64,
			       m->world, w);
	if (m->gpus_per_node == 0 || m->gpus_per_node > 1024)
		return rmi_err(err, RM_EINPUT,
			       "map: %" PRIu32 " GPUs per node is out of range",
			       m->gpus_per_node);
	if (!m->rank || !m->host || m->nhost == 0 ||
	    (m->nspare && !m->spare))
		return rmi_err(err, RM_EINPUT, "map: no ranks or no hosts");
	if (m->nhost > RM_MAX_HOSTS || m->nspare > RM_MAX_HOSTS)
		return rmi_err(err, RM_EINPUT, "map: too many hosts");
	/* Idle slots are allowed, but not so many that the slot index
	 * becomes the biggest thing in memory. */
	uint64_t slots = (uint64_t)m->nhost * m->gpus_per_node;
	if (slots > 4 * w + (1u << 20))
		return rmi_err(err, RM_EINPUT,
			       "map: %" PRIu32 " hosts of %" PRIu32
			       " GPUs for only %" PRIu64 " ranks",
			       m->nhost, m->gpus_per_node, w);
	c->world = w;
	c->g = m->gpus_per_node;
	return rmi_order_strides(l, &m->order, c->stride, err);
}

/* Coordinates of the next RANK: the numbering order is a mixed radix,
 * so stepping a digit odometer avoids a division per rank and axis. */
static void next_coord(const rm_map *m, uint32_t coord[RM_NAXES])
{
	for (unsigned i = 0; i < m->order.naxes; i++) {
		rm_axis a = m->order.axis[i];
		if (++coord[a] < m->layout.size[a])
			return;
		coord[a] = 0;
	}
}

static rm_status check_ranks(ck *c, rm_error *err)
{
	rm_map *m = c->m;
	char q[96];
	uint64_t slots = (uint64_t)m->nhost * c->g;
	free(m->slot_rank);
	m->slot_rank = malloc((slots + 1) * sizeof(uint32_t));
	if (!m->slot_rank)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	memset(m->slot_rank, 0xff, (slots + 1) * sizeof(uint32_t));
	uint32_t coord[RM_NAXES] = { 0 };
	for (uint64_t r = 0; r < c->world; r++) {
		const rm_rank *k = &m->rank[r];
		if (k->node >= m->nhost)
			return rmi_err(err, RM_EINPUT,
				       "map: rank %" PRIu64
				       " is on host %" PRIu32
				       ", but the map has %" PRIu32 " hosts",
				       r, k->node, m->nhost);
		const char *h = m->host[k->node];
		if (k->local_gpu >= c->g)
			return rmi_err(err, RM_EINPUT,
				       "map: rank %" PRIu64
				       " is on GPU %" PRIu32
				       " of %s, which has GPUs 0..%" PRIu32,
				       r, k->local_gpu,
				       rm_quote(h, strlen(h), q, sizeof(q)),
				       c->g - 1);
		uint32_t *slot = &m->slot_rank[(uint64_t)k->node * c->g +
					       k->local_gpu];
		if (*slot != UINT32_MAX)
			return rmi_err(err, RM_EINPUT,
				       "map: ranks %" PRIu32 " and %" PRIu64
				       " both use GPU %" PRIu32 " of %s",
				       *slot, r, k->local_gpu,
				       rm_quote(h, strlen(h), q, sizeof(q)));
		*slot = (uint32_t)r;
		if (memcmp(k->coord, coord, sizeof(coord)) != 0)
			for (int a = 0; a < RM_NAXES; a++)
				if (k->coord[a] != coord[a])
					return rmi_err(err, RM_EINPUT,
						       "map: rank %" PRIu64
						       " has %s=%" PRIu32
						       " but numbering order %.31s gives %s=%" PRIu32,
						       r, rm_axis_name((rm_axis)a),
						       k->coord[a], m->order.name,
						       rm_axis_name((rm_axis)a),
						       coord[a]);
		next_coord(m, coord);
	}
	return RM_OK;
}

static const rmi_hostinfo *at(const ck *c, uint64_t r)
{
	return &c->info[c->m->rank[r].node];
}

/* Groups along `a` whose members do not all share one NVLink domain. */
static uint64_t split_groups(ck *c, rm_axis a, uint64_t *first)
{
	uint32_t sz = c->m->layout.size[a];
	uint64_t split = 0;
	*first = UINT64_MAX;
	if (sz <= 1)
		return 0;
	uint32_t coord[RM_NAXES] = { 0 };
	for (uint64_t r = 0; r < c->world; r++, next_coord(c->m, coord)) {
		if (coord[a] != 0)
			continue;
		uint64_t d = at(c, r)->dom;
		for (uint32_t i = 1; i < sz; i++)
			if (at(c, r + i * c->stride[a])->dom != d) {
				if (!split)
					*first = r;
				split++;
				break;
			}
	}
	return split;
}

static void warn_split(ck *c, const char *axis, uint64_t split,
		       uint64_t groups, uint64_t first, rm_axis a)
{
	if (!split)
		return;
	rm_map *m = c->m;
	const char *h0 = m->host[m->rank[first].node];
	uint64_t other = first;
	for (uint32_t i = 1; i < m->layout.size[a]; i++) {
		uint64_t r = first + i * c->stride[a];
		if (at(c, r)->dom != at(c, first)->dom) {
			other = r;
			break;
		}
	}
	const char *h1 = m->host[m->rank[other].node];
	char q0[80], q1[80];
	warn(&c->w,
	     "%" PRIu64 " of %" PRIu64
	     " %s groups leave their NVLink domain (the first has rank %" PRIu64
	     " on %s and rank %" PRIu64 " on %s)",
	     split, groups, axis, first, rm_quote(h0, strlen(h0), q0, 80),
	     other, rm_quote(h1, strlen(h1), q1, 80));
}

static void score_pp(ck *c, rm_report *rep)
{
	const rm_layout *l = &c->m->layout;
	uint32_t pp = l->size[RM_AXIS_PP];
	if (pp <= 1)
		return;
	uint64_t s = c->stride[RM_AXIS_PP];
	rep->pp_pairs = c->world / pp * (pp - 1);
	uint32_t coord[RM_NAXES] = { 0 };
	for (uint64_t r = 0; r < c->world; r++, next_coord(c->m, coord)) {
		if (coord[RM_AXIS_PP] == pp - 1)
			continue;
		const rm_rank *a = &c->m->rank[r], *b = &c->m->rank[r + s];
		const rmi_hostinfo *x = &c->info[a->node],
				   *y = &c->info[b->node];
		bool rail = a->local_gpu == b->local_gpu, near;
		rep->pp_rail_aligned += rail;
		if (a->node != b->node && x->top != y->top)
			rep->pp_cross_top++;
		if (a->node == b->node) {
			rep->pp_same_node++;
			continue;
		}
		if (x->unit >= 0 || y->unit >= 0)
			rep->pp_same_rail += near = x->unit == y->unit && rail;
		else
			rep->pp_same_leaf += near = x->loc == y->loc;
		/* A crossing is on the tier where its two ends meet: under
		 * one lone root that is the top tier (the spine) itself. */
		if (!near && x->top == y->top && c->where.pods)
			rep->pp_cross_pod++;
		else if (!near)
			rep->pp_cross_spine++;
	}
	rep->pp_cross = rep->pp_pairs - rep->pp_same_node -
			rep->pp_same_leaf - rep->pp_same_rail;
}

/* Leaves and top-level subtrees used by groups, for max and mean. */
typedef struct spans {
	uint64_t groups, leaves, tops;
	uint32_t leaves_max, tops_max, nl, nt;
} spans;

/* Start a group: its members are stamped with a mark of their own, so
 * the stamps never need clearing. */
static void span_begin(ck *c, spans *s)
{
	c->mark++;
	s->nl = s->nt = 0;
}

static void span_add(ck *c, spans *s, uint64_t rank)
{
	const rmi_hostinfo *h = at(c, rank);
	if (c->stamp_a[h->loc] != c->mark) {
		c->stamp_a[h->loc] = c->mark;
		s->nl++;
	}
	if (c->stamp_b[h->top] != c->mark) {
		c->stamp_b[h->top] = c->mark;
		s->nt++;
	}
}

static void span_end(spans *s)
{
	s->groups++;
	s->leaves += s->nl;
	s->tops += s->nt;
	if (s->nl > s->leaves_max)
		s->leaves_max = s->nl;
	if (s->nt > s->tops_max)
		s->tops_max = s->nt;
}

/* The figures the report keeps of them. */
static void span_put(const spans *s, uint32_t *groups, uint32_t *leaves_max,
		     double *leaves_mean, uint32_t *tops_max, double *tops_mean)
{
	double n = s->groups ? (double)s->groups : 1;
	*groups = (uint32_t)s->groups;
	*leaves_max = s->leaves_max;
	*tops_max = s->tops_max;
	*leaves_mean = (double)s->leaves / n;
	*tops_mean = (double)s->tops / n;
}

static void score_dp(ck *c, rm_report *rep)
{
	const rm_layout *l = &c->m->layout;
	uint32_t dp = l->size[RM_AXIS_DP];
	uint64_t s = c->stride[RM_AXIS_DP];
	spans sp = { 0 };
	rep->dp_pairs = dp > 1 ? c->world / dp * (dp - 1) : 0;
	uint32_t coord[RM_NAXES] = { 0 };
	for (uint64_t r = 0; r < c->world; r++, next_coord(c->m, coord)) {
		if (coord[RM_AXIS_DP] != 0)
			continue;
		span_begin(c, &sp);
		for (uint32_t i = 0; i < dp; i++) {
			uint64_t q = r + i * s;
			span_add(c, &sp, q);
			if (i + 1 < dp && c->m->rank[q].local_gpu ==
						  c->m->rank[q + s].local_gpu)
				rep->dp_rail_aligned++;
		}
		span_end(&sp);
	}
	span_put(&sp, &rep->dp_groups, &rep->dp_leaves_max,
		 &rep->dp_leaves_mean, &rep->dp_tops_max, &rep->dp_tops_mean);
}

/* "4 of 64 EP groups are cut across NVLink domains: group 1 (ranks
 * 8..15) on nvl01n17 and nvl02n01, ..." - the first few, by name. */
static void warn_ep_cut(ck *c, const rm_groups *g, uint64_t cut,
			const uint32_t *named)
{
	char list[600], q0[80], q1[80];
	size_t o = 0;
	list[0] = '\0';
	for (uint64_t i = 0; i < cut && i < 3 && o < sizeof(list); i++) {
		const uint32_t *m = g->rank + (uint64_t)named[i] * g->size;
		uint32_t j = 1;
		while (j + 1 < g->size && at(c, m[j])->dom == at(c, m[0])->dom)
			j++;
		const char *h0 = c->m->host[c->m->rank[m[0]].node];
		const char *h1 = c->m->host[c->m->rank[m[j]].node];
		o += (size_t)snprintf(list + o, sizeof(list) - o,
				      "%sgroup %" PRIu32 " (ranks %" PRIu32
				      " and %" PRIu32 " on %s and %s)",
				      i ? ", " : "", named[i], m[0], m[j],
				      rm_quote(h0, strlen(h0), q0, 80),
				      rm_quote(h1, strlen(h1), q1, 80));
	}
	warn(&c->w,
	     "%" PRIu64 " of %" PRIu32
	     " EP groups are cut across NVLink domains (their all-to-all leaves NVLink): %s%s",
	     cut, g->ngroups, list, cut > 3 ? ", ..." : "");
}

/* The framework's EP groups (Megatron-Core's expert numbering, not the
 * placement axis): their all-to-all runs on the tiers they span. */
static rm_status score_ep(ck *c, rm_report *rep, rm_error *err)
{
	if (rm_layout_ep(&c->m->layout) <= 1)
		return RM_OK;
	rm_groups g;
	rm_status st = rm_map_groups(c->m, RM_GROUP_EP, &g, err);
	if (st)
		return st;
	spans sp = { 0 };
	uint64_t cut = 0;
	uint32_t named[3];
	for (uint32_t k = 0; k < g.ngroups; k++) {
		const uint32_t *m = g.rank + (uint64_t)k * g.size;
		span_begin(c, &sp);
		bool split = false;
		for (uint32_t i = 0; i < g.size; i++) {
			span_add(c, &sp, m[i]);
			split = split || at(c, m[i])->dom != at(c, m[0])->dom;
		}
		span_end(&sp);
		if (split && cut < 3)
			named[cut] = k;
		cut += split;
	}
	rep->ep_split = cut;
	if (rep->ep_scored && cut)
		warn_ep_cut(c, &g, cut, named);
	rm_groups_clear(&g);
	span_put(&sp, &rep->ep_groups, &rep->ep_leaves_max,
		 &rep->ep_leaves_mean, &rep->ep_tops_max, &rep->ep_tops_mean);
	return RM_OK;
}

static rm_status locate(ck *c, rm_error *err)
{
	rm_map *m = c->m;
	uint32_t n = m->nhost + m->nspare;
	rm_status st = rmi_where_init(&c->where, c->f, n, err);
	if (st)
		return st;
	c->nids = rmi_where_nids(&c->where);
	c->info = malloc(((size_t)n + 1) * sizeof(*c->info));
	c->stamp_a = calloc((size_t)c->nids + 1, sizeof(uint32_t));
	c->stamp_b = calloc((size_t)c->nids + 1, sizeof(uint32_t));
	if (!c->info || !c->stamp_a || !c->stamp_b)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	uint32_t miss = 0;
	char list[300], q[80];
	size_t off = 0;
	list[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		const char *h = i < m->nhost ? m->host[i] : m->spare[i - m->nhost];
		rmi_where_host(&c->where, h, i, &c->info[i]);
		if (!c->info[i].missing)
			continue;
		if (miss++ < 4)
			off += (size_t)snprintf(list + off, sizeof(list) - off,
						"%s%s", miss > 1 ? ", " : "",
						rm_quote(h, strlen(h), q,
							  sizeof(q)));
	}
	if (!c->f || (!c->f->has_tree && !c->f->has_blocks))
		warn(&c->w, "no topology: assuming one flat switch");
	if (miss)
		warn(&c->w,
		     "%" PRIu32 " host%s not in the topology (%s%s): each counted as a leaf switch of its own",
		     miss, miss == 1 ? " is" : "s are", list,
		     miss > 4 ? ", ..." : "");
	return RM_OK;
}

static void score(ck *c, rm_report *rep)
{
	rm_map *m = c->m;
	const rm_layout *l = &m->layout;
	uint64_t first;
	rep->world = m->world;
	rep->tp_groups = c->world / l->size[RM_AXIS_TP];
	rep->tp_split = split_groups(c, RM_AXIS_TP, &first);
	warn_split(c, "TP", rep->tp_split, rep->tp_groups, first, RM_AXIS_TP);
	rep->cp_must = c->rules.cp_must;
	rep->ep_must = c->rules.ep_must;
	rep->cp_split = split_groups(c, RM_AXIS_CP, &first);
	if (rep->cp_must)
		warn_split(c, "CP", rep->cp_split,
			   c->world / l->size[RM_AXIS_CP], first, RM_AXIS_CP);
	/* the must-rule holds the blocks the planner keeps whole; score_ep
	 * then counts the real (Megatron-Core) EP groups */
	rep->ep_split = split_groups(c, RM_AXIS_EP, &first);
	if (rep->ep_must)
		warn_split(c, "EP", rep->ep_split,
			   c->world / l->size[RM_AXIS_EP], first, RM_AXIS_EP);
	rep->must_ok = rep->tp_split == 0 &&
		       (!rep->cp_must || rep->cp_split == 0) &&
		       (!rep->ep_must || rep->ep_split == 0);
	rep->ep_scored = !rep->ep_must && !c->rules.node_domain &&
			 rm_layout_ep(l) > 1;
	score_pp(c, rep);
	score_dp(c, rep);

	/* Distinct leaves and subtrees of the hosts; a mark of their own. */
	uint32_t mark = ++c->mark;
	for (uint32_t i = 0; i < m->nhost; i++) {
		if (c->stamp_a[c->info[i].loc] != mark) {
			c->stamp_a[c->info[i].loc] = mark;
			rep->leaves++;
		}
		if (c->stamp_b[c->info[i].top] != mark) {
			c->stamp_b[c->info[i].top] = mark;
			rep->tops++;
		}
	}
}

/* Idle GPUs on the hosts the map uses, and how many hosts have some. */
static rm_status idle_gpus(const rm_map *m, uint32_t g, rm_report *rep,
			   rm_error *err)
{
	uint32_t *per = calloc((size_t)m->nhost + 1, sizeof(*per));
	if (!per)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	for (uint32_t r = 0; r < m->world; r++)
		per[m->rank[r].node]++;
	for (uint32_t i = 0; i < m->nhost; i++)
		if (per[i] < g) {
			rep->gpus_idle += g - per[i];
			rep->nodes_part_idle++;
		}
	free(per);
	return RM_OK;
}

static rm_status lower_bound(ck *c, rm_report *rep, rm_error *err)
{
	uint64_t *cap = calloc((size_t)c->nids + 1, sizeof(uint64_t));
	uint64_t *top = calloc((size_t)c->nids + 1, sizeof(uint64_t));
	if (!cap || !top) {
		free(cap);
		free(top);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	/* Spares count too: a plan could have used them instead. */
	uint32_t n = c->m->nhost + c->m->nspare;
	bool merged, mt, exact;
	rm_status st = rmi_bound_caps(c->info, n, c->g, &c->rules, c->nids,
				      c->where.ndom + n, false, cap, &merged,
				      err);
	if (!st)
		st = rmi_bound_caps(c->info, n, c->g, &c->rules, c->nids,
				    c->where.ndom + n, true, top, &mt, err);
	if (!st) {
		rep->pp_cross_lower_bound = rmi_pp_lower_bound(
			&c->m->layout, &c->rules, cap, c->nids, rep->pp_cross,
			&rep->pp_bound_exact);
		/* proven only by a map that meets it */
		if (merged)
			rep->pp_bound_exact = rep->pp_cross_lower_bound ==
					      rep->pp_cross;
		rep->pp_cross_top_lower_bound = rmi_pp_lower_bound(
			&c->m->layout, &c->rules, top, c->nids,
			rep->pp_cross_top, &exact);
	}
	free(cap);
	free(top);
	return st;
}

rm_status rm_check(rm_map *map, const rm_fabric *fabric, rm_error *err)
{
	if (!map)
		return rmi_err(err, RM_EINPUT, "check: no map given");
	rmi_strv_free(map->report.warning, map->report.nwarning);
	memset(&map->report, 0, sizeof(map->report));
	ck c;
	memset(&c, 0, sizeof(c));
	c.m = map;
	c.f = fabric;
	rm_report rep;
	memset(&rep, 0, sizeof(rep));
	rm_status st = check_shape(&c, err);
	if (!st)
		st = check_names(map, err);
	if (!st)
		st = check_ranks(&c, err);
	if (!st)
		st = rmi_rules_get(&map->layout, fabric, c.g, &c.rules, err);
	if (!st)
		st = locate(&c, err);
	/* EP as a must-rule only where the domains of the allocation
	 * (spares too: the planner had them) hold the world in EP blocks */
	if (!st)
		st = rmi_rules_fit_ep(&map->layout, c.info,
				      map->nhost + map->nspare, c.g, c.world,
				      &c.rules, err);
	if (!st) {
		score(&c, &rep);
		st = score_ep(&c, &rep, err);
		if (!st)
			st = lower_bound(&c, &rep, err);
		if (!st)
			st = idle_gpus(map, c.g, &rep, err);
	}
	if (!st && c.w.oom)
		st = rmi_err(err, RM_ENOMEM, "out of memory");
	if (!st) {
		rep.warning = c.w.v;
		rep.nwarning = c.w.n;
		map->report = rep;
	} else {
		rmi_strv_free(c.w.v, c.w.n);
	}
	rmi_where_free(&c.where);
	free(c.info);
	free(c.stamp_a);
	free(c.stamp_b);
	return st;
}
