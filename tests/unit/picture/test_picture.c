/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_picture.c - rm_map_picture through the library: what it refuses
 * (an unscored map, a format that is not a picture, rm_map_write asked
 * for one) and what the SVG holds for a small plan on two leaves.
 */
#include "internal.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static const char topo_text[] = "SwitchName=l1 Nodes=n[1-2]\n"
				"SwitchName=l2 Nodes=n[3-4]\n"
				"SwitchName=s Switches=l[1-2]\n";

/* tp=4,pp=2,dp=2 on four 4-GPU nodes, leaves of 2: each replica fits a
 * leaf, so the plan crosses nothing and the baseline of n1,n3,n2,n4
 * crosses at every stage boundary (8 pairs). Counts below are of both
 * views. */
static rm_map *plan(rm_fabric *f, bool baseline)
{
	rm_error e = { 0 };
	rm_layout l;
	rm_order o;
	static const char *const nodes[] = { "n1", "n3", "n2", "n4" };
	if (rm_layout_parse("tp=4,pp=2,dp=2", &l, &e) ||
	    rm_order_parse("tp-pp-dp", &l, &o, &e)) {
		printf("  setup: %s\n", e.msg);
		return NULL;
	}
	rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
			    .layout = &l, .order = &o, .nodes = nodes,
			    .nnodes = 4, .gpus_per_node = 4, .fabric = f,
			    .baseline = baseline };
	rm_map *m = NULL;
	if (rm_plan(&po, &m, &e))
		printf("  plan: %s\n", e.msg);
	return m;
}

static rm_fabric *fabric(void)
{
	rm_error e = { 0 };
	rm_fabric *f = NULL;
	if (rm_fabric_new(&f, &e) ||
	    rm_fabric_parse_topology(f, topo_text, strlen(topo_text), "t", &e))
		printf("  topology: %s\n", e.msg);
	return f;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void refuses(void)
{
	rm_error e = { 0 };
	rm_fabric *f = fabric();
	rm_map *m = plan(f, false);
	CHECK(m != NULL);
	if (!m) {
		rm_fabric_free(f);
		return;
	}
	char *out = NULL;
	size_t len = 0;
	rm_picture_options po = { .version = RM_PICTURE_OPTIONS_VERSION,
	.format = RM_FMT_JSON, .fabric = f };
	CHECK_INT(rm_map_picture(m, &po, &out, &len, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "html or svg");
	CHECK(out == NULL);
	CHECK_INT(rm_map_write(m, RM_FMT_HTML, &out, &len, &e),
		  RM_EUNSUPPORTED);
	CHECK_HAS(e.msg, "rm_map_picture");
	/* A map nobody scored has no report to show. */
	rm_report saved = m->report;
	m->report.world = 0;
	po.format = RM_FMT_SVG;
	CHECK_INT(rm_map_picture(m, &po, &out, &len, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "not been checked");
	m->report = saved;
	rm_map_free(m);
	rm_fabric_free(f);
}

static void svg_of_plan_and_baseline(void)
{
	rm_error e = { 0 };
	rm_fabric *f = fabric();
	rm_map *m = plan(f, false), *b = plan(f, true);
	CHECK(m && b);
	if (!m || !b) {
		rm_map_free(m);
		rm_map_free(b);
		rm_fabric_free(f);
		return;
	}
	CHECK_INT(m->report.pp_cross, 0);
	CHECK_INT(b->report.pp_cross, 8);
	char *out = NULL;
	size_t len = 0;
	rm_picture_options po = { .version = RM_PICTURE_OPTIONS_VERSION,
			       .format = RM_FMT_SVG, .fabric = f,
			       .baseline = b, .title = "two & two" };
	CHECK_INT(rm_map_picture(m, &po, &out, &len, &e), RM_OK);
	if (out) {
		CHECK_INT(strlen(out), len);
		CHECK_HAS(out, "<title id=\"rm-title\">two &amp; two</title>");
		/* 16 GPUs in each view, one line per crossing pair. */
		CHECK_INT(count(out, "<rect class=\"gpu"), 32);
		CHECK_INT(count(out, "<line class=\"cross\""), 8);
		CHECK_INT(count(out, "<rect class=\"leaf\""), 4);
		CHECK_INT(count(out, "<rect class=\"top\""), 2);
		CHECK_HAS(out, ">l1</text>");
		CHECK_HAS(out, "rank 0: tp=0 pp=0 dp=0, n1 GPU 0</title>");
	}
	free(out);
	out = NULL;
	po.format = RM_FMT_HTML;
	CHECK_INT(rm_map_picture(m, &po, &out, &len, &e), RM_OK);
	if (out) {
		CHECK_HAS(out, "<!DOCTYPE html>");
		CHECK_HAS(out, "\"views\":[{\"name\":\"rankmap\"");
		CHECK_HAS(out, "{\"name\":\"baseline (Slurm block order)\"");
		CHECK_INT(count(out, "</script"), 2);
	}
	free(out);
	/* Priced: each header says its seconds, the baseline's also as a
	 * difference to the map; without prices no header does. The
	 * picture reads only t_step and mfu of an estimate. */
	rm_estimate pe, be;
	memset(&pe, 0, sizeof(pe));
	memset(&be, 0, sizeof(be));
	pe.t_step = 2.0;
	pe.mfu = 0.4;
	be.t_step = 2.5;
	be.mfu = 0.32;
	po.estimate = &pe;
	po.baseline_estimate = &be;
	po.priced_by = "m on h";
	for (int fmt = 0; fmt < 2; fmt++) {
		out = NULL;
		po.format = fmt ? RM_FMT_HTML : RM_FMT_SVG;
		CHECK_INT(rm_map_picture(m, &po, &out, &len, &e), RM_OK);
		if (!out)
			continue;
		CHECK_HAS(out, "2.000 s per step, MFU 40.0 %; m on h");
		CHECK_HAS(out, "2.500 s per step, MFU 32.0 % (+0.500 s, +25.0 % "
			       "against rankmap); m on h");
		/* the plan keeps both stages in a leaf; the baseline's 8
		 * crossings meet above the leaves, in the spine's subtree */
		CHECK_HAS(out, "PP pairs per tier: node 0, leaf 8, pod 0, spine 0");
		CHECK_HAS(out, "PP pairs per tier: node 0, leaf 0, pod 0, spine 8");
		CHECK_HAS(out, "DP groups span leaves: max 2, mean 2.00");
		free(out);
	}
	out = NULL;
	po.estimate = po.baseline_estimate = NULL;
	po.format = RM_FMT_SVG;
	CHECK_INT(rm_map_picture(m, &po, &out, &len, &e), RM_OK);
	if (out)
		CHECK(!strstr(out, "s per step"));
	free(out);
	rm_map_free(m);
	rm_map_free(b);
	rm_fabric_free(f);
}

int main(void)
{
	RUN("picture", refuses);
	RUN("picture", svg_of_plan_and_baseline);
	TEST_EXIT();
}
