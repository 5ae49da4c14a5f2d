/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_cal_mlperf.c - an MLPerf Training result log for `rankmap
 * calibrate`: the run it says and its step time.
 *
 * The format is what mlcommons/logging's mllog writes (mllog.py:
 * LOG_TEMPLATE ':::MLLOG {json}', one record a line): "key", "value",
 * "event_type" (POINT_IN_TIME, INTERVAL_START, INTERVAL_END), "time_ms"
 * and "metadata". Read here:
 *  - the settings: global_batch_size, max_sequence_length,
 *    gradient_accumulation_steps, and the optional keys mllog added in
 *    2026-04 (constants.py: tensor_parallelism, pipeline_parallelism,
 *    context_parallelism, expert_parallelism, micro_batch_size);
 *  - the step time, the first of: tracked_stats' train_step_time
 *    (seconds a step; NVIDIA's v5.x callbacks), tracked_stats'
 *    throughput (samples a second; NVIDIA's v4.0 LoRA), or each
 *    block_start/block_stop pair's time_ms over the steps between them
 *    (metadata "step" or "step_num" on both, else "epoch_count" or the
 *    samples_count difference: samples, or tokens where a whole number
 *    of global_batch_size x max_sequence_length, as NVIDIA's GPT-3
 *    counts).
 * Each a median after the first (warm-up, compilation).
 */
#include "model/model_cal.h"
#include "util/yaml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TIMES 100000

static const char tag[] = ":::MLLOG ";

/* Keys read, given twice only with the same value. */
static const char *const run_keys[] = {
	"global_batch_size", "max_sequence_length",
	"gradient_accumulation_steps", "tensor_parallelism",
	"pipeline_parallelism", "context_parallelism", "expert_parallelism",
	"micro_batch_size", NULL };
/* Keys that do not change what a step costs: not warned about. */
static const char *const quiet[] = {
	"submission_", "opt_", "seed", "eval_", "train_samples",
	"trained_samples", "init_checkpoint_step", "max_steps", "max_samples",
	"target_accuracy", "cache_clear", "num_warmup_steps",
	"start_warmup_step", "config_filename", "samples_count", NULL };

typedef struct {
	double dur_s, count;         /* seconds; steps or samples or tokens */
	bool steps;                  /* count is steps */
	unsigned line, col;          /* the block_stop */
} ml_block;

typedef struct {
	const char *f;
	rmi_cal_args args;
	size_t cap_kv;
	double *step_s, *thr;        /* train_step_time, throughput */
	size_t nstep, nthr, cap_step, cap_thr;
	ml_block *blk;
	size_t nblk, cap_blk;
	bool open;                   /* a block_start not stopped yet */
	double open_ms, open_step, open_sc;
	unsigned open_line;
	char unread[160];            /* keys not priced, for one warning */
	size_t nunread;
} ml_log;

/* Room for one more of `size` bytes in *v (n used, *cap held), growing
 * to at most `most`; false when full or out of memory (*oom). */
static bool room(void **v, size_t n, size_t *cap, size_t size, size_t most,
		 bool *oom)
{
	if (n < *cap)
		return true;
	if (*cap >= most)
		return false;
	size_t c = *cap ? 2 * *cap : 16;
	c = c > most ? most : c;
	void *nv = realloc(*v, c * size);
	if (!nv) {
		*oom = true;
		return false;
	}
	*v = nv;
	*cap = c;
	return true;
}

static bool in_list(const char *const *l, const char *k, bool prefix)
{
	for (; *l; l++)
		if (prefix ? !strncmp(k, *l, strlen(*l)) : !strcmp(k, *l))
			return true;
	return false;
}

/* A number of the record (a JSON number, or NULL when `n` is not one)
 * in [lo, hi]; refused where it is. */
static rm_status num(const ml_log *g, const rmi_cal_lines *r, unsigned base,
		     const rmi_ynode *n, const char *what, double lo,
		     double hi, double *out, rm_error *err)
{
	char q[64];
	if (!n || n->kind != RMI_Y_SCALAR || n->quoted)
		return rmi_err_at(err, RM_EINPUT, g->f, r->no, base +
				  (unsigned)rmi_y_col(n), "%s: expected a "
				  "number", what);
	char *end;
	double v = strtod(n->str, &end);
	if (end == n->str || *end || !isfinite(v) || v < lo || v > hi)
		return rmi_err_at(err, RM_EINPUT, g->f, r->no, base +
				  (unsigned)n->col, "%s=%s is not a number in "
				  "[%g, %g]", what, rm_quote(n->str, n->len, q,
							     sizeof(q)), lo, hi);
	*out = v;
	return RM_OK;
}

/* The JSON reader's message is at the record's 1:col; said at the
 * log's line and column instead. */
static rm_status moved(const ml_log *g, const rmi_cal_lines *r, unsigned base,
		       const rm_error *in, rm_error *err)
{
	size_t fl = strlen(g->f);
	unsigned long line = 0, col = 0;
	int used = 0;
	const char *m = in->msg;
	if (!strncmp(m, g->f, fl) && m[fl] == ':' &&
	    sscanf(m + fl + 1, "%lu:%lu: %n", &line, &col, &used) == 2 && used)
		return rmi_err_at(err, in->code, g->f, r->no, base + (unsigned)col,
				  "%s", m + fl + 1 + used);
	if (!strncmp(m, g->f, fl) && m[fl] == ':' && m[fl + 1] == ' ')
		m += fl + 2;
	return rmi_err_at(err, in->code, g->f, r->no, base, "%s", m);
}

/* A setting: kept with where its value is (the first; again only with
 * the same value where it is one calibrate reads). */
static rm_status setting(ml_log *g, const rmi_cal_lines *r, unsigned base,
			 const char *key, const rmi_ynode *v, rm_error *err)
{
	if (!v || v->kind != RMI_Y_SCALAR || (!v->quoted && !strcmp(v->str,
								   "null")))
		return RM_OK;
	const rmi_cal_kv *had = rmi_cal_get(&g->args, key);
	char q[64];
	if (had) {
		if (in_list(run_keys, key, false) && strcmp(had->value, v->str))
			return rmi_err_at(err, RM_EINPUT, g->f, r->no, base +
					  (unsigned)v->col, "%s=%s: line %u "
					  "gave %s", key, rm_quote(v->str,
								   v->len, q,
								   sizeof(q)),
					  had->line, had->value);
		return RM_OK;
	}
	bool oom = false;
	if (!room((void **)&g->args.kv, g->args.n, &g->cap_kv,
		  sizeof(rmi_cal_kv), RMI_CAL_MAX_KV, &oom))
		return oom ? rmi_err(err, RM_ENOMEM, "out of memory") :
		       rmi_err_at(err, RM_EINPUT, g->f, r->no, base, "more "
				  "than %d keys", RMI_CAL_MAX_KV);
	rmi_cal_kv *k = &g->args.kv[g->args.n++];
	snprintf(k->name, sizeof(k->name), "%s", key);
	snprintf(k->value, sizeof(k->value), "%s", v->str);
	k->line = r->no;
	k->col = base + (unsigned)v->col;
	if (!in_list(run_keys, key, false) && !in_list(quiet, key, true) &&
	    strcmp(key, "lora_rank") && strcmp(key, "lora_alpha") &&
	    g->nunread < sizeof(g->unread))
		g->nunread += (size_t)snprintf(g->unread + g->nunread,
					       sizeof(g->unread) - g->nunread,
					       "%s%s", g->nunread ? ", " : "",
					       key);
	return RM_OK;
}

/* A block's step in its metadata: NVIDIA's "step", or mllog's
 * constants.STEP_NUM "step_num". */
static const rmi_ynode *step_of(const rmi_ynode *md)
{
	const rmi_ynode *n = md ? rmi_y_get(md, "step") : NULL;
	return n ? n : md ? rmi_y_get(md, "step_num") : NULL;
}

/* One record, the JSON at column `base` + 1 of the line. */
static rm_status record(ml_log *g, const rmi_cal_lines *r, const char *json,
			unsigned base, rm_error *err)
{
	rmi_ynode *root = NULL;
	rm_error e;
	memset(&e, 0, sizeof(e));
	if (rmi_yaml_load(json, strlen(json), g->f, &root, &e))
		return moved(g, r, base, &e, err);
	rm_status st = RM_OK;
	const rmi_ynode *k = rmi_y_get(root, "key"), *v = rmi_y_get(root, "value");
	const rmi_ynode *md = rmi_y_get(root, "metadata");
	const rmi_ynode *et = rmi_y_get(root, "event_type");
	double ms = 0;
	if (root->kind != RMI_Y_MAP || !k || k->kind != RMI_Y_SCALAR ||
	    k->len >= sizeof(g->args.kv[0].name) || !et ||
	    et->kind != RMI_Y_SCALAR) {
		st = rmi_err_at(err, RM_EINPUT, g->f, r->no, base + 1, "not an "
				"mllog record (an object with \"key\" up to %zu "
				"bytes, \"event_type\", \"value\", \"time_ms\")",
				sizeof(g->args.kv[0].name) - 1);
		goto out;
	}
	st = num(g, r, base, rmi_y_get(root, "time_ms"), "time_ms", 0, 1e16,
		 &ms, err);
	if (st)
		goto out;
	if (md && md->kind != RMI_Y_MAP)
		md = NULL;
	const char *key = k->str;
	if (!strcmp(key, "tracked_stats") && v && v->kind == RMI_Y_MAP) {
		const rmi_ynode *s = rmi_y_get(v, "train_step_time");
		const rmi_ynode *t = rmi_y_get(v, "throughput");
		double x;
		bool oom = false;
		if (s && !(st = num(g, r, base, s, "train_step_time", 1e-6, 1e6,
				    &x, err)) &&
		    room((void **)&g->step_s, g->nstep, &g->cap_step,
			 sizeof(double), MAX_TIMES, &oom))
			g->step_s[g->nstep++] = x;
		if (!st && t && !(st = num(g, r, base, t, "throughput", 1e-9,
					   1e12, &x, err)) &&
		    room((void **)&g->thr, g->nthr, &g->cap_thr, sizeof(double),
			 MAX_TIMES, &oom))
			g->thr[g->nthr++] = x;
		if (!st && oom)
			st = rmi_err(err, RM_ENOMEM, "out of memory");
	} else if (!strcmp(key, "block_start")) {
		if (g->open)
			st = rmi_err_at(err, RM_EINPUT, g->f, r->no, base + 1,
					"block_start: the one of line %u is not "
					"stopped", g->open_line);
		const rmi_ynode *sn = step_of(md);
		const rmi_ynode *sc = md ? rmi_y_get(md, "samples_count") : NULL;
		g->open_step = g->open_sc = -1;
		if (!st && sn)
			st = num(g, r, base, sn, "step", 0, 1e15, &g->open_step,
				 err);
		if (!st && sc)
			st = num(g, r, base, sc, "samples_count", 0, 1e18,
				 &g->open_sc, err);
		g->open = !st;
		g->open_ms = ms;
		g->open_line = r->no;
	} else if (!strcmp(key, "block_stop")) {
		if (!g->open) {
			st = rmi_err_at(err, RM_EINPUT, g->f, r->no, base + 1,
					"block_stop without a block_start");
			goto out;
		}
		g->open = false;
		const rmi_ynode *sn = step_of(md);
		const rmi_ynode *ec = md ? rmi_y_get(md, "epoch_count") : NULL;
		const rmi_ynode *sc = md ? rmi_y_get(md, "samples_count") : NULL;
		ml_block b = { (ms - g->open_ms) / 1000, -1, false, r->no,
			       base + 1 };
		double x = 0;
		if (sn && g->open_step >= 0) {
			st = num(g, r, base, sn, "step", 0, 1e15, &x, err);
			b.count = x - g->open_step;
			b.steps = true;
		} else if (ec) {
			st = num(g, r, base, ec, "epoch_count", 0, 1e18, &b.count,
				 err);
		} else if (sc && g->open_sc >= 0) {
			st = num(g, r, base, sc, "samples_count", 0, 1e18, &x,
				 err);
			b.count = x - g->open_sc;
		}
		if (!st && !(b.dur_s > 0))
			st = rmi_err_at(err, RM_EINPUT, g->f, r->no, base + 1,
					"block_stop at or before its block_start "
					"(line %u)", g->open_line);
		if (!st && !(b.count > 0))
			st = rmi_err_at(err, RM_EINPUT, g->f, r->no, base + 1,
					"block_stop: no steps or samples since "
					"its block_start (metadata step, "
					"epoch_count or samples_count)");
		bool oom = false;
		if (!st && room((void **)&g->blk, g->nblk, &g->cap_blk,
				sizeof(ml_block), MAX_TIMES, &oom))
			g->blk[g->nblk++] = b;
		if (!st && oom)
			st = rmi_err(err, RM_ENOMEM, "out of memory");
	} else if (et && !strcmp(et->str, "POINT_IN_TIME")) {
		st = setting(g, r, base, key, v, err);
	}
out:
	rmi_yaml_free(root);
	return st;
}

/* The setting `name` as a whole number in [lo, hi] ("24.0" as JSON
 * writes a Python float is one); 0 when not logged. */
static rm_status whole(const ml_log *g, const char *name, uint32_t lo,
		       uint32_t hi, uint32_t *out, rm_error *err)
{
	const rmi_cal_kv *k = rmi_cal_get(&g->args, name);
	*out = 0;
	if (!k)
		return RM_OK;
	char *end, q[64];
	double v = strtod(k->value, &end);
	if (end == k->value || *end || !(v >= lo && v <= hi) || v != floor(v))
		return rmi_err_at(err, RM_EINPUT, g->f, k->line, k->col, "%s=%s "
				  "is not a whole number in [%u, %u]", name,
				  rm_quote(k->value, strlen(k->value), q,
					   sizeof(q)), lo, hi);
	*out = (uint32_t)v;
	return RM_OK;
}

/* A logged parallel size against the caller's layout. */
static rm_status agree(const ml_log *g, const char *name, uint32_t logged,
		       const rm_layout *l, rm_axis ax, rm_error *err)
{
	if (!logged || l->size[ax] == logged)
		return RM_OK;
	const rmi_cal_kv *k = rmi_cal_get(&g->args, name);
	return rmi_err_at(err, RM_EINPUT, g->f, k->line, k->col, "%s=%u; the "
			  "layout given says %s=%u", name, logged,
			  rm_axis_name(ax), l->size[ax]);
}

/* The run: batch and sequence from the log; the layout from it or from
 * the caller (then the sizes logged must agree); the micro-batch logged,
 * or what the gradient accumulation leaves of the batch. */
static rm_status ml_run(const ml_log *g, const rm_train *t, const rm_layout *l,
			rm_cal_step *out, uint32_t *gbs_out, uint32_t *seq_out,
			rm_error *err)
{
	const char *f = g->f;
	uint32_t gbs, seq, gas, tp, pp, cp, ep, mb;
	rm_status st = whole(g, "global_batch_size", 1, 1u << 30, &gbs, err);
	if (!st)
		st = whole(g, "max_sequence_length", 1, 1u << 24, &seq, err);
	if (!st)
		st = whole(g, "gradient_accumulation_steps", 1, 1u << 30, &gas,
			   err);
	if (!st)
		st = whole(g, "tensor_parallelism", 1, RM_MAX_WORLD, &tp, err);
	if (!st)
		st = whole(g, "pipeline_parallelism", 1, RM_MAX_WORLD, &pp, err);
	if (!st)
		st = whole(g, "context_parallelism", 1, RM_MAX_WORLD, &cp, err);
	if (!st)
		st = whole(g, "expert_parallelism", 1, RM_MAX_WORLD, &ep, err);
	if (!st)
		st = whole(g, "micro_batch_size", 1, 65536, &mb, err);
	if (st)
		return st;
	if (!gbs)
		return rmi_err(err, RM_EINPUT, "%s: the log gives no "
			       "global_batch_size", f);
	if (ep > 1) {
		const rmi_cal_kv *k = rmi_cal_get(&g->args, "expert_parallelism");
		return rmi_err_at(err, RM_EINPUT, f, k->line, k->col,
				  "expert_parallelism=%u: a mixture-of-experts "
				  "run; the model prices dense models only", ep);
	}
	if (!seq && !t->seq_len)
		return rmi_err(err, RM_EINPUT, "%s: the log gives no "
			       "max_sequence_length: give the run's --seq", f);
	if (!seq) {
		seq = t->seq_len;
		rmi_cal_note(out, false, "%s: no max_sequence_length logged: "
			     "sequences of %u (--seq)", f, seq);
	}
	char b[96];
	if (l) {
		st = agree(g, "tensor_parallelism", tp, l, RM_AXIS_TP, err);
		if (!st)
			st = agree(g, "pipeline_parallelism", pp, l, RM_AXIS_PP,
				   err);
		if (!st)
			st = agree(g, "context_parallelism", cp, l, RM_AXIS_CP,
				   err);
		if (st)
			return st;
		out->layout = *l;
	} else {
		if (!tp || !pp)
			return rmi_err(err, RM_EINPUT, "%s: the log gives no %s "
				       "(mllog's parallelism keys): give the "
				       "run's --layout", f, tp ? "pipeline_"
				       "parallelism" : "tensor_parallelism");
		if (!mb || !gas)
			return rmi_err(err, RM_EINPUT, "%s: the log gives no %s: "
				       "the data-parallel size is unknown; give "
				       "the run's --layout", f, mb ?
				       "gradient_accumulation_steps" :
				       "micro_batch_size");
		if (gbs % ((uint64_t)mb * gas))
			return rmi_err(err, RM_EINPUT, "%s: global_batch_size %u "
				       "is not a multiple of micro_batch_size %u "
				       "x gradient_accumulation_steps %u", f, gbs,
				       mb, gas);
		/* each up to 2^24 or 2^30: a double holds the product */
		if ((double)tp * pp * (cp ? cp : 1) * (gbs / (mb * gas)) >
		    RM_MAX_WORLD)
			return rmi_err(err, RM_EINPUT, "%s: more than %u GPUs", f,
				       RM_MAX_WORLD);
		snprintf(b, sizeof(b), "tp=%u,cp=%u,dp=%u,pp=%u", tp,
			 cp ? cp : 1, gbs / (mb * gas), pp);
		st = rm_layout_parse(b, &out->layout, err);
		if (st)
			return st;
	}
	uint64_t dp = out->layout.size[RM_AXIS_DP];
	if (!mb && gas) {
		if (gbs % (dp * gas))
			return rmi_err(err, RM_EINPUT, "%s: global_batch_size %u "
				       "is not dp %llu x gradient_accumulation_"
				       "steps %u x a micro-batch", f, gbs,
				       (unsigned long long)dp, gas);
		mb = (uint32_t)(gbs / (dp * gas));
		rmi_cal_note(out, false, "%s: micro-batch %u: global_batch_size "
			     "%u / (dp %llu x gradient_accumulation_steps %u)", f,
			     mb, gbs, (unsigned long long)dp, gas);
	} else if (!mb) {
		mb = t->micro_batch;
		rmi_cal_note(out, false, "%s: no micro_batch_size or gradient_"
			     "accumulation_steps logged: micro-batch %u (the "
			     "run's --micro-batch)", f, mb);
	}
	if (gbs % (dp * mb) || (gas && (uint64_t)gas * dp * mb != gbs))
		return rmi_err(err, RM_EINPUT, "%s: global_batch_size %u is not "
			       "dp %llu x micro-batch %u%s", f, gbs,
			       (unsigned long long)dp, mb, gas ? " x gradient_"
			       "accumulation_steps" : " x a whole number");
	out->train = *t;
	snprintf(b, sizeof(b), "%llu", (unsigned long long)gbs * seq);
	st = rm_train_set(&out->train, "batch", b, err);
	snprintf(b, sizeof(b), "%u", seq);
	if (!st)
		st = rm_train_set(&out->train, "seq", b, err);
	snprintf(b, sizeof(b), "%u", mb);
	if (!st)
		st = rm_train_set(&out->train, "mb", b, err);
	*gbs_out = gbs;
	*seq_out = seq;
	return st;
}

/* What the log says that the model does not price: a warning each. */
static rm_status ml_unpriced(ml_log *g, rm_cal_step *out, rm_error *err)
{
	/* an mllog log names no fp8 keys; a log that does gets them
	 * priced as the other readers do */
	rmi_cal_run r;
	memset(&r, 0, sizeof(r));
	rm_status st = rmi_cal_unpriced(&g->args, "", &r, out, err);
	if (!st)
		st = rmi_cal_run_fp8(&r, &out->train, err);
	if (st)
		return st;
	const char *lora = rmi_cal_val(&g->args, "lora_rank");
	if (lora)
		rmi_cal_note(out, true, "%s: lora_rank=%s: LoRA fine-tuning is "
			     "not priced (the model prices training every "
			     "weight: its gradients and optimizer)", g->f, lora);
	if (g->nunread)
		rmi_cal_note(out, true, "%s: %s%s: not priced", g->f, g->unread,
			     g->nunread >= sizeof(g->unread) - 1 ? " ..." : "");
	/* an mllog log says nothing of the GEMMs' precision */
	if (!rmi_cal_get(&g->args, "fp8") && !rmi_cal_get(&g->args, "fp8_format"))
		rmi_cal_note(out, true, "%s: an MLPerf log does not say the "
			     "GEMM precision: priced as BF16 unless --set fp8=hybrid "
			     "(as NVIDIA's LLM submissions' config files set)",
			     g->f);
	return RM_OK;
}

/* Seconds a step: train_step_time, else gbs / throughput, else the
 * blocks (steps, or samples, or tokens). */
static rm_status ml_seconds(ml_log *g, uint32_t gbs, uint32_t seq,
			    rm_cal_step *out, rm_error *err)
{
	if (g->nstep) {
		out->seconds = rmi_cal_median(g->step_s, g->nstep, &out->samples);
		rmi_cal_note(out, false, "%s: the median of %zu tracked_stats "
			     "train_step_time", g->f, out->samples);
		return RM_OK;
	}
	if (g->nthr) {
		for (size_t i = 0; i < g->nthr; i++)
			g->thr[i] = gbs / g->thr[i];
		out->seconds = rmi_cal_median(g->thr, g->nthr, &out->samples);
		rmi_cal_note(out, false, "%s: global_batch_size %u over the "
			     "median of %zu tracked_stats throughput (samples/s)",
			     g->f, gbs, out->samples);
		return RM_OK;
	}
	if (!g->nblk)
		return rmi_err(err, RM_EINPUT, "%s: no step time: no "
			       "tracked_stats train_step_time or throughput, no "
			       "block_start/block_stop pair", g->f);
	double *s = malloc(g->nblk * sizeof(double));
	if (!s)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	bool tokens = false;
	for (size_t i = 0; i < g->nblk; i++) {
		const ml_block *b = &g->blk[i];
		double n = b->count, tok = (double)gbs * seq;
		if (!b->steps && fmod(n, tok) == 0) {
			n /= tok;
			tokens = true;
		} else if (!b->steps && fmod(n, gbs) == 0) {
			n /= gbs;
		} else if (!b->steps || n != floor(n)) {
			free(s);
			return rmi_err_at(err, RM_EINPUT, g->f, b->line, b->col,
					  "block_stop: %.17g is not a whole "
					  "number of steps of global_batch_size "
					  "%u (samples) or %u x %u (tokens)",
					  b->count, gbs, gbs, seq);
		}
		s[i] = b->dur_s / n;
	}
	out->seconds = rmi_cal_median(s, g->nblk, &out->samples);
	free(s);
	rmi_cal_note(out, false, "%s: the median of %zu blocks' time_ms over "
		     "their steps%s", g->f, out->samples, tokens ? " (counted "
		     "in tokens: global_batch_size x max_sequence_length a "
		     "step)" : "");
	return RM_OK;
}

rm_status rm_cal_mlperf_log(const char *text, size_t len, const char *file,
			    const rm_model *m, const rm_train *t,
			    const rm_layout *l, rm_cal_step *out, rm_error *err)
{
	RMI_TRAIN_ARG(t, err);
	memset(out, 0, sizeof(*out));
	ml_log g;
	memset(&g, 0, sizeof(g));
	g.f = g.args.file = file ? file : "<MLPerf log>";
	rmi_cal_lines r;
	rm_status st = rmi_cal_lines_open(&r, text, len, g.f, err);
	size_t records = 0;
	while (!st && rmi_cal_next(&r, &st, err)) {
		/* anywhere in the line: after a launcher's or logger's prefix */
		const char *p = strstr(r.buf, tag);
		if (!p)
			continue;
		records++;
		const char *json = p + sizeof(tag) - 1;
		unsigned base = r.col0 + (unsigned)(json - r.buf);
		/* JSON only: the reader would take other text as YAML */
		st = *json == '{' ? record(&g, &r, json, base, err) :
		     rmi_err_at(err, RM_EINPUT, g.f, r.no, base + 1, "expected "
				"a JSON object after '%.8s'", tag);
	}
	if (!st && !records)
		st = rmi_err(err, RM_EINPUT, "%s: no ':::MLLOG {...}' line: not "
			     "an MLPerf result log", g.f);
	uint32_t gbs = 0, seq = 0;
	if (!st)
		st = ml_run(&g, t, l, out, &gbs, &seq, err);
	if (!st)
		st = ml_unpriced(&g, out, err);
	if (!st)
		st = ml_seconds(&g, gbs, seq, out, err);
	if (!st) {
		out->model = *m;
		char lay[96];
		rm_layout_format(&out->layout, lay, sizeof(lay));
		const char *bench = rmi_cal_val(&g.args, "submission_benchmark");
		snprintf(out->what, sizeof(out->what), "%.60s: MLPerf %.20s, "
			 "%.24s, %.40s, mb %u, gbs %u x %u", g.f, bench ? bench :
			 "(no submission_benchmark)", m->name, lay,
			 out->train.micro_batch, gbs, seq);
	}
	rmi_cal_lines_close(&r);
	free(g.args.kv);
	free(g.step_s);
	free(g.thr);
	free(g.blk);
	return st;
}
