/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rankmap_text.h - librankmap's text output API, public beside rankmap.h.
 *
 * The rankmap CLI, the SPANK plugin and librankmap-nccl write reports as
 * text, JSON and KEY=value lines. They build them in an rm_buf, the same
 * buffer the library writes its own maps and reports with, so that every
 * JSON string and every shell value is escaped one way everywhere.
 *
 * An rm_buf grows as needed. Once an allocation fails it stays failed
 * (oom), every later call is a no-op and rm_buf_take returns NULL: check
 * once, at the end, instead of after every call.
 */
#ifndef RANKMAP_TEXT_H
#define RANKMAP_TEXT_H

#include "rankmap.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define RM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RM_PRINTF(a, b)
#endif

typedef struct rm_buf {
	char *data;                  /* NUL-terminated once anything is added */
	size_t len, cap;
	bool oom;                    /* sticky: set once an allocation failed */
} rm_buf;

void rm_buf_init(rm_buf *b);
void rm_buf_free(rm_buf *b);
/* Room for `extra` more bytes (and the NUL); false once oom. */
bool rm_buf_reserve(rm_buf *b, size_t extra);
void rm_buf_add(rm_buf *b, const char *s, size_t n);
void rm_buf_puts(rm_buf *b, const char *s);
void rm_buf_printf(rm_buf *b, const char *fmt, ...) RM_PRINTF(2, 3);
void rm_buf_u64(rm_buf *b, uint64_t v);
/* A double-quoted JSON string (also valid YAML): quotes and backslashes
 * escaped, control bytes and DEL as \u00NN; NULL writes "". */
void rm_buf_json_str(rm_buf *b, const char *s);
/* One KEY=value line; the value single-quoted unless it is made of
 * characters no shell treats specially, control bytes dropped. */
void rm_buf_env(rm_buf *b, const char *key, const char *val);
/* Hand the text over (malloc'd, NUL-terminated, "" when empty) and reset
 * the buffer; NULL, with the buffer freed, when it ran out of memory. */
char *rm_buf_take(rm_buf *b, size_t *len);

/* A map's validation report (rm_report) as one JSON object, its lines
 * indented by `indent` levels of two spaces - the "validation" object of
 * a map file. */
void rm_report_json(rm_buf *b, const rm_report *r, int indent);
/* Two reports side by side for people, columns headed name_a and name_c
 * (for example "rankmap" and "baseline"). */
void rm_report_compare_text(rm_buf *b, const rm_report *a,
			    const char *name_a, const rm_report *c,
			    const char *name_c);
/* The same, headed by each map's seconds per step and MFU under one
 * model (rm_estimate_map on the same fabric) when ea and ec are both
 * given; NULL for either leaves the prices out. */
void rm_report_compare_priced_text(rm_buf *b, const rm_report *a,
				   const rm_estimate *ea, const char *name_a,
				   const rm_report *c, const rm_estimate *ec,
				   const char *name_c);
/* The one-line verdict of rm_estimate_compare_write on two estimates of
 * one layout (b against a): "the baseline is 15.2 % slower than the plan:
 * ..." or "... within 0.4 % of the plan here: rankmap changes nothing". */
void rm_estimate_compare_verdict(rm_buf *b, const rm_estimate *a,
				 const char *name_a, const rm_estimate *e,
				 const char *name_b);

#ifdef __cplusplus
}
#endif

#endif /* RANKMAP_TEXT_H */
