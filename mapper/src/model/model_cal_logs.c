/* SPDX-License-Identifier: Apache-2.0 */
/* model_cal_logs.c - measurements for `rankmap calibrate` from the logs
 * and reports that training frameworks and NCCL tests write. */
#include "model/model_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The next line of text[0, len) from *pos, NUL-ended in buf (cut at
 * size - 1); false at the end. Its 1-based number goes to *no. */
static bool next_line(const char *text, size_t len, size_t *pos, char *buf,
		      size_t size, unsigned *no)
{
	if (*pos >= len)
		return false;
	size_t i = *pos, k = 0;
	while (i < len && text[i] != '\n') {
		if (k + 1 < size)
			buf[k++] = text[i] ? text[i] : ' ';
		i++;
	}
	buf[k] = '\0';
	*pos = i + 1;
	(*no)++;
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of v[1..n) (the first is warm-up) or of v[0] alone. */
static double median_after_first(double *v, size_t n, size_t *used)
{
	size_t off = n > 1 ? 1 : 0;
	*used = n - off;
	qsort(v + off, n - off, sizeof(*v), cmp_double);
	size_t k = n - off;
	return k % 2 ? v[off + k / 2] : (v[off + k / 2 - 1] + v[off + k / 2]) / 2;
}

#define MAX_ITER 100000

typedef struct {
	char name[64], value[96];
} meg_arg;

/* "  name ........ value": the name, the value; false for other lines. */
static bool arg_line(const char *line, meg_arg *a)
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
	while (l && (a->value[l - 1] == ' ' || a->value[l - 1] == '\r'))
		a->value[--l] = '\0';
	return true;
}

static const char *arg_get(const meg_arg *args, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(args[i].name, name))
			return args[i].value;
	return NULL;
}

/* A whole number argument in [lo, hi]; `none_ok` takes "None" as 0. */
static rm_status arg_u32(const meg_arg *args, size_t n, const char *file,
			 const char *name, bool need, uint32_t lo, uint32_t hi,
			 uint32_t *out, rm_error *err)
{
	const char *v = arg_get(args, n, name);
	if (!v || !strcmp(v, "None")) {
		if (need)
			return rmi_err(err, RM_EINPUT, "%s: the arguments do not "
				       "give %s", file, name);
		*out = 0;
		return RM_OK;
	}
	char *end;
	unsigned long long x = strtoull(v, &end, 10);
	if (end == v || *end || x < lo || x > hi)
		return rmi_err(err, RM_EINPUT, "%s: %s=%.40s is not a whole "
			       "number in [%u, %u]", file, name, v, lo, hi);
	*out = (uint32_t)x;
	return RM_OK;
}

static bool arg_true(const meg_arg *args, size_t n, const char *name)
{
	const char *v = arg_get(args, n, name);
	return v && !strcmp(v, "True");
}

/* What Megatron's arguments say the run was, as a training setup and a
 * layout (Megatron-Core nests tp-cp-dp-pp). */
static rm_status megatron_run(const meg_arg *a, size_t na, const char *f,
			      const rm_model *m, rm_cal_step *out,
			      rm_error *err)
{
	uint32_t L, h, heads, tp, pp, cp, world, mb, gbs, seq, vpp, lpv;
	rm_status st = arg_u32(a, na, f, "num_layers", true, 1, 100000, &L, err);
	if (!st)
		st = arg_u32(a, na, f, "hidden_size", true, 1, 1u << 20, &h, err);
	if (!st)
		st = arg_u32(a, na, f, "num_attention_heads", true, 1, 65536,
			     &heads, err);
	if (!st && (L != m->layers || h != m->hidden || heads != m->heads))
		st = rmi_err(err, RM_EINPUT, "%s: the run has %u layers, hidden "
			     "%u, %u heads; model %s has %u, %u, %u", f, L, h,
			     heads, m->name, m->layers, m->hidden, m->heads);
	if (!st)
		st = arg_u32(a, na, f, "tensor_model_parallel_size", true, 1,
			     RM_MAX_WORLD, &tp, err);
	if (!st)
		st = arg_u32(a, na, f, "pipeline_model_parallel_size", true, 1,
			     RM_MAX_WORLD, &pp, err);
	if (!st)
		st = arg_u32(a, na, f, "context_parallel_size", false, 1,
			     RM_MAX_WORLD, &cp, err);
	if (!st)
		st = arg_u32(a, na, f, "world_size", true, 1, RM_MAX_WORLD,
			     &world, err);
	if (!st)
		st = arg_u32(a, na, f, "micro_batch_size", true, 1, 65536, &mb, err);
	if (!st)
		st = arg_u32(a, na, f, "global_batch_size", true, 1, 1u << 30,
			     &gbs, err);
	if (!st)
		st = arg_u32(a, na, f, "seq_length", true, 1, 1u << 24, &seq, err);
	if (!st)
		st = arg_u32(a, na, f, "virtual_pipeline_model_parallel_size",
			     false, 1, 100000, &vpp, err);
	if (!st)
		st = arg_u32(a, na, f, "num_layers_per_virtual_pipeline_stage",
			     false, 1, 100000, &lpv, err);
	if (st)
		return st;
	cp = cp ? cp : 1;
	uint64_t mp = (uint64_t)tp * pp * cp;
	if (world % mp)
		return rmi_err(err, RM_EINPUT, "%s: world_size %u is not a "
			       "multiple of tp x pp x cp = %llu", f, world,
			       (unsigned long long)mp);
	if (!vpp && lpv && pp > 1 && L % (pp * lpv) == 0)
		vpp = L / (pp * lpv);
	char b[64];
	rm_train *t = &out->train;
	rm_train_init(t, RM_TRAIN_VERSION);
	const char *rg = arg_get(a, na, "recompute_granularity");
	snprintf(b, sizeof(b), "%llu", (unsigned long long)gbs * seq);
	st = rm_train_set(t, "batch", b, err);
	snprintf(b, sizeof(b), "%u", seq);
	if (!st)
		st = rm_train_set(t, "seq", b, err);
	snprintf(b, sizeof(b), "%u", mb);
	if (!st)
		st = rm_train_set(t, "mb", b, err);
	if (!st)
		st = rm_train_set(t, "recompute", rg && !strcmp(rg, "full") ? "full" :
				  rg && !strcmp(rg, "selective") ? "selective" :
				  "none", err);
	if (!st)
		st = rm_train_set(t, "sharding", arg_true(a, na,
				  "use_distributed_optimizer") ? "zero1" : "none",
				  err);
	if (!st)
		st = rm_train_set(t, "seq_parallel", arg_true(a, na,
				  "sequence_parallel") ? "on" : "off", err);
	/* TP overlap is a flag of the run (--tp-comm-overlap): off hides
	 * nothing; on, all TP traffic goes through Transformer Engine's
	 * overlap, whatever the GPU's default */
	if (!st)
		st = rm_train_set(t, "tp_overlap", arg_true(a, na,
				  "tp_comm_overlap") ? "1" : "0", err);
	snprintf(b, sizeof(b), "interleaved:%u", vpp);
	if (!st && vpp > 1)
		st = rm_train_set(t, "schedule", b, err);
	snprintf(b, sizeof(b), "tp=%u,cp=%u,dp=%llu,pp=%u", tp, cp,
		 (unsigned long long)(world / mp), pp);
	if (!st)
		st = rm_layout_parse(b, &out->layout, err);
	if (st)
		return st;
	out->model = *m;
	snprintf(out->what, sizeof(out->what), "%.60s: Megatron-LM, %.24s, %.40s, "
		 "mb %u, gbs %u x %u", f, m->name, b, mb, gbs, seq);
	return RM_OK;
}

rm_status rm_cal_megatron_log(const char *text, size_t len, const char *file,
			      const rm_model *m, rm_cal_step *out,
			      rm_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *f = file ? file : "<megatron log>";
	static const char tag[] = "elapsed time per iteration (ms):";
	meg_arg *args = calloc(1024, sizeof(*args));
	double *ms = calloc(MAX_ITER, sizeof(*ms));
	if (!args || !ms) {
		free(args);
		free(ms);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	size_t na = 0, nit = 0, pos = 0;
	bool in_args = false, seen_args = false;
	unsigned no = 0;
	char line[4096];
	rm_status st = RM_OK;
	while (!st && next_line(text, len, &pos, line, sizeof(line), &no)) {
		if (strstr(line, "------------------------ arguments ---")) {
			in_args = seen_args = true;
			continue;
		}
		if (strstr(line, "--- end of arguments ---")) {
			in_args = false;
			continue;
		}
		if (in_args && na < 1024 && arg_line(line, &args[na]))
			na++;
		const char *p = strstr(line, tag);
		if (!p || !strstr(line, "iteration"))
			continue;
		char *end;
		double v = strtod(p + sizeof(tag) - 1, &end);
		if (end == p + sizeof(tag) - 1 || !(v > 0) || !isfinite(v))
			st = rmi_err_at(err, RM_EINPUT, f, no,
					(unsigned)(p - line) + 1,
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
		st = megatron_run(args, na, f, m, out, err);
	if (!st)
		out->seconds = median_after_first(ms, nit, &out->samples) / 1000.0;
	free(args);
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
	if (!tps)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	size_t n = 0, pos = 0;
	unsigned no = 0;
	char line[4096];
	rm_status st = RM_OK;
	while (!st && next_line(text, len, &pos, line, sizeof(line), &no)) {
		/* "step: 10  loss: ...  tps: 5,762  ..." (colour codes between) */
		const char *p = strstr(line, "tps: ");
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
			st = rmi_err_at(err, RM_EINPUT, f, no,
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
		double med = median_after_first(tps, n, &out->samples);
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
	free(tps);
	return st;
}

rm_status rm_cal_nccl_tests(const char *text, size_t len, const char *file,
			    rm_cal_link *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *f = file ? file : "<nccl-tests output>";
	char hosts[2][64] = { "", "" };
	size_t pos = 0;
	unsigned no = 0;
	char line[4096];
	double best_size = -1, busbw = 0;
	bool two = false;
	while (next_line(text, len, &pos, line, sizeof(line), &no)) {
		/* "#  Rank  0 Group  0 Pid 123 on  host1 device  0 [..] NVIDIA" */
		const char *on = strstr(line, " on ");
		if (line[0] == '#' && strstr(line, "Rank") && on) {
			char h[64];
			if (sscanf(on + 4, "%63s", h) == 1) {
				if (!hosts[0][0])
					snprintf(hosts[0], 64, "%s", h);
				else if (strcmp(hosts[0], h))
					two = true;
			}
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
	(void)hosts[1];
	if (best_size < 0)
		return rmi_err(err, RM_EINPUT, "%s: no nccl-tests result line "
			       "(size count type redop root time algbw busbw ...)",
			       f);
	if (!(busbw > 0))
		return rmi_err(err, RM_EINPUT, "%s: busbw %g at %.0f bytes is not "
			       "a bandwidth", f, busbw, best_size);
	out->network = two;
	out->busbw = busbw;
	snprintf(out->what, sizeof(out->what), "%.70s: nccl-tests, %.0f bytes, "
		 "busbw %.2f GB/s, %s", f, best_size, busbw,
		 two ? "across hosts (network)" : "one host (nvlink)");
	return RM_OK;
}

rm_status rm_cal_nccl_check(const char *text, size_t len, const char *file,
			    rm_cal_link *out, size_t max, size_t *n,
			    rm_error *err)
{
	*n = 0;
	const char *f = file ? file : "<rankmap-nccl-check report>";
	size_t pos = 0;
	unsigned no = 0;
	char line[4096], axis[32] = "", place[32] = "";
	bool head = false;
	while (next_line(text, len, &pos, line, sizeof(line), &no)) {
		if (!strncmp(line, "rankmap-nccl-check: ", 20))
			head = true;
		/* "tp  allreduce over 8 groups of 2  placed on: nvlink 8" */
		const char *pl = strstr(line, "placed on: ");
		if (pl && line[0] != ' ') {
			sscanf(line, "%31s", axis);
			sscanf(pl + 11, "%31s", place);
			continue;
		}
		const char *pk = strstr(line, "peak busBw over sizes: min ");
		if (!pk || !axis[0])
			continue;
		double mn, med;
		if (sscanf(pk + 27, "%lf, median %lf", &mn, &med) != 2 ||
		    !(med > 0) || !isfinite(med))
			return rmi_err_at(err, RM_EINPUT, f, no,
					  (unsigned)(pk - line) + 1,
					  "no median after 'peak busBw over "
					  "sizes: min'");
		if (*n < max) {
			rm_cal_link *k = &out[(*n)++];
			memset(k, 0, sizeof(*k));
			k->network = strcmp(place, "nvlink") != 0;
			k->busbw = med;
			snprintf(k->what, sizeof(k->what), "%.60s:%u: rankmap-nccl-check, "
				 "%.16s on %.16s, median peak busBw %.2f GB/s", f, no,
				 axis, place, med);
		}
		axis[0] = '\0';
	}
	if (!head)
		return rmi_err(err, RM_EINPUT, "%s: not a rankmap-nccl-check report "
			       "(no 'rankmap-nccl-check: ' line)", f);
	if (!*n)
		return rmi_err(err, RM_EINPUT, "%s: no axis with 'peak busBw over "
			       "sizes'", f);
	return RM_OK;
}
