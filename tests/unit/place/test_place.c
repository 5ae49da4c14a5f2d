/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_place.c - rm_plan on small fabrics whose best placement and lower
 * bound can be worked out by hand (the reasoning is in each comment).
 */
#include "internal.h"
#include "fixture.h"
#include "test.h"
#include "xorshift.h"

#include <stdlib.h>
#include <string.h>

static rm_fabric *topo(const char *text)
{
	return fixture_fabric(text, "test.conf");
}

typedef struct plan_in {
	const char *layout, *order, *nodes;
	uint32_t gpn;
	const rm_fabric *f;
	bool exact, baseline, allow_missing;
} plan_in;

static rm_status plan_kind(const plan_in *in, rm_baseline kind, rm_map **m,
			   rm_error *e)
{
	rm_layout l;
	rm_order o;
	rm_hostlist hl = { 0 };
	memset(e, 0, sizeof(*e));
	*m = NULL;
	rm_status st = rm_layout_parse(in->layout, &l, e);
	if (!st)
		st = rm_order_parse(in->order, &l, &o, e);
	if (!st)
		st = rm_hostlist_parse(in->nodes, &hl, e);
	if (st) {
		printf("  setup: %s\n", e->msg);
		rm_hostlist_clear(&hl);
		return st;
	}
	rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
			    .layout = &l, .order = in->order ? &o : NULL,
			    .nodes = (const char *const *)hl.host,
			    .nnodes = hl.n, .gpus_per_node = in->gpn,
			    .fabric = in->f, .exact = in->exact,
			    .baseline = in->baseline,
			    .allow_missing = in->allow_missing,
			    .baseline_kind = kind };
	st = rm_plan(&po, m, e);
	rm_hostlist_clear(&hl);
	return st;
}

static rm_status plan(const plan_in *in, rm_map **m, rm_error *e)
{
	return plan_kind(in, RM_BASELINE_SLURM, m, e);
}

/* The plan of in, which must succeed; NULL (checked) when it does not. */
static rm_map *planned(const plan_in *in)
{
	rm_map *m;
	rm_error e;
	CHECK_INT(plan(in, &m, &e), RM_OK);
	return m;
}

/* "a1 a2 ..." for nv names, to compare orders in one line. */
static const char *joined(char *const *v, uint32_t nv, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < nv && o + 1 < n; i++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? " " : "",
				      v[i]);
	return buf;
}

/* The map's hosts, in its order. */
static const char *hosts(const rm_map *m, char *buf, size_t n)
{
	return joined(m ? m->host : NULL, m ? m->nhost : 0, buf, n);
}

static const char *spares(const rm_map *m, char *buf, size_t n)
{
	return joined(m ? m->spare : NULL, m ? m->nspare : 0, buf, n);
}

static void flat_numbering(void)
{
	/* No topology, nodes given out of order: they are sorted by natural
	 * order and numbered in nesting order (tp fastest). */
	char b[256];
	plan_in in = { "8x2x2", NULL, "n3,n10,n1,n2", 8, NULL, 0, 0, 0 };
	rm_map *m = planned(&in);
	if (!m)
		return;
	CHECK_STR(hosts(m, b, sizeof(b)), "n1 n2 n3 n10");
	CHECK_INT(m->world, 32);
	CHECK_INT(m->nspare, 0);
	/* slot 9 = node 1, GPU 1: tp=1, pp=1, dp=0 */
	CHECK_INT(m->rank[9].node, 1);
	CHECK_INT(m->rank[9].local_gpu, 1);
	CHECK_INT(m->rank[9].coord[RM_AXIS_TP], 1);
	CHECK_INT(m->rank[9].coord[RM_AXIS_PP], 1);
	CHECK_INT(m->rank[9].coord[RM_AXIS_DP], 0);
	CHECK(m->report.must_ok);
	CHECK_INT(m->report.nwarning, 1);
	if (m->report.nwarning)
		CHECK_HAS(m->report.warning[0], "no topology");
	CHECK_STR(m->host_leaf[0], "flat");
	CHECK_INT(strlen(m->inputs_sha256), 64);
	rm_map_free(m);
}

static void numbering_order(void)
{
	/* Megatron order tp-cp-ep-dp-pp: RANK = tp + dp*TP + pp*TP*DP. The
	 * GPU at slot s still gets the nesting coordinates of s. */
	plan_in in = { "2x4x2", "megatron", "n[1-2]", 8, NULL, 0, 0, 0 };
	rm_map *m = planned(&in);
	if (!m)
		return;
	for (uint32_t s = 0; s < 16; s++) {
		uint32_t tp = s % 2, pp = s / 2 % 4, dp = s / 8;
		uint32_t r = tp + dp * 2 + pp * 4;
		CHECK_INT(m->rank[r].node, s / 8);
		CHECK_INT(m->rank[r].local_gpu, s % 8);
		CHECK_INT(m->rank[r].coord[RM_AXIS_PP], pp);
		CHECK_INT(m->rank[r].coord[RM_AXIS_DP], dp);
	}
	rm_map_free(m);
}

static const char *three_leaves =
	"SwitchName=L1 Nodes=a[1-6]\n"
	"SwitchName=L2 Nodes=b[1-6]\n"
	"SwitchName=L3 Nodes=c[1-4]\n"
	"SwitchName=spine Switches=L[1-3]\n";

static void uneven_leaves(void)
{
	/* 8x4x4 on 8-GPU nodes: a replica is 4 nodes. Leaves of 6, 6, 4
	 * hold 1+1+1 whole replicas; the fourth is built from the two
	 * leftover pairs (a5,a6 and b5,b6) and crosses once: TP=8 pairs.
	 * Lower bound: chains of PP*TP = 32 GPUs; leaves hold 48/32 +
	 * 48/32 + 32/32 = 3 of the 4, so one chain crosses: 8 pairs. */
	rm_fabric *f = topo(three_leaves);
	char b[256];
	plan_in in = { "8x4x4", NULL, "c[1-4],b[1-6],a[1-6]", 8, f, 0, 0, 0 };
	rm_map *m = planned(&in);
	if (m) {
		/* replicas in DFS order of their first node */
		CHECK_STR(hosts(m, b, sizeof(b)),
			  "a1 a2 a3 a4 a5 a6 b5 b6 b1 b2 b3 b4 c1 c2 c3 c4");
		CHECK_INT(m->report.pp_pairs, 128 / 4 * 3);
		CHECK_INT(m->report.pp_cross, 8);
		CHECK_INT(m->report.pp_cross_lower_bound, 8);
		CHECK_INT(m->report.pp_same_node, 0);
		CHECK_INT(m->report.pp_same_leaf, 96 - 8);
		CHECK_INT(m->report.leaves, 3);
		CHECK_INT(m->report.tops, 1);
		CHECK_STR(m->host_leaf[0], "L1");
		CHECK_STR(m->host_leaf[7], "L2");
		CHECK(m->host_unit[0] == NULL);
		CHECK(m->report.must_ok);
		CHECK_INT(m->report.nwarning, 0);
	}
	rm_map_free(m);
	/* 8x2x8: replicas of 2 nodes; 6, 6 and 4 hold 3 + 3 + 2 = all 8 */
	in.layout = "8x2x8";
	m = planned(&in);
	if (m) {
		CHECK_INT(m->report.pp_pairs, 64);
		CHECK_INT(m->report.pp_cross, 0);
		CHECK_INT(m->report.pp_cross_lower_bound, 0);
		CHECK_INT(m->report.dp_leaves_max, 3);
	}
	rm_map_free(m);
	rm_fabric_free(f);
}

static void small_leaves(void)
{
	/* Racks of 2, 1, 1, 2, 1, 1 nodes (8 GPUs each), 8x4x2: chains of
	 * 32 GPUs, none fits a rack. The 64 GPUs need all 6 racks, so there
	 * are at least 6 pieces for 2 chains: 4 crossings of 8 pairs = 32.
	 * The plan pairs the two 2-node racks (1 crossing) and strings the
	 * four single nodes together (3 crossings). */
	rm_fabric *f = topo("SwitchName=r1 Nodes=x[1-2]\n"
			    "SwitchName=r2 Nodes=x3\n"
			    "SwitchName=r3 Nodes=x4\n"
			    "SwitchName=r4 Nodes=x[5-6]\n"
			    "SwitchName=r5 Nodes=x7\n"
			    "SwitchName=r6 Nodes=x8\n"
			    "SwitchName=pod Switches=r[1-6]\n");
	char b[256];
	plan_in in = { "8x4x2", NULL, "x[1-8]", 8, f, 0, 0, 0 };
	rm_map *m = planned(&in);
	if (m) {
		CHECK_STR(hosts(m, b, sizeof(b)), "x1 x2 x5 x6 x3 x4 x7 x8");
		CHECK_INT(m->report.pp_cross, 32);
		CHECK_INT(m->report.pp_cross_lower_bound, 32);
	}
	rm_map_free(m);
	rm_fabric_free(f);
}

static void residue_packing(void)
{
	/* Issue 11's minimal case: leaves of 2, 9, 3, 2, 3, 8 nodes, 8x5x5
	 * (replicas of 5 nodes). Leaves of 9 and 8 hold one whole replica
	 * each and leave 4 and 3; the other three replicas come from
	 * leftovers 4, 3, 3, 3, 2, 2. Each needs two pieces at least, and
	 * 4+2 (or 4+1), 3+2 and 3+3 give exactly two each: 3 crossings x 8
	 * pairs = 24. Largest-first filling used to take 4+3 and then had
	 * to split a replica three ways (32). */
	rm_fabric *f = topo("SwitchName=l1 Nodes=n[1-2]\n"
			    "SwitchName=l2 Nodes=n[3-11]\n"
			    "SwitchName=l3 Nodes=n[12-14]\n"
			    "SwitchName=l4 Nodes=n[15-16]\n"
			    "SwitchName=l5 Nodes=n[17-19]\n"
			    "SwitchName=l6 Nodes=n[20-27]\n"
			    "SwitchName=s Switches=l[1-6]\n");
	plan_in in = { "8x5x5", NULL, "n[1-27]", 8, f, 0, 0, 0 };
	rm_map *m = planned(&in);
	if (m) {
		CHECK_INT(m->report.pp_cross, 24);
		CHECK_INT(m->report.pp_cross_lower_bound, 24);
		CHECK(m->report.pp_bound_exact);
		CHECK_INT(m->nspare, 2);
	}
	rm_map_free(m);
	rm_fabric_free(f);
}

static void baseline_fragmented(void)
{
	/* Slurm's list interleaves the leaves: every pair of consecutive
	 * nodes sits on two leaves, so in the baseline each of the 4
	 * replicas crosses at all 3 stage boundaries: 4*3*8 = 96 pairs. */
	rm_fabric *f = topo(three_leaves);
	const char *nodes = "a1,b1,c1,a2,b2,c2,a3,b3,c3,a4,b4,c4,a5,b5,a6,b6";
	rm_map *bm, *pm;
	rm_error e;
	char b[256];
	plan_in in = { "8x4x4", NULL, nodes, 8, f, 0, 1, 0 };
	CHECK_INT(plan(&in, &bm, &e), RM_OK);
	in.baseline = false;
	CHECK_INT(plan(&in, &pm, &e), RM_OK);
	if (bm && pm) {
		CHECK_STR(hosts(bm, b, sizeof(b)),
			  "a1 b1 c1 a2 b2 c2 a3 b3 c3 a4 b4 c4 a5 b5 a6 b6");
		CHECK_INT(bm->report.pp_cross, 96);
		CHECK(pm->report.pp_cross <= bm->report.pp_cross);
		CHECK_INT(pm->report.pp_cross, 8);
		/* both are judged against the same bound */
		CHECK_INT(bm->report.pp_cross_lower_bound, 8);
		/* the baseline hashes the order it was given */
		CHECK(strcmp(bm->inputs_sha256, pm->inputs_sha256) != 0);
		/* baseline rank r sits on node r/8, GPU r%8 */
		CHECK_INT(bm->rank[27].node, 3);
		CHECK_INT(bm->rank[27].local_gpu, 3);
	}
	rm_map_free(bm);
	rm_map_free(pm);
	rm_fabric_free(f);
}

static void baseline_kinds(void)
{
	/* Leaves in the file's order z, a, m; pods P1 (a, m) and P2 (z).
	 * Sorted walks pods and leaves by name: P1's a (n5 n6), m (n3 n4),
	 * then P2's z (n1 n2); x1, under no switch, last. Switch ranks
	 * number the leaves in the file's order, z 1, a 2, m 3, and x1, under
	 * none, 0: Slurm puts it first. */
	rm_fabric *f = topo("SwitchName=z Nodes=n[1-2]\n"
			    "SwitchName=a Nodes=n[5-6]\n"
			    "SwitchName=m Nodes=n[3-4]\n"
			    "SwitchName=P2 Switches=z\n"
			    "SwitchName=P1 Switches=a,m\n"
			    "SwitchName=top Switches=P1,P2\n");
	static const struct {
		rm_baseline kind;
		const char *want;
	} c[] = {
		{ RM_BASELINE_SLURM, "n6 n1 x1 n4 n5 n2 n3" },
		{ RM_BASELINE_SORTED, "n5 n6 n3 n4 n1 n2 x1" },
		{ RM_BASELINE_SWITCH_RANK, "x1 n1 n2 n5 n6 n3 n4" },
	};
	char b[256];
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		plan_in in = { "8x1x7", NULL, "n6,n1,x1,n4,n5,n2,n3", 8, f, 0,
			       1, 1 };
		plan_in again = in;
		again.nodes = "n3,n2,n5,n4,x1,n1,n6";
		rm_map *m, *m2;
		rm_error e;
		CHECK_INT(plan_kind(&in, c[i].kind, &m, &e), RM_OK);
		CHECK_INT(plan_kind(&again, c[i].kind, &m2, &e), RM_OK);
		if (m && m2) {
			CHECK_STR(hosts(m, b, sizeof(b)), c[i].want);
			/* only Slurm's order depends on the order given */
			CHECK_INT(strcmp(m->inputs_sha256, m2->inputs_sha256) == 0,
				  c[i].kind != RM_BASELINE_SLURM);
			/* block distribution: rank r on the map's node r/8 */
			CHECK_INT(m->rank[17].node, 2);
			CHECK_INT(m->rank[17].local_gpu, 1);
		}
		rm_map_free(m);
		rm_map_free(m2);
	}
	/* a kind this library does not know is refused, not guessed */
	plan_in bad = { "8x1x7", NULL, "n[1-6],x1", 8, f, 0, 1, 1 };
	rm_map *m;
	rm_error e;
	CHECK_INT(plan_kind(&bad, (rm_baseline)RM_BASELINE_COUNT, &m, &e),
		  RM_EINPUT);
	CHECK_HAS(e.msg, "baseline kind 3");
	rm_baseline k;
	CHECK_INT(rm_baseline_parse("switch-rank", &k, &e), RM_OK);
	CHECK_INT(k, RM_BASELINE_SWITCH_RANK);
	CHECK_INT(rm_baseline_parse("sorted-hostfile", &k, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "unknown baseline 'sorted-hostfile'");
	CHECK(rm_baseline_name(RM_BASELINE_COUNT) == NULL);
	rm_fabric_free(f);
}

static void spares_choice(void)
{
	/* 8x4x3 needs 12 nodes = 3 replicas of 4. Leaves of 8, 3 and 5
	 * hold 2 + 0 + 1 whole replicas: the plan uses a[1-8] and c[1-4]
	 * with no crossing; b[1-3] and c5 are spares. */
	rm_fabric *f = topo("SwitchName=A Nodes=a[1-8]\n"
			    "SwitchName=B Nodes=b[1-3]\n"
			    "SwitchName=C Nodes=c[1-5]\n"
			    "SwitchName=top Switches=A,B,C\n");
	char b[256];
	plan_in in = { "8x4x3", NULL, "a[1-8],b[1-3],c[1-5]", 8, f, 0, 0, 0 };
	rm_map *m = planned(&in);
	if (m) {
		CHECK_STR(spares(m, b, sizeof(b)), "b1 b2 b3 c5");
		CHECK_INT(m->report.pp_cross, 0);
		CHECK_INT(m->report.pp_cross_lower_bound, 0);
		CHECK_INT(m->nhost, 12);
	}
	rm_map_free(m);
	/* exact: every GPU must be used, 16 nodes != 12 */
	in.exact = true;
	rm_error e;
	CHECK(plan(&in, &m, &e) != RM_OK);
	CHECK_HAS(e.msg, "needs 96 GPUs, 128 available (all must be used)");
	rm_map_free(m);
	rm_fabric_free(f);
}

static const char *two_pods =
	"SwitchName=a Nodes=a[1-4]\n"
	"SwitchName=b Nodes=b[1-4]\n"
	"SwitchName=c Nodes=c[1-4]\n"
	"SwitchName=d Nodes=d[1-4]\n"
	"SwitchName=e Nodes=e[1-4]\n"
	"SwitchName=P1 Switches=a,b\n"
	"SwitchName=P2 Switches=c,d,e\n";

static void fewest_subtrees_case(const char *text)
{
	/* Two pods: P1 = 2 leaves of 4 (2 whole replicas), P2 = 3 leaves of
	 * 4 (3 whole). 8x4x3 fits in P2 alone, so P1 is left as spares. */
	rm_fabric *f = topo(text);
	char b[256];
	plan_in in = { "8x4x3", NULL, "a[1-4],b[1-4],c[1-4],d[1-4],e[1-4]", 8,
		       f, 0, 0, 0 };
	rm_map *m = planned(&in);
	if (m) {
		CHECK_INT(m->report.tops, 1);
		CHECK_INT(m->report.dp_tops_max, 1);
		CHECK_INT(m->report.dp_leaves_max, 3);
		CHECK_STR(spares(m, b, sizeof(b)),
			  "a1 a2 a3 a4 b1 b2 b3 b4");
		CHECK_INT(m->report.pp_cross, 0);
	}
	rm_map_free(m);
	rm_fabric_free(f);
}

static void fewest_subtrees(void)
{
	fewest_subtrees_case(two_pods);
	/* under one spine the pods are still the subtrees that count */
	char text[512];
	snprintf(text, sizeof(text), "%sSwitchName=spine Switches=P1,P2\n",
		 two_pods);
	fewest_subtrees_case(text);
}

static void rule_errors(void)
{
	rm_map *m;
	rm_error e;
	plan_in in = { "16x2x2", NULL, "n[1-8]", 8, NULL, 0, 0, 0 };
	CHECK_INT(plan(&in, &m, &e), RM_ERULE);
	CHECK_HAS(e.msg,
		  "TP=16 needs an NVLink domain of 16 GPUs; nodes here have 8 (domain: node); use tp<=8");
	CHECK(m == NULL);
	in.layout = "3x2x2";
	CHECK_INT(plan(&in, &m, &e), RM_ERULE);
	CHECK_HAS(e.msg, "TP=3 does not divide the 8 GPUs of a node");
	CHECK_HAS(e.msg, "1, 2, 4, 8");
	/* the baseline shows what a job gets anyway: no rule error */
	in.layout = "16x2x2";
	in.baseline = true;
	CHECK_INT(plan(&in, &m, &e), RM_OK);
	if (m) {
		CHECK(!m->report.must_ok);
		CHECK_INT(m->report.tp_split, 4);
		CHECK_INT(m->report.tp_groups, 4);
	}
	rm_map_free(m);
	/* CP nested right outside TP joins the must-block while it fits */
	in.baseline = false;
	in.layout = "tp=4,cp=2,pp=2,dp=auto";
	CHECK_INT(plan(&in, &m, &e), RM_OK);
	if (m) {
		CHECK(m->report.cp_must);
		CHECK_INT(m->report.cp_split, 0);
	}
	rm_map_free(m);
	/* ... and is only scored when it does not */
	in.layout = "tp=8,cp=2,pp=2,dp=auto";
	CHECK_INT(plan(&in, &m, &e), RM_OK);
	if (m) {
		CHECK(!m->report.cp_must);
		CHECK(m->report.must_ok);
		CHECK_INT(m->report.cp_split, m->world / 2);
	}
	rm_map_free(m);
}

static void input_errors(void)
{
	rm_map *m;
	rm_error e;
	rm_fabric *f = topo(three_leaves);
	plan_in in = { "8x2x2", NULL, "a1,a2,a1,a3", 8, f, 0, 0, 0 };
	CHECK_INT(plan(&in, &m, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "'a1' is listed more than once");
	in.nodes = "a[1-2],x7,x9,x10";
	CHECK_INT(plan(&in, &m, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "3 nodes are not in test.conf: 'x7', 'x9', 'x10'");
	in.allow_missing = true;
	in.layout = "8x1x5";
	CHECK_INT(plan(&in, &m, &e), RM_OK);
	if (m) {
		CHECK(m->report.nwarning >= 1);
		if (m->report.nwarning)
			CHECK_HAS(m->report.warning[0],
				  "3 hosts are not in the topology");
		/* each missing node is a leaf of its own */
		CHECK_INT(m->report.leaves, 4);
	}
	rm_map_free(m);
	in.allow_missing = false;
	in.nodes = "a[1-2]";
	in.layout = "8x2x4";
	CHECK_INT(plan(&in, &m, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "needs 64 GPUs, 16 available");
	in.layout = "8x2x1";
	in.gpn = 0;
	CHECK_INT(plan(&in, &m, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "GPUs per node");

	const char *bad[] = { "a1", "" };
	rm_layout l;
	rm_layout_parse("8x1x1", &l, &e);
	rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
			    .layout = &l, .nodes = bad, .nnodes = 2,
			    .gpus_per_node = 8 };
	CHECK_INT(rm_plan(&po, &m, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "empty name");
	po.nnodes = 0;
	CHECK_INT(rm_plan(&po, &m, &e), RM_EINPUT);
	CHECK_INT(rm_plan(NULL, &m, &e), RM_EINPUT);
	rm_fabric_free(f);
}

static void gb200_domains(void)
{
	/* NVL72-style blocks of 18 nodes x 4 GPUs; TP=8 needs cells of 2
	 * nodes of one block. g[1-18] gives 9 cells, h[1-5] gives 2 (h5
	 * left over): 88 GPUs usable, dp=auto -> 5 replicas of 16 GPUs
	 * (2 cells each): 4 from block g, 1 from block h. */
	rm_fabric *f = topo("BlockName=g Nodes=g[1-18]\n"
			    "BlockName=h Nodes=h[1-18]\n");
	char b[256];
	plan_in in = { "tp=8,pp=2,dp=auto", NULL, "g[1-18],h[1-5]", 4, f, 0,
		       0, 0 };
	rm_map *m = planned(&in);
	if (m) {
		CHECK_INT(m->layout.size[RM_AXIS_DP], 5);
		CHECK(m->report.must_ok);
		CHECK_INT(m->report.tp_split, 0);
		CHECK_STR(spares(m, b, sizeof(b)), "g17 g18 h5");
		CHECK_INT(m->report.pp_cross, 0);
		CHECK_STR(m->host_leaf[0], "g");
	}
	rm_map_free(m);
	/* TP=16: cells of 4 nodes: g gives 4 (g17, g18 left), h[1-3] none;
	 * 84 GPUs are allocated but only 64 can hold TP groups */
	in.layout = "tp=16,dp=5";
	in.nodes = "g[1-18],h[1-3]";
	rm_error e;
	CHECK_INT(plan(&in, &m, &e), RM_ERULE);
	CHECK_HAS(e.msg, "allocation's domains hold 4 such blocks (64 GPUs)");
	in.layout = "tp=96,dp=1";
	CHECK_INT(plan(&in, &m, &e), RM_ERULE);
	CHECK_HAS(e.msg, "largest domain here has 72");
	in.layout = "tp=6,dp=2";
	CHECK_INT(plan(&in, &m, &e), RM_ERULE);
	CHECK_HAS(e.msg, "not whole nodes of 4");
	rm_fabric_free(f);
}

static void site_groups(void)
{
	/* NVLink groups from a site file over a switch tree: leaves stay the
	 * PP locality, the groups bound the TP cells. Groups g[1-5] and
	 * h[1-8] on 4-GPU nodes with tp=8: cells of 2 nodes, g5 left over.
	 * 6 cells = 48 GPUs; tp=8,pp=2 replicas are 2 cells: dp=3. */
	rm_fabric *f = topo("SwitchName=L1 Nodes=g[1-5]\n"
			    "SwitchName=L2 Nodes=h[1-8]\n"
			    "SwitchName=S Switches=L[1-2]\n");
	char *groups[] = { "g[1-5]", "h[1-8]" };
	rm_site s;
	rmi_site_init(&s);
	s.gpus_per_node = 4;
	s.nvl_kind = RM_NVL_GROUPS;
	s.nvl_groups = groups;
	s.n_nvl_groups = 2;
	rm_error e;
	CHECK_INT(rm_fabric_apply_site(f, &s, &e), RM_OK);
	rm_map *m;
	char b[256];
	plan_in in = { "tp=8,pp=2,dp=auto", NULL, "g[1-5],h[1-8]", 4, f, 0,
		       0, 0 };
	CHECK_INT(plan(&in, &m, &e), RM_OK);
	if (m) {
		CHECK_INT(m->layout.size[RM_AXIS_DP], 3);
		CHECK(m->report.must_ok);
		CHECK_STR(spares(m, b, sizeof(b)), "g5");
		CHECK_STR(m->host_leaf[0], "L1");
		CHECK_INT(m->report.pp_cross, 0);
	}
	rm_map_free(m);
	/* a node under no switch, known only from the site: missing */
	char *groups2[] = { "g[1-5],x1", "h[1-8]" };
	rm_fabric_free(f);
	f = topo("SwitchName=L1 Nodes=g[1-5]\nSwitchName=L2 Nodes=h[1-8]\n");
	s.nvl_groups = groups2;
	CHECK_INT(rm_fabric_apply_site(f, &s, &e), RM_OK);
	in.f = f;
	in.nodes = "g[1-5],x1";
	CHECK_INT(plan(&in, &m, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "'x1'");
	rm_fabric_free(f);
}

/* A fabric of rail-optimised units of 8-GPU nodes (no topology). */
static rm_fabric *units_fabric(char **name, char **nodes, size_t n)
{
	rm_fabric *f = NULL;
	rm_error e = { 0 };
	rm_fabric_new(&f, &e);
	CHECK_INT(fixture_units(f, 8, name, nodes, n, &e), RM_OK);
	return f;
}

static void rail_units(void)
{
	/* Two rail-optimised units of 4 nodes; 8x4x2: one replica per
	 * unit, PP peers at slot distance 8 = same local GPU = same rail. */
	char *un[] = { "su1", "su2" }, *nodes[] = { "n[1-4]", "m[1-4]" };
	rm_fabric *f = units_fabric(un, nodes, 2);
	rm_error e = { 0 };
	rm_map *m;
	char b[256];
	plan_in in = { "8x4x2", NULL, "n[1-4],m[1-4]", 8, f, 0, 0, 0 };
	CHECK_INT(plan(&in, &m, &e), RM_OK);
	if (m) {
		CHECK_STR(hosts(m, b, sizeof(b)), "n1 n2 n3 n4 m1 m2 m3 m4");
		CHECK_INT(m->report.pp_pairs, 48);
		CHECK_INT(m->report.pp_same_rail, 48);
		CHECK_INT(m->report.pp_rail_aligned, 48);
		CHECK_INT(m->report.pp_cross, 0);
		CHECK_STR(m->host_unit[0], "su1");
		CHECK_STR(m->host_leaf[4], "su2");
		/* DP peers: same slot in the other unit, same local GPU */
		CHECK_INT(m->report.dp_rail_aligned, 32);
		CHECK_INT(m->report.dp_leaves_max, 2);
	}
	rm_map_free(m);
	rm_fabric_free(f);
}

static void rails_small_tp(void)
{
	/* Issue 11: 4x8x31 on rail units of 32, 20, 32, 13 and 27 nodes.
	 * A replica (tp=4 x pp=8) is 4 nodes holding 2 stages each, so its
	 * pipeline leaves a node 3 times; in plain nesting it leaves from
	 * GPUs 4-7 and enters the next node at GPUs 0-3: another rail, 372
	 * crossing pairs. With the blocks of every other node run backwards
	 * the pair stays on GPUs 4-7 (or 0-3): only the one replica the
	 * units cannot hold whole crosses, once (4 pairs, the bound). */
	char *un[] = { "su1", "su2", "su3", "su4", "su5" };
	char *nodes[] = { "r[001-032]", "r[033-052]", "r[053-084]",
			  "r[085-097]", "r[098-124]" };
	rm_fabric *f = units_fabric(un, nodes, 5);
	rm_error e = { 0 };
	rm_map *m;
	plan_in in = { "4x8x31", "megatron", "r[001-124]", 8, f, 0, 0, 0 };
	CHECK_INT(plan(&in, &m, &e), RM_OK);
	if (m) {
		CHECK(m->report.must_ok);
		CHECK_INT(m->report.pp_cross, 4);
		CHECK_INT(m->report.pp_cross_lower_bound, 4);
		CHECK_INT(m->report.pp_same_node + m->report.pp_same_rail +
				  m->report.pp_cross,
			  m->report.pp_pairs);
		/* TP groups stay on 4 consecutive GPUs of one node, and
		 * the numbering is still Megatron's */
		for (uint32_t r = 0; r < m->world; r += 4) {
			CHECK_INT(m->rank[r].local_gpu % 4, 0);
			CHECK_INT(m->rank[r + 3].node, m->rank[r].node);
			CHECK_INT(m->rank[r + 3].local_gpu,
				  m->rank[r].local_gpu + 3);
		}
		uint32_t c[RM_NAXES];
		rm_rank_decode(&m->layout, &m->order, 37, c);
		CHECK(memcmp(c, m->rank[37].coord, sizeof(c)) == 0);
	}
	rm_map_free(m);
	rm_fabric_free(f);
}

static void rail_snake(void)
{
	/* Issue 36: tp=2,pp=3,dp=17 on rail units of 2, 10 and 2 nodes. A
	 * pipeline is 3 TP blocks of 2 GPUs, a node holds 4 blocks, so the
	 * units hold 8, 40 and 8 blocks: 2 + 13 + 2 = 17 whole pipelines,
	 * exactly dp. With every other node's blocks reversed, a pipeline
	 * that goes from one node to the next meets it at the same GPU
	 * index, on one rail: no pair crosses (the bound). Packing whole
	 * replicas of nodes leaves 2 pairs that cross. */
	char *un[] = { "su1", "su2", "su3" };
	char *nodes[] = { "r[01-02]", "r[03-12]", "r[13-14]" };
	rm_fabric *f = units_fabric(un, nodes, 3);
	rm_error e = { 0 };
	rm_map *m;
	plan_in in = { "tp=2,pp=3,dp=17", "megatron", "r[01-14]", 8, f, 0, 0,
		       0 };
	CHECK_INT(plan(&in, &m, &e), RM_OK);
	if (m) {
		CHECK(m->report.must_ok);
		CHECK_INT(m->report.pp_cross_lower_bound, 0);
		CHECK_INT(m->report.pp_cross, 0);
		CHECK_INT(m->report.pp_same_node + m->report.pp_same_rail,
			  m->report.pp_pairs);
	}
	rm_map_free(m);
	rm_fabric_free(f);
}

static void rail_snake_random(void)
{
	/* Seeded rail fabrics: 2-5 units of 2-12 nodes, tp 2 or 4, pp 3
	 * (a pipeline never fills whole nodes) and dp at most what the units
	 * hold as whole pipelines of TP blocks, sum over units of
	 * floor(nodes x 8 / tp / 3). Then a map with no crossing pair exists
	 * (the rail snake of each unit), so the plan must have none. */
	uint64_t rng = 36;
	unsigned cases = 0;
	for (unsigned it = 0; it < 400 && !t_bad; it++) {
		unsigned nu = 2 + xorshift_below(&rng, 4), tp = 2
			<< xorshift_below(&rng, 2), k = 1, hold = 0;
		char name[5][8], list[5][32], all[64];
		char *un[5], *nodes[5];
		for (unsigned u = 0; u < nu; u++) {
			unsigned sz = 2 + xorshift_below(&rng, 11);
			snprintf(name[u], sizeof(name[u]), "su%u", u + 1);
			snprintf(list[u], sizeof(list[u]), "r[%03u-%03u]", k,
				 k + sz - 1);
			un[u] = name[u];
			nodes[u] = list[u];
			hold += sz * 8 / tp / 3;
			k += sz;
		}
		unsigned dp = 1 + xorshift_below(&rng, hold);
		snprintf(all, sizeof(all), "r[001-%03u]", k - 1);
		char lay[48];
		snprintf(lay, sizeof(lay), "tp=%u,pp=3,dp=%u", tp, dp);
		rm_fabric *f = units_fabric(un, nodes, nu);
		rm_error e = { 0 };
		rm_map *m;
		plan_in in = { lay, "megatron", all, 8, f, 0, 0, 0 };
		CHECK_INT(plan(&in, &m, &e), RM_OK);
		if (m) {
			CHECK_INT(m->report.pp_cross, 0);
			cases++;
		}
		if (t_bad)
			printf("  %s on %u units, nodes %s\n", lay, nu, all);
		rm_map_free(m);
		rm_fabric_free(f);
	}
	CHECK_INT(cases, 400);
}

/* One fabric, one policy: the plan's (leaf, pod) crossing pairs. */
static void policy_case(rm_cross_policy pol, double spine_oversub,
			uint64_t leaf, uint64_t pod)
{
	rm_fabric *f = topo("SwitchName=a1 Nodes=a[1-3]\n"
			    "SwitchName=a2 Nodes=a[4-6]\n"
			    "SwitchName=b1 Nodes=b1\n"
			    "SwitchName=b2 Nodes=b2\n"
			    "SwitchName=podA Switches=a[1-2]\n"
			    "SwitchName=podB Switches=b[1-2]\n"
			    "SwitchName=spine Switches=podA,podB\n");
	rm_error e = { 0 };
	rm_site s;
	rmi_site_init(&s);
	s.cross_policy = pol;
	if (spine_oversub > 0) {
		static const char *const names[] = { "nvlink", "leaf", "pod",
						     "spine" };
		for (int i = 0; i < 4; i++) {
			snprintf(s.tier[i].name, sizeof(s.tier[i].name), "%s",
				 names[i]);
			s.tier[i].gbytes_per_s = i ? 50 : 450;
			s.tier[i].oversubscription = i == 3 ? spine_oversub : 1;
		}
		s.ntiers = 4;
	}
	CHECK_INT(rm_fabric_apply_site(f, &s, &e), RM_OK);
	rm_map *m;
	plan_in in = { "8x4x2", NULL, "a[1-6],b[1-2]", 8, f, 0, 0, 0 };
	CHECK_INT(plan(&in, &m, &e), RM_OK);
	if (m) {
		CHECK_INT(m->report.pp_cross, leaf);
		CHECK_INT(m->report.pp_cross_top, pod);
	}
	rm_map_free(m);
	rm_fabric_free(f);
}

static void crossing_policy(void)
{
	/* Two pods: leaves of 3 and 3 nodes, and of 1 and 1; two replicas
	 * of 4 nodes use all 8. Fewest leaf crossings: 3+1 twice, 2
	 * crossings, both across the pods (16 pairs each way). Fewest pod
	 * crossings: a replica inside pod A (3+1, one leaf change), the
	 * other 2 in A + 1 + 1 in B (one pod change, one leaf change): 24
	 * leaf pairs, 8 pod pairs. */
	policy_case(RM_CROSS_LEAVES_FIRST, 0, 16, 16);
	policy_case(RM_CROSS_PODS_FIRST, 0, 24, 8);
	/* cheapest, no tier figures: leaves first */
	policy_case(RM_CROSS_CHEAPEST, 0, 16, 16);
	/* cheapest, spine 7:1 oversubscribed: 16 in-pod pairs at 1/50 and
	 * 8 spine pairs at 7/50 beat 16 spine pairs at 7/50 */
	policy_case(RM_CROSS_CHEAPEST, 7, 24, 8);
	/* a spine at full bisection costs what the pod tier does: fewer
	 * pairs win */
	policy_case(RM_CROSS_CHEAPEST, 1, 16, 16);
}

static void accessors(void)
{
	plan_in in = { "2x4x2", "megatron", "n[1-2]", 8, NULL, 0, 0, 0 };
	rm_map *m = planned(&in);
	if (!m)
		return;
	CHECK_INT(rm_map_host_index(m, "n2"), 1);
	CHECK_INT(rm_map_host_index(m, "n3"), -1);
	for (uint32_t r = 0; r < m->world; r++)
		CHECK_INT(rm_map_rank_at(m, m->rank[r].node,
					 m->rank[r].local_gpu), r);
	CHECK_INT(rm_map_rank_at(m, 2, 0), -1);
	CHECK_INT(rm_map_rank_at(m, 0, 8), -1);
	rm_map_free(m);
}

int main(void)
{
	RUN("place", flat_numbering);
	RUN("place", numbering_order);
	RUN("place", uneven_leaves);
	RUN("place", small_leaves);
	RUN("place", residue_packing);
	RUN("place", baseline_fragmented);
	RUN("place", baseline_kinds);
	RUN("place", spares_choice);
	RUN("place", fewest_subtrees);
	RUN("place", rule_errors);
	RUN("place", input_errors);
	RUN("place", gb200_domains);
	RUN("place", site_groups);
	RUN("place", rail_units);
	RUN("place", rails_small_tp);
	RUN("place", rail_snake);
	RUN("place", rail_snake_random);
	RUN("place", crossing_policy);
	RUN("place", accessors);
	TEST_EXIT();
}
