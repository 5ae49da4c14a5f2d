/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_check.c - rm_check on hand-made maps (what a user's own launch
 * does), its rejections of broken maps, and rm_map_group's groups.
 */
#include "internal.h"
#include "map/mapio.h"
#include "fixture.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* A map as a user's assignment would give it: rank r on host where[r][0],
 * GPU where[r][1]; coordinates from the numbering order. */
static rm_map *mk(const char *layout, const char *order, uint32_t g,
		  const char *hosts, const uint32_t (*where)[2])
{
	rm_error e = { 0 };
	rm_map *m = calloc(1, sizeof(*m));
	rm_hostlist hl = { 0 };
	if (rm_layout_parse(layout, &m->layout, &e) ||
	    rm_order_parse(order, &m->layout, &m->order, &e) ||
	    rm_hostlist_parse(hosts, &hl, &e)) {
		printf("  setup: %s\n", e.msg);
		free(m);
		return NULL;
	}
	m->world = (uint32_t)rm_layout_world(&m->layout);
	m->gpus_per_node = g;
	m->host = hl.host;
	m->nhost = (uint32_t)hl.n;
	m->rank = calloc(m->world, sizeof(rm_rank));
	for (uint32_t r = 0; r < m->world; r++) {
		m->rank[r].node = where[r][0];
		m->rank[r].local_gpu = where[r][1];
		rm_rank_decode(&m->layout, &m->order, r, m->rank[r].coord);
	}
	return m;
}

static rm_fabric *topo(const char *text)
{
	return fixture_fabric(text, "t.conf");
}

static void block_order(uint32_t (*w)[2], uint32_t n, uint32_t g)
{
	for (uint32_t r = 0; r < n; r++) {
		w[r][0] = r / g;
		w[r][1] = r % g;
	}
}

/* `layout` (at most 64 ranks) in Slurm's block order over `hosts` of g
 * GPUs. */
static rm_map *block_mk(const char *layout, const char *order, uint32_t g,
			const char *hosts)
{
	uint32_t w[64][2];
	block_order(w, 64, g);
	return mk(layout, order, g, hosts, w);
}

/* `layout` in Slurm's block order over `hosts` of g GPUs, checked on f. */
static rm_map *block_checked(const char *layout, uint32_t g,
			     const char *hosts, const rm_fabric *f)
{
	rm_map *m = block_mk(layout, NULL, g, hosts);
	rm_error e;
	CHECK(m && m->world <= 64);
	CHECK_INT(rm_check(m, f, &e), RM_OK);
	return m;
}

static void scores_pp_and_dp(void)
{
	/* tp=4,pp=2,dp=2 on 4-GPU nodes in block order over n1,n3,n2,n4:
	 * replica 0 = n1 (stage 0) + n3 (stage 1), replica 1 = n2 + n4.
	 * Both replicas cross from L1 to L2 with 4 pairs each. Chains of
	 * 2*4 = 8 GPUs fit the 8-GPU leaves twice: the bound is 0. DP peers
	 * (r, r+8) are n1/n2 or n3/n4: one leaf per group, same GPU. */
	rm_fabric *f = topo("SwitchName=L1 Nodes=n[1-2]\n"
			    "SwitchName=L2 Nodes=n[3-4]\n"
			    "SwitchName=S Switches=L[1-2]\n");
	uint32_t w[16][2];
	block_order(w, 16, 4);
	rm_map *m = mk("4x2x2", NULL, 4, "n1,n3,n2,n4", w);
	rm_error e;
	CHECK_INT(rm_check(m, f, &e), RM_OK);
	rm_report *r = &m->report;
	CHECK(r->must_ok);
	CHECK_INT(r->world, 16);
	CHECK_INT(r->tp_groups, 4);
	CHECK_INT(r->pp_pairs, 8);
	CHECK_INT(r->pp_cross, 8);
	CHECK_INT(r->pp_same_leaf, 0);
	CHECK_INT(r->pp_cross_lower_bound, 0);
	/* leaves under one lone spine: every crossing meets at the spine */
	CHECK_INT(r->pp_cross_spine, 8);
	CHECK_INT(r->pp_cross_pod, 0);
	CHECK_INT(r->dp_groups, 8);
	CHECK_INT(r->dp_pairs, 8);
	CHECK_INT(r->dp_rail_aligned, 8);
	CHECK_INT(r->dp_leaves_max, 1);
	CHECK_INT(r->dp_tops_max, 1);
	CHECK_INT(r->leaves, 2);
	CHECK_INT(r->nwarning, 0);
	rm_map_free(m);

	/* the same ranks over n1,n2,n3,n4: no crossing, DP spans 2 leaves */
	m = mk("4x2x2", NULL, 4, "n1,n2,n3,n4", w);
	CHECK_INT(rm_check(m, f, &e), RM_OK);
	CHECK_INT(m->report.pp_cross, 0);
	CHECK_INT(m->report.pp_same_leaf, 8);
	CHECK_INT(m->report.dp_leaves_max, 2);
	CHECK(m->report.dp_leaves_mean > 1.99 && m->report.dp_leaves_mean < 2.01);
	/* checking again replaces the report instead of adding to it */
	CHECK_INT(rm_check(m, NULL, &e), RM_OK);
	CHECK_INT(m->report.nwarning, 1);
	CHECK_INT(rm_check(m, NULL, &e), RM_OK);
	CHECK_INT(m->report.nwarning, 1);
	CHECK_INT(m->report.pp_same_leaf, 8);
	rm_map_free(m);
	rm_fabric_free(f);
}

static void tiers_and_spans(void)
{
	/* Two pods of two leaves of two 2-GPU nodes under one spine;
	 * tp=2,pp=4,dp=2 in block order over n1,n3,n5,n7,n2,n4,n6,n8: each
	 * replica goes L1 -> L2 (pod) -> L3 (spine) -> L4 (pod), 2 pairs a
	 * step. */
	rm_fabric *f = topo("SwitchName=L1 Nodes=n[1-2]\n"
			    "SwitchName=L2 Nodes=n[3-4]\n"
			    "SwitchName=L3 Nodes=n[5-6]\n"
			    "SwitchName=L4 Nodes=n[7-8]\n"
			    "SwitchName=P1 Switches=L[1-2]\n"
			    "SwitchName=P2 Switches=L[3-4]\n"
			    "SwitchName=S Switches=P[1-2]\n");
	rm_map *m = block_checked("2x4x2", 2, "n1,n3,n5,n7,n2,n4,n6,n8", f);
	rm_report *r = &m->report;
	CHECK_INT(r->pp_pairs, 12);
	CHECK_INT(r->pp_cross, 12);
	CHECK_INT(r->pp_cross_pod, 8);
	CHECK_INT(r->pp_cross_spine, 4);
	CHECK_INT(r->pp_cross_top, 4);
	CHECK_INT(r->pp_same_node + r->pp_same_leaf + r->pp_same_rail +
			  r->pp_cross_pod + r->pp_cross_spine, r->pp_pairs);
	CHECK_INT(r->ep_groups, 0);
	/* each chain of 8 GPUs needs two 4-GPU leaves: one change of leaf,
	 * 2 pairs, per replica; 12 is three times that */
	CHECK_INT(r->pp_cross_lower_bound, 4);
	char words[128];
	CHECK_STR(rmi_pp_bound_words(r, words, sizeof(words)),
		  "at least twice its lower bound (12 vs bound 4)");
	rm_report t = { .pp_cross = 7, .pp_cross_lower_bound = 4 };
	CHECK_STR(rmi_pp_bound_words(&t, words, sizeof(words)),
		  "not proven optimal");
	t.pp_cross = 8;
	CHECK_STR(rmi_pp_bound_words(&t, words, sizeof(words)),
		  "at least twice its lower bound (8 vs bound 4)");
	t.pp_cross = 4;
	CHECK_STR(rmi_pp_bound_words(&t, words, sizeof(words)), "optimal");
	t.pp_cross = 3;
	t.pp_cross_lower_bound = 0;
	CHECK_STR(rmi_pp_bound_words(&t, words, sizeof(words)),
		  "not proven optimal");
	rm_map_free(m);

	/* ep=2 carved out of dp=4 (expert groups [0,1] and [2,3]), each
	 * pair put on n1 and n5: every EP group spans two leaves and both
	 * pods; in block order each stays on one node. */
	uint32_t far[4][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 } };
	rm_error e;
	m = mk("tp=1,ep=2,pp=1,dp=4", NULL, 2, "n1,n5", far);
	CHECK_INT(rm_check(m, f, &e), RM_OK);
	rm_map *near = block_checked("tp=1,ep=2,pp=1,dp=4", 2, "n1,n5", f);
	/* {groups, leaves max, tops max, leaves mean x 100, tops mean x 100} */
	const rm_report *ep[2] = { &m->report, &near->report };
	const uint32_t want[2][5] = { { 2, 2, 2, 200, 200 },
				      { 2, 1, 1, 100, 100 } };
	for (int i = 0; i < 2; i++) {
		uint32_t got[5] = {
			ep[i]->ep_groups, ep[i]->ep_leaves_max, ep[i]->ep_tops_max,
			(uint32_t)(ep[i]->ep_leaves_mean * 100 + 0.5),
			(uint32_t)(ep[i]->ep_tops_mean * 100 + 0.5)
		};
		CHECK(!memcmp(got, want[i], sizeof(got)));
	}
	rm_map_free(m);
	rm_map_free(near);
	rm_fabric_free(f);
}

static void tp_split(void)
{
	/* TP=8 over two 4-GPU nodes with node domains: the one TP group
	 * leaves its domain. */
	uint32_t w[8][2];
	block_order(w, 8, 4);
	rm_map *m = mk("8x1x1", NULL, 4, "n1,n2", w);
	rm_error e;
	CHECK_INT(rm_check(m, NULL, &e), RM_OK);
	CHECK(!m->report.must_ok);
	CHECK_INT(m->report.tp_split, 1);
	CHECK_INT(m->report.nwarning, 2);
	if (m->report.nwarning == 2)
		CHECK_HAS(m->report.warning[1],
			  "1 of 1 TP groups leave their NVLink domain (the first has rank 0 on 'n1' and rank 4 on 'n2')");
	rm_map_free(m);
}

static void rails(void)
{
	/* pp=2 on two nodes of one rail unit: same local GPU = same rail */
	rm_fabric *f = NULL;
	rm_error e = { 0 };
	rm_fabric_new(&f, &e);
	char *un[] = { "su1" }, *nodes[] = { "n[1-2]" };
	CHECK_INT(fixture_units(f, 2, un, nodes, 1, &e), RM_OK);
	uint32_t same[2][2] = { { 0, 0 }, { 1, 0 } };
	uint32_t other[2][2] = { { 0, 0 }, { 1, 1 } };
	rm_map *m = mk("pp=2,dp=1", NULL, 2, "n1,n2", same);
	CHECK_INT(rm_check(m, f, &e), RM_OK);
	CHECK_INT(m->report.pp_same_rail, 1);
	CHECK_INT(m->report.pp_rail_aligned, 1);
	CHECK_INT(m->report.pp_cross, 0);
	rm_map_free(m);
	m = mk("pp=2,dp=1", NULL, 2, "n1,n2", other);
	CHECK_INT(rm_check(m, f, &e), RM_OK);
	CHECK_INT(m->report.pp_same_rail, 0);
	CHECK_INT(m->report.pp_cross, 1);
	rm_map_free(m);
	rm_fabric_free(f);
}

static void rejects(void)
{
	/* 8 ranks in block order on n1,n2 of 4 GPUs, one coordinate moved:
	 * rank r's where[r][k] set to v. */
	static const struct {
		uint32_t r, k, v;
		const char *msg;
	} moved[] = {
		/* rank 1 on GPU 0 of n1, like rank 0 */
		{ 1, 1, 0, "ranks 0 and 1 both use GPU 0 of 'n1'" },
		{ 5, 1, 4, "rank 5 is on GPU 4 of 'n2', which has GPUs 0..3" },
		{ 7, 0, 2, "rank 7 is on host 2, but the map has 2 hosts" },
	};
	uint32_t w[8][2];
	rm_error e;
	rm_map *m;
	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		block_order(w, 8, 4);
		w[moved[i].r][moved[i].k] = moved[i].v;
		m = mk("8x1x1", NULL, 4, "n1,n2", w);
		CHECK_INT(rm_check(m, NULL, &e), RM_EINPUT);
		CHECK_HAS(e.msg, moved[i].msg);
		rm_map_free(m);
	}

	block_order(w, 8, 4);
	m = mk("4x2x1", NULL, 4, "n1,n2", w);
	if (m) {
		m->rank[3].coord[RM_AXIS_PP] = 1;
		CHECK_INT(rm_check(m, NULL, &e), RM_EINPUT);
		CHECK_HAS(e.msg, "rank 3 has pp=1 but numbering order");
		m->rank[3].coord[RM_AXIS_PP] = 0;
		m->world = 4;
		CHECK_INT(rm_check(m, NULL, &e), RM_EINPUT);
		CHECK_HAS(e.msg, "world is 4 but the layout multiplies to 8");
		m->world = 8;
		m->layout.nest[0] = (rm_axis)7;
		CHECK_INT(rm_check(m, NULL, &e), RM_EINPUT);
		CHECK_HAS(e.msg, "malformed layout");
		m->layout.nest[0] = RM_AXIS_PP;
		CHECK_INT(rm_check(m, NULL, &e), RM_EINPUT);
		CHECK_HAS(e.msg, "malformed layout");
		m->layout.nest[0] = RM_AXIS_TP;
		CHECK_INT(rm_check(m, NULL, &e), RM_OK);
		free(m->host[1]);
		m->host[1] = strdup("n1");
		CHECK_INT(rm_check(m, NULL, &e), RM_EINPUT);
		CHECK_HAS(e.msg, "host 'n1' is listed more than once");
	}
	rm_map_free(m);
	CHECK_INT(rm_check(NULL, NULL, &e), RM_EINPUT);
}

static void groups(void)
{
	/* Megatron's documented example: world 16, TP=2 PP=4 DP=2, order
	 * tp-cp-ep-dp-pp. TP [0,1],[2,3]...; DP [0,2],[1,3],[4,6]...;
	 * PP [0,4,8,12],[1,5,9,13]... */
	rm_map *m = block_mk("tp=2,pp=4,dp=2", "megatron", 8, "n[1-2]");
	if (!m)
		return;
	rm_error e;
	uint32_t mem[4], id;
	CHECK_INT(rm_map_group(m, RM_AXIS_TP, 3, mem, &id, &e), RM_OK);
	CHECK_INT(mem[0], 2);
	CHECK_INT(mem[1], 3);
	CHECK_INT(id, 1);
	CHECK_INT(rm_map_group(m, RM_AXIS_DP, 4, mem, &id, &e), RM_OK);
	CHECK_INT(mem[0], 4);
	CHECK_INT(mem[1], 6);
	CHECK_INT(rm_map_group(m, RM_AXIS_DP, 1, mem, &id, &e), RM_OK);
	CHECK_INT(mem[0], 1);
	CHECK_INT(mem[1], 3);
	CHECK_INT(rm_map_group(m, RM_AXIS_PP, 9, mem, &id, &e), RM_OK);
	CHECK_INT(mem[0], 1);
	CHECK_INT(mem[1], 5);
	CHECK_INT(mem[2], 9);
	CHECK_INT(mem[3], 13);
	CHECK_INT(id, 1);
	/* ids are dense and every member of a group reports the same id */
	for (int a = 0; a < RM_NAXES; a++) {
		uint32_t sz = m->layout.size[a], ngroups = 16 / sz;
		uint32_t seen[16] = { 0 };
		for (uint32_t r = 0; r < 16; r++) {
			CHECK_INT(rm_map_group(m, (rm_axis)a, r, mem, &id, &e),
				  RM_OK);
			CHECK(id < ngroups);
			if (id < ngroups)
				seen[id]++;
			for (uint32_t i = 0; i < sz; i++) {
				uint32_t id2;
				rm_map_group(m, (rm_axis)a, mem[i], NULL, &id2,
					     &e);
				CHECK_INT(id2, id);
			}
		}
		for (uint32_t g = 0; g < ngroups; g++)
			CHECK_INT(seen[g], sz);
	}
	CHECK_INT(rm_map_group(m, RM_AXIS_TP, 16, mem, &id, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "rank 16 is outside the world of 16");
	rm_map_free(m);
}

static void hostile_maps(void)
{
	/* Random corruptions of a valid map: rm_check either accepts the
	 * result or rejects it with a message, and never reads out of
	 * bounds (ASan) or loops. */
	rm_map *m = block_mk("tp=4,cp=2,pp=4,dp=2", "megatron", 8, "n[1-8]");
	if (!m)
		return;
	uint64_t x = 12345;
	unsigned accepted = 0, rejected = 0;
	for (int i = 0; i < 2000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t v = (uint32_t)(x >> 33), r = v % 64;
		rm_map save = *m;
		rm_rank keep = m->rank[r];
		switch (v % 7) {
		case 0: m->rank[r].node = v >> 8; break;
		case 1: m->rank[r].local_gpu = v >> 12; break;
		case 2: m->rank[r].coord[v % RM_NAXES] = v >> 20; break;
		case 3: m->layout.size[v % RM_NAXES] = v >> 28; break;
		case 4: m->layout.nest[v % RM_NAXES] = (rm_axis)(v >> 29); break;
		case 5: m->order.axis[v % RM_NAXES] = (rm_axis)(v >> 29); break;
		default: m->gpus_per_node = v >> 26; break;
		}
		rm_error e = { 0 };
		rm_status st = rm_check(m, NULL, &e);
		CHECK(st == RM_OK || st == RM_EINPUT);
		if (st == RM_OK)
			accepted++;
		else {
			rejected++;
			CHECK(e.msg[0] != '\0');
		}
		m->rank[r] = keep;
		m->layout = save.layout;
		m->order = save.order;
		m->gpus_per_node = save.gpus_per_node;
	}
	CHECK(rejected > 0);
	CHECK(accepted > 0);
	rm_map_free(m);
}

/* A map is the job's only on its nodes and the fabric it was placed on:
 * rm_map_compare_* name each difference (issue 37: a map of another
 * allocation scored "optimal"). */
static void compare(void)
{
	rm_error e = { 0 };
	rm_layout l;
	rm_order o;
	static const char *const nodes[] = { "n1", "n2", "n3", "n4", "n5" };
	CHECK_INT(rm_layout_parse("tp=4,pp=2,dp=2", &l, &e), RM_OK);
	CHECK_INT(rm_order_parse("tp-pp-dp", &l, &o, &e), RM_OK);
	rm_fabric *f = topo("SwitchName=l1 Nodes=n[1-2]\n"
			    "SwitchName=l2 Nodes=n[3-5]\n"
			    "SwitchName=s Switches=l[1-2]\n");
	rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
			       .layout = &l, .order = &o, .nodes = nodes,
			       .nnodes = 5, .gpus_per_node = 4, .fabric = f };
	rm_map *m = NULL;
	CHECK_INT(rm_plan(&po, &m, &e), RM_OK);
	if (!m || !f) {
		rm_fabric_free(f);
		return;
	}
	char *d = NULL;
	/* its own nodes, in any order; its fabric */
	static const char *const shuffled[] = { "n5", "n3", "n1", "n4", "n2" };
	CHECK_INT(rm_map_compare_nodes(m, shuffled, 5, true, &d, &e), RM_OK);
	CHECK(d == NULL);
	CHECK_INT(rm_map_compare_fabric(m, f, false, &d, &e), RM_OK);
	CHECK(d == NULL);
	/* another allocation: a host missing, a node unknown to the map */
	static const char *const other[] = { "n1", "n2", "n3", "n4", "n9" };
	CHECK_INT(rm_map_compare_nodes(m, other, 5, true, &d, &e), RM_OK);
	CHECK(d != NULL);
	const char *spare = rm_map_spare_count(m) ? rm_map_spare(m, 0) : "";
	if (d && strcmp(spare, "n5") != 0)
		CHECK(strstr(d, "'n5'") != NULL);
	if (d)
		CHECK(strstr(d, "the node list are not in the map") ||
		      strstr(d, "the node list is not in the map"));
	if (d)
		CHECK(strstr(d, "'n9'") != NULL);
	free(d);
	d = NULL;
	/* an assignment need not list the spare node */
	static const char *const more[] = { "n1", "n2", "n3", "n4", "n5", "n6" };
	CHECK_INT(rm_map_compare_nodes(m, more, 6, false, &d, &e), RM_OK);
	CHECK(d == NULL);
	free(d);
	d = NULL;
	/* the same nodes on other leaves */
	rm_fabric *g = topo("SwitchName=l1 Nodes=n[1,3]\n"
			    "SwitchName=l2 Nodes=n[2,4-5]\n"
			    "SwitchName=s Switches=l[1-2]\n");
	CHECK_INT(rm_map_compare_fabric(m, g, false, &d, &e), RM_OK);
	CHECK(d != NULL && strstr(d, "elsewhere") != NULL);
	if (d)
		CHECK(strstr(d, "(map: l1, topology: l2)") ||
		      strstr(d, "(map: l2, topology: l1)"));
	free(d);
	d = NULL;
	/* another cluster altogether; allow_missing does not hide it */
	rm_fabric *h = topo("SwitchName=l1 Nodes=x[1-5]\n");
	CHECK_INT(rm_map_compare_fabric(m, h, true, &d, &e), RM_OK);
	CHECK(d != NULL && strstr(d, "knows none") != NULL);
	free(d);
	d = NULL;
	/* a flat fabric compares nothing */
	CHECK_INT(rm_map_compare_fabric(m, NULL, false, &d, &e), RM_OK);
	CHECK(d == NULL);
	rm_map_free(m);
	rm_fabric_free(f);
	rm_fabric_free(g);
	rm_fabric_free(h);
}

int main(void)
{
	RUN("check", scores_pp_and_dp);
	RUN("check", tiers_and_spans);
	RUN("check", tp_split);
	RUN("check", rails);
	RUN("check", rejects);
	RUN("check", groups);
	RUN("check", hostile_maps);
	RUN("check", compare);
	TEST_EXIT();
}
