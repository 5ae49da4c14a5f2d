/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_moe_pub.c - the cost model on published mixture-of-experts runs
 * (tests/model/moe_published.tsv, which says what each source states and
 * what is assumed). Every row is priced with the shipped model and GPU
 * presets. No preset was fitted to any of these rows (the GPU presets are
 * fitted to the dense sources, test_loso.c), so each source's error here
 * is already its held-out error: leaving it out of a fit it was never in
 * changes nothing. docs/explain.md must show these figures.
 */
#include "model_tables.h"
#include "test.h"

#define MOE_TSV "tests/model/moe_published.tsv"
#define MAXROWS 32

/*
 * No MoE source meets the dense sources' gate (test_loso.c: 10 % mean, 20 %
 * worst row, per source); held_out prints which would. What is gated is a
 * ratchet, not a claim of accuracy: the pooled rows' mean and worst error
 * as first measured (36.75 %, 55.06 %) rounded up to the next 5 %, so a
 * change that prices MoE runs worse fails here, and one that prices them
 * better lowers these bounds (docs/explain.md, "Mixture-of-experts runs").
 */
#define GATE_MEAN 0.40
#define GATE_MAX 0.60
#define DENSE_MEAN 0.10
#define DENSE_MAX 0.20

typedef struct {
	char src[16], row[24], model[24], hw[24], recompute[16], sharding[16],
		metric[16];
	unsigned gpus, tp, cp, ep, etp, pp, v, mb, gbs, seq;
	double overlap, published, pub_s, predicted, error;
	double ep_s, compute_s;
} moe_row;

static moe_row rows[MAXROWS];
static size_t nrows;

static bool moe_parse(const char *line, void *out)
{
	moe_row *r = out;
	return sscanf(line,
		      "%15s %23s %23s %23s %u %u %u %u %u %u %u %u %u %u "
		      "%15s %15s %lf %15s %lf",
		      r->src, r->row, r->model, r->hw, &r->gpus, &r->tp, &r->cp,
		      &r->ep, &r->etp, &r->pp, &r->v, &r->mb, &r->gbs, &r->seq,
		      r->recompute, r->sharding, &r->overlap, r->metric,
		      &r->published) == 19;
}

/* The row's published step in seconds: as stated, or the global batch's
 * tokens over the GPUs' published tokens per second. */
static double published_seconds(const moe_row *r)
{
	if (!strcmp(r->metric, "seconds"))
		return r->published;
	return (double)r->gbs * r->seq / ((double)r->gpus * r->published);
}

/* Price one row with `set` (key=value overrides, NULL-ended) applied. */
static int price_set(moe_row *r, const char *const *set)
{
	rm_model m;
	rm_hw hw;
	rm_train t;
	rm_layout l;
	rm_estimate e;
	rm_error err;
	char buf[96], mb[16], ov[16];
	if (rm_model_preset(r->model, &m, &err) ||
	    rmi_hw_preset(r->hw, &hw, &err))
		return fprintf(stderr, "%s: %s\n", r->row, err.msg), -1;
	m.seq_len = r->seq;
	rm_train_init(&t, RM_TRAIN_VERSION);
	snprintf(buf, sizeof(buf), "%llu",
		 (unsigned long long)r->gbs * r->seq);
	snprintf(mb, sizeof(mb), "%u", r->mb);
	snprintf(ov, sizeof(ov), "%g", r->overlap);
	if (rm_train_set(&t, "batch", buf, &err) ||
	    rm_train_set(&t, "mb", mb, &err) ||
	    rm_train_set(&t, "recompute", r->recompute, &err) ||
	    rm_train_set(&t, "sharding", r->sharding, &err) ||
	    rm_train_set(&t, "moe_overlap", ov, &err))
		return fprintf(stderr, "%s: %s\n", r->row, err.msg), -1;
	for (size_t k = 0; set && set[k]; k += 2)
		if (rm_train_set(&t, set[k], set[k + 1], &err))
			return fprintf(stderr, "%s: %s\n", r->row, err.msg), -1;
	snprintf(buf, sizeof(buf), "interleaved:%u", r->v);
	if (r->v > 1 && rm_train_set(&t, "schedule", buf, &err))
		return fprintf(stderr, "%s: %s\n", r->row, err.msg), -1;
	snprintf(buf, sizeof(buf), "tp=%u,cp=%u,ep=%u,etp=%u,pp=%u,dp=auto",
		 r->tp, r->cp, r->ep, r->etp, r->pp);
	if (rm_layout_parse(buf, &l, &err) ||
	    rm_layout_resolve(&l, r->gpus, true, &err) ||
	    rmi_estimate_run(&m, &hw, &t, &l, &e, &err))
		return fprintf(stderr, "%s: %s\n", r->row, err.msg), -1;
	r->pub_s = published_seconds(r);
	r->predicted = e.t_step;
	r->error = r->predicted / r->pub_s - 1;
	r->ep_s = e.axis[RM_AXIS_EP].exposed;
	r->compute_s = e.t_compute;
	return 0;
}

static int price(moe_row *r)
{
	return price_set(r, NULL);
}

typedef struct {
	const char *src, *label;
	size_t n;
	double mean, max;
} source;

static source sources[] = {
	{ "zoo", "Megatron MoE Model Zoo, Qwen3 (H100)", 0, 0, 0 },
	{ "automodel", "NeMo AutoModel DeepSeek-V3 (H100)", 0, 0, 0 },
	{ "bridge", "Megatron-Bridge 25.11 BF16 (GB200)", 0, 0, 0 },
};
#define NSOURCES (sizeof(sources) / sizeof(sources[0]))

static double pooled_mean, pooled_max;

static void priced(void)
{
	nrows = tbl_read(MOE_TSV, rows, MAXROWS, sizeof(rows[0]), moe_parse);
	CHECK(nrows >= 9);
	size_t known = 0;
	for (size_t i = 0; i < nrows; i++) {
		moe_row *r = &rows[i];
		CHECK(price(r) == 0);
		pooled_mean += fabs(r->error) / nrows;
		pooled_max = fmax(pooled_max, fabs(r->error));
		for (size_t s = 0; s < NSOURCES; s++) {
			if (strcmp(sources[s].src, r->src))
				continue;
			sources[s].n++;
			sources[s].max = fmax(sources[s].max, fabs(r->error));
			known++;
		}
		printf("  %-10s %-16s %-15s %4u  published %7.2f s  predicted "
		       "%7.2f s  %+6.1f %%  (compute %.2f s, ep exposed %.2f "
		       "s)\n", r->src, r->row, r->hw, r->gpus, r->pub_s,
		       r->predicted, 100 * r->error, r->compute_s, r->ep_s);
	}
	/* every row belongs to a source named here */
	CHECK(known == nrows);
	for (size_t i = 0; i < nrows; i++)
		for (size_t s = 0; s < NSOURCES; s++)
			if (!strcmp(sources[s].src, rows[i].src))
				sources[s].mean += fabs(rows[i].error) /
						   sources[s].n;
}

/* At least 3 sources of 2 rows or more; the pooled rows within the
 * ratchet. Held out: nothing was fitted to them. */
static void held_out(void)
{
	for (size_t s = 0; s < NSOURCES; s++) {
		bool dense = sources[s].mean <= DENSE_MEAN &&
			     sources[s].max <= DENSE_MAX;
		printf("  %-36s %zu rows  held-out mean %.2f %%  max %.2f %%  "
		       "%s the dense gate\n", sources[s].label, sources[s].n,
		       100 * sources[s].mean, 100 * sources[s].max,
		       dense ? "within" : "outside");
		CHECK(sources[s].n >= 2);
	}
	printf("  all %zu rows: mean %.2f %%, worst %.2f %%\n", nrows,
	       100 * pooled_mean, 100 * pooled_max);
	CHECK(pooled_mean <= GATE_MEAN);
	CHECK(pooled_max <= GATE_MAX);
}

/*
 * What a calibration would do if it were fitted to these runs: for each
 * source, gemm_eff and net_eff fitted (a grid, the mean absolute error of
 * the other sources' rows) without it, and the source priced with them.
 * The grid's net_eff stops at the NIC's full rate. Reported, and checked
 * in the docs; not gated.
 */
static const double grid_gemm[] = { 0.3, 0.35, 0.4, 0.45, 0.5, 0.55,
				    0.6, 0.65, 0.7, 0.75, 0.8, 0.85 };
static const double grid_net[] = { 0.5, 0.6, 0.7, 0.8, 0.9, 1.0 };
#define NG (sizeof(grid_gemm) / sizeof(grid_gemm[0]))
#define NN (sizeof(grid_net) / sizeof(grid_net[0]))

typedef struct {
	double gemm, net, mean, max;
} fold;

static fold folds[NSOURCES];

static double fold_error(size_t skip, bool held, const char *const *set,
			 double *max)
{
	double sum = 0;
	size_t n = 0;
	*max = 0;
	for (size_t i = 0; i < nrows; i++) {
		moe_row r = rows[i];
		bool in = !strcmp(r.src, sources[skip].src);
		if (in != held)
			continue;
		if (price_set(&r, set))
			return -1;
		sum += fabs(r.error);
		*max = fmax(*max, fabs(r.error));
		n++;
	}
	return n ? sum / n : -1;
}

static void calibrated(void)
{
	for (size_t s = 0; s < NSOURCES; s++) {
		char g[16], nt[16];
		const char *set[] = { "gemm_eff", g, "net_eff", nt, NULL };
		double best = -1, mx;
		for (size_t a = 0; a < NG; a++)
			for (size_t b = 0; b < NN; b++) {
				snprintf(g, sizeof(g), "%g", grid_gemm[a]);
				snprintf(nt, sizeof(nt), "%g", grid_net[b]);
				double e = fold_error(s, false, set, &mx);
				CHECK(e >= 0);
				if (e >= 0 && (best < 0 || e < best - 1e-12)) {
					best = e;
					folds[s].gemm = grid_gemm[a];
					folds[s].net = grid_net[b];
				}
			}
		snprintf(g, sizeof(g), "%g", folds[s].gemm);
		snprintf(nt, sizeof(nt), "%g", folds[s].net);
		folds[s].mean = fold_error(s, true, set, &folds[s].max);
		CHECK(folds[s].mean >= 0);
		printf("  %-36s fitted without it: gemm_eff %g net_eff %g "
		       "(others %.2f %%); held out %.2f %%, max %.2f %%\n",
		       sources[s].label, folds[s].gemm, folds[s].net,
		       100 * best, 100 * folds[s].mean, 100 * folds[s].max);
	}
}

/* docs/explain.md shows every row and every source's figures as printed
 * here. */
static void doc_table(void)
{
	const char *doc = doc_text("docs/explain.md");
	CHECK(doc != NULL);
	for (size_t i = 0; doc && i < nrows; i++) {
		const moe_row *r = &rows[i];
		char want[160];
		snprintf(want, sizeof(want),
			 "| %s | %s | %.2f | %.2f | %+.1f %% | %.2f | %.2f |",
			 r->row, r->hw, r->pub_s, r->predicted, 100 * r->error,
			 r->compute_s, r->ep_s);
		CHECK(!doc_missing(doc, "docs/explain.md", "MoE row", want));
	}
	for (size_t s = 0; doc && s < NSOURCES; s++) {
		char want[160];
		snprintf(want, sizeof(want), "| %s | %zu | %.2f %% | %.2f %% |",
			 sources[s].label, sources[s].n, 100 * sources[s].mean,
			 100 * sources[s].max);
		CHECK(!doc_missing(doc, "docs/explain.md", "MoE source", want));
	}
	for (size_t s = 0; doc && s < NSOURCES; s++) {
		char want[160];
		snprintf(want, sizeof(want), "| %s | %g | %g | %.2f %% | %.2f %% |",
			 sources[s].label, folds[s].gemm, folds[s].net,
			 100 * folds[s].mean, 100 * folds[s].max);
		CHECK(!doc_missing(doc, "docs/explain.md", "MoE fold", want));
	}
	char want[96];
	snprintf(want, sizeof(want), "| all %zu rows | %.2f %% | %.2f %% |",
		 nrows, 100 * pooled_mean, 100 * pooled_max);
	CHECK(!doc || !doc_missing(doc, "docs/explain.md", "MoE pooled", want));
}

int main(void)
{
	RUN("moe_pub", priced);
	RUN("moe_pub", held_out);
	RUN("moe_pub", calibrated);
	RUN("moe_pub", doc_table);
	TEST_EXIT();
}
