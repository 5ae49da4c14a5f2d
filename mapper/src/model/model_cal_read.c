/* SPDX-License-Identifier: Apache-2.0 */
/* model_cal_read.c - what calibrate's log readers share: lines, the
 * settings a log printed, what the model cannot price in them, and the
 * run they say as a training setup and a layout. */
#include "model/model_cal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rm_status rmi_cal_lines_open(rmi_cal_lines *r, const char *text, size_t len,
			     const char *file, rm_error *err)
{
	memset(r, 0, sizeof(*r));
	r->text = text;
	r->len = len;
	r->file = file;
	r->fresh = true;
	r->buf = malloc(RMI_CAL_LINE + 1);
	return r->buf ? RM_OK : rmi_err(err, RM_ENOMEM, "out of memory");
}

void rmi_cal_lines_close(rmi_cal_lines *r)
{
	free(r->buf);
	r->buf = NULL;
}

bool rmi_cal_next(rmi_cal_lines *r, rm_status *st, rm_error *err)
{
	*st = RM_OK;
	if (r->pos >= r->len)
		return false;
	if (r->fresh) {
		r->no++;
		r->col0 = 0;
	}
	size_t i = r->pos, k = 0;
	while (i < r->len && r->text[i] != '\n' && r->text[i] != '\r') {
		if (k == RMI_CAL_LINE) {
			*st = rmi_err_at(err, RM_EINPUT, r->file, r->no,
					 r->col0 + 1, "a line longer than %u "
					 "bytes", RMI_CAL_LINE);
			return false;
		}
		r->buf[k++] = r->text[i] ? r->text[i] : ' ';
		i++;
	}
	r->buf[k] = '\0';
	r->fresh = i >= r->len || r->text[i] == '\n';
	if (!r->fresh)
		r->col0 += (unsigned)(i - r->pos) + 1;
	r->pos = i + 1;
	return true;
}

const char *rmi_cal_unprefix(const char *line)
{
	const char *p = line;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p > line && p[0] == ':' && p[1] == ' ')
		return p + 2;
	/* "job/0 [default0]:" or "[default0]:" */
	p = strstr(line, "[default");
	size_t pre = p ? (size_t)(p - line) : 0;
	if (!p || pre > 80 || (pre && (line[pre - 1] != ' ' ||
				      memchr(line, ' ', pre - 1))))
		return line;
	const char *q = p + 8;
	while (*q >= '0' && *q <= '9')
		q++;
	return q > p + 8 && q[0] == ']' && q[1] == ':' ? q + 2 : line;
}

const rmi_cal_kv *rmi_cal_get(const rmi_cal_args *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->kv[i].name, name))
			return &a->kv[i];
	return NULL;
}

const char *rmi_cal_val(const rmi_cal_args *a, const char *name)
{
	const rmi_cal_kv *k = rmi_cal_get(a, name);
	return k ? k->value : NULL;
}

bool rmi_cal_unset(const char *v)
{
	return !v || !*v || !strcmp(v, "None") || !strcmp(v, "null") ||
	       !strcmp(v, "~");
}

bool rmi_cal_true(const char *v)
{
	return v && (!strcmp(v, "True") || !strcmp(v, "true"));
}

const rmi_cal_kv *rmi_cal_first(const rmi_cal_args *a,
				const char *const *names)
{
	for (; *names; names++) {
		const rmi_cal_kv *k = rmi_cal_get(a, *names);
		if (k && !rmi_cal_unset(k->value))
			return k;
	}
	return NULL;
}

rm_status rmi_cal_u32(const rmi_cal_args *a, const char *name, bool need,
		      uint32_t lo, uint32_t hi, uint32_t *out, rm_error *err)
{
	const rmi_cal_kv *k = rmi_cal_get(a, name);
	*out = 0;
	if (!k || rmi_cal_unset(k->value))
		return need ? rmi_err(err, RM_EINPUT, "%s: the log does not give "
				      "%s", a->file, name) : RM_OK;
	char *end, q[64];
	unsigned long long x = strtoull(k->value, &end, 10);
	if (end == k->value || *end || k->value[0] == '-' || x < lo || x > hi)
		return rmi_err_at(err, RM_EINPUT, a->file, k->line, k->col,
				  "%s=%s is not a whole number in [%u, %u]",
				  name, rm_quote(k->value, strlen(k->value), q,
						 sizeof(q)), lo, hi);
	*out = (uint32_t)x;
	return RM_OK;
}

void rmi_cal_note(rm_cal_step *s, bool warn, const char *fmt, ...)
{
	size_t *n = warn ? &s->nwarn : &s->nnote;
	if (*n >= RM_CAL_NOTES)
		return;
	char *line = warn ? s->warn[*n] : s->note[*n];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, RM_CAL_NOTE_LEN, fmt, ap);
	va_end(ap);
	(*n)++;
}

/* Turned on: a format named (fp8: hybrid) or a switch true. */
static bool on(const char *v)
{
	return !rmi_cal_unset(v) && strcmp(v, "False") && strcmp(v, "false") &&
	       strcmp(v, "0");
}

/* FP8 as Megatron-LM says it: --fp8-format (dest fp8: hybrid or e4m3,
 * since 2023-08; before, the switches --fp8-e4m3 and --fp8-hybrid),
 * --fp8-recipe (delayed, tensorwise, mxfp8, blockwise), --fp8-param-gather;
 * as NeMo does: model.fp8 (true, or the format in NeMo 2), its
 * fp8_e4m3 and fp8_hybrid (true by default), fp8_recipe, fp8_params. */
static void read_fp8(const rmi_cal_args *a, const char *pre, rmi_cal_run *r,
		     rm_cal_step *s)
{
	char name[96];
	const char *v;
#define GET(key) (snprintf(name, sizeof(name), "%s%s", pre, key), \
		  rmi_cal_val(a, name))
	const char *f8 = GET("fp8");
	bool e4 = on(GET("fp8_e4m3")), hy = on(GET("fp8_hybrid"));
	if (f8 && (!strcmp(f8, "hybrid") || !strcmp(f8, "e4m3")))
		r->fp8 = !strcmp(f8, "e4m3") ? "e4m3" : "hybrid";
	else if (f8 && on(f8))
		r->fp8 = e4 && !hy ? "e4m3" : "hybrid";
	else if (!f8 && (e4 || hy))
		r->fp8 = e4 ? "e4m3" : "hybrid";
	if (!r->fp8)
		return;
	if ((v = GET("fp8_recipe")) && !rmi_cal_unset(v)) {
		r->fp8_recipe = !strcmp(v, "delayed") ? "delayed" :
				!strcmp(v, "tensorwise") ||
				!strcmp(v, "current") ? "current" :
				!strcmp(v, "mxfp8") ? "mxfp8" : NULL;
		if (!r->fp8_recipe) {
			r->fp8_recipe = "current";
			rmi_cal_note(s, true, "%s: %s=%s: priced as current "
				     "scaling (per-tensor casts)", a->file, name,
				     v);
		}
	}
	r->fp8_params = on(GET("fp8_param_gather")) || on(GET("fp8_params"));
#undef GET
	rmi_cal_note(s, false, "%s: FP8 read: %s, recipe %s, fp8_params %s "
		     "(the linears priced at the FP8 peak x fp8_eff)", a->file,
		     r->fp8, r->fp8_recipe ? r->fp8_recipe : "delayed",
		     r->fp8_params ? "on" : "off");
}

rm_status rmi_cal_unpriced(const rmi_cal_args *a, const char *pre,
			   rmi_cal_run *r, rm_cal_step *s, rm_error *err)
{
	read_fp8(a, pre, r, s);
	/* Megatron-LM's --fp4-format, --fp4-param-gather: not read */
	static const char *const fp[] = { "fp4", "fp4_format",
					   "fp4_param_gather", NULL };
	char name[96], q[64], what[160] = "";
	size_t w = 0;
	for (size_t i = 0; fp[i]; i++) {
		snprintf(name, sizeof(name), "%s%s", pre, fp[i]);
		const rmi_cal_kv *k = rmi_cal_get(a, name);
		if (!k || !on(k->value))
			continue;
		if (w < sizeof(what))
			w += (size_t)snprintf(what + w, sizeof(what) - w, "%s%s=%s",
					      w ? ", " : "", name,
					      rm_quote(k->value, strlen(k->value),
						       q, sizeof(q)));
	}
	if (w)
		rmi_cal_note(s, true, "%s: %s: FP4 GEMMs are not read from a log "
			     "(--set fp8=e4m3 fp8_recipe=nvfp4 prices them): "
			     "priced as %s", a->file, what,
			     r->fp8 ? "FP8" : "BF16");
	static const char *const moe[] = { "num_experts", "num_moe_experts",
					   NULL };
	for (size_t i = 0; moe[i]; i++) {
		snprintf(name, sizeof(name), "%s%s", pre, moe[i]);
		const rmi_cal_kv *k = rmi_cal_get(a, name);
		/* Megatron-DeepSpeed prints its default as [1] */
		if (k && on(k->value) && strcmp(k->value, "1") &&
		    strcmp(k->value, "[1]"))
			return rmi_err_at(err, RM_EINPUT, a->file, k->line, k->col,
					  "%s=%s: a mixture-of-experts run; the "
					  "model prices dense models only", name,
					  rm_quote(k->value, strlen(k->value), q,
						   sizeof(q)));
	}
	return RM_OK;
}

rm_status rmi_cal_run_fp8(const rmi_cal_run *r, rm_train *t, rm_error *err)
{
	rm_status st = RM_OK;
	if (r->fp8)
		st = rm_train_set(t, "fp8", r->fp8, err);
	if (!st && r->fp8 && r->fp8_recipe)
		st = rm_train_set(t, "fp8_recipe", r->fp8_recipe, err);
	if (!st && r->fp8)
		st = rm_train_set(t, "fp8_params", r->fp8_params ? "on" : "off",
				  err);
	return st;
}

rm_status rmi_cal_run_step(const rmi_cal_run *r, const char *fw, const char *f,
			   const rm_model *m, rm_cal_step *out, rm_error *err)
{
	if (r->layers != m->layers || r->hidden != m->hidden ||
	    r->heads != m->heads)
		return rmi_err(err, RM_EINPUT, "%s: the run has %u layers, hidden "
			       "%u, %u heads; model %s has %u, %u, %u", f,
			       r->layers, r->hidden, r->heads, m->name, m->layers,
			       m->hidden, m->heads);
	uint32_t cp = r->cp ? r->cp : 1;
	uint64_t mp = (uint64_t)r->tp * r->pp * cp;
	if (r->world % mp)
		return rmi_err(err, RM_EINPUT, "%s: world size %u is not a "
			       "multiple of tp x pp x cp = %llu", f, r->world,
			       (unsigned long long)mp);
	char b[64];
	rm_train *t = &out->train;
	rm_train_init(t, RM_TRAIN_VERSION);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)r->gbs * r->seq);
	rm_status st = rm_train_set(t, "batch", b, err);
	snprintf(b, sizeof(b), "%u", r->seq);
	if (!st)
		st = rm_train_set(t, "seq", b, err);
	snprintf(b, sizeof(b), "%u", r->mb);
	if (!st)
		st = rm_train_set(t, "mb", b, err);
	if (!st)
		st = rm_train_set(t, "recompute", r->recompute, err);
	snprintf(b, sizeof(b), "%u", r->recompute_layers);
	if (!st)
		st = rm_train_set(t, "recompute_layers", b, err);
	if (!st)
		st = rm_train_set(t, "sharding", r->sharding, err);
	if (!st)
		st = rm_train_set(t, "seq_parallel", r->seq_parallel ? "on" :
				  "off", err);
	if (!st)
		st = rm_train_set(t, "flash", r->flash ? "on" : "off", err);
	snprintf(b, sizeof(b), "%g", r->grad_bytes);
	if (!st && r->grad_bytes > 0)
		st = rm_train_set(t, "grad_bytes", b, err);
	/* TP overlap is a flag of the run: off hides nothing; on, all TP
	 * traffic goes through Transformer Engine's overlap, whatever the
	 * GPU's default */
	if (!st)
		st = rm_train_set(t, "tp_overlap", r->tp_overlap ? "1" : "0",
				  err);
	if (!st)
		st = rmi_cal_run_fp8(r, t, err);
	snprintf(b, sizeof(b), "interleaved:%u", r->vpp);
	if (!st && r->vpp > 1)
		st = rm_train_set(t, "schedule", b, err);
	snprintf(b, sizeof(b), "tp=%u,cp=%u,dp=%llu,pp=%u", r->tp, cp,
		 (unsigned long long)(r->world / mp), r->pp);
	if (!st)
		st = rm_layout_parse(b, &out->layout, err);
	if (st)
		return st;
	out->model = *m;
	snprintf(out->what, sizeof(out->what), "%.60s: %s, %.24s, %.40s, mb %u, "
		 "gbs %u x %u, recompute %s%s", f, fw, m->name, b, r->mb, r->gbs,
		 r->seq, r->recompute, r->flash ? "" : ", no flash attention");
	return RM_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double rmi_cal_median(double *v, size_t n, size_t *used)
{
	size_t off = n > 1 ? 1 : 0;
	*used = n - off;
	qsort(v + off, n - off, sizeof(*v), cmp_double);
	size_t k = n - off;
	return k % 2 ? v[off + k / 2] : (v[off + k / 2 - 1] + v[off + k / 2]) / 2;
}
