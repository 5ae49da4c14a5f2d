/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_cal_nemo.c - a NeMo log for `rankmap calibrate`: the configuration
 * its training script prints at start-up and its step times.
 *
 * The configuration: NeMo's megatron_gpt_pretraining.py logs the line
 * "************** Experiment configuration ***********" and then the
 * Hydra config as OmegaConf.to_yaml writes it (trainer:, model: ...);
 * NeMo's log formatter indents each line of a message after the first by
 * four spaces. Read here: the block of "key: value" lines after that
 * line, nested by indentation, as paths ("model.num_layers"), to the
 * first line indented less than its first key or the next log record.
 *
 * The step times: NeMo's TimingCallback logs "train_step_timing in s"
 * (before 2023-09 "train_step_timing") each step, which its progress
 * printer writes as "train_step_timing in s: X", its progress bar (tqdm,
 * redrawn with \r) as "train_step_timing in s=X", and its
 * DeltaTimingCallback as "Step N: train_step_timing in s=X".
 */
#include "model/model_cal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STEPS 100000
#define MAX_DEPTH 16

typedef struct {
	rmi_cal_args args;
	bool in, seen;               /* in the block; one was read */
	int base;                    /* its first key's indentation, -1 yet */
	int indent[MAX_DEPTH];       /* the open keys: indentation, name */
	char key[MAX_DEPTH][48];
	size_t depth;
	int last;                    /* the last key's indentation */
	bool scalar;                 /* and it had a value (which yaml may
				      * have wrapped onto the next lines) */
} nemo_cfg;

/* Length of a value, spaces around it left out. */
static size_t vl_of(const char *v)
{
	v += strspn(v, " ");
	size_t n = strlen(v);
	while (n && v[n - 1] == ' ')
		n--;
	return n;
}

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

/* A log record's first line: "[NeMo I 2024-05-01 10:00:00 file:38] ",
 * its prefix coloured where the log went to a terminal. */
static bool record(const char *s)
{
	if (s[0] == '\x1b' && s[1] == '[')
		s += 2 + strspn(s + 2, "0123456789;") + 1;
	return !strncmp(s, "[NeMo ", 6);
}

/* One line of the configuration block; *end when the block ended before
 * it (the caller reads it as any other line). */
static rm_status cfg_line(nemo_cfg *c, const rmi_cal_lines *r,
			  const char *line, bool *end, rm_error *err)
{
	*end = false;
	int ind = 0;
	while (line[ind] == ' ')
		ind++;
	const char *s = line + ind;
	if (!*s || *s == '#')
		return RM_OK;
	if (c->base < 0 && record(s)) {
		/* the record that prints the block: nothing after its "] " */
		const char *b = strchr(s, ']');
		if (b && !b[1 + strspn(b + 1, " ")])
			return RM_OK;
	}
	if (record(s) || (c->base >= 0 && ind < c->base)) {
		c->in = false;
		*end = true;
		return RM_OK;
	}
	if (*s == '-')               /* a list's item: not a setting */
		return RM_OK;
	size_t n = 0;
	while (key_char(s[n]))
		n++;
	unsigned col = r->col0 + (unsigned)(s - r->buf) + 1;
	if (!n || s[n] != ':' || (s[n + 1] && s[n + 1] != ' ')) {
		/* a long value yaml wrapped onto more lines */
		if (c->base >= 0 && c->scalar && ind > c->last)
			return RM_OK;
		return rmi_err_at(err, RM_EINPUT, r->file, r->no, col, "not a "
				  "'key: value' line of the configuration");
	}
	if (c->base < 0)
		c->base = ind;
	if (n >= sizeof(c->key[0]))
		return rmi_err_at(err, RM_EINPUT, r->file, r->no, col, "a key "
				  "longer than %zu bytes", sizeof(c->key[0]) - 1);
	while (c->depth && c->indent[c->depth - 1] >= ind)
		c->depth--;
	c->last = ind;
	c->scalar = vl_of(s + n + 1) > 0;
	const char *v = s + n + 1;
	v += strspn(v, " ");
	size_t vl = vl_of(v);
	if (!vl) {                   /* a map's key: what follows is in it */
		if (c->depth == MAX_DEPTH)
			return rmi_err_at(err, RM_EINPUT, r->file, r->no, col,
					  "nested deeper than %d", MAX_DEPTH);
		c->indent[c->depth] = ind;
		memcpy(c->key[c->depth], s, n);
		c->key[c->depth++][n] = '\0';
		return RM_OK;
	}
	if (c->args.n == RMI_CAL_MAX_KV)
		return rmi_err_at(err, RM_EINPUT, r->file, r->no, col, "more than "
				  "%d settings in the configuration",
				  RMI_CAL_MAX_KV);
	rmi_cal_kv *k = &c->args.kv[c->args.n];
	size_t w = 0;
	for (size_t i = 0; i < c->depth && w < sizeof(k->name); i++)
		w += (size_t)snprintf(k->name + w, sizeof(k->name) - w, "%s.",
				      c->key[i]);
	if (w + n >= sizeof(k->name))
		return RM_OK;        /* deeper than any setting read here */
	memcpy(k->name + w, s, n);
	k->name[w + n] = '\0';
	if (vl >= 2 && (v[0] == '\'' || v[0] == '"') && v[vl - 1] == v[0]) {
		v++;
		vl -= 2;
	}
	if (vl >= sizeof(k->value))
		vl = sizeof(k->value) - 1;
	memcpy(k->value, v, vl);
	k->value[vl] = '\0';
	k->line = r->no;
	k->col = r->col0 + (unsigned)(v - r->buf) + 1;
	c->args.n++;
	return RM_OK;
}

/* "train_step_timing[ in s]" then ':' or '=' and seconds: each one in the
 * line into t[] (a progress bar redrawn for the same global_step replaces
 * its last value). */
static rm_status timings(const char *line, const rmi_cal_lines *r, double *t,
			 size_t *n, double *last_step, rm_error *err)
{
	static const char tag[] = "train_step_timing";
	for (const char *p = strstr(line, tag); p; p = strstr(p + 1, tag)) {
		const char *q = p + sizeof(tag) - 1;
		if (!strncmp(q, " in s", 5))
			q += 5;
		q += strspn(q, " ");
		if (*q != ':' && *q != '=')
			continue;    /* prose naming it, not a value */
		q++;
		q += strspn(q, " ");
		char *end;
		double v = strtod(q, &end);
		if (end == q || !(v > 0) || !isfinite(v) || v > 1e6)
			return rmi_err_at(err, RM_EINPUT, r->file, r->no,
					  r->col0 + (unsigned)(q - r->buf) + 1,
					  "no seconds after '%.*s'",
					  (int)(q - p), p);
		/* "global_step: 9" or "global_step=9.000" in the same line */
		double step = -1;
		const char *g = strstr(line, "global_step");
		if (g && (g[11] == ':' || g[11] == '='))
			step = strtod(g + 12, NULL);
		if (*n && step >= 0 && step == *last_step)
			t[*n - 1] = v;
		else if (*n < MAX_STEPS)
			t[(*n)++] = v;
		*last_step = step;
	}
	return RM_OK;
}

/* What NeMo's configuration says the run was (megatron_gpt_config.yaml's
 * names; the recompute_* of Megatron-Core's config are read too). */
static rm_status nemo_run(const rmi_cal_args *a, const rm_model *m,
			  rm_cal_step *out, rm_error *err)
{
	static const char *const seq[] = { "model.encoder_seq_length",
					   "model.seq_length",
					   "model.data.seq_length", NULL };
	static const char *const gran[] = {
		"model.activations_checkpoint_granularity",
		"model.recompute_granularity", NULL };
	static const char *const meth[] = {
		"model.activations_checkpoint_method",
		"model.recompute_method", NULL };
	static const char *const nl[] = {
		"model.activations_checkpoint_num_layers",
		"model.recompute_num_layers", NULL };
	const char *f = a->file;
	rmi_cal_run r;
	memset(&r, 0, sizeof(r));
	uint32_t devices = 0, nodes = 0;
	const rmi_cal_kv *sk = rmi_cal_first(a, seq);
	rm_status st = rmi_cal_u32(a, "model.num_layers", true, 1, 100000,
				   &r.layers, err);
	if (!st)
		st = rmi_cal_u32(a, "model.hidden_size", true, 1, 1u << 20,
				 &r.hidden, err);
	if (!st)
		st = rmi_cal_u32(a, "model.num_attention_heads", true, 1, 65536,
				 &r.heads, err);
	if (!st)
		st = rmi_cal_u32(a, "model.tensor_model_parallel_size", true, 1,
				 RM_MAX_WORLD, &r.tp, err);
	if (!st)
		st = rmi_cal_u32(a, "model.pipeline_model_parallel_size", true, 1,
				 RM_MAX_WORLD, &r.pp, err);
	if (!st)
		st = rmi_cal_u32(a, "model.context_parallel_size", false, 1,
				 RM_MAX_WORLD, &r.cp, err);
	if (!st)
		st = rmi_cal_u32(a, "model.virtual_pipeline_model_parallel_size",
				 false, 1, 100000, &r.vpp, err);
	if (!st)
		st = rmi_cal_u32(a, "model.micro_batch_size", true, 1, 65536,
				 &r.mb, err);
	if (!st)
		st = rmi_cal_u32(a, "model.global_batch_size", true, 1, 1u << 30,
				 &r.gbs, err);
	if (!st && !sk)
		st = rmi_err(err, RM_EINPUT, "%s: the configuration gives no "
			     "model.encoder_seq_length or model.seq_length", f);
	if (!st)
		st = rmi_cal_u32(a, sk->name, true, 1, 1u << 24, &r.seq, err);
	if (!st)
		st = rmi_cal_u32(a, "trainer.devices", true, 1, 65536, &devices,
				 err);
	if (!st)
		st = rmi_cal_u32(a, "trainer.num_nodes", true, 1, RM_MAX_WORLD,
				 &nodes, err);
	if (!st && (uint64_t)devices * nodes > RM_MAX_WORLD)
		st = rmi_err(err, RM_EINPUT, "%s: %u devices x %u nodes: more "
			     "than %u GPUs", f, devices, nodes, RM_MAX_WORLD);
	if (!st)
		st = rmi_cal_unpriced(a, "model.", &r, out, err);
	if (st)
		return st;
	r.world = devices * nodes;
	const rmi_cal_kv *g = rmi_cal_first(a, gran), *me = rmi_cal_first(a, meth);
	r.recompute = !g ? "none" : !strcmp(g->value, "full") ? "full" :
		      !strcmp(g->value, "selective") ? "selective" : NULL;
	if (!r.recompute) {
		char q[64];
		return rmi_err_at(err, RM_EINPUT, f, g->line, g->col, "%s=%s: "
				  "expected full, selective or null", g->name,
				  rm_quote(g->value, strlen(g->value), q,
					   sizeof(q)));
	}
	if (!strcmp(r.recompute, "full") && me && !strcmp(me->value, "block")) {
		const rmi_cal_kv *k = rmi_cal_first(a, nl);
		st = rmi_cal_u32(a, k ? k->name : nl[0], true, 0, 100000,
				 &r.recompute_layers, err);
		if (st)
			return st;
		rmi_cal_note(out, false, "%s: %s block: %u layers of each chunk "
			     "recomputed whole, the rest priced as selective "
			     "(NeMo keeps them whole)", f, me->name,
			     r.recompute_layers);
	}
	const char *opt = rmi_cal_val(a, "model.optim.name");
	r.sharding = rmi_cal_true(rmi_cal_val(a, "model.fsdp")) ? "fsdp" :
		     opt && (!strcmp(opt, "distributed_fused_adam") ||
			     !strcmp(opt, "mcore_distributed_optim")) ? "zero1" :
		     "none";
	r.seq_parallel = rmi_cal_true(rmi_cal_val(a, "model.sequence_parallel"));
	r.tp_overlap = rmi_cal_true(rmi_cal_val(a, "model.ub_tp_comm_overlap"));
	/* Transformer Engine's attention is fused; without it, flash only
	 * when asked for (use_flash_attention) */
	r.flash = rmi_cal_true(rmi_cal_val(a, "model.transformer_engine")) ||
		  rmi_cal_true(rmi_cal_val(a, "model.use_flash_attention"));
	if (!r.flash)
		rmi_cal_note(out, false, "%s: model.transformer_engine and "
			     "model.use_flash_attention not true: attention "
			     "scores kept, flash off", f);
	const char *prec = rmi_cal_val(a, "trainer.precision");
	if (prec && (!strcmp(prec, "32") || !strncmp(prec, "32-", 3)))
		rmi_cal_note(out, true, "%s: trainer.precision=%s: FP32 training "
			     "is not priced (the model prices BF16)", f, prec);
	if (rmi_cal_true(rmi_cal_val(a, "model.cpu_offloading")))
		rmi_cal_note(out, true, "%s: model.cpu_offloading=true: "
			     "offloading to the CPU is not priced", f);
	if (!rmi_cal_unset(rmi_cal_val(a, "model."
			       "num_micro_batches_with_partial_activation_checkpoints")))
		rmi_cal_note(out, true, "%s: model.num_micro_batches_with_"
			     "partial_activation_checkpoints: recomputing some "
			     "micro-batches only is not priced", f);
	return rmi_cal_run_step(&r, "NeMo", f, m, out, err);
}

rm_status rm_cal_nemo_log(const char *text, size_t len, const char *file,
			  const rm_model *m, rm_cal_step *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *f = file ? file : "<NeMo log>";
	nemo_cfg c;
	memset(&c, 0, sizeof(c));
	c.args.kv = calloc(RMI_CAL_MAX_KV, sizeof(rmi_cal_kv));
	c.args.file = f;
	double *t = calloc(MAX_STEPS, sizeof(*t)), last = -1;
	rmi_cal_lines r;
	rm_status st = rmi_cal_lines_open(&r, text, len, f, err);
	if (!st && (!c.args.kv || !t))
		st = rmi_err(err, RM_ENOMEM, "out of memory");
	size_t n = 0;
	while (!st && rmi_cal_next(&r, &st, err)) {
		const char *line = rmi_cal_unprefix(r.buf);
		if (strstr(line, "Experiment configuration")) {
			if (c.seen)
				st = rmi_err_at(err, RM_EINPUT, f, r.no, r.col0 + 1,
						"a second configuration: one run "
						"per log");
			c.in = c.seen = true;
			c.base = -1;
			continue;
		}
		bool end = false;
		if (c.in && (st = cfg_line(&c, &r, line, &end, err)) == RM_OK &&
		    !end)
			continue;
		if (!st)
			st = timings(line, &r, t, &n, &last, err);
	}
	if (!st && !c.seen)
		st = rmi_err(err, RM_EINPUT, "%s: no NeMo configuration (the "
			     "'Experiment configuration' its training script "
			     "prints, then trainer: and model:)", f);
	if (!st && !n)
		st = rmi_err(err, RM_EINPUT, "%s: no step time "
			     "('train_step_timing in s: X')", f);
	if (!st)
		st = nemo_run(&c.args, m, out, err);
	if (!st)
		out->seconds = rmi_cal_median(t, n, &out->samples);
	rmi_cal_lines_close(&r);
	free(c.args.kv);
	free(t);
	return st;
}
