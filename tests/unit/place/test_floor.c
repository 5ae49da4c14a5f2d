/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_floor.c - the cases issue 26 found: a plan beaten by a simple
 * fill (the planner now runs the fills as floors and may leave part of a
 * node idle), a bound that ignored NVLink domains inside a leaf, and
 * pods as the second objective.
 */
#include "internal.h"
#include "fixture.h"
#include "test.h"
#include "xorshift.h"

#include <stdlib.h>
#include <string.h>

static rm_map *plan_on(const rm_fabric *f, const char *layout,
		       const char *order, const char *nodes, uint32_t gpn)
{
	rm_layout l;
	rm_order o;
	rm_hostlist hl = { 0 };
	rm_error e = { 0 };
	rm_map *m = NULL;
	if (rm_layout_parse(layout, &l, &e) ||
	    rm_order_parse(order, &l, &o, &e) ||
	    rm_hostlist_parse(nodes, &hl, &e)) {
		printf("  setup: %s\n", e.msg);
		t_bad++;
		rm_hostlist_clear(&hl);
		return NULL;
	}
	rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
			    .layout = &l, .order = order ? &o : NULL,
			    .nodes = (const char *const *)hl.host,
			    .nnodes = hl.n, .gpus_per_node = gpn, .fabric = f };
	if (rm_plan(&po, &m, &e)) {
		printf("  plan: %s\n", e.msg);
		t_bad++;
	}
	rm_hostlist_clear(&hl);
	return m;
}

/* GPUs of the map's hosts that no rank uses. */
static uint32_t idle_gpus(const rm_map *m)
{
	return m->nhost * m->gpus_per_node - m->world;
}

static void tiny_case(void)
{
	/* 15 nodes of 8 GPUs, tp=4 (half a node), pp=7, dp=4: 28 TP blocks
	 * in chains of 7. leaf0 holds 18 blocks (two whole chains and 4
	 * left), leaf1 4, leaf2 8 (one chain and 1 left): three chains
	 * whole, the fourth 4 blocks in leaf0 and 3 in leaf1, one leaf
	 * change of 4 pairs. That leaves half of a leaf1 node and half of a
	 * leaf2 node idle; whole nodes only, the best is 8 (and was). */
	rm_fabric *f = fixture_fabric(
		"SwitchName=leaf0 Nodes=h[00003-00005,00008-00010,00013-00015]\n"
		"SwitchName=leaf1 Nodes=h[00002,00006]\n"
		"SwitchName=leaf2 Nodes=h[00001,00007,00011-00012]\n"
		"SwitchName=spine Switches=leaf[0-2]\n",
		"tiny.conf");
	rm_map *m = plan_on(f, "tp=4,pp=7,dp=4", "megatron", "h[00001-00015]",
			    8);
	if (m) {
		CHECK_INT(m->report.pp_cross, 4);
		CHECK_INT(m->report.pp_cross_lower_bound, 4);
		CHECK(m->report.pp_bound_exact);
		CHECK(m->report.must_ok);
		CHECK_INT(m->nhost, 15);
		CHECK_INT(m->nspare, 0);
		CHECK_INT(idle_gpus(m), 8);
		/* the report says so: 8 GPUs on 2 half-used nodes */
		CHECK_INT(m->report.gpus_idle, 8);
		CHECK_INT(m->report.nodes_part_idle, 2);
	}
	rm_map_free(m);
	rm_fabric_free(f);
}

static void nvlink_bound(void)
{
	/* Two leaves of 6 nodes of 8 GPUs, NVLink groups of 3 nodes: a
	 * 16-GPU TP block needs 2 nodes of one group, so a leaf holds 2
	 * blocks (not its 48 GPUs' 3). tp=16, pp=3: a chain of 3 blocks
	 * never fits one leaf, one leaf change of 16 pairs is the least,
	 * and the bound says so. */
	rm_fabric *f = fixture_fabric("SwitchName=L1 Nodes=a[1-6]\n"
				      "SwitchName=L2 Nodes=b[1-6]\n"
				      "SwitchName=S Switches=L[1-2]\n",
				      "nvl.conf");
	char *groups[] = { "a[1-3]", "a[4-6]", "b[1-3]", "b[4-6]" };
	rm_error e;
	CHECK_INT(fixture_groups(f, 8, groups, 4, &e), RM_OK);
	rm_map *m = plan_on(f, "tp=16,pp=3,dp=1", NULL, "a[1-6],b[1-6]", 8);
	if (m) {
		CHECK(m->report.must_ok);
		CHECK_INT(m->report.pp_cross, 16);
		CHECK_INT(m->report.pp_cross_lower_bound, 16);
		CHECK(m->report.pp_bound_exact);
	}
	rm_map_free(m);
	/* tp=8 fits one node: each leaf holds 6 blocks, a chain of 3 fits,
	 * the bound is 0 and the plan reaches it */
	m = plan_on(f, "tp=8,pp=3,dp=2", NULL, "a[1-6],b[1-6]", 8);
	if (m) {
		CHECK_INT(m->report.pp_cross, 0);
		CHECK_INT(m->report.pp_cross_lower_bound, 0);
	}
	rm_map_free(m);
	rm_fabric_free(f);
}

/* Leaf changes x 8 of the node sequence `leaf` cut into replicas of r
 * nodes: tp=8 on 8-GPU nodes, so each change is 8 PP pairs. */
static uint64_t chain_cost(const int *leaf, uint32_t n, uint32_t r)
{
	uint64_t c = 0;
	for (uint32_t i = 1; i < n; i++)
		c += i % r && leaf[i] != leaf[i - 1] ? 8 : 0;
	return c;
}

/* Best fit written here: each replica whole into the leaf with the
 * fewest nodes that still holds it, else all of the largest leaf and
 * the rest the same way. */
static uint64_t best_fit(const uint32_t *size, uint32_t nl, uint32_t need,
			 uint32_t r)
{
	uint32_t left[256];
	int seq[2048];
	uint32_t w = 0;
	memcpy(left, size, nl * sizeof(*left));
	while (w < need) {
		uint32_t rem = need - w < r ? need - w : r;
		while (rem) {
			int fit = -1, big = -1;
			for (uint32_t l = 0; l < nl; l++) {
				if (!left[l])
					continue;
				if (left[l] >= rem && (fit < 0 || left[l] < left[fit]))
					fit = (int)l;
				if (big < 0 || left[l] > left[big])
					big = (int)l;
			}
			int l = fit >= 0 ? fit : big;
			uint32_t take = left[l] < rem ? left[l] : rem;
			for (uint32_t t = 0; t < take; t++)
				seq[w++] = l;
			left[l] -= take;
			rem -= take;
		}
	}
	return chain_cost(seq, need, r);
}

static void two_thousand_nodes(void)
{
	/* One spine over leaves of 1-40 nodes, 2,048 nodes of 8 GPUs,
	 * tp=8, pp=32: replicas of 32 nodes, where the exact split search
	 * runs out of budget. The plan must not lose to a best fit or to
	 * leaf order. */
	uint64_t rng = 0x6a09e667f3bcc908ull;
	for (int k = 0; k < 3; k++) {
		char *topo = malloc(256 * 80 + 64), hosts[64];
		uint32_t size[256], nl = 0, n = 0;
		int leaf_of[2048];
		topo[0] = 0;
		size_t o = 0;
		while (n < 2048) {
			uint32_t s = 1 + xorshift_below(&rng, 40);
			if (n + s > 2048)
				s = 2048 - n;
			o += (size_t)sprintf(topo + o,
					     "SwitchName=l%u Nodes=n[%05u-%05u]\n",
					     nl, n + 1, n + s);
			for (uint32_t i = 0; i < s; i++)
				leaf_of[n + i] = (int)nl;
			size[nl++] = s;
			n += s;
		}
		sprintf(topo + o, "SwitchName=spine Switches=l[0-%u]\n", nl - 1);
		rm_fabric *f = fixture_fabric(topo, "big.conf");
		snprintf(hosts, sizeof(hosts), "n[00001-02048]");
		rm_map *m = plan_on(f, "tp=8,pp=32,dp=auto", NULL, hosts, 8);
		uint64_t bf = best_fit(size, nl, 2048, 32);
		uint64_t by_leaf = chain_cost(leaf_of, 2048, 32);
		if (m) {
			printf("  fabric %d: %u leaves, plan %llu, bound %llu, "
			       "best fit %llu, leaf order %llu\n",
			       k, nl, (unsigned long long)m->report.pp_cross,
			       (unsigned long long)m->report.pp_cross_lower_bound,
			       (unsigned long long)bf,
			       (unsigned long long)by_leaf);
			CHECK(m->report.pp_cross <= bf);
			CHECK(m->report.pp_cross <= by_leaf);
		}
		rm_map_free(m);
		rm_fabric_free(f);
		free(topo);
	}
}

static void natural_order(void)
{
	/* hosts are numbered in natural order whatever their zeros: equal
	 * numbers by their bytes, then by value; a name of another shape
	 * takes the general comparison and the same order */
	const char *cases[][2] = {
		{ "h10,h9,h01,h1,h001", "h001 h01 h1 h9 h10" },
		{ "h10,h9,h01,h1,h001,x", "h001 h01 h1 h9 h10 x" },
	};
	for (int k = 0; k < 2; k++) {
		uint32_t n = k ? 6 : 5;
		char lay[32], got[128] = "";
		snprintf(lay, sizeof(lay), "tp=1,pp=1,dp=%u", n);
		rm_map *m = plan_on(NULL, lay, NULL, cases[k][0], 1);
		for (uint32_t i = 0; m && i < m->nhost; i++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got),
				 "%s%s", i ? " " : "", m->host[i]);
		CHECK_STR(got, cases[k][1]);
		rm_map_free(m);
	}
}

int main(void)
{
	RUN("floor", tiny_case);
	RUN("floor", nvlink_bound);
	RUN("floor", two_thousand_nodes);
	RUN("floor", natural_order);
	TEST_EXIT();
}
