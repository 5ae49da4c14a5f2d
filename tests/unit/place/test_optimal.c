/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_optimal.c - is the plan ever beaten? On 1,200 seeded random fabrics
 * (one spine over uneven leaves, or pods of leaves; random allocations
 * with spares; sometimes nodes the topology does not know; sometimes rail
 * units) the plan's PP crossings are compared with what this file works
 * out on its own:
 *  - its own scorer over the plan's host order must give rm_check's count;
 *  - two greedy placements written here (leaf order, and whole replicas
 *    first then the largest leftovers) must never cross less;
 *  - where the node orders can be enumerated, none may cross less
 *    than the plan on a tree without rail units, and rm_check's lower
 *    bound must never exceed the best one found;
 *  - when the lower bound is reported exact, the plan must reach it on a
 *    tree without rail units.
 * A failure prints the seed and the fabric so that it replays.
 */
#include "internal.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "xorshift.h"
#include "search.h"

#define MAXN 160
#define MAXL 24

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	return xorshift_below(&rng, n);
}

typedef struct fab {
	char topo[8192];
	char name[MAXN][48];
	int leaf[MAXN];              /* leaf index per node */
	int pod[MAXN];
	uint32_t nnode, nleaf;
	bool units;                  /* each pod is a rail unit */
	char unit_nodes[4][2048];
	uint32_t npod;
} fab;

/* One spine over 1-8 leaves, or 2-3 pods of 1-4 leaves; leaves of 1-12
 * nodes (small ones often, so that enumeration is possible). */
static void make_fab(fab *f, bool small)
{
	memset(f, 0, sizeof(*f));
	bool pods = rnd(3) == 0;
	f->npod = pods ? 2 + rnd(2) : 1;
	for (uint32_t p = 0; p < f->npod; p++) {
		uint32_t nl = pods ? 1 + rnd(4) : 1 + rnd(small ? 5 : 8);
		for (uint32_t l = 0; l < nl; l++) {
			uint32_t nn = 1 + rnd(small ? 5 : 12);
			uint32_t li = f->nleaf++;
			cat(f->topo, sizeof(f->topo),
			    "SwitchName=s%u Nodes=p%ul%un[1-%u]\n", li, p, l,
			    nn);
			for (uint32_t i = 1; i <= nn; i++) {
				uint32_t k = f->nnode++;
				snprintf(f->name[k], sizeof(f->name[k]),
					 "p%ul%un%u", p, l, i);
				f->leaf[k] = (int)li;
				f->pod[k] = (int)p;
				cat(f->unit_nodes[p], sizeof(f->unit_nodes[p]),
				    "%s%s", f->unit_nodes[p][0] ? "," : "",
				    f->name[k]);
			}
		}
		if (pods)
			cat(f->topo, sizeof(f->topo),
			    "SwitchName=pod%u Switches=s[%u-%u]\n", p,
			    f->nleaf - nl, f->nleaf - 1);
	}
	if (!pods)
		cat(f->topo, sizeof(f->topo), "SwitchName=spine Switches=s[0-%u]\n",
		    f->nleaf - 1);
}

typedef struct shape {
	uint32_t g, inner, pp, world;   /* inner = tp x cp */
} shape;

/* Where each allocated node sits, as this test knows it. */
typedef struct alloc {
	const char *name[MAXN];
	int leaf[MAXN], unit[MAXN];
	uint32_t n;
} alloc;

/* PP pairs that leave their leaf (or, with rail units, their unit and
 * rail) when slot s lives on node seq[s / g] at GPU s % g. */
static uint64_t score(const shape *s, const int *leaf, const int *unit,
		      const uint32_t *seq)
{
	uint64_t cross = 0;
	uint32_t stride = s->inner;
	for (uint32_t x = 0; x + stride < s->world; x++) {
		if ((x / stride) % s->pp == s->pp - 1)
			continue;
		uint32_t y = x + stride;
		uint32_t a = seq[x / s->g], b = seq[y / s->g];
		if (a == b)
			continue;
		bool same = unit[a] >= 0 || unit[b] >= 0
				    ? unit[a] == unit[b] && x % s->g == y % s->g
				    : leaf[a] == leaf[b];
		cross += !same;
	}
	return cross;
}

/* The same count over a map as it is, whatever GPU each rank got:
 * follow every rank to its next stage through the numbering order.
 * host[h] is the allocation index of the map's host h. */
static uint64_t score_map(const rm_map *m, const int *leaf, const int *unit,
			  const uint32_t *host)
{
	uint64_t cross = 0;
	uint32_t pp = m->layout.size[RM_AXIS_PP];
	for (uint32_t r = 0; r < m->world; r++) {
		uint32_t c[RM_NAXES];
		rm_rank_decode(&m->layout, &m->order, r, c);
		if (c[RM_AXIS_PP] + 1 >= pp)
			continue;
		c[RM_AXIS_PP]++;
		const rm_rank *x = &m->rank[r],
			      *y = &m->rank[rm_rank_encode(&m->layout,
							   &m->order, c)];
		if (x->node == y->node)
			continue;
		uint32_t a = host[x->node], b = host[y->node];
		bool same = unit[a] >= 0 || unit[b] >= 0
				    ? unit[a] == unit[b] &&
					      x->local_gpu == y->local_gpu
				    : leaf[a] == leaf[b];
		cross += !same;
	}
	return cross;
}

/* Every rank sits at GPU (node * g + local) = its slot in nesting
 * order: the plan filled whole nodes one after the other. */
static bool slot_order(const rm_map *m)
{
	for (uint32_t r = 0; r < m->world; r++) {
		uint64_t slot = 0, mul = 1;
		for (unsigned i = 0; i < m->layout.naxes; i++) {
			rm_axis a = m->layout.nest[i];
			slot += m->rank[r].coord[a] * mul;
			mul *= m->layout.size[a];
		}
		if ((uint64_t)m->rank[r].node * m->gpus_per_node +
			    m->rank[r].local_gpu != slot)
			return false;
	}
	return true;
}

static int cmp_desc_pair(const void *x, const void *y)
{
	const uint32_t *a = x, *b = y;
	if (a[0] != b[0])
		return a[0] > b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Nodes of each leaf in allocation order, leaves by index. */
static uint32_t by_leaf(const alloc *a, uint32_t *seq)
{
	uint32_t k = 0;
	for (int l = 0; l < MAXL + MAXN; l++)
		for (uint32_t i = 0; i < a->n; i++)
			if (a->leaf[i] == l)
				seq[k++] = i;
	return k;
}

/* Greedy 2: whole replicas of r nodes from each leaf (biggest leaf
 * first), then what is left of the leaves, biggest leftovers first, laid
 * end to end. */
static void greedy_whole(const alloc *a, uint32_t r, uint32_t *seq)
{
	static uint32_t node[MAXL + MAXN][MAXN];
	uint32_t cnt[MAXL + MAXN][2], nn[MAXL + MAXN] = { 0 };
	uint32_t next[MAXL + MAXN] = { 0 }, nl = 0, k = 0;
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t l = (uint32_t)a->leaf[i];
		node[l][nn[l]++] = i;
		if (l + 1 > nl)
			nl = l + 1;
	}
	for (uint32_t l = 0; l < nl; l++) {
		cnt[l][0] = nn[l] / r * r;
		cnt[l][1] = l;
	}
	qsort(cnt, nl, sizeof(cnt[0]), cmp_desc_pair);
	for (uint32_t i = 0; i < nl; i++)
		for (uint32_t l = cnt[i][1], c = 0; c < cnt[i][0]; c++)
			seq[k++] = node[l][next[l]++];
	for (uint32_t l = 0; l < nl; l++) {
		cnt[l][0] = nn[l] - next[l];
		cnt[l][1] = l;
	}
	qsort(cnt, nl, sizeof(cnt[0]), cmp_desc_pair);
	for (uint32_t i = 0; i < nl; i++)
		for (uint32_t l = cnt[i][1], c = 0; c < cnt[i][0]; c++)
			seq[k++] = node[l][next[l]++];
}

typedef struct bf {
	const shape *s;
	const alloc *a;
	uint32_t n;                  /* node positions to fill */
	uint32_t *w;                 /* w[i * n + j]: PP pairs between them */
	uint32_t cap[MAXL + MAXN], left[MAXL + MAXN], nl;
	int lab[MAXN];
	budget bud;
} bf;

/* Leaf labels position by position; a label that has not been used yet
 * is tried only for the first leaf of each capacity (leaves of equal
 * size are interchangeable). */
static void bf_go(bf *b, uint32_t pos, uint64_t cost)
{
	if (!budget_go_on(&b->bud, cost, pos == b->n))
		return;
	bool fresh_cap[MAXN + 1] = { false };
	for (uint32_t l = 0; l < b->nl; l++) {
		if (!b->left[l])
			continue;
		if (b->left[l] == b->cap[l]) {
			if (fresh_cap[b->cap[l]])
				continue;
			fresh_cap[b->cap[l]] = true;
		}
		uint64_t c = cost;
		for (uint32_t i = 0; i < pos; i++)
			if (b->lab[i] != (int)l)
				c += b->w[i * b->n + pos];
		b->left[l]--;
		b->lab[pos] = (int)l;
		bf_go(b, pos + 1, c);
		b->left[l]++;
	}
}

/* The fewest crossings over every choice and order of nodes (no rail
 * units), if that takes at most `limit` steps; UINT64_MAX otherwise.
 * Only looks for orders below `below`. */
static uint64_t brute(const shape *s, const alloc *a, uint64_t below,
		      uint64_t limit)
{
	bf b;
	memset(&b, 0, sizeof(b));
	b.s = s;
	b.a = a;
	b.n = (s->world + s->g - 1) / s->g;
	b.bud.best = below;
	b.bud.limit = limit;
	b.w = calloc((size_t)b.n * b.n + 1, sizeof(uint32_t));
	for (uint32_t x = 0; x + s->inner < s->world; x++) {
		if ((x / s->inner) % s->pp == s->pp - 1)
			continue;
		uint32_t i = x / s->g, j = (x + s->inner) / s->g;
		if (i != j)
			b.w[(i < j ? i : j) * b.n + (i < j ? j : i)]++;
	}
	for (uint32_t i = 0; i < a->n; i++) {
		uint32_t l = (uint32_t)a->leaf[i];
		if (l + 1 > b.nl)
			b.nl = l + 1;
		b.cap[l]++;
	}
	memcpy(b.left, b.cap, sizeof(b.cap));
	bf_go(&b, 0, 0);
	free(b.w);
	return b.bud.gave_up ? UINT64_MAX : b.bud.best;
}

typedef struct tally {
	unsigned fabrics, planned, at_bound, exact, enumerated, beaten;
} tally;

static void one(unsigned iter, tally *t)
{
	fab f;
	bool small = rnd(2);
	make_fab(&f, small);
	uint32_t g = rnd(3) ? 8 : 4;
	rm_fabric *fb = NULL;
	rm_error e = { 0 };
	rm_fabric_new(&fb, &e);
	CHECK_INT(rm_fabric_parse_topology(fb, f.topo, strlen(f.topo),
					   "rand.conf", &e), RM_OK);
	f.units = f.npod > 1 && rnd(4) == 0;
	if (f.units) {
		char *un[4] = { "su0", "su1", "su2", "su3" }, *nodes[4];
		for (uint32_t p = 0; p < f.npod; p++)
			nodes[p] = f.unit_nodes[p];
		CHECK_INT(fixture_units(fb, g, un, nodes, f.npod, &e), RM_OK);
	}
	alloc a;
	a.n = 0;
	for (uint32_t i = 0; i < f.nnode; i++)
		if (rnd(5)) {
			a.name[a.n] = f.name[i];
			a.leaf[a.n] = f.leaf[i];
			a.unit[a.n++] = f.units ? f.pod[i] : -1;
		}
	bool missing = rnd(6) == 0;
	static const char *extra[] = { "zz1", "zz2" };
	for (uint32_t k = 0; missing && k < 1 + rnd(2); k++) {
		a.name[a.n] = extra[k];
		a.leaf[a.n] = MAXL + (int)k;
		a.unit[a.n++] = -1;
	}
	if (a.n == 0) {
		rm_fabric_free(fb);
		return;
	}
	t->fabrics++;
	uint32_t tp = g >> rnd(3), cp = rnd(6) == 0 && tp > 1 ? 2 : 1;
	if (cp == 2)
		tp /= 2;
	uint32_t pp = 1 + rnd(8);
	char lay[96];
	if (cp > 1)
		snprintf(lay, sizeof(lay), "tp=%u,cp=%u,pp=%u,dp=auto", tp, cp,
			 pp);
	else
		snprintf(lay, sizeof(lay), "tp=%u,pp=%u,dp=auto", tp, pp);
	rm_map *m = plan_random(lay, a.name, a.n, g, fb, missing);
	if (!m) {
		rm_fabric_free(fb);
		return;
	}
	t->planned++;
	const rm_report *r = &m->report;
	shape s = { g, tp * cp, pp, m->world };
	/* the plan's host order, as indices into the allocation */
	uint32_t seq[MAXN];
	for (uint32_t h = 0; h < m->nhost; h++)
		for (uint32_t i = 0; i < a.n; i++)
			if (strcmp(m->host[h], a.name[i]) == 0)
				seq[h] = i;
	uint64_t mine = score_map(m, a.leaf, a.unit, seq);
	CHECK_INT(mine, r->pp_cross);
	/* without rail units the GPUs inside a node do not matter: a plan
	 * that fills whole nodes in slot order is scored as the greedy
	 * orders below (one that uses must-blocks as cells is not) */
	if (!f.units && slot_order(m))
		CHECK_INT(score(&s, a.leaf, a.unit, seq), r->pp_cross);
	CHECK(r->pp_cross >= r->pp_cross_lower_bound);
	t->at_bound += r->pp_cross == r->pp_cross_lower_bound;
	t->exact += r->pp_bound_exact;

	uint32_t g1[MAXN], g2[MAXN];
	by_leaf(&a, g1);
	uint32_t rn = (tp * cp * pp + g - 1) / g;
	greedy_whole(&a, rn ? rn : 1, g2);
	uint64_t s1 = score(&s, a.leaf, a.unit, g1);
	uint64_t s2 = score(&s, a.leaf, a.unit, g2);
	CHECK(r->pp_cross <= s1);
	CHECK(r->pp_cross <= s2);
	t->beaten += r->pp_cross > s1 || r->pp_cross > s2;

	if (!f.units && r->pp_bound_exact && (tp * cp) % g == 0)
		CHECK_INT(r->pp_cross, r->pp_cross_lower_bound);
	if (!f.units && m->nhost <= 14) {
		/* search only below the plan: finding anything is a failure */
		uint64_t b = brute(&s, &a, r->pp_cross, 400000);
		if (b != UINT64_MAX) {
			t->enumerated++;
			CHECK_INT(b, r->pp_cross);
			CHECK(r->pp_cross_lower_bound <= b);
		}
	}
	if (t_bad) {
		printf("  iter %u: %s on %u nodes of %u GPUs%s%s: plan %llu, "
		       "bound %llu%s, greedy %llu/%llu\n%s",
		       iter, lay, a.n, g, missing ? " (missing)" : "",
		       f.units ? " (units)" : "",
		       (unsigned long long)r->pp_cross,
		       (unsigned long long)r->pp_cross_lower_bound,
		       r->pp_bound_exact ? " exact" : "",
		       (unsigned long long)s1, (unsigned long long)s2, f.topo);
		printf("  nodes:");
		for (uint32_t i = 0; i < a.n; i++)
			printf(" %s", a.name[i]);
		printf("\n  plan:");
		for (uint32_t h = 0; h < m->nhost; h++)
			printf(" %s", m->host[h]);
		printf("\n");
	}
	rm_map_free(m);
	rm_fabric_free(fb);
}

static void never_beaten(void)
{
	tally t = { 0 };
	for (unsigned i = 0; i < 1200 && !t_bad; i++) {
		rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)i * 0x2545f4914f6cdd1dull);
		rnd(1);
		one(i, &t);
	}
	printf("  %u fabrics, %u planned, %u at the lower bound, %u with an "
	       "exact bound, %u enumerated, %u beaten by a greedy\n",
	       t.fabrics, t.planned, t.at_bound, t.exact, t.enumerated,
	       t.beaten);
	CHECK(t.fabrics >= 1000);
	CHECK(t.enumerated >= 300);
}

int main(void)
{
	RUN("optimal", never_beaten);
	TEST_EXIT();
}
