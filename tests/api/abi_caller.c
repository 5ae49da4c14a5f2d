/* SPDX-License-Identifier: Apache-2.0 */
/*
 * abi_caller.c - a program built against ABI 1's header
 * (tests/api/v1/rankmap.h, frozen: never edit it) and run against the
 * librankmap.so of this tree. Every versioned struct it passes is a heap
 * block of exactly the ABI 1 size, so a library that reads a field the
 * caller's version lacks trips AddressSanitizer (the library is the ASan
 * build). It also checks that versions the library does not know are
 * refused with a message, not read. Prints "ok NAME" per check and exits
 * 1 on the first failure.
 */
#include "rankmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed;

static void check(int cond, const char *name, const char *why)
{
	if (cond) {
		printf("ok %s\n", name);
	} else {
		printf("not ok %s: %s\n", name, why);
		failed = 1;
	}
}

/* The struct in a heap block of its caller-side size only. */
#define EXACT(type, init) exact(&(type)init, sizeof(type))
static void *exact(const void *init, size_t n)
{
	void *p = malloc(n);
	if (!p)
		exit(2);
	memcpy(p, init, n);
	return p;
}

static void plan(void)
{
	rm_error e = { 0 };
	rm_layout l;
	rm_order o;
	rm_hostlist hl = { 0 };
	if (rm_layout_parse("tp=4,pp=2,dp=2", &l, &e) ||
	    rm_order_parse("megatron", &l, &o, &e) ||
	    rm_hostlist_parse("n[1-4]", &hl, &e)) {
		check(0, "plan-inputs", e.msg);
		return;
	}
	rm_plan_options *po = EXACT(rm_plan_options, RM_PLAN_OPTIONS_INIT);
	po->layout = &l;
	po->order = &o;
	po->nodes = (const char *const *)hl.host;
	po->nnodes = hl.n;
	po->gpus_per_node = 4;
	rm_map *m = NULL;
	rm_status st = rm_plan(po, &m, &e);
	check(st == RM_OK && m && rm_map_world(m) == 16, "plan-v1", e.msg);
	if (m) {
		rm_rank r;
		check(rm_map_rank(m, 15, &r) && r.node < rm_map_host_count(m) &&
			      !rm_map_rank(m, 16, &r),
		      "map-rank", "rank 15 placed, 16 refused");
		check(rm_report_count(rm_map_report(m), RM_REPORT_MUST_OK) == 1,
		      "report-must-ok", "a flat 16-GPU plan keeps TP inside nodes");
		char *svg = NULL;
		size_t len = 0;
		rm_picture_options *pic =
			EXACT(rm_picture_options, RM_PICTURE_OPTIONS_INIT);
		pic->format = RM_FMT_SVG;
		st = rm_map_picture(m, pic, &svg, &len, &e);
		check(st == RM_OK && len && strstr(svg, "<svg"), "picture-v1",
		      e.msg);
		free(svg);
		free(pic);
		rm_map_free(m);
	}
	/* A version this library does not know: refused, never read. */
	unsigned bad[] = { 0, 99 };
	for (int i = 0; i < 2; i++) {
		m = NULL;
		memset(&e, 0, sizeof(e));
		po->version = bad[i];
		st = rm_plan(po, &m, &e);
		char want[64];
		snprintf(want, sizeof(want), "rm_plan_options version %u",
			 bad[i]);
		check(st == RM_EUNSUPPORTED && !m && strstr(e.msg, want),
		      bad[i] ? "plan-v99-refused" : "plan-v0-refused", e.msg);
	}
	free(po);
	rm_hostlist_clear(&hl);
}

static void model(void)
{
	rm_error e = { 0 };
	rm_model mo = RM_MODEL_INIT;
	rm_hw hw = RM_HW_INIT;
	rm_layout l;
	rm_train *t = malloc(sizeof(rm_train));
	if (!t)
		exit(2);
	check(rm_train_init(t, 99) == RM_EUNSUPPORTED, "train-v99-refused",
	      "rm_train_init(t, 99)");
	if (rm_train_init(t, RM_TRAIN_VERSION) ||
	    rm_model_get("llama3-8b", &mo, &e) ||
	    rm_hw_get("h100-sxm-80gb", &hw, &e) ||
	    rm_layout_parse("tp=8,pp=1,dp=8", &l, &e) ||
	    rm_train_set(t, "batch", "1M", &e)) {
		check(0, "model-inputs", e.msg);
		free(t);
		return;
	}
	rm_estimate *est = NULL;
	rm_status st = rm_estimate_run(&mo, &hw, t, &l, &est, &e);
	check(st == RM_OK && rm_estimate_step_seconds(est) > 0 &&
		      rm_estimate_mfu(est) > 0 && rm_estimate_mfu(est) < 1,
	      "estimate-v1", e.msg);
	rm_estimate_free(est);
	rm_suggest_options *so =
		EXACT(rm_suggest_options, RM_SUGGEST_OPTIONS_INIT);
	so->gpus = 64;
	so->top = 3;
	rm_suggestion *s = NULL;
	st = rm_suggest(&mo, &hw, t, so, &s, &e);
	char best[64] = "";
	if (s)
		rm_suggestion_layout(s, 0, best, sizeof(best));
	check(st == RM_OK && rm_suggestion_count(s) > 0 &&
		      strstr(best, "tp=") &&
		      rm_estimate_step_seconds(rm_suggestion_estimate(s, 0)) > 0,
	      "suggest-v1", e.msg);
	rm_suggestion_free(s);
	free(so);
	t->version = 99;
	memset(&e, 0, sizeof(e));
	check(rm_estimate_run(&mo, &hw, t, &l, &est, &e) == RM_EUNSUPPORTED &&
		      !est && strstr(e.msg, "rm_train version 99"),
	      "estimate-train-v99-refused", e.msg);
	free(t);
}

static void import(void)
{
	static const char topo[] = "SwitchName=leaf1 Nodes=n[1-2]\n"
				   "SwitchName=leaf2 Nodes=n[3-4]\n"
				   "SwitchName=spine Switches=leaf[1-2]\n";
	rm_error e = { 0 };
	rm_import_options *io =
		EXACT(rm_import_options, RM_IMPORT_OPTIONS_INIT);
	io->name = "abi";
	rm_import *im = NULL;
	(void)topo;
	/* `scontrol show topology` of the same tree */
	static const char sc[] =
		"SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=n[1-2]\n"
		"SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=n[3-4]\n"
		"SwitchName=spine Level=1 LinkSpeed=1 Switches=leaf[1-2]\n";
	rm_status st = rm_import_scontrol(sc, strlen(sc), "sc.txt", io, &im,
					  &e);
	check(st == RM_OK && rm_import_has_topology(im), "import-v1", e.msg);
	rm_import_free(im);
	io->version = 99;
	im = NULL;
	st = rm_import_scontrol(sc, strlen(sc), "sc.txt", io, &im, &e);
	check(st == RM_EUNSUPPORTED && !im, "import-v99-refused", e.msg);
	free(io);
}

int main(void)
{
	check(RM_ABI_VERSION == 1 && rm_version()[0] != '\0', "version",
	      rm_version());
	plan();
	model();
	import();
	return failed;
}
