/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_bound.c - is the lower bound true, and `exact` only when proven?
 * On seeded small fabrics of every kind (uneven leaves, pods, spares,
 * nodes the topology does not know, TP below a node, rail units, NVLink
 * groups inside leaves, Slurm blocks) this file finds the fewest PP
 * crossings of any map that keeps its TP blocks whole by exhaustive
 * search over which block slot each TP block of each pipeline takes, and
 * compares:
 *  - rm_check's lower bound never exceeds that optimum;
 *  - when the bound is called exact, it is the optimum;
 *  - the plan never crosses less than the optimum (its count is right)
 *    and, where the search is exact, it is at the optimum (gap 0).
 * A failure prints the seed and the fabric so that it replays.
 */
#include "internal.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "xorshift.h"
#include "search.h"

#define MAXH 48
#define MAXS 64
#define TOPW (1u << 20)            /* one leaf pair outweighs all pod pairs */

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	return xorshift_below(&rng, n);
}

enum { K_LEAVES, K_PODS, K_SMALL_TP, K_RAILS, K_NVL, K_BLOCKS, K_NKIND };
static const char *kind_name[] = { "leaves", "pods", "tp<node", "rails",
				   "nvlink groups", "blocks" };

/* What this test knows of each host: its locality (leaf, block, or a
 * leaf of its own), rail unit and NVLink domain. */
typedef struct fab {
	int kind;
	char topo[4096], groups_text[8][256], units_text[4][1024];
	char *groups[8], *units[4], *unit_names[4];
	uint32_t ngroups, nunits, g;
	char name[MAXH][40];
	int loc[MAXH], unit[MAXH], dom[MAXH], top[MAXH];
	uint32_t n;
	bool missing;
	bool alloc[MAXH];            /* in the job */
	int npod_now;                /* pod of the hosts being added */
} fab;

static void host(fab *f, const char *name, int loc, int unit, int dom)
{
	/* a pod of its own; one tree under a spine, or blocks: one */
	f->top[f->n] = loc >= 200 ? loc : f->kind == K_PODS || f->kind == K_RAILS
						   ? f->npod_now : 0;
	snprintf(f->name[f->n], sizeof(f->name[0]), "%s", name);
	f->loc[f->n] = loc;
	f->unit[f->n] = unit;
	f->dom[f->n++] = dom;
}

static void make_fab(fab *f, int kind)
{
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->g = kind == K_BLOCKS || rnd(2) ? 4 : 8;
	char nm[40];
	if (kind == K_BLOCKS) {
		uint32_t nb = 1 + rnd(3), nn = 2 + rnd(5);
		for (uint32_t b = 0; b < nb; b++) {
			cat(f->topo, sizeof(f->topo),
			    "BlockName=b%u Nodes=b%un[1-%u]\n", b, b, nn);
			for (uint32_t i = 1; i <= nn; i++) {
				snprintf(nm, sizeof(nm), "b%un%u", b, i);
				host(f, nm, (int)b, -1, (int)b);
			}
		}
		return;
	}
	uint32_t npod = kind == K_PODS || kind == K_RAILS ? 2 + rnd(2) : 1;
	uint32_t leaf = 0;
	for (uint32_t p = 0; p < npod; p++) {
		f->npod_now = (int)p;
		uint32_t nl = 1 + rnd(npod > 1 ? 2 : 4), first = leaf;
		for (uint32_t l = 0; l < nl; l++, leaf++) {
			uint32_t nn = kind == K_NVL ? 3 + rnd(6) : 1 + rnd(4);
			cat(f->topo, sizeof(f->topo),
			    "SwitchName=s%u Nodes=p%ul%un[1-%u]\n", leaf, p, l,
			    nn);
			/* NVLink groups of 2-3 nodes inside the leaf */
			uint32_t gs = 2 + rnd(2), in = 0;
			for (uint32_t i = 1; i <= nn; i++) {
				snprintf(nm, sizeof(nm), "p%ul%un%u", p, l, i);
				int dom = -1;
				if (kind == K_NVL && f->ngroups < 8) {
					if (in == 0)
						f->ngroups++;
					dom = (int)f->ngroups - 1;
					cat(f->groups_text[dom],
					    sizeof(f->groups_text[0]), "%s%s",
					    in ? "," : "", nm);
					in = (in + 1) % gs;
				}
				int unit = kind == K_RAILS ? (int)p : -1;
				if (unit >= 0)
					cat(f->units_text[p],
					    sizeof(f->units_text[0]), "%s%s",
					    f->units_text[p][0] ? "," : "", nm);
				/* a rail unit is the locality of its hosts */
				host(f, nm, unit >= 0 ? 100 + unit : (int)leaf,
				     unit, dom);
			}
		}
		if (npod > 1)
			cat(f->topo, sizeof(f->topo),
			    "SwitchName=pod%u Switches=s[%u-%u]\n", p, first,
			    leaf - 1);
	}
	if (npod == 1)
		cat(f->topo, sizeof(f->topo),
		    "SwitchName=spine Switches=s[0-%u]\n", leaf - 1);
	if (kind == K_RAILS)
		f->nunits = npod;
	/* sometimes a node the topology does not know: a leaf of its own */
	if (kind != K_RAILS && kind != K_NVL && rnd(4) == 0) {
		host(f, "zz1", 200, -1, -1);
		f->missing = true;
	}
}

static rm_fabric *build(fab *f)
{
	rm_fabric *fb = fixture_fabric(f->topo, "bound.conf");
	rm_error e = { 0 };
	if (!fb)
		return NULL;
	if (f->ngroups) {
		for (uint32_t i = 0; i < f->ngroups; i++)
			f->groups[i] = f->groups_text[i];
		CHECK_INT(fixture_groups(fb, f->g, f->groups, f->ngroups, &e),
			  RM_OK);
	}
	if (f->nunits) {
		static char *un[4] = { "su0", "su1", "su2", "su3" };
		for (uint32_t i = 0; i < f->nunits; i++) {
			f->units[i] = f->units_text[i];
			f->unit_names[i] = un[i];
		}
		CHECK_INT(fixture_units(fb, f->g, f->unit_names, f->units,
					f->nunits, &e),
			  RM_OK);
	}
	return fb;
}

/* Block slots: where one TP block can sit. */
typedef struct slots {
	int loc[MAXS], unit[MAXS], host[MAXS], top[MAXS];
	uint32_t off[MAXS], n;
} slots;

/* A block of m <= g GPUs: g / m aligned places on each node. Of m > g:
 * whole nodes of one domain, floor(nodes / (m / g)) per domain (the
 * groups sit inside leaves, so which nodes does not matter). */
static bool make_slots(const fab *f, uint32_t m, slots *s)
{
	s->n = 0;
	if (m <= f->g) {
		for (uint32_t h = 0; h < f->n; h++)
			for (uint32_t o = 0; f->alloc[h] && o + m <= f->g;
			     o += m) {
				if (s->n == MAXS)
					return false;
				s->loc[s->n] = f->loc[h];
				s->top[s->n] = f->top[h];
				s->unit[s->n] = f->unit[h];
				s->host[s->n] = (int)h;
				s->off[s->n++] = o;
			}
		return true;
	}
	uint32_t cn = m / f->g;
	for (int d = 0; d < 8; d++) {
		uint32_t k = 0;
		int loc = -1, first = -1, top = 0;
		for (uint32_t h = 0; h < f->n; h++)
			if (f->dom[h] == d && f->alloc[h]) {
				k++;
				loc = f->loc[h];
				top = f->top[h];
				first = first < 0 ? (int)h : first;
			}
		for (uint32_t b = 0; b < k / cn; b++) {
			if (s->n == MAXS)
				return false;
			s->loc[s->n] = loc;
			s->top[s->n] = top;
			s->unit[s->n] = -1;
			s->host[s->n] = first * 100 + (int)b;  /* distinct */
			s->off[s->n++] = 0;
		}
	}
	return true;
}

typedef struct bf {
	const slots *s;
	uint32_t npos, step, pp, m;
	bool used[MAXS];
	int at[MAXS];
	budget bud;
} bf;

static bool near(const bf *b, int x, int y)
{
	const slots *s = b->s;
	if (s->host[x] == s->host[y])
		return true;
	if (s->unit[x] >= 0 || s->unit[y] >= 0)
		return s->unit[x] == s->unit[y] && s->off[x] == s->off[y];
	return s->loc[x] == s->loc[y];
}

static bool host_in_use(const bf *b, uint32_t p, int host)
{
	for (uint32_t q = 0; q < p; q++)
		if (b->s->host[b->at[q]] == host)
			return true;
	return false;
}

/* Two free slots are alike for position p when swapping them changes no
 * count: the same host already in use, or both on hosts not yet in use
 * with the same locality and unit (and, on rails, the same offset). */
static bool alike(const bf *b, uint32_t p, uint32_t j, uint32_t k)
{
	const slots *s = b->s;
	bool rails = s->unit[j] >= 0 || s->unit[k] >= 0;
	if (rails && s->off[j] != s->off[k])
		return false;
	bool uj = host_in_use(b, p, s->host[j]), uk = host_in_use(b, p, s->host[k]);
	if (uj || uk)
		return uj && uk && s->host[j] == s->host[k];
	return s->loc[j] == s->loc[k] && s->unit[j] == s->unit[k] &&
	       s->top[j] == s->top[k];
}

/* Position p's block: every free slot, one of each kind of alike. */
static void bf_go(bf *b, uint32_t p, uint64_t cost)
{
	if (!budget_go_on(&b->bud, cost, p == b->npos))
		return;
	const slots *s = b->s;
	for (uint32_t k = 0; k < s->n; k++) {
		if (b->used[k])
			continue;
		bool dup = false;
		for (uint32_t j = 0; j < k && !dup; j++)
			dup = !b->used[j] && alike(b, p, j, k);
		if (dup)
			continue;
		uint64_t c = cost;
		/* the pair with the previous stage: leaf pairs count before
		 * pod pairs (cost = leaf * TOPW + pod) */
		int q = p >= b->step ? b->at[p - b->step] : -1;
		if (q >= 0 && ((p - b->step) / b->step) % b->pp != b->pp - 1) {
			if (!near(b, q, (int)k))
				c += b->m * TOPW;
			if (s->host[q] != s->host[k] && s->top[q] != s->top[k])
				c += b->m;
		}
		b->used[k] = true;
		b->at[p] = (int)k;
		bf_go(b, p + 1, c);
		b->used[k] = false;
	}
}

typedef struct tally {
	unsigned cases, planned, searched, exact, at_opt, pods_checked;
	uint64_t gap;
	unsigned per_kind[K_NKIND];
} tally;

static void one(unsigned iter, tally *t)
{
	fab f;
	int kind = (int)(iter % K_NKIND);
	make_fab(&f, kind);
	rm_fabric *fb = build(&f);
	if (!fb) {
		t_bad++;
		return;
	}
	/* the job: each node with probability 4/5 */
	const char *names[MAXH];
	uint32_t na = 0;
	for (uint32_t i = 0; i < f.n; i++)
		if ((f.alloc[i] = rnd(5) != 0))
			names[na++] = f.name[i];
	if (!na) {
		rm_fabric_free(fb);
		return;
	}
	uint32_t g = f.g, tp;
	if (kind == K_NVL)
		tp = g * (rnd(4) ? 2 : 3);
	else if (kind == K_BLOCKS)
		tp = rnd(2) ? 8 : 4;
	else if (kind == K_SMALL_TP || kind == K_RAILS)
		tp = g >> (1 + rnd(2));
	else
		tp = g >> rnd(3);
	uint32_t pp = 2 + rnd(4);
	uint32_t total = na * g, chain = tp * pp;
	if (chain > total) {
		rm_fabric_free(fb);
		return;
	}
	/* spares: sometimes fewer replicas than fit */
	uint32_t dp = total / chain;
	if (dp > 1 && rnd(2))
		dp -= 1 + rnd(dp - 1);
	if (dp * pp > 10)
		dp = 10 / pp ? 10 / pp : 1;
	char lay[64];
	snprintf(lay, sizeof(lay), "tp=%u,pp=%u,dp=%u", tp, pp, dp);
	t->cases++;
	rm_map *m = plan_random(lay, names, na, g, fb, f.missing);
	if (!m) {
		rm_fabric_free(fb);
		return;
	}
	t->planned++;
	const rm_report *r = &m->report;
	CHECK(r->must_ok);
	slots s;
	bf b;
	memset(&b, 0, sizeof(b));
	int pos_pp = rmi_layout_pos(&m->layout, RM_AXIS_PP);
	uint32_t before = 1;
	for (int i = 0; i < pos_pp; i++)
		before *= m->layout.size[m->layout.nest[i]];
	if (!make_slots(&f, tp, &s) || before % tp) {
		rm_map_free(m);
		rm_fabric_free(fb);
		return;
	}
	b.s = &s;
	b.m = tp;
	b.pp = pp;
	b.npos = dp * pp;
	/* blocks in nesting order: a block's PP peer is `step` blocks on */
	b.step = before / tp;
	b.bud.best = r->pp_cross * TOPW + r->pp_cross_top + 1;
	b.bud.limit = 2000000;
	bf_go(&b, 0, 0);
	if (!b.bud.gave_up) {
		t->searched++;
		t->per_kind[kind]++;
		uint64_t opt = b.bud.best / TOPW, opt_top = b.bud.best % TOPW;
		CHECK(r->pp_cross_lower_bound <= opt);
		CHECK(r->pp_cross >= opt);
		if (r->pp_bound_exact) {
			t->exact++;
			CHECK_INT(r->pp_cross_lower_bound, opt);
		}
		t->at_opt += r->pp_cross == opt;
		/* pods second: at the fewest leaf pairs, the fewest pod pairs */
		if (r->pp_cross == opt) {
			t->pods_checked += kind == K_PODS || kind == K_RAILS;
			CHECK_INT(r->pp_cross_top, opt_top);
		}
		t->gap += r->pp_cross - opt;
		if (t_bad || r->pp_cross > opt)
			printf("  iter %u (%s): %s on %u nodes of %u GPUs: plan %llu, "
			       "bound %llu%s, optimum %llu\n%s",
			       iter, kind_name[kind], lay, f.n, g,
			       (unsigned long long)r->pp_cross,
			       (unsigned long long)r->pp_cross_lower_bound,
			       r->pp_bound_exact ? " exact" : "",
			       (unsigned long long)opt, f.topo);
	}
	rm_map_free(m);
	rm_fabric_free(fb);
}

static void bound_vs_search(void)
{
	tally t;
	memset(&t, 0, sizeof(t));
	for (unsigned i = 0; i < 600 && !t_bad; i++) {
		rng = 0x2545f4914f6cdd1dull ^ ((uint64_t)i * 0x9e3779b97f4a7c15ull);
		rnd(1);
		one(i, &t);
	}
	printf("  %u cases, %u planned, %u searched exhaustively (", t.cases,
	       t.planned, t.searched);
	for (int k = 0; k < K_NKIND; k++)
		printf("%s%s %u", k ? ", " : "", kind_name[k], t.per_kind[k]);
	printf("); %u bounds exact, %u plans at the optimum, %llu pairs above "
	       "it in all, %u three-level plans at the fewest pod pairs too\n",
	       t.exact, t.at_opt, (unsigned long long)t.gap, t.pods_checked);
	for (int k = 0; k < K_NKIND; k++)
		CHECK(t.per_kind[k] >= 20);
	/* every plan the search could check is at the optimum (issue 26:
	 * floors and pods second); a regression shows as a gap here */
	CHECK_INT(t.gap, 0);
	CHECK_INT(t.at_opt, t.searched);
	CHECK_INT(t.exact, t.searched);
}

int main(void)
{
	RUN("bound", bound_vs_search);
	TEST_EXIT();
}
