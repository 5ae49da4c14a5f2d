/* SPDX-License-Identifier: Apache-2.0 */
/* model_cal_logs.c - measurements for `rankmap calibrate` from the logs
 * and reports that training frameworks and NCCL tests write. */
#include "model/model_cal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITER 100000

/* "  name ........ value": the name, the value and where it starts;
 * false for other lines. */
static bool arg_line(const char *line, const rmi_cal_lines *r, rmi_cal_kv *a)
{
	const char *p = line;
	while (*p == ' ')
		p++;
	size_t n = 0;
	while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9') ||
	       p[n] == '_')
		n++;
	if (!n || n >= sizeof(a->name) || p[n] != ' ' || p[n + 1] != '.')
		return false;
	memcpy(a->name, p, n);
	a->name[n] = '\0';
	p += n + 1;
	while (*p == '.')
		p++;
	if (*p != ' ')
		return false;
	snprintf(a->value, sizeof(a->value), "%s", p + 1);
	size_t l = strlen(a->value);
	while (l && a->value[l - 1] == ' ')
		a->value[--l] = '\0';
	a->line = r->no;
	a->col = r->col0 + (unsigned)(p + 1 - r->buf) + 1;
	return true;
}

/*
 * The name an older Megatron-LM printed for what `now` says: `now` when
 * the log has it, else the first of `old` (NULL-ended, each with when it
 * was printed) that the log has, said in a note; else `now`.
 */
static const char *renamed(const rmi_cal_args *a, rm_cal_step *s,
			   const char *now, const char *const *old)
{
	if (rmi_cal_get(a, now))
		return now;
	for (; old[0]; old += 2)
		if (rmi_cal_get(a, old[0])) {
			if (rmi_cal_unset(rmi_cal_val(a, old[0])))
				return old[0];
			rmi_cal_note(s, false, "%s: %s (%s) read as %s", a->file,
				     old[0], old[1], now);
			return old[0];
		}
	return now;
}

/*
 * Recomputation, as the arguments of each Megatron-LM release say it
 * (megatron/arguments.py): --checkpoint-activations, whole layers, to
 * 2021-08 (Megatron-DeepSpeed keeps it); --activations-checkpoint-method
 * uniform|block (whole layers) to 2022-04; --checkpoint-granularity and
 * --checkpoint-method for a month; --recompute-granularity full|selective
 * and --recompute-method since 2022-05. Block: the first N layers of each
 * chunk whole, the rest kept (priced as selective).
 */
static rm_status megatron_recompute(const rmi_cal_args *a, rm_cal_step *s,
				    rmi_cal_run *r, rm_error *err)
{
	static const char *const gran_old[] = {
		"checkpoint_granularity", "Megatron-LM of 2022-04", NULL };
	static const char *const meth_old[] = {
		"checkpoint_method", "Megatron-LM of 2022-04",
		"activations_checkpoint_method", "Megatron-LM of 2021-08 to "
		"2022-04", NULL };
	static const char *const nl_old[] = {
		"checkpoint_num_layers", "Megatron-LM to 2022-05",
		"activations_checkpoint_num_layers", "Megatron-LM of 2021-08 "
		"to 2022-04", NULL };
	const rmi_cal_kv *gk = rmi_cal_get(a, renamed(a, s,
					"recompute_granularity", gran_old));
	const char *gran = gk ? gk->value : NULL;
	const char *method = rmi_cal_val(a, renamed(a, s, "recompute_method",
						    meth_old));
	r->recompute = "none";
	if (rmi_cal_true(rmi_cal_val(a, "checkpoint_activations"))) {
		r->recompute = "full";
		rmi_cal_note(s, false, "%s: checkpoint_activations True (Megatron-"
			     "LM to 2021-08, Megatron-DeepSpeed) read as "
			     "recompute_granularity full: every layer recomputed "
			     "whole", a->file);
	} else if (gran && !strcmp(gran, "full")) {
		r->recompute = "full";
	} else if (gran && !strcmp(gran, "selective")) {
		r->recompute = "selective";
	} else if (rmi_cal_unset(gran) && !rmi_cal_unset(method)) {
		r->recompute = "full";
		rmi_cal_note(s, false, "%s: a recompute method without a "
			     "granularity (Megatron-LM of 2021-08 to 2022-04) "
			     "read as recompute_granularity full", a->file);
	} else if (!rmi_cal_unset(gran)) {
		char q[64];
		return rmi_err_at(err, RM_EINPUT, a->file, gk->line, gk->col,
				  "recompute granularity %s: "
				  "expected full, selective or None",
				  rm_quote(gran, strlen(gran), q, sizeof(q)));
	}
	if (strcmp(r->recompute, "full") || !method || strcmp(method, "block"))
		return RM_OK;
	rm_status st = rmi_cal_u32(a, renamed(a, s, "recompute_num_layers",
					      nl_old), true, 0, 100000,
				   &r->recompute_layers, err);
	if (!st)
		rmi_cal_note(s, false, "%s: recompute method block: %u layers of "
			     "each chunk recomputed whole, the rest priced as "
			     "selective (Megatron keeps them whole)", a->file,
			     r->recompute_layers);
	return st;
}

/*
 * Fused attention: Megatron-LM has had it since 2023 (--use-flash-attn,
 * then Transformer Engine's, --transformer-impl; --attention-backend
 * since 2024-12); a log that names none of them is older and keeps the
 * attention scores.
 */
static bool megatron_flash(const rmi_cal_args *a, rm_cal_step *s)
{
	const char *ab = rmi_cal_val(a, "attention_backend");
	const char *ti = rmi_cal_val(a, "transformer_impl");
	const char *fa = rmi_cal_val(a, "use_flash_attn");
	if (ab && (strstr(ab, "unfused") || strstr(ab, "local")))
		return false;
	if (ti && !strcmp(ti, "transformer_engine"))
		return true;
	if (ti || fa || ab)
		return rmi_cal_true(fa);
	rmi_cal_note(s, false, "%s: no use_flash_attn, transformer_impl or "
		     "attention_backend (Megatron-LM before 2023): attention "
		     "scores kept, flash off", a->file);
	return false;
}

/* What Megatron's arguments say the run was. */
static rm_status megatron_run(const rmi_cal_args *a, const rm_model *m,
			      rm_cal_step *out, rm_error *err)
{
	static const char *const tp_old[] = {
		"model_parallel_size", "Megatron-LM to 2020", NULL };
	static const char *const mb_old[] = {
		"batch_size", "Megatron-LM to 2020", NULL };
	const char *f = a->file;
	rmi_cal_run r;
	memset(&r, 0, sizeof(r));
	rm_status st = rmi_cal_u32(a, "num_layers", true, 1, 100000, &r.layers,
				   err);
	if (!st)
		st = rmi_cal_u32(a, "hidden_size", true, 1, 1u << 20, &r.hidden,
				 err);
	if (!st)
		st = rmi_cal_u32(a, "num_attention_heads", true, 1, 65536,
				 &r.heads, err);
	if (!st)
		st = rmi_cal_u32(a, renamed(a, out, "tensor_model_parallel_size",
					    tp_old), true, 1, RM_MAX_WORLD,
				 &r.tp, err);
	/* Megatron-LM v1 had no pipeline */
	bool v1 = !rmi_cal_get(a, "pipeline_model_parallel_size") &&
		  rmi_cal_get(a, "model_parallel_size");
	if (!st && v1)
		r.pp = 1;
	else if (!st)
		st = rmi_cal_u32(a, "pipeline_model_parallel_size", true, 1,
				 RM_MAX_WORLD, &r.pp, err);
	if (!st)
		st = rmi_cal_u32(a, "context_parallel_size", false, 1,
				 RM_MAX_WORLD, &r.cp, err);
	if (!st)
		st = rmi_cal_u32(a, "world_size", true, 1, RM_MAX_WORLD, &r.world,
				 err);
	if (!st)
		st = rmi_cal_u32(a, renamed(a, out, "micro_batch_size", mb_old),
				 true, 1, 65536, &r.mb, err);
	/* before global_batch_size, a step was one micro-batch per replica */
	bool one = !rmi_cal_get(a, "global_batch_size") &&
		   rmi_cal_get(a, "batch_size");
	if (!st && one) {
		uint64_t dp = r.world / ((uint64_t)r.tp * r.pp);
		r.gbs = (uint32_t)(dp ? dp * r.mb : r.mb);
		rmi_cal_note(out, false, "%s: no global_batch_size (Megatron-LM "
			     "to 2020): batch_size %u per replica x %llu "
			     "replicas", f, r.mb, (unsigned long long)dp);
	} else if (!st) {
		st = rmi_cal_u32(a, "global_batch_size", true, 1, 1u << 30,
				 &r.gbs, err);
	}
	if (!st)
		st = rmi_cal_u32(a, "seq_length", true, 1, 1u << 24, &r.seq, err);
	uint32_t lpv = 0;
	if (!st)
		st = rmi_cal_u32(a, "virtual_pipeline_model_parallel_size", false,
				 1, 100000, &r.vpp, err);
	if (!st)
		st = rmi_cal_u32(a, "num_layers_per_virtual_pipeline_stage",
				 false, 1, 100000, &lpv, err);
	if (!st)
		st = megatron_recompute(a, out, &r, err);
	if (!st)
		st = rmi_cal_unpriced(a, "", &r, out, err);
	if (st)
		return st;
	if (!r.vpp && lpv && r.pp > 1 && r.layers % (r.pp * lpv) == 0)
		r.vpp = r.layers / (r.pp * lpv);
	r.sharding = rmi_cal_true(rmi_cal_val(a, "use_distributed_optimizer")) ?
		     "zero1" : "none";
	r.seq_parallel = rmi_cal_true(rmi_cal_val(a, "sequence_parallel"));
	r.tp_overlap = rmi_cal_true(rmi_cal_val(a, "tp_comm_overlap"));
	r.flash = megatron_flash(a, out);
	/* gradients: fp32 main gradients when accumulated in fp32 (bf16
	 * always since 2021), else the fp16 or bf16 of the weights */
	const char *acc = rmi_cal_val(a, "accumulate_allreduce_grads_in_fp32");
	bool half = rmi_cal_true(rmi_cal_val(a, "fp16")) ||
		    rmi_cal_true(rmi_cal_val(a, "bf16"));
	if (half && acc && !rmi_cal_true(acc))
		r.grad_bytes = 2;
	else if (!acc && rmi_cal_true(rmi_cal_val(a, "fp16"))) {
		r.grad_bytes = 2;
		rmi_cal_note(out, false, "%s: fp16 without "
			     "accumulate_allreduce_grads_in_fp32 (Megatron-LM to "
			     "2021-03): gradients of 2 bytes", f);
	}
	if (rmi_cal_val(a, "fp16") && rmi_cal_val(a, "bf16") && !half)
		rmi_cal_note(out, true, "%s: fp16 False, bf16 False: FP32 "
			     "training is not priced (the model prices BF16)", f);
	if (rmi_cal_true(rmi_cal_val(a, "deepspeed")))
		rmi_cal_note(out, true, "%s: deepspeed True: the ZeRO stage is "
			     "DeepSpeed's config, not these arguments: priced as "
			     "sharding %s (--set sharding=... says what ran)", f,
			     r.sharding);
	uint32_t ulysses = 0;
	if (!rmi_cal_u32(a, "ds_sequence_parallel_size", false, 0, RM_MAX_WORLD,
			 &ulysses, NULL) && ulysses > 1)
		rmi_cal_note(out, true, "%s: ds_sequence_parallel_size %u: "
			     "DeepSpeed-Ulysses sequence parallelism is not "
			     "priced", f, ulysses);
	return rmi_cal_run_step(&r, "Megatron-LM", f, m, out, err);
}

rm_status rm_cal_megatron_log(const char *text, size_t len, const char *file,
			      const rm_model *m, rm_cal_step *out,
			      rm_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *f = file ? file : "<megatron log>";
	static const char tag[] = "elapsed time per iteration (ms):";
	rmi_cal_args args = { calloc(RMI_CAL_MAX_KV, sizeof(rmi_cal_kv)), 0, f };
	double *ms = calloc(MAX_ITER, sizeof(*ms));
	rmi_cal_lines r;
	rm_status st = rmi_cal_lines_open(&r, text, len, f, err);
	if (!st && (!args.kv || !ms))
		st = rmi_err(err, RM_ENOMEM, "out of memory");
	size_t nit = 0;
	bool in_args = false, seen_args = false;
	while (!st && rmi_cal_next(&r, &st, err)) {
		const char *line = rmi_cal_unprefix(r.buf);
		/* 24 dashes since v2.0, 20 before */
		if (strstr(line, "-- end of arguments --")) {
			in_args = false;
			continue;
		}
		if (strstr(line, "-- arguments --")) {
			in_args = seen_args = true;
			continue;
		}
		if (in_args && args.n < RMI_CAL_MAX_KV &&
		    arg_line(line, &r, &args.kv[args.n])) {
			args.n++;
			continue;
		}
		const char *p = strstr(line, tag);
		if (!p || !strstr(line, "iteration"))
			continue;
		char *end;
		double v = strtod(p + sizeof(tag) - 1, &end);
		if (end == p + sizeof(tag) - 1 || !(v > 0) || !isfinite(v))
			st = rmi_err_at(err, RM_EINPUT, f, r.no, r.col0 +
					(unsigned)(p - r.buf) + 1,
					"no time after '%s'", tag);
		else if (nit < MAX_ITER)
			ms[nit++] = v;
	}
	if (!st && !seen_args)
		st = rmi_err(err, RM_EINPUT, "%s: no Megatron-LM arguments block "
			     "('------------------------ arguments ---')", f);
	if (!st && !nit)
		st = rmi_err(err, RM_EINPUT, "%s: no iteration line with '%s'", f,
			     tag);
	if (!st)
		st = megatron_run(&args, m, out, err);
	if (!st)
		out->seconds = rmi_cal_median(ms, nit, &out->samples) / 1000.0;
	rmi_cal_lines_close(&r);
	free(args.kv);
	free(ms);
	return st;
}

rm_status rm_cal_torchtitan_log(const char *text, size_t len, const char *file,
				const rm_model *m, const rm_train *t,
				const rm_layout *l, rm_cal_step *out,
				rm_error *err)
{
	RMI_TRAIN_ARG(t, err);
	memset(out, 0, sizeof(*out));
	const char *f = file ? file : "<torchtitan log>";
	double *tps = calloc(MAX_ITER, sizeof(*tps));
	rmi_cal_lines r;
	rm_status st = rmi_cal_lines_open(&r, text, len, f, err);
	if (!st && !tps)
		st = rmi_err(err, RM_ENOMEM, "out of memory");
	size_t n = 0;
	while (!st && rmi_cal_next(&r, &st, err)) {
		/* "step: 10  loss: ...  tps: 5,762  ..." (colour codes between) */
		const char *line = r.buf, *p = strstr(line, "tps: ");
		if (!p || !strstr(line, "step:") || strstr(line, "validate step"))
			continue;
		double v = 0;
		const char *q = p + 5;
		bool digit = false;
		for (; (*q >= '0' && *q <= '9') || *q == ','; q++)
			if (*q != ',') {
				v = v * 10 + (*q - '0');
				digit = true;
			}
		if (!digit || !(v > 0) || v > 1e12)
			st = rmi_err_at(err, RM_EINPUT, f, r.no, r.col0 +
					(unsigned)(p - line) + 6,
					"no tokens per second after 'tps: '");
		else if (n < MAX_ITER)
			tps[n++] = v;
	}
	if (!st && !n)
		st = rmi_err(err, RM_EINPUT, "%s: no torchtitan step line with "
			     "'tps: '", f);
	uint64_t gpus = rm_layout_world(l);
	if (!st && !gpus)
		st = rmi_err(err, RM_EINPUT, "%s: the run's layout has no GPUs", f);
	if (!st) {
		double med = rmi_cal_median(tps, n, &out->samples);
		out->seconds = (double)t->batch_tokens / (med * (double)gpus);
		out->model = *m;
		out->train = *t;
		out->layout = *l;
		char lay[96];
		rm_layout_format(l, lay, sizeof(lay));
		snprintf(out->what, sizeof(out->what), "%.50s: torchtitan, %.24s, "
			 "%.30s, batch %llu tokens, %.0f tokens/s per GPU", f,
			 m->name, lay, (unsigned long long)t->batch_tokens, med);
	}
	rmi_cal_lines_close(&r);
	free(tps);
	return st;
}

/* "#  Rank  0 Group  0 Pid 123 on  host1 device  0 [..] NVIDIA": the
 * hosts and how many ranks each runs. */
typedef struct {
	char name[16][64];
	uint32_t ranks[16];
	size_t n;
	bool more;                   /* more hosts than the list holds */
} nt_hosts;

static void nt_host(nt_hosts *h, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->name[i], name)) {
			h->ranks[i]++;
			return;
		}
	if (h->n == 16) {
		h->more = true;
		return;
	}
	snprintf(h->name[h->n], sizeof(h->name[0]), "%s", name);
	h->ranks[h->n++] = 1;
}

rm_status rm_cal_nccl_tests(const char *text, size_t len, const char *file,
			    rm_cal_link *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *f = file ? file : "<nccl-tests output>";
	static nt_hosts h;
	memset(&h, 0, sizeof(h));
	rmi_cal_lines r;
	rm_status st = rmi_cal_lines_open(&r, text, len, f, err);
	double best_size = -1, busbw = 0;
	while (!st && rmi_cal_next(&r, &st, err)) {
		const char *line = rmi_cal_unprefix(r.buf);
		const char *on = strstr(line, " on ");
		if (line[0] == '#' && strstr(line, "Rank") && on) {
			char name[64];
			if (sscanf(on + 4, "%63s", name) == 1)
				nt_host(&h, name);
			continue;
		}
		if (line[0] == '#')
			continue;
		/* size count type redop root time algbw busbw #wrong ... */
		double size, count, root, time, algbw, bw;
		char type[32], redop[32];
		if (sscanf(line, "%lf %lf %31s %31s %lf %lf %lf %lf", &size,
			   &count, type, redop, &root, &time, &algbw, &bw) == 8 &&
		    size > best_size && bw >= 0 && isfinite(bw)) {
			best_size = size;
			busbw = bw;
		}
	}
	rmi_cal_lines_close(&r);
	if (st)
		return st;
	if (best_size < 0)
		return rmi_err(err, RM_EINPUT, "%s: no nccl-tests result line "
			       "(size count type redop root time algbw busbw ...)",
			       f);
	if (!(busbw > 0))
		return rmi_err(err, RM_EINPUT, "%s: busbw %g at %.0f bytes is not "
			       "a bandwidth", f, busbw, best_size);
	if (!h.n)
		return rmi_err(err, RM_EINPUT, "%s: no '#  Rank N ... on HOST' "
			       "lines: NVLink or network cannot be told apart", f);
	uint32_t per = h.ranks[0];
	for (size_t i = 1; i < h.n; i++)
		per = h.ranks[i] < per ? h.ranks[i] : per;
	out->network = h.n > 1;
	out->busbw = busbw;
	out->per_host = per;
	out->gbps = out->network ? busbw / per : busbw;
	if (out->network)
		snprintf(out->what, sizeof(out->what), "%.50s: nccl-tests, "
			 "busbw %.2f GB/s, %s%zu hosts x %u GPUs (network): "
			 "%.2f GB/s per GPU's NIC", f, busbw, h.more ? "over " :
			 "", h.n, per, out->gbps);
	else
		snprintf(out->what, sizeof(out->what), "%.70s: nccl-tests, %.0f "
			 "bytes, busbw %.2f GB/s, one host, %u GPUs (nvlink)", f,
			 best_size, busbw, per);
	return RM_OK;
}

rm_status rm_cal_nccl_check(const char *text, size_t len, const char *file,
			    rm_cal_link *out, size_t max, size_t *n,
			    rm_error *err)
{
	*n = 0;
	const char *f = file ? file : "<rankmap-nccl-check report>";
	rmi_cal_lines r;
	rm_status st = rmi_cal_lines_open(&r, text, len, f, err);
	char axis[32] = "", place[32] = "";
	unsigned group = 0;
	bool head = false;
	while (!st && rmi_cal_next(&r, &st, err)) {
		const char *line = r.buf;
		if (!strncmp(line, "rankmap-nccl-check: ", 20))
			head = true;
		/* "tp  allreduce over 8 groups of 2  placed on: nvlink 8" */
		const char *pl = strstr(line, "placed on: ");
		if (pl && line[0] != ' ') {
			sscanf(line, "%31s", axis);
			sscanf(pl + 11, "%31s", place);
			const char *g = strstr(line, " groups of ");
			group = 0;
			if (g)
				sscanf(g + 11, "%u", &group);
			continue;
		}
		const char *pk = strstr(line, "peak busBw over sizes: min ");
		if (!pk || !axis[0])
			continue;
		double mn, med;
		if (sscanf(pk + 27, "%lf, median %lf", &mn, &med) != 2 ||
		    !(med > 0) || !isfinite(med)) {
			st = rmi_err_at(err, RM_EINPUT, f, r.no, r.col0 +
					(unsigned)(pk - line) + 1,
					"no median after 'peak busBw over "
					"sizes: min'");
			break;
		}
		if (*n < max) {
			rm_cal_link *k = &out[(*n)++];
			memset(k, 0, sizeof(*k));
			k->network = strcmp(place, "nvlink") != 0;
			k->busbw = k->gbps = med;
			/* one group's busBw: on the network one GPU per host
			 * (a NIC each), on NVLink the group's GPUs */
			k->per_host = k->network || !group ? 1 : group;
			snprintf(k->what, sizeof(k->what), "%.60s:%u: rankmap-nccl-check, "
				 "%.16s on %.16s, median peak busBw %.2f GB/s", f, r.no,
				 axis, place, med);
		}
		axis[0] = '\0';
	}
	rmi_cal_lines_close(&r);
	if (st)
		return st;
	if (!head)
		return rmi_err(err, RM_EINPUT, "%s: not a rankmap-nccl-check report "
			       "(no 'rankmap-nccl-check: ' line)", f);
	if (!*n)
		return rmi_err(err, RM_EINPUT, "%s: no axis with 'peak busBw over "
			       "sizes'", f);
	return RM_OK;
}
