/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_property.c - rm_plan over 5,000 random fabrics, allocations and
 * layouts (seeded, so a failure replays; make bench runs more with
 * RM_PROPERTY_RUNS). Whenever a plan succeeds: the must-rule holds, RANK
 * is a bijection onto distinct (node, GPU) slots with the right
 * coordinates, the input order does not change a byte of the result,
 * crossings never beat the lower bound, and neither a sorted hostfile nor
 * Slurm's switch ranks beat the plan.
 */
#include "internal.h"
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "xorshift.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	return xorshift_below(&rng, n);
}

typedef struct world {
	char text[16384];
	char *node[512];
	uint32_t nnode;
	uint32_t gpn;
	bool blocks;
	char unit[3][512];           /* each pod's nodes, for rail units */
	unsigned npod;
} world;

static void add(world *w, size_t *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add(world *w, size_t *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	*o += (size_t)vsnprintf(w->text + *o, sizeof(w->text) - *o, fmt, ap);
	va_end(ap);
}

/* A tree of 1-3 pods of 1-4 leaves of 1-12 nodes, or blocks of 18 nodes
 * of 4 GPUs (NVL72-like) with the blocks acting as leaves. */
static void make_world(world *w)
{
	size_t o = 0;
	w->nnode = 0;
	w->blocks = rnd(4) == 0;
	w->gpn = w->blocks ? 4 : (rnd(3) ? 8 : 4);
	w->text[0] = '\0';
	if (w->blocks) {
		unsigned nb = 1 + rnd(3);
		for (unsigned b = 0; b < nb; b++) {
			add(w, &o, "BlockName=b%u Nodes=b%un[1-18]\n", b, b);
			for (unsigned i = 1; i <= 18; i++) {
				char *s = malloc(40);
				snprintf(s, 40, "b%un%u", b, i);
				w->node[w->nnode++] = s;
			}
		}
		return;
	}
	unsigned np = 1 + rnd(3);
	w->npod = np;
	for (unsigned p = 0; p < np; p++) {
		unsigned nl = 1 + rnd(4);
		size_t uo = 0;
		for (unsigned l = 0; l < nl; l++) {
			unsigned nn = 1 + rnd(12);
			uo += (size_t)snprintf(w->unit[p] + uo,
					       sizeof(w->unit[p]) - uo,
					       "%sp%ul%un[1-%u]", l ? "," : "",
					       p, l, nn);
			add(w, &o, "SwitchName=p%ul%u Nodes=p%ul%un[1-%u]\n",
			    p, l, p, l, nn);
			for (unsigned i = 1; i <= nn; i++) {
				char *s = malloc(40);
				snprintf(s, 40, "p%ul%un%u", p, l, i);
				w->node[w->nnode++] = s;
			}
		}
		add(w, &o, "SwitchName=pod%u Switches=p%ul[0-%u]\n", p, p,
		    nl - 1);
	}
}

static void free_world(world *w)
{
	for (uint32_t i = 0; i < w->nnode; i++)
		free(w->node[i]);
}

static void shuffle(const char **v, uint32_t n)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = rnd(i);
		const char *t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

static bool same_strs(char **a, char **b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if ((a[i] == NULL) != (b[i] == NULL) ||
		    (a[i] && strcmp(a[i], b[i]) != 0))
			return false;
	return true;
}

static void check_map(const rm_map *m, uint32_t nalloc)
{
	uint32_t g = m->gpus_per_node;
	CHECK(m->report.must_ok);
	CHECK_INT(m->report.tp_split, 0);
	CHECK_INT(m->nhost + m->nspare, nalloc);
	CHECK_INT(m->nhost, (m->world + g - 1) / g);
	CHECK(m->report.pp_cross >= m->report.pp_cross_lower_bound);
	unsigned char *used = calloc((size_t)m->nhost * g, 1);
	for (uint32_t r = 0; r < m->world; r++) {
		const rm_rank *k = &m->rank[r];
		if (k->node >= m->nhost || k->local_gpu >= g) {
			CHECK(!"rank outside the hosts");
			break;
		}
		unsigned char *u = &used[(size_t)k->node * g + k->local_gpu];
		CHECK(*u == 0);
		*u = 1;
		uint32_t c[RM_NAXES];
		rm_rank_decode(&m->layout, &m->order, r, c);
		CHECK(memcmp(c, k->coord, sizeof(c)) == 0);
		CHECK_INT(rm_rank_encode(&m->layout, &m->order, c), r);
	}
	free(used);
}

static const char *orders[] = { NULL, "megatron", "llama3", "tp-dp-pp" };

static void one_case(unsigned iter, unsigned *planned, unsigned *at_bound)
{
	world w;
	make_world(&w);
	rm_error e = { 0 };
	rm_fabric *f = fixture_fabric(w.text, "rand.conf");
	if (!f) {
		printf("  iter %u: the topology above\n", iter);
		t_bad++;
		free_world(&w);
		return;
	}
	/* sometimes each pod is a rail-optimised unit */
	if (!w.blocks && rnd(4) == 0) {
		char *un[3] = { "su0", "su1", "su2" }, *nodes[3];
		for (unsigned p = 0; p < w.npod; p++)
			nodes[p] = w.unit[p];
		if (fixture_units(f, w.gpn, un, nodes, w.npod, &e)) {
			printf("  iter %u: site: %s\n", iter, e.msg);
			t_bad++;
		}
	}
	/* a random allocation: each node with probability 3/4 */
	const char *alloc[512], *copy[512];
	uint32_t n = 0;
	for (uint32_t i = 0; i < w.nnode; i++)
		if (rnd(4))
			alloc[n++] = w.node[i];
	if (n == 0)
		alloc[n++] = w.node[0];
	/* sometimes a node the topology does not know */
	bool missing = rnd(5) == 0;
	if (missing)
		alloc[n++] = "zz1";
	char lay[96];
	uint32_t tp = w.blocks ? (rnd(2) ? 8 : 4) : (w.gpn >> rnd(3));
	uint32_t pp = 1u << rnd(4);
	if (rnd(5) == 0)
		snprintf(lay, sizeof(lay), "tp=%u,cp=2,pp=%u,dp=auto",
			 tp > 1 ? tp / 2 : 1, pp);
	else
		snprintf(lay, sizeof(lay), "tp=%u,pp=%u,dp=auto", tp, pp);
	rm_layout l;
	rm_order o;
	const char *ord = orders[rnd(4)];
	if (ord && strstr(lay, "cp") && strcmp(ord, "tp-dp-pp") == 0)
		ord = "cp-tp-dp-pp";
	/* Megatron-Core refuses its tp-pp-dp mapping with cp and pp > 1 */
	if (ord && strstr(lay, "cp") && strcmp(ord, "llama3") == 0)
		ord = "megatron";
	if (rm_layout_parse(lay, &l, &e) || rm_order_parse(ord, &l, &o, &e)) {
		printf("  iter %u: %s: %s\n", iter, lay, e.msg);
		t_bad++;
	}
	rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
			    .layout = &l, .order = ord ? &o : NULL,
			    .nodes = alloc, .nnodes = n,
			    .gpus_per_node = w.gpn, .fabric = f,
			    .allow_missing = missing };
	rm_map *a = NULL, *b = NULL;
	rm_status st = rm_plan(&po, &a, &e);
	if (st == RM_OK) {
		(*planned)++;
		if (a->report.pp_cross == a->report.pp_cross_lower_bound)
			(*at_bound)++;
		check_map(a, n);
		memcpy(copy, alloc, n * sizeof(*copy));
		shuffle(copy, n);
		po.nodes = copy;
		CHECK_INT(rm_plan(&po, &b, &e), RM_OK);
		if (b) {
			CHECK_INT(a->nhost, b->nhost);
			CHECK_INT(a->nspare, b->nspare);
			CHECK(memcmp(a->rank, b->rank,
				     a->world * sizeof(rm_rank)) == 0);
			CHECK(same_strs(a->host, b->host, a->nhost));
			CHECK(same_strs(a->host_leaf, b->host_leaf, a->nhost));
			CHECK(same_strs(a->spare, b->spare, a->nspare));
			CHECK_STR(a->inputs_sha256, b->inputs_sha256);
		}
		/* the baseline of the shuffled list is a valid map too */
		rm_map *c = NULL;
		po.baseline = true;
		CHECK_INT(rm_plan(&po, &c, &e), RM_OK);
		if (!c)
			printf("  baseline: %s\n", e.msg);
		if (c && c->report.must_ok)
			CHECK(c->report.pp_cross >=
			      c->report.pp_cross_lower_bound);
		if (c && b && c->world == b->world)
			CHECK(b->report.pp_cross_lower_bound ==
			      c->report.pp_cross_lower_bound);
		rm_map_free(c);
		/* Issue 36: no simple order beats the plan. The sorted
		 * hostfile and Slurm's switch ranks of the same nodes, where
		 * they keep the must-rule and use the plan's GPU count, never
		 * cross fewer leaves, nor as many leaves and fewer pods (the
		 * order these fabrics without tier figures are planned in). */
		for (int k = RM_BASELINE_SORTED; k <= RM_BASELINE_SWITCH_RANK;
		     k++) {
			po.baseline_kind = (rm_baseline)k;
			c = NULL;
			CHECK_INT(rm_plan(&po, &c, &e), RM_OK);
			if (c && c->report.must_ok && c->world == a->world) {
				bool beaten =
					c->report.pp_cross < a->report.pp_cross ||
					(c->report.pp_cross == a->report.pp_cross &&
					 c->report.pp_cross_top <
						 a->report.pp_cross_top);
				if (beaten)
					printf("  iter %u: %s baseline %llu/%llu "
					       "beats the plan's %llu/%llu\n",
					       iter, rm_baseline_name((rm_baseline)k),
					       (unsigned long long)c->report.pp_cross,
					       (unsigned long long)c->report.pp_cross_top,
					       (unsigned long long)a->report.pp_cross,
					       (unsigned long long)a->report.pp_cross_top);
				CHECK(!beaten);
			}
			rm_map_free(c);
		}
		po.baseline_kind = RM_BASELINE_SLURM;
	} else {
		/* failing is fine when the allocation is too small or the
		 * domains too fragmented, but it must say so properly */
		CHECK(st == RM_EINPUT || st == RM_ERULE);
		CHECK(e.msg[0] != '\0');
	}
	if (t_bad)
		printf("  iter %u: layout %s order %s on %u nodes of %u GPUs\n",
		       iter, lay, ord ? ord : "nest", n, w.gpn);
	rm_map_free(a);
	rm_map_free(b);
	rm_fabric_free(f);
	free_world(&w);
}

static void random_plans(void)
{
	unsigned planned = 0, at_bound = 0;
	/* make check runs 5,000; make bench sets RM_PROPERTY_RUNS higher */
	unsigned runs = 5000;
	const char *env = getenv("RM_PROPERTY_RUNS");
	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);
		if (*end || v < 1 || v > 10000000) {
			printf("  RM_PROPERTY_RUNS='%s': not a count of 1 to "
			       "10000000\n", env);
			CHECK(0);
			return;
		}
		runs = (unsigned)v;
	}
	for (unsigned i = 0; i < runs && !t_bad; i++)
		one_case(i, &planned, &at_bound);
	printf("  %u of %u random inputs planned, %u of them at the lower "
	       "bound\n", planned, runs, at_bound);
	CHECK(planned >= runs / 2);
}

int main(void)
{
	RUN("property", random_plans);
	TEST_EXIT();
}
