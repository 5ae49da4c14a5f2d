/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_pack.h - the packer's working state, shared by place_pack.c
 * (sorting cells, whole replicas, final order) and place_fill.c (split
 * replicas from leftover pieces).
 */
#ifndef RANKMAP_PLACE_PACK_H
#define RANKMAP_PLACE_PACK_H

#include "place/place.h"

typedef struct rmi_key3 {
	uint64_t a;
	uint32_t b, c;
	uint32_t ix;
} rmi_key3;

/* Total order over (a, b, c, ix) for qsort. */
RMI_HIDDEN int rmi_key3_cmp(const void *x, const void *y);
/* Sort keys whose ix ascend by (a, b, c, ix); linear time when the
 * fields are small ids. */
RMI_HIDDEN void rmi_key3_sort(rmi_key3 *k, uint64_t n);

typedef struct run {
	uint64_t start, len, used;   /* positions in the DFS-sorted cells */
	uint32_t top;
	uint64_t tix;                /* its subtree group */
	bool spare;                  /* leftover kept out of split replicas */
} run;

typedef struct topg {
	uint64_t first_run, nrun, whole, cells;
	uint32_t id, rank;
	bool used;
} topg;

typedef struct unit {
	uint64_t off, len;           /* into the position list */
} unit;

typedef struct packer {
	uint32_t *ord;               /* cell index per DFS position */
	run *runs;
	topg *tops;
	uint32_t *top_by_rank;
	uint64_t *pos;               /* chosen positions, unit by unit */
	unit *units;
	uint64_t nrun, ntop, npos, nunit;
} packer;

/* Positions need - p->npos more cells from leftover pieces. */
RMI_HIDDEN rm_status rmi_fill_split(packer *p, uint64_t need,
				    uint64_t unit_cells, rm_error *err);

#endif
