/* SPDX-License-Identifier: Apache-2.0 */
/* model_cal.h - what calibrate's log readers share (model_cal_read.c):
 * the lines of a log, the settings it printed, and the run they say. */
#ifndef RANKMAP_MODEL_CAL_H
#define RANKMAP_MODEL_CAL_H

#include "model/model_int.h"
#include "rankmap_priv.h"

/*
 * The lines of a log, split at \n and at \r (a progress bar redraws
 * itself with \r), numbered by \n: `no` is the line, `col0` the 0-based
 * column where the piece starts in it. A piece longer than
 * RMI_CAL_LINE bytes is refused, never cut (a cut number is a wrong one).
 */
#define RMI_CAL_LINE 65536
typedef struct {
	const char *text, *file;
	size_t len, pos;
	unsigned no, col0;
	bool fresh;                  /* the next piece starts a line */
	char *buf;                   /* the piece, NUL-ended */
} rmi_cal_lines;
RMI_HIDDEN rm_status rmi_cal_lines_open(rmi_cal_lines *r, const char *text,
					size_t len, const char *file,
					rm_error *err);
/* The next piece in r->buf; false at the end or on a refusal (*st). */
RMI_HIDDEN bool rmi_cal_next(rmi_cal_lines *r, rm_status *st, rm_error *err);
RMI_HIDDEN void rmi_cal_lines_close(rmi_cal_lines *r);
/* Past what a launcher puts before each line: srun --label's "12: ",
 * torchrun --tee's "[default0]:" (after a job name, as NeMo-Run's). */
RMI_HIDDEN const char *rmi_cal_unprefix(const char *line);

/* Settings a log printed: Megatron's arguments by name, NeMo's config by
 * path ("model.num_layers"), each with where its value starts. */
typedef struct {
	char name[96], value[128];
	unsigned line, col;
} rmi_cal_kv;
#define RMI_CAL_MAX_KV 4096
typedef struct {
	rmi_cal_kv *kv;
	size_t n;
	const char *file;
} rmi_cal_args;
RMI_HIDDEN const rmi_cal_kv *rmi_cal_get(const rmi_cal_args *a,
					 const char *name);
/* Its value, or NULL. */
RMI_HIDDEN const char *rmi_cal_val(const rmi_cal_args *a, const char *name);
/* None, null, ~ or nothing: not set. */
RMI_HIDDEN bool rmi_cal_unset(const char *v);
RMI_HIDDEN bool rmi_cal_true(const char *v);
/* The setting `name` as a whole number in [lo, hi] (*found false and
 * *out 0 when not set; refused when `need`); file:line:col when not. */
RMI_HIDDEN rm_status rmi_cal_u32(const rmi_cal_args *a, const char *name,
				 bool need, uint32_t lo, uint32_t hi,
				 uint32_t *out, rm_error *err);
/* The first of `names` (NULL-ended) that is set, or NULL. */
RMI_HIDDEN const rmi_cal_kv *rmi_cal_first(const rmi_cal_args *a,
					   const char *const *names);

/* A line of what the reader made of the log (warn false) or of what it
 * saw and cannot price (warn true), kept with the step. */
RMI_HIDDEN void rmi_cal_note(rm_cal_step *s, bool warn, const char *fmt, ...)
	RMI_PRINTF(3, 4);

/* The run a framework's log says, as calibrate prices it. */
typedef struct {
	uint32_t layers, hidden, heads;
	uint32_t tp, pp, cp, world, mb, gbs, seq, vpp;
	uint32_t recompute_layers;   /* full: layers per chunk; 0 all */
	const char *recompute, *sharding;
	bool seq_parallel, tp_overlap, flash;
	double grad_bytes;           /* 0: the default */
	const char *fp8, *fp8_recipe; /* NULL: off; the default */
	bool fp8_params;
} rmi_cal_run;
/*
 * The precision a log says (FP8: its format, recipe and FP8 weights into
 * r), the settings it may carry that the model does not price: FP4
 * GEMMs (a warning naming each setting that turns them on), and experts
 * (refused: the model prices dense models). `pre` is what the names are
 * under ("" or "model.").
 */
RMI_HIDDEN rm_status rmi_cal_unpriced(const rmi_cal_args *a, const char *pre,
				      rmi_cal_run *r, rm_cal_step *s,
				      rm_error *err);
/* The FP8 settings rmi_cal_unpriced read into r, set on t (nothing
 * where the log said none). */
RMI_HIDDEN rm_status rmi_cal_run_fp8(const rmi_cal_run *r, rm_train *t,
				     rm_error *err);
/* Check the architecture against m and fill out's model, train, layout
 * (Megatron-Core nests tp-cp-dp-pp) and what (`fw`: the framework). */
RMI_HIDDEN rm_status rmi_cal_run_step(const rmi_cal_run *r, const char *fw,
				      const char *f, const rm_model *m,
				      rm_cal_step *out, rm_error *err);
/* Median of v[1..n) (the first is warm-up) or of v[0] alone. */
RMI_HIDDEN double rmi_cal_median(double *v, size_t n, size_t *used);

#endif
