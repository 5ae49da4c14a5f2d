/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util/util.h - what every part of librankmap leans on: errors as values,
 * growing arrays, bounded copies. util/ calls nothing else in the library.
 * Never installed; internal names start with rmi_ and stay out of the
 * shared library's symbol table.
 */
#ifndef RANKMAP_UTIL_H
#define RANKMAP_UTIL_H

#include "rankmap.h"
#include "rankmap_priv.h"
#include "util/objects.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__GNUC__)
#define RMI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define RMI_HIDDEN __attribute__((visibility("hidden")))
#else
#define RMI_PRINTF(a, b)
#define RMI_HIDDEN
#endif

/* Greatest common divisor (0 with 0 gives 0). */
static inline uint64_t rmi_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Three-way comparison for qsort callbacks (-1, 0, 1), for any arithmetic
 * type and without the overflow of a - b. */
#define RMI_CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* Bytes a[0..na) against b[0..nb): memcmp's sign, a proper prefix first. */
static inline int rmi_bytes_cmp(const char *a, size_t na, const char *b,
				size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);
	return c ? c : RMI_CMP(na, nb);
}

/* ---- errors (error.c) ---- */
/* Fill `err` (may be NULL) and return `code`. */
RMI_HIDDEN rm_status rmi_err(rm_error *err, rm_status code, const char *fmt,
			     ...) RMI_PRINTF(3, 4);
/* Same, prefixed "file:line:col: " (line and col 1-based; 0 = omit). */
RMI_HIDDEN rm_status rmi_err_at(rm_error *err, rm_status code, const char *file,
				unsigned long line, unsigned long col,
				const char *fmt, ...) RMI_PRINTF(6, 7);
/* rmi_err_at with the message cut to `max` - 1 bytes before the prefix
 * goes on: each file reader keeps the bound its messages always had. */
RMI_HIDDEN rm_status rmi_err_cut(rm_error *err, rm_status code,
				 const char *file, unsigned long line,
				 unsigned long col, size_t max, const char *fmt,
				 ...) RMI_PRINTF(7, 8);

/* ---- arrays and copies (buf.c) ---- */
/* Make room for `need` elements of `elsize` bytes in *arr (capacity *cap),
 * doubling from 16; false, with *arr untouched, when realloc fails. */
RMI_HIDDEN bool rmi_grow(void **arr, size_t *cap, size_t need, size_t elsize);
/* Copy `len` bytes of src into buf[n] as snprintf would (truncated,
 * NUL-terminated, nothing when n is 0); returns len. */
RMI_HIDDEN size_t rmi_copy_out(const char *src, size_t len, char *buf,
			       size_t n);
/* ---- files (buf.c) ---- */
/* Open `path` read-only, refusing anything but a regular file (a FIFO or
 * a device would block or never end); *size is its size now. */
RMI_HIDDEN rm_status rmi_open_file(const char *path, int *fd, uint64_t *size,
				   rm_error *err);
/* A reader of a whole text into `obj`; `file` names it in messages. */
typedef rm_status (*rmi_parse_fn)(void *obj, const char *text, size_t len,
				  const char *file, rm_error *err);
/* rm_file_read `path`, then `parse` its text into `obj`. */
RMI_HIDDEN rm_status rmi_parse_file(const char *path, rmi_parse_fn parse,
				    void *obj, rm_error *err);

/* ---- string arrays (buf.c) ---- */
/* Free the first `n` strings of `v`, then `v` (NULL is fine): arrays that
 * failed halfway hold NULLs past the last copy. */
RMI_HIDDEN void rmi_strv_free(char **v, size_t n);
/* strdup that passes NULL through and records a failure in *oom, so a
 * run of copies can be checked once at the end. */
RMI_HIDDEN char *rmi_dup_or_null(const char *s, bool *oom);


/* ---- names in order (hostlist_format.c) ---- */
/* A name and where it came from: qsort has no context argument in C11,
 * so the index travels with the name and breaks ties. */
typedef struct rmi_named {
	const char *name;
	size_t ix;
} rmi_named;
/* Byte order of the names, then index. */
RMI_HIDDEN int rmi_named_cmp(const void *a, const void *b);
/* rm_host_cmp's natural order (a NULL name as ""), then index. */
RMI_HIDDEN int rmi_named_host_cmp(const void *a, const void *b);

/* ---- closed sets of words (buf.c) ---- */
/* A word a setting may take and the value it stands for; a table ends
 * with a NULL word. */
typedef struct rmi_word {
	const char *word;
	int value;
} rmi_word;
/* Value of `s` in table `w`, or -1 when it is none of the words. */
RMI_HIDDEN int rmi_word_find(const char *s, const rmi_word *w);

/* ---- hostlists (hostlist.c) ---- */
/* rm_hostlist_parse over `len` bytes (NULs are bad characters). On error
 * err->msg has no location and *col is the 1-based byte column in expr
 * (0 when the whole expression is at fault), so file readers can report
 * file:line:col. */
RMI_HIDDEN rm_status rmi_hostlist_parse_n(const char *expr, size_t len,
					  rm_hostlist *out, size_t *col,
					  rm_error *err);


/* Compress names back into a ranged expression (malloc'd). It expands to
 * the same names (duplicates kept) in natural order, not input order. */
rm_status rm_hostlist_format(const char *const *host, size_t n, char **out,
			     rm_error *err);

/* A caller's versioned struct (its first member `unsigned version`) copied
 * over `full`, which holds this library's defaults: sizes[v] is the size
 * of version v (0: none), nsizes one past the newest. RM_EUNSUPPORTED,
 * naming `what`, for a version this library does not know. */
RMI_HIDDEN rm_status rmi_versioned(const void *in, const size_t *sizes,
				   unsigned nsizes, void *full,
				   const char *what, rm_error *err);

#endif /* RANKMAP_UTIL_H */
