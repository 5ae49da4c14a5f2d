/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_optimal.c - how good the plans are on fabrics nobody tuned for: a
 * seeded random set of two-level trees, three-level pods, GB200-style
 * blocks, rail-optimised units and fragmented allocations with spares
 * and unknown nodes. Per kind: how many plans reach the closed-form lower
 * bound (leaf capacities, the bound rankmap used before the exact search),
 * how many are proven optimal (crossings equal to the lower bound rm_check
 * reports, which the exact search raises when it can), how many bounds
 * are exact, and the plan time: each fabric planned RUNS times, the
 * kind's mean per plan taken per run, shown as median (min-max) of the
 * RUNS. The time has no verdict: the fabrics are random and small, there
 * is no same-run floor for planning, and the 16,384-GPU and larger
 * figures with their growth verdict are bench_plan's. BENCH_DEBUG=1 lists
 * every plan above its bound.
 */
#include "place/place.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_clock.h"
#include "../tests/unit/fixture.h"
#include "../tests/unit/xorshift.h"

#define FABRICS 300
#define MAXN 1200
#define RUNS 5

static uint64_t rng = 0x5851f42d4c957f2dull;

static uint32_t rnd(uint32_t n)
{
	return xorshift_below(&rng, n);
}

enum { TWO, PODS, BLOCKS, UNITS, FRAG, NKIND };
static const char *const kind_name[NKIND] = {
	"two-level tree", "three-level pods", "GB200 blocks",
	"rail units", "fragmented+missing"
};

typedef struct fab {
	rm_buf topo;
	char *name[MAXN];
	char unit_nodes[8][8192];
	uint32_t n, npod, gpn;
} fab;

static void add_node(fab *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_node(fab *f, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	f->name[f->n++] = strdup(buf);
}

static void make(fab *f, int kind)
{
	memset(f, 0, sizeof(*f));
	rm_buf_init(&f->topo);
	f->gpn = 8;
	if (kind == BLOCKS) {
		/* 18 trays of 4 GPUs per block; blocks are the leaves */
		f->gpn = 4;
		uint32_t nb = 2 + rnd(7);
		for (uint32_t b = 0; b < nb; b++) {
			rm_buf_printf(&f->topo, "BlockName=b%u Nodes=b%un[1-18]\n",
				       b, b);
			for (uint32_t i = 1; i <= 18; i++)
				add_node(f, "b%un%u", b, i);
		}
		return;
	}
	bool pods = kind != TWO;
	f->npod = pods ? 2 + rnd(kind == UNITS ? 4 : 5) : 1;
	uint32_t leaf = 0;
	for (uint32_t p = 0; p < f->npod; p++) {
		uint32_t nl = pods ? 1 + rnd(8) : 2 + rnd(23);
		for (uint32_t l = 0; l < nl; l++, leaf++) {
			uint32_t nn = 1 + rnd(pods ? 24 : 32);
			if (f->n + nn > MAXN)
				nn = MAXN - f->n;
			if (!nn)
				break;
			rm_buf_printf(&f->topo, "SwitchName=s%u Nodes=p%ul%un[1-%u]\n",
				       leaf, p, l, nn);
			size_t o = strlen(f->unit_nodes[p]);
			snprintf(f->unit_nodes[p] + o, sizeof(f->unit_nodes[p]) - o,
				 "%sp%ul%un[1-%u]", o ? "," : "", p, l, nn);
			for (uint32_t i = 1; i <= nn; i++)
				add_node(f, "p%ul%un%u", p, l, i);
		}
		if (pods)
			rm_buf_printf(&f->topo, "SwitchName=pod%u Switches=s[%u-%u]\n",
				       p, leaf - nl, leaf - 1);
	}
	if (!pods)
		rm_buf_printf(&f->topo, "SwitchName=spine Switches=s[0-%u]\n",
			       leaf - 1);
}

/* The closed-form bound of this allocation (what plans were held to
 * before the exact search). */
static uint64_t closed_bound(const rm_map *m, const rm_fabric *f)
{
	rmi_rules rules;
	rmi_where w;
	rm_error e;
	uint32_t n = m->nhost + m->nspare;
	if (rmi_rules_get(&m->layout, f, m->gpus_per_node, &rules, &e) ||
	    rmi_where_init(&w, f, n, &e))
		return 0;
	uint32_t nids = rmi_where_nids(&w);
	uint64_t *cap = calloc(nids + 1, sizeof(*cap));
	for (uint32_t i = 0; i < n; i++) {
		rmi_hostinfo h;
		rmi_where_host(&w, i < m->nhost ? m->host[i]
						: m->spare[i - m->nhost], i, &h);
		cap[h.loc] += m->gpus_per_node;
	}
	bool exact;
	uint64_t b = rmi_pp_lower_bound(&m->layout, &rules, cap, nids, 0,
					&exact);
	free(cap);
	rmi_where_free(&w);
	return b;
}

typedef struct tally {
	unsigned fabrics, planned, closed, optimal, exact;
	double ms[RUNS];   /* sum over the kind's fabrics, per run */
} tally;

static void one(int kind, tally *t)
{
	fab fb;
	make(&fb, kind);
	rm_fabric *f = NULL;
	rm_error e;
	if (rm_fabric_new(&f, &e) ||
	    rm_fabric_parse_topology(f, fb.topo.data, fb.topo.len, "rand",
				     &e)) {
		fprintf(stderr, "bench: fabric: %s\n", e.msg);
		exit(1);
	}
	if (kind == UNITS) {
		char *un[8], *nodes[8], names[8][8];
		for (uint32_t p = 0; p < fb.npod; p++) {
			snprintf(names[p], sizeof(names[p]), "su%u", p);
			un[p] = names[p];
			nodes[p] = fb.unit_nodes[p];
		}
		if (fixture_units(f, fb.gpn, un, nodes, fb.npod, &e)) {
			fprintf(stderr, "bench: site: %s\n", e.msg);
			exit(1);
		}
	}
	const char *alloc[MAXN + 4];
	uint32_t n = 0, keep = kind == FRAG ? 2 : 8;  /* of 10 */
	for (uint32_t i = 0; i < fb.n; i++)
		if (rnd(10) < keep || kind == BLOCKS)
			alloc[n++] = fb.name[i];
	bool missing = kind == FRAG;
	if (missing) {
		alloc[n++] = "zz1";
		alloc[n++] = "zz2";
	}
	uint32_t tp = kind == BLOCKS ? (rnd(2) ? 8 : 4) : fb.gpn >> rnd(3);
	uint32_t pp = 2 + rnd(15);
	char lay[64];
	snprintf(lay, sizeof(lay), "tp=%u,pp=%u,dp=auto", tp, pp);
	rm_layout l;
	rm_order o;
	if (rm_layout_parse(lay, &l, &e) || rm_order_parse("megatron", &l, &o, &e)) {
		fprintf(stderr, "bench: %s: %s\n", lay, e.msg);
		exit(1);
	}
	rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
			       .layout = &l, .order = &o, .nodes = alloc,
			       .nnodes = n, .gpus_per_node = fb.gpn, .fabric = f,
			       .allow_missing = missing };
	rm_map *m = NULL;
	t->fabrics++;
	rm_status st = RM_OK;
	for (int r = 0; r < RUNS; r++) {
		rm_map_free(m);     /* the last run's map is the one judged */
		m = NULL;
		double t0 = now_ms();
		st = rm_plan(&po, &m, &e);
		t->ms[r] += now_ms() - t0;
	}
	if (st == RM_OK) {
		const rm_report *r = &m->report;
		t->planned++;
		t->closed += r->pp_cross == closed_bound(m, f);
		t->optimal += r->pp_cross == r->pp_cross_lower_bound;
		t->exact += r->pp_bound_exact;
		if (getenv("BENCH_DEBUG") && r->pp_cross != r->pp_cross_lower_bound)
			printf("  %s %s g=%u n=%u cross %llu bound %llu exact %d\n",
			       kind_name[kind], lay, fb.gpn, n,
			       (unsigned long long)r->pp_cross,
			       (unsigned long long)r->pp_cross_lower_bound,
			       r->pp_bound_exact);
	}
	rm_map_free(m);
	rm_fabric_free(f);
	for (uint32_t i = 0; i < fb.n; i++)
		free(fb.name[i]);
	rm_buf_clear(&fb.topo);
}

int main(void)
{
	tally t[NKIND + 1];
	memset(t, 0, sizeof(t));
	for (unsigned i = 0; i < FABRICS; i++)
		one((int)(i % NKIND), &t[i % NKIND]);
	for (int k = 0; k < NKIND; k++) {
		t[NKIND].fabrics += t[k].fabrics;
		t[NKIND].planned += t[k].planned;
		t[NKIND].closed += t[k].closed;
		t[NKIND].optimal += t[k].optimal;
		t[NKIND].exact += t[k].exact;
		for (int r = 0; r < RUNS; r++)
			t[NKIND].ms[r] += t[k].ms[r];
	}
	printf("seeded random fabrics (%d; up to %d nodes): PP crossings of "
	       "rm_plan; plan ms/ea: mean per plan, median (min-max) of %d "
	       "runs, %s, no verdict\nclosed-form = crossings equal the leaf-capacity bound; "
	       "proven optimal = equal\nthe bound rm_check reports (raised by "
	       "the exact search when it finishes)\n\n", FABRICS, MAXN, RUNS,
	       getenv("BENCH_WALL") ? "wall-clock" : "CPU-time");
	printf("%-20s %7s %7s %11s %14s %11s %20s\n", "kind", "fabrics",
	       "planned", "closed-form", "proven optimal", "exact bound",
	       "plan ms/ea");
	for (int k = 0; k <= NKIND; k++) {
		char b[64];
		for (int r = 0; r < RUNS; r++)
			t[k].ms[r] /= t[k].fabrics ? t[k].fabrics : 1;
		printf("%-20s %7u %7u %11u %14u %11u %20s\n",
		       k < NKIND ? kind_name[k] : "all", t[k].fabrics,
		       t[k].planned, t[k].closed, t[k].optimal, t[k].exact,
		       mmm(b, sizeof(b), t[k].ms, RUNS, 2));
	}
	return 0;
}
