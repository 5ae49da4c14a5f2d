/* SPDX-License-Identifier: Apache-2.0 */
/* model_tables.h - published training runs (the .tsv files in tests/model) priced by the
 * cost model: the rows, and the model's error on each. */
#ifndef RANKMAP_TEST_MODEL_TABLES_H
#define RANKMAP_TEST_MODEL_TABLES_H

#include "model/model_int.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char row[16], recompute[16], metric[16];
	unsigned heads, hidden, layers, tp, pp, gpus, batch, mb, v, sp;
	double published, predicted, error;  /* error: predicted/published - 1 */
} pub_row;

/* The next data line of a table file (not a comment, not blank). */
static inline bool tbl_line(FILE *f, char *line, int size)
{
	while (fgets(line, size, f))
		if (line[0] != '#' && line[0] != '\n')
			return true;
	return false;
}

/* A row's error, predicted/published - 1, into the mean and max of n. */
static inline double tbl_error(double predicted, double published, size_t n,
			double *mean, double *max)
{
	double err = predicted / published - 1;
	*mean += fabs(err) / n;
	if (fabs(err) > *max)
		*max = fabs(err);
	return err;
}

/* Estimate one row with `set` (key=value overrides, NULL-ended) applied. */
static inline int tbl_run(const char *row, const rm_model *m, const rm_hw *hw,
		   rm_train *t, const rm_layout *l, const char *const *set,
		   rm_estimate *e)
{
	rm_error err;
	for (size_t k = 0; set && set[k]; k += 2)
		if (rm_train_set(t, set[k], set[k + 1], NULL))
			return -1;
	if (rmi_estimate_run(m, hw, t, l, e, &err)) {
		fprintf(stderr, "%s: %s\n", row, err.msg);
		return -1;
	}
	return 0;
}

/* Rows of one table file, each `size` bytes, zeroed and then filled by
 * parse (false: not a row, skipped); returns the count, 0 when it cannot
 * be read. */
static inline size_t tbl_read(const char *path, void *rows, size_t max,
			      size_t size, bool (*parse)(const char *, void *))
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[512];
	size_t n = 0;
	while (n < max && tbl_line(f, line, sizeof(line))) {
		void *r = (char *)rows + n * size;
		memset(r, 0, size);
		if (parse(line, r))
			n++;
	}
	fclose(f);
	return n;
}

static inline bool pub_parse(const char *line, void *row)
{
	pub_row *r = row;
	return sscanf(line, "%15s %u %u %u %u %u %u %u %u %u %15s %u %15s %lf",
		      r->row, &r->heads, &r->hidden, &r->layers, &r->tp,
		      &r->pp, &r->gpus, &r->batch, &r->mb, &r->v,
		      r->recompute, &r->sp, r->metric, &r->published) == 14;
}

static inline size_t pub_read(const char *path, pub_row *rows, size_t max)
{
	return tbl_read(path, rows, max, sizeof(*rows), pub_parse);
}

/* The row as a model, a training setup and a layout (GPT, seq 2048). */
static inline int pub_setup(const pub_row *r, rm_model *m, rm_train *t, rm_layout *l)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", r->row);
	m->layers = r->layers;
	m->hidden = r->hidden;
	m->ffn = 4 * r->hidden;
	m->heads = m->kv_heads = r->heads;
	m->head_dim = r->hidden / r->heads;
	m->vocab = 51200;
	m->seq_len = 2048;
	m->bias = m->learned_pos = m->tied_embeddings = true;
	m->params = rm_model_derive_params(m);
	rm_train_init(t, RM_TRAIN_VERSION);
	char buf[64];
	snprintf(buf, sizeof(buf), "%u", r->batch * 2048u);
	snprintf(buf + 32, 32, "%u", r->mb);
	if (rm_train_set(t, "batch", buf, NULL) ||
	    rm_train_set(t, "mb", buf + 32, NULL) ||
	    rm_train_set(t, "recompute", r->recompute, NULL) ||
	    rm_train_set(t, "sharding", "none", NULL) ||
	    rm_train_set(t, "grad_bytes", "2", NULL) ||
	    rm_train_set(t, "flash", "off", NULL) ||
	    rm_train_set(t, "seq_parallel", r->sp ? "on" : "off", NULL))
		return -1;
	snprintf(buf, sizeof(buf), "interleaved:%u", r->v);
	if (r->v > 1 && rm_train_set(t, "schedule", buf, NULL))
		return -1;
	snprintf(buf, sizeof(buf), "%ux%ux%u", r->tp, r->pp,
		 r->gpus / (r->tp * r->pp));
	return rm_layout_parse(buf, l, NULL) ? -1 : 0;
}

/* Price every row on `hw` (with `set`: key=value overrides, NULL-ended);
 * mean and max absolute error. Returns -1 when a row fails. */
static inline int pub_price(pub_row *rows, size_t n, const rm_hw *hw,
		     const char *const *set, double *mean, double *max)
{
	*mean = *max = 0;
	for (size_t i = 0; i < n; i++) {
		pub_row *r = &rows[i];
		rm_model m;
		rm_train t;
		rm_layout l;
		rm_estimate e;
		if (pub_setup(r, &m, &t, &l) ||
		    tbl_run(r->row, &m, hw, &t, &l, set, &e))
			return -1;
		if (!strcmp(r->metric, "tflops")) {
			double B = r->batch, s = 2048, L = r->layers, h = r->hidden;
			double fl = 96.0 * B * s * L * h * h *
				    (1 + s / (6 * h) + 51200.0 / (16 * L * h));
			r->predicted = fl / r->gpus / e.t_step / 1e12;
		} else {
			r->predicted = e.t_step;
		}
		r->error = tbl_error(r->predicted, r->published, n, mean, max);
	}
	return 0;
}

/*
 * A row of a modern run (the h100_*.tsv files): the architecture (arch gpt
 * = GeLU FFN, biases, learned positions, tied embeddings; gpt-untied = the
 * same with an output layer of its own; llama = SwiGLU, no biases, untied;
 * nemotron = squared-ReLU FFN of two matrices, no biases, untied; mpt =
 * GeLU FFN, no biases, no position table, tied), the
 * layout, the batch in sequences, the schedule,
 * recompute, whether TP communication overlap was on, and what is
 * published: "seconds" per step, or TFLOP/s per GPU counted as the model
 * does ("tflops": 6N + 12 L H Q s per token, PaLM's) or as Megatron-LM does
 * ("mtflops", training.py num_floating_point_operations).
 */
typedef struct {
	char row[24], arch[16], recompute[16], metric[16];
	char sharding[16];           /* optional column; "" = zero1 */
	char precision[16];          /* optional last column: fp8 = hybrid,
				      * delayed; "" = bf16 */
	unsigned layers, hidden, ffn, heads, kv, vocab, seq;
	unsigned tp, cp, pp, dp, mb, gbs, v, first, last, overlap;
	double published, predicted, error;  /* error: predicted/published - 1 */
} mod_row;

static inline bool mod_parse(const char *line, void *row)
{
	mod_row *r = row;
	int got = sscanf(line, "%23s %u %u %u %u %u %u %u %15s %u %u "
			 "%u %u %u %u %u %u %u %15s %u %15s %lf %15s %15s",
			 r->row, &r->layers, &r->hidden, &r->ffn,
			 &r->heads, &r->kv, &r->vocab, &r->seq, r->arch,
			 &r->tp, &r->cp, &r->pp, &r->dp, &r->mb, &r->gbs,
			 &r->v, &r->first, &r->last, r->recompute,
			 &r->overlap, r->metric, &r->published,
			 r->sharding, r->precision);
	return got >= 22 && got <= 24;
}

static inline size_t mod_read(const char *path, mod_row *rows, size_t max)
{
	return tbl_read(path, rows, max, sizeof(*rows), mod_parse);
}

/* The row as a model, a training setup (the model's modern defaults:
 * ZeRO-1, fp32 main gradients, flash attention, sequence parallelism)
 * and a layout nested as Megatron-Core does, tp-cp-dp-pp. */
static inline int mod_setup(const mod_row *r, const char *overlap, rm_model *m,
		     rm_train *t, rm_layout *l)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%.23s", r->row);
	m->layers = r->layers;
	m->hidden = r->hidden;
	m->ffn = r->ffn;
	m->heads = r->heads;
	m->kv_heads = r->kv;
	m->head_dim = r->hidden / r->heads;
	m->vocab = r->vocab;
	m->seq_len = r->seq;
	m->swiglu = !strcmp(r->arch, "llama");
	m->bias = m->learned_pos = !strncmp(r->arch, "gpt", 3);
	m->tied_embeddings = !strcmp(r->arch, "gpt") || !strcmp(r->arch, "mpt");
	m->params = rm_model_derive_params(m);
	rm_train_init(t, RM_TRAIN_VERSION);
	/* "full:K": full recomputation of K layers per chunk */
	char rc[16];
	const char *colon = strchr(r->recompute, ':');
	snprintf(rc, sizeof(rc), "%.*s",
		 colon ? (int)(colon - r->recompute) : (int)strlen(r->recompute),
		 r->recompute);
	if (colon && rm_train_set(t, "recompute_layers", colon + 1, NULL))
		return -1;
	char b[4][32];
	snprintf(b[0], 32, "%llu", (unsigned long long)r->gbs * r->seq);
	snprintf(b[1], 32, "%u", r->mb);
	snprintf(b[2], 32, "%u", r->first);
	snprintf(b[3], 32, "%u", r->last);
	if (rm_train_set(t, "batch", b[0], NULL) ||
	    rm_train_set(t, "mb", b[1], NULL) ||
	    rm_train_set(t, "recompute", rc, NULL) ||
	    (r->first && rm_train_set(t, "first_layers", b[2], NULL)) ||
	    (r->last && rm_train_set(t, "last_layers", b[3], NULL)) ||
	    /* a row run without --tp-comm-overlap hides nothing; one run
	     * with it hides `overlap`, or the GPU's calibrated share */
	    (!r->overlap && rm_train_set(t, "tp_overlap", "0", NULL)) ||
	    (r->sharding[0] && rm_train_set(t, "sharding", r->sharding, NULL)) ||
	    (!strcmp(r->precision, "fp8") &&
	     rm_train_set(t, "fp8", "hybrid", NULL)) ||
	    (r->overlap && overlap && rm_train_set(t, "tp_overlap", overlap, NULL)))
		return -1;
	snprintf(b[0], 32, "interleaved:%u", r->v);
	if (r->v > 1 && rm_train_set(t, "schedule", b[0], NULL))
		return -1;
	char lay[96];
	snprintf(lay, sizeof(lay), "tp=%u,cp=%u,dp=%u,pp=%u", r->tp, r->cp,
		 r->dp, r->pp);
	return rm_layout_parse(lay, l, NULL) ? -1 : 0;
}

/* Megatron-LM's FLOPs of one step (training.py, as of r0.8): 12 B s L h^2
 * ((1 + kv/heads + s/h) q/h + ffn/h x 3/2 if gated + V / 2Lh), the
 * attention scores counted whole (not causal), no recomputation. */
static inline double mod_megatron_flops(const mod_row *r)
{
	double B = r->gbs, s = r->seq, L = r->layers, h = r->hidden;
	double g = !strcmp(r->arch, "llama") ? 1.5 : 1.0;
	return 12.0 * B * s * L * h * h *
	       ((1.0 + (double)r->kv / r->heads + s / h) +
		(double)r->ffn / h * g + r->vocab / (2.0 * L * h));
}

/*
 * Measured BF16 GEMMs on an H100 SXM (989 TFLOP/s dense peak): the best
 * one Bekman's mamf-finder hit (ml-engineering, compute/accelerator/
 * README.md, "Maximum Achievable Matmul FLOPS", commit 744d01e1), and the
 * unbatched sm_90 entries of OpenXLA's GPU cost-model table
 * (tensorflow/tensorflow third_party/xla/xla/service/gpu/model/
 * matmul_interpolator_data.h, commit 9bebee8e), as XLA runs them.
 */
typedef struct {
	double m, n, k, tflops;
} h100_gemm;

static const h100_gemm h100_gemms[] = {
	{ 2048, 2048, 13312, 794.5 },
	{ 4096, 2048, 4096, 764.1 }, { 2048, 4096, 2048, 717.5 },
	{ 4096, 4096, 1024, 681.1 }, { 2048, 2048, 1024, 492.1 },
	{ 1024, 1024, 1024, 246.7 }, { 256, 4096, 1024, 229.0 },
	{ 256, 256, 1024, 17.8 },
};

/* The model's GEMM efficiency curve (model_compute.c), share of peak. */
static inline double gemm_curve(double eff, double d0, double m, double n, double k)
{
	return eff * m / (m + d0) * n / (n + d0) * k / (k + d0);
}

/* Price every row on `hw` (`set`: key=value overrides, NULL-ended; the
 * rows measured with TP overlap hide `overlap` of the TP traffic); mean
 * and max absolute error. Returns -1 when a row fails. */
static inline int mod_price(mod_row *rows, size_t n, const rm_hw *hw,
		     const char *const *set, const char *overlap, double *mean,
		     double *max)
{
	*mean = *max = 0;
	for (size_t i = 0; i < n; i++) {
		mod_row *r = &rows[i];
		rm_model m;
		rm_train t;
		rm_layout l;
		rm_estimate e;
		if (mod_setup(r, overlap, &m, &t, &l) ||
		    tbl_run(r->row, &m, hw, &t, &l, set, &e))
			return -1;
		if (!strcmp(r->metric, "mtflops"))
			r->predicted = mod_megatron_flops(r) /
				       rm_layout_world(&l) / e.t_step / 1e12;
		else if (!strcmp(r->metric, "tflops"))
			r->predicted = e.flops_gpu / e.t_step / 1e12;
		else
			r->predicted = e.t_step;
		r->error = tbl_error(r->predicted, r->published, n, mean, max);
	}
	return 0;
}

/* The document, whole, in a static buffer; NULL when it cannot be read. */
static inline const char *doc_text(const char *doc)
{
	static char text[1 << 17];
	FILE *f = fopen(doc, "r");
	if (!f)
		return NULL;
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;
	return text;
}

/* 1, named on stderr, when `want` is nowhere in the document. */
static inline int doc_missing(const char *text, const char *doc, const char *what,
		       const char *want)
{
	if (strstr(text, want))
		return 0;
	fprintf(stderr, "%s: no %s '%s'\n", doc, what, want);
	return 1;
}

/*
 * A table docs/explain.md shows: each of the n rows (of `size` bytes) that
 * row_bad finds wrong in the document's text, and the summary `summary`
 * when it is missing, named on stderr. Returns how many; -1 when the
 * document cannot be read.
 */
static inline int doc_table_check(const char *doc, const void *rows, size_t n,
				  size_t size,
				  int (*row_bad)(const char *text, const char *doc,
						 const void *row),
				  const char *summary)
{
	const char *text = doc_text(doc);
	if (!text)
		return -1;
	int bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += row_bad(text, doc, (const char *)rows + i * size);
	return bad + doc_missing(text, doc, "summary", summary);
}

/* A100 rows: the predicted value and error the model gives now (as
 * printed: seconds to 0.01, TFLOP/s to 0.1, error to 0.1 %) on a line of
 * the row's name, with "| selective |" where it recomputes selectively. */
static inline int pub_doc_row_bad(const char *text, const char *doc,
				  const void *row)
{
	const pub_row *r = row;
	char want[96], head[48];
	snprintf(head, sizeof(head), "\n| %s |", r->row);
	snprintf(want, sizeof(want),
		 strcmp(r->metric, "tflops") ? "| %.2f | %+.1f %% |" :
		 "| %.1f | %+.1f %% |", r->predicted, 100 * r->error);
	for (const char *p = strstr(text, head); p; p = strstr(p + 1, head)) {
		const char *eol = strchr(p + 1, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		char line[256];
		snprintf(line, sizeof(line), "%.*s", (int)ll, p);
		if (strstr(line, want) &&
		    (!r->recompute[0] || !strstr(line, "| selective |") ==
		     !!strcmp(r->recompute, "selective")))
			return 0;
	}
	fprintf(stderr, "%s: no row '%s ... %s'\n", doc, r->row, want);
	return 1;
}

/*
 * docs/explain.md shows these tables: every row must appear there with the
 * predicted value and error the model gives now, and the table's mean and
 * max. Returns the number of rows or summaries the document gets wrong,
 * each named on stderr; -1 when the document cannot be read.
 */
static inline int pub_doc_check(const char *doc, const pub_row *rows, size_t n,
			 double mean, double max)
{
	char want[96];
	snprintf(want, sizeof(want), "**mean %.2f %%** | **max %.2f %%**",
		 100 * mean, 100 * max);
	return doc_table_check(doc, rows, n, sizeof(*rows), pub_doc_row_bad, want);
}

/* H100 rows: each row's "predicted | error" cells ("| 11.94 s | -2.7 % |",
 * "| 450.7 | +4.8 % |"). */
static inline int mod_doc_row_bad(const char *text, const char *doc,
				  const void *row)
{
	const mod_row *r = row;
	char want[96];
	snprintf(want, sizeof(want),
		 strcmp(r->metric, "seconds") ? "| %.1f | %+.1f %% |" :
		 "| %.2f s | %+.1f %% |", r->predicted, 100 * r->error);
	return doc_missing(text, doc, r->row, want);
}

/* The same for the H100 tables, whose summary row is "| n | mean % |
 * max % |". */
static inline int mod_doc_check(const char *doc, const mod_row *rows, size_t n,
			 double mean, double max)
{
	char want[96];
	snprintf(want, sizeof(want), "| %zu | %.2f %% | %.2f %% |", n,
		 100 * mean, 100 * max);
	return doc_table_check(doc, rows, n, sizeof(*rows), mod_doc_row_bad, want);
}

#endif
