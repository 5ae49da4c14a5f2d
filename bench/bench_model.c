/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_model.c - how long the cost model takes: one explain estimate, and
 * a whole `suggest` as the CLI runs it (selective and full recomputation,
 * CP as far as the sequence allows) over every layout of 16,384 and
 * 131,072 GPUs, with Megatron's schedules and with every schedule. Then
 * `explain --baseline` on a fragmented 16,384-GPU allocation of
 * site/llama3-roce against `explain` alone on the same inputs.
 *
 * Every figure is a median of RUNS with min and max, every verdict a
 * ratio within this run. suggest has no floor to beat: a search that
 * prices fewer candidates is a different search. What it must do is cost
 * in proportion to the layout x micro-batch pairs it prices, so each
 * pair's cost is shown in estimate calls (how many schedule and
 * recomputation variants it priced, plus the search's overhead) and
 * judged against the 16,384-GPU, 8,192-token row with the same schedules:
 * at most 2x. Since issue 35 suggest times only what its report can show
 * (model_suggest_order.c), so "pairs" counts what it considered, and the
 * MoE row shows how many it timed, beside the reference search that
 * times them all. That row also holds the report to the reference's,
 * byte for byte, over the whole exactness matrix (suggest_exact.h).
 */
#include "model/model_int.h"   /* rmi_estimate_*: the estimate as a value */
#include "rankmap_priv.h"
#include "bench_clock.h"
#include "../tests/unit/xorshift.h"
#include "../tests/unit/model/suggest_exact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 5

/* What `rankmap explain` does with an allocation: plan, price the map,
 * write the report; with `baseline` also Slurm's order, both side by side. */
static int explain_map(const rm_model *m, const rm_hw *hw, const rm_train *t,
		       rm_plan_options po, bool baseline, rm_error *e)
{
	rm_map *map = NULL, *base = NULL;
	rm_estimate a, b;
	char *text = NULL;
	size_t len;
	char fd[65];
	const char *digest = NULL;
	if (baseline) {             /* as cmd_explain.c: one fabric hash */
		rm_fabric_digest(po.fabric, fd);
		digest = fd;
	}
	int rc = rm_plan_with_digest(&po, digest, &map, e) ||
		 rmi_estimate_map(m, hw, t, map, po.fabric, &a, e);
	if (!rc && baseline) {
		po.baseline = true;
		rc = rm_plan_with_digest(&po, digest, &base, e) ||
		     rmi_estimate_map(m, hw, t, base, po.fabric, &b, e) ||
		     rm_estimate_compare_write(m, hw, t, &a, "plan", &b,
					       "baseline", RM_FMT_TEXT, &text,
					       &len, e);
	} else if (!rc) {
		rc = rm_estimate_write(m, hw, t, &a, RM_FMT_TEXT, &text, &len, e);
	}
	free(text);
	rm_map_free(map);
	rm_map_free(base);
	return rc;
}

static int vs_baseline(const rm_model *m, const rm_hw *hw, const rm_train *t,
		       const rm_layout *l)
{
	const char *root = getenv("RM_ROOT") ? getenv("RM_ROOT") : ".";
	char path[4096];
	snprintf(path, sizeof(path), "%s/site/llama3-roce/site.yaml", root);
	rm_site site;
	rm_fabric *f = NULL;
	rm_error e;
	rmi_site_init(&site);
	if (rmi_site_load(path, &site, &e) || rm_fabric_new(&f, &e) ||
	    rm_fabric_load_topology(f, site.topology, &e) ||
	    rm_fabric_apply_site(f, &site, &e)) {
		printf("explain --baseline: skipped (%s)\n", e.msg);
		rm_fabric_free(f);
		rmi_site_clear(&site);
		return 0;
	}
	/* 2,088 of its 3,072 nodes, shuffled: a busy cluster's allocation */
	rm_fabric_info fi;
	rm_fabric_info_get(f, &fi);
	uint32_t n = fi.nodes;
	const char **all = malloc(n * sizeof(char *));
	for (uint32_t i = 0; i < n; i++)
		all[i] = rm_fabric_node_name(f, i);
	uint64_t rng = 7;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = xorshift_below(&rng, i + 1);
		const char *x = all[i];
		all[i] = all[j];
		all[j] = x;
	}
	rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
			       .layout = l, .nodes = all, .nnodes = 2088,
			       .gpus_per_node = 8, .fabric = f };
	double ms[2][RUNS];
	for (int r = 0; r < RUNS; r++)
		for (int k = 0; k < 2; k++) {
			double t0 = now_ms();
			if (explain_map(m, hw, t, po, k, &e)) {
				fprintf(stderr, "bench_model: %s\n", e.msg);
				return 1;
			}
			ms[k][r] = now_ms() - t0;
		}
	char b1[64], b2[64];
	double one = median(ms[0], RUNS), two = median(ms[1], RUNS);
	printf("explain   16384 GPUs, llama3-roce, 2088 nodes          %20s ms\n"
	       "explain --baseline, same inputs                        %20s ms"
	       "  = %.2fx explain (at most 2x: two plans, one report)  %s\n",
	       mmm(b1, sizeof(b1), ms[0], RUNS, 1),
	       mmm(b2, sizeof(b2), ms[1], RUNS, 1), two / one,
	       two <= 2 * one ? "ok" : "SLOW");
	free(all);
	rm_fabric_free(f);
	rmi_site_clear(&site);
	return 0;
}

/* RUNS whole suggests into ms[]; non-zero (said) when one fails. */
static int time_suggest(const rm_model *m, const rm_hw *hw, const rm_train *t,
			const rm_suggest_options *o, double *ms,
			size_t *considered, size_t *priced)
{
	rm_error e;
	for (int r = 0; r < RUNS; r++) {
		rm_suggestion *s = NULL;
		double t0 = now_ms();
		if (rm_suggest(m, hw, t, o, &s, &e)) {
			fprintf(stderr, "bench_model: %s\n", e.msg);
			return 1;
		}
		ms[r] = now_ms() - t0;
		*considered = s->considered;
		if (priced)
			*priced = s->priced;
		rm_suggestion_free(s);
	}
	return 0;
}

/* RUNS reference searches (rmi_suggest_reference: every layout x
 * micro-batch timed, as suggest searched before issue 35) into ms[]. */
static int time_reference(const rm_model *m, const rm_hw *hw,
			  const rm_train *t, const rm_suggest_options *o,
			  double *ms)
{
	rm_error e;
	for (int r = 0; r < RUNS; r++) {
		rm_suggestion *s = NULL;
		double t0 = now_ms();
		if (rmi_suggest_reference(m, hw, t, o, true, &s, &e)) {
			fprintf(stderr, "bench_model: %s\n", e.msg);
			return 1;
		}
		ms[r] = now_ms() - t0;
		rm_suggestion_free(s);
	}
	return 0;
}

/* A mixture-of-experts model searches ep (and etp) too: about 14 x the
 * layouts. DeepSeek-V3 on 16,384 GPUs, Megatron's schedules, beside the
 * dense model (`dense`, llama3-405b) on the same GPUs, hardware, batch
 * and sequence in this run, each timed as suggest searches (what the
 * report can show, cheapest floor first) and as the reference search
 * (every pair timed) that it must answer byte for byte alike. The goal
 * (issue 35): the MoE search within 2x the dense one's time. Returns 1
 * when the goal is missed. */
static int moe_row(const rm_model *dense, const rm_train *t)
{
	rm_model m = RM_MODEL_INIT;
	rm_hw hw = RM_HW_INIT;
	rm_error e;
	if (rm_model_preset("deepseek-v3", &m, &e) ||
	    rm_hw_preset("h100-sxm-80gb", &hw, &e)) {
		fprintf(stderr, "bench_model: %s\n", e.msg);
		return 1;
	}
	rm_suggest_options o = { .version = RM_SUGGEST_OPTIONS_VERSION,
				 .gpus = 16384, .top = 10,
				 .recomputes = (1u << RM_RECOMPUTE_SELECTIVE) |
					       (1u << RM_RECOMPUTE_FULL) };
	rm_train ts = *t;
	rm_train_set(&ts, "seq", "4096", NULL);
	double ms[2][RUNS], ref[2][RUNS];
	size_t pairs[2], priced[2];
	const rm_model *mm[2] = { dense, &m };
	for (int k = 0; k < 2; k++)
		if (time_suggest(mm[k], &hw, &ts, &o, ms[k], &pairs[k],
				 &priced[k]) ||
		    time_reference(mm[k], &hw, &ts, &o, ref[k]))
			return 1;
	char b[2][64], rb[2][64];
	for (int k = 0; k < 2; k++) {
		mmm(b[k], sizeof(b[k]), ms[k], RUNS, 1);
		mmm(rb[k], sizeof(rb[k]), ref[k], RUNS, 1);
	}
	double whole = median(ms[1], RUNS) / median(ms[0], RUNS);
	double was = median(ref[1], RUNS) / median(ref[0], RUNS);
	printf("suggest MoE vs dense, 16384 GPUs, seq 4096, megatron: suggest "
	       "as it searches | the reference search (every pair timed)\n");
	for (int k = 0; k < 2; k++)
		printf("  %-12s %20s ms  %5zu of %5zu pairs timed | %20s ms  "
		       "%5zu timed\n", mm[k]->name, b[k], priced[k], pairs[k],
		       rb[k], pairs[k]);
	printf("  MoE / dense  %20.2fx                           | %20.2fx   "
	       "(goal: at most 2x)  %s\n", whole, was,
	       whole <= 2 ? "ok" : "SLOW");
	return whole > 2;
}

/* The exactness matrix, all 24 (make check runs 9 under ASan): suggest's
 * text and JSON against the reference search's. Returns the misses. */
static int exact_matrix(void)
{
	int miss = 0, n = 0;
	for (size_t i = 0; i < 4; i++)
		for (size_t g = 0; g < 3; g++)
			for (size_t h = 0; h < 2; h++, n++) {
				const char *d = suggest_exact(exact_models[i],
							      exact_hw[h],
							      exact_gpus[g]);
				if (d[0]) {
					printf("suggest: %s, %llu x %s: %s "
					       "differs from the reference\n",
					       exact_models[i],
					       (unsigned long long)exact_gpus[g],
					       exact_hw[h], d);
					miss++;
				}
			}
	printf("suggest   text and JSON as the reference search's, 4 models "
	       "x 3 GPU counts x 2 GPUs: %d of %d the same  %s\n", n - miss,
	       n, miss ? "DIFFERENT" : "ok");
	return miss;
}

int main(void)
{
	rm_model m = RM_MODEL_INIT;
	rm_hw hw = RM_HW_INIT;
	rm_train t;
	rm_error e;
	rm_layout l;
	if (rm_model_preset("llama3-405b", &m, &e) ||
	    rm_hw_preset("h100-sxm-80gb", &hw, &e) ||
	    rm_layout_parse("8x16x128", &l, &e) ||
	    rm_layout_resolve(&l, 16384, true, &e)) {
		fprintf(stderr, "bench_model: %s\n", e.msg);
		return 1;
	}
	rm_train_init(&t, RM_TRAIN_VERSION);
	rm_train_set(&t, "batch", "16M", NULL);
	double ms[RUNS];
	rm_estimate est;
	char b[64];
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_ms();
		for (int i = 0; i < 1000; i++)
			if (rmi_estimate_run(&m, &hw, &t, &l, &est, &e))
				return 1;
		ms[r] = now_ms() - t0;  /* ms per 1000 calls = us per call */
	}
	double est_us = median(ms, RUNS);
	printf("cost model, llama3-405b, median (min-max) of %d runs, %s; "
	       "verdict: suggest's cost per layout x micro-batch pair at most "
	       "2x the first row's with the same schedules\n", RUNS,
	       getenv("BENCH_WALL") ? "wall-clock" : "CPU-time");
	printf("estimate  8x16x128, one call                           %22s us\n",
	       mmm(b, sizeof(b), ms, RUNS, 2));
	const struct { uint64_t gpus; const char *seq; unsigned sched; } c[] = {
		{ 16384, "8192", 0 }, { 16384, "8192", ~0u },
		{ 131072, "8192", 0 }, { 131072, "8192", ~0u },
		{ 16384, "131072", 0 }, { 16384, "131072", ~0u },
	};
	double ref[2] = { 0, 0 };    /* us per pair: Megatron's, every */
	int bad = 0;
	for (size_t g = 0; g < sizeof(c) / sizeof(c[0]); g++) {
		rm_suggest_options o = { .version = RM_SUGGEST_OPTIONS_VERSION,
					 .gpus = c[g].gpus, .top = 10,
					 .schedules = c[g].sched,
					 .recomputes = (1u << RM_RECOMPUTE_SELECTIVE) |
						       (1u << RM_RECOMPUTE_FULL) };
		rm_train ts = t;
		rm_train_set(&ts, "seq", c[g].seq, NULL);
		size_t considered = 0;
		if (time_suggest(&m, &hw, &ts, &o, ms, &considered, NULL))
			return 1;
		mmm(b, sizeof(b), ms, RUNS, 1);
		double per = median(ms, RUNS) * 1000 / (double)considered;
		int k = c[g].sched ? 1 : 0;
		char v[48];
		if (!ref[k]) {
			ref[k] = per;
			snprintf(v, sizeof(v), "reference");
		} else {
			bool ok = per <= 2 * ref[k];
			bad += !ok;
			snprintf(v, sizeof(v), "%.2fx  %s", per / ref[k],
				 ok ? "ok" : "NONLINEAR");
		}
		printf("suggest   %6llu GPUs, seq %6s, %-9s %20s ms  %4zu pairs, "
		       "%5.1f us = %4.1f estimates each  %s\n",
		       (unsigned long long)c[g].gpus, c[g].seq,
		       c[g].sched ? "all sched" : "megatron", b, considered, per,
		       per / est_us, v);
	}
	if (moe_row(&m, &t))
		printf("suggest: the MoE search took more than 2x the dense "
		       "one's time\n");
	int miss = exact_matrix();
	if (bad)
		printf("suggest: cost per pair grew past 2x the reference in "
		       "%d rows\n", bad);
	return vs_baseline(&m, &hw, &t, &l) || miss;
}
