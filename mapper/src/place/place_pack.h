/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_pack.h - the packer's working state, shared by place_pack.c
 * (sorting cells, whole replicas, final order) and place_fill.c (split
 * replicas from leftover pieces).
 */
#ifndef RANKMAP_PLACE_PACK_H
#define RANKMAP_PLACE_PACK_H

#include "place/place.h"

#include <stdlib.h>

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

/*
 * Runs (or leftover pieces) by size: a stack per size and a bitmap over
 * sizes 1..max, so the tightest and the largest are a few word scans
 * away. Shared by best fit (place_cand.c) and the split replicas
 * (place_fill.c).
 */
typedef struct rmi_sizes {
	uint64_t *head;              /* run + 1 per size; 0 = empty */
	uint64_t *next;              /* per run */
	uint64_t *bits;
	uint64_t max;
} rmi_sizes;

/* Room for nrun runs of sizes up to max; false when out of memory (and
 * nothing is left allocated). */
static inline bool rmi_sizes_init(rmi_sizes *b, uint64_t nrun, uint64_t max)
{
	b->max = max;
	b->head = calloc(max + 2, sizeof(uint64_t));
	b->next = calloc(nrun + 1, sizeof(uint64_t));
	b->bits = calloc((max >> 6) + 2, sizeof(uint64_t));
	if (b->head && b->next && b->bits)
		return true;
	free(b->head);
	free(b->next);
	free(b->bits);
	return false;
}

static inline void rmi_sizes_free(rmi_sizes *b)
{
	free(b->head);
	free(b->next);
	free(b->bits);
}

/* Pushed last = popped first. */
static inline void rmi_sizes_push(rmi_sizes *b, uint64_t r, uint64_t size)
{
	b->next[r] = b->head[size];
	b->head[size] = r + 1;
	b->bits[size >> 6] |= 1ull << (size & 63);
}

static inline uint64_t rmi_sizes_pop(rmi_sizes *b, uint64_t size)
{
	uint64_t r = b->head[size] - 1;
	b->head[size] = b->next[r];
	if (!b->head[size])
		b->bits[size >> 6] &= ~(1ull << (size & 63));
	return r;
}

/* Largest non-empty size in [1, x], 0 if none. */
static inline uint64_t rmi_sizes_below(const rmi_sizes *b, uint64_t x)
{
	if (x > b->max)
		x = b->max;
	if (x == 0)
		return 0;
	uint64_t w = x >> 6;
	uint64_t m = b->bits[w] &
		     ((x & 63) == 63 ? ~0ull : (1ull << ((x & 63) + 1)) - 1);
	for (;;) {
		if (m)
			return w * 64 + 63 - (uint64_t)__builtin_clzll(m);
		if (w == 0)
			return 0;
		m = b->bits[--w];
	}
}

/* Smallest non-empty size in [x, max], 0 if none. */
static inline uint64_t rmi_sizes_above(const rmi_sizes *b, uint64_t x)
{
	if (x > b->max)
		return 0;
	uint64_t w = x >> 6, nw = (b->max >> 6) + 1;
	uint64_t m = b->bits[w] & (~0ull << (x & 63));
	for (;;) {
		if (m)
			return w * 64 + (uint64_t)__builtin_ctzll(m);
		if (++w >= nw)
			return 0;
		m = b->bits[w];
	}
}

/* Positions need - p->npos more cells from leftover pieces. */
RMI_HIDDEN rm_status rmi_fill_split(packer *p, uint64_t need,
				    uint64_t unit_cells, rm_error *err);

#endif
