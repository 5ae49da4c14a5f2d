/* SPDX-License-Identifier: Apache-2.0 */
/*
 * site_int.h - shared by the site file's readers (site*.c).
 */
#ifndef RANKMAP_SITE_INT_H
#define RANKMAP_SITE_INT_H

#include "internal.h"

/* Nodes named across all groups or all units, summed: bounds the memory a
 * hostile file can make us spend on the overlap check. */
#define SITE_MAX_NAMED RM_MAX_HOSTS
#define SITE_MAX_PATH 4096
#define SITE_MAX_ENV_VAL 4096

typedef struct rmi_site_ctx {
	const char *file;
	rm_site *s;
	rm_error *err;
} rmi_site_ctx;

/* Short name inside the site readers. */
typedef rmi_site_ctx ctx;

RMI_HIDDEN rm_status rmi_site_oom(ctx *c);
/* RM_EINPUT at node `n` (NULL: the file as a whole). */
#define rmi_site_bad(c, n, ...)                                              \
	rmi_err_cut((c)->err, RM_EINPUT, (c)->file, rmi_y_line(n),           \
		    rmi_y_col(n), 900, __VA_ARGS__)
/* A text value: a scalar of 1..max bytes without control characters. */
RMI_HIDDEN rm_status rmi_site_text(ctx *c, const rmi_ynode *n, const char *what,
				   size_t max, const char **out);
/* A text value that is one of the words of `w`, its value in *out; a NULL
 * node leaves *out alone. The message lists the words. */
RMI_HIDDEN rm_status rmi_site_word(ctx *c, const rmi_ynode *n,
				   const char *what, const rmi_word *w,
				   int *out);
/* The same, copied into *out (replacing what was there). */
RMI_HIDDEN rm_status rmi_site_dup(ctx *c, const rmi_ynode *n, const char *what,
				  size_t max, char **out);
/* A list of text values, each optionally vetted by `check`. */
RMI_HIDDEN rm_status rmi_site_list(ctx *c, const rmi_ynode *n, const char *what,
				   size_t max,
				   rm_status (*check)(ctx *, const rmi_ynode *,
						      const char *),
				   char ***out, size_t *nout);

RMI_HIDDEN rm_status rmi_site_nvlink(ctx *c, const rmi_ynode *m);
RMI_HIDDEN rm_status rmi_site_units(ctx *c, const rmi_ynode *m);
RMI_HIDDEN rm_status rmi_site_nccl(ctx *c, const rmi_ynode *m);
RMI_HIDDEN rm_status rmi_site_xml_path(ctx *c, const rmi_ynode *n);

#endif
