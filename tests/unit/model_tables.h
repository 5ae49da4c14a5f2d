/* model_tables.h - published training runs (the .tsv files in tests/model) priced by the
 * cost model: the rows, and the model's error on each. */
#ifndef RANKMAP_TEST_MODEL_TABLES_H
#define RANKMAP_TEST_MODEL_TABLES_H

#include "rankmap.h"

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

/* Rows of one table file; returns the count, 0 when it cannot be read. */
static size_t pub_read(const char *path, pub_row *rows, size_t max)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[512];
	size_t n = 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		pub_row *r = &rows[n];
		memset(r, 0, sizeof(*r));
		if (sscanf(line, "%15s %u %u %u %u %u %u %u %u %u %15s %u %15s %lf",
			   r->row, &r->heads, &r->hidden, &r->layers, &r->tp,
			   &r->pp, &r->gpus, &r->batch, &r->mb, &r->v,
			   r->recompute, &r->sp, r->metric, &r->published) == 14)
			n++;
	}
	fclose(f);
	return n;
}

/* The row as a model, a training setup and a layout (GPT, seq 2048). */
static int pub_setup(const pub_row *r, rm_model *m, rm_train *t, rm_layout *l)
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
	rm_train_init(t);
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
static int pub_price(pub_row *rows, size_t n, const rm_hw *hw,
		     const char *const *set, double *mean, double *max)
{
	*mean = *max = 0;
	for (size_t i = 0; i < n; i++) {
		pub_row *r = &rows[i];
		rm_model m;
		rm_train t;
		rm_layout l;
		rm_estimate e;
		rm_error err;
		if (pub_setup(r, &m, &t, &l))
			return -1;
		for (size_t k = 0; set && set[k]; k += 2)
			if (rm_train_set(&t, set[k], set[k + 1], NULL))
				return -1;
		if (rm_estimate_run(&m, hw, &t, &l, &e, &err)) {
			fprintf(stderr, "%s: %s\n", r->row, err.msg);
			return -1;
		}
		if (!strcmp(r->metric, "tflops")) {
			double B = r->batch, s = 2048, L = r->layers, h = r->hidden;
			double fl = 96.0 * B * s * L * h * h *
				    (1 + s / (6 * h) + 51200.0 / (16 * L * h));
			r->predicted = fl / r->gpus / e.t_step / 1e12;
		} else {
			r->predicted = e.t_step;
		}
		r->error = r->predicted / r->published - 1;
		*mean += fabs(r->error) / n;
		if (fabs(r->error) > *max)
			*max = fabs(r->error);
	}
	return 0;
}

/*
 * docs/explain.md shows these tables: every row must appear there with the
 * predicted value and error the model gives now (as printed: seconds to
 * 0.01, TFLOP/s to 0.1, error to 0.1 %), and the table's mean and max.
 * Returns the number of rows or summaries the document gets wrong, each
 * named on stderr; -1 when the document cannot be read.
 */
static int pub_doc_check(const char *doc, const pub_row *rows, size_t n,
			 double mean, double max)
{
	FILE *f = fopen(doc, "r");
	if (!f)
		return -1;
	static char text[1 << 17];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;
	int bad = 0;
	char want[96], head[48];
	for (size_t i = 0; i < n; i++) {
		const pub_row *r = &rows[i];
		snprintf(head, sizeof(head), "\n| %s |", r->row);
		snprintf(want, sizeof(want),
			 strcmp(r->metric, "tflops") ? "| %.2f | %+.1f %% |" :
			 "| %.1f | %+.1f %% |", r->predicted, 100 * r->error);
		bool found = false;
		for (const char *p = strstr(text, head); p && !found;
		     p = strstr(p + 1, head)) {
			const char *eol = strchr(p + 1, '\n');
			size_t ll = eol ? (size_t)(eol - p) : strlen(p);
			char line[256];
			snprintf(line, sizeof(line), "%.*s", (int)ll, p);
			found = strstr(line, want) &&
				(!r->recompute[0] || !strstr(line, "| selective |") ==
				 !!strcmp(r->recompute, "selective"));
		}
		if (!found) {
			fprintf(stderr, "%s: no row '%s ... %s'\n", doc, r->row, want);
			bad++;
		}
	}
	snprintf(want, sizeof(want), "**mean %.2f %%** | **max %.2f %%**",
		 100 * mean, 100 * max);
	if (!strstr(text, want)) {
		fprintf(stderr, "%s: no summary '%s'\n", doc, want);
		bad++;
	}
	return bad;
}

#endif
