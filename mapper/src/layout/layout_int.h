/* SPDX-License-Identifier: Apache-2.0 */
/*
 * layout/layout_int.h - shared inside layout/ and with the parts that
 * number ranks (place/, map/, model/): nesting positions, the framework
 * group kinds a map shows and a rank's coordinate in them. Never installed.
 */
#ifndef RANKMAP_LAYOUT_INT_H
#define RANKMAP_LAYOUT_INT_H

#include "util/util.h"

/* ---- layouts and orders (layout.c, order.c) ---- */
/* Place of `a` in the nesting order, or -1. */
RMI_HIDDEN int rmi_layout_pos(const rm_layout *l, rm_axis a);
/* Megatron-Core's constraints between the dense and the expert numbering
 * (same pipeline groups; ep numbered right before dp). */
RMI_HIDDEN rm_status rmi_order_experts_ok(const rm_layout *l,
					  const rm_order *o, rm_error *err);

/* ---- framework groups (groups.c) ---- */
#define RMI_MAX_KINDS 9
/* The single-axis kinds a map file shows, in rank-record order. */
RMI_HIDDEN unsigned rmi_map_kinds(const rm_layout *l,
				  rm_group_kind k[RMI_MAX_KINDS]);
RMI_HIDDEN bool rmi_kind_expert(rm_group_kind k);
/* Whether `rankmap plan --format env` (and the plugin) export a kind. */
RMI_HIDDEN bool rmi_kind_env(const rm_layout *l, rm_group_kind k);
/* Group size of a single-axis kind. */
RMI_HIDDEN uint32_t rmi_kind_size(const rm_layout *l, rm_group_kind k);
/* A rank's place in its group of a single-axis kind, from the digits of
 * its number (dp has two: shard and replicate). */
typedef struct rmi_coord {
	unsigned n;
	uint64_t stride[2], size[2], mult[2];
} rmi_coord;
RMI_HIDDEN rm_status rmi_coord_prep(const rm_layout *l, const rm_order *o,
				    rm_group_kind k, rmi_coord *c,
				    rm_error *err);
static inline uint32_t rmi_coord_of(const rmi_coord *c, uint64_t rank)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < c->n; i++)
		v += (rank / c->stride[i]) % c->size[i] * c->mult[i];
	return (uint32_t)v;
}

/* ---- short user-written values: layouts, orders (layout.c) ---- */
/* Reject text longer than `max` bytes ("<what> '...': longer than max
 * bytes") or with a blank at its start or end (" 8x2x2", "8x2x2\n");
 * NULL text is empty. */
RMI_HIDDEN rm_status rmi_short_text(const char *what, size_t max,
				    const char **text, size_t *n,
				    rm_error *err);

/* The field of t[0..n) at *pos, up to the next byte of `seps` (f, len),
 * with *pos moved past that byte. False once the text is used up; empty
 * fields count, so "" is one field and "8,,2" three. */
RMI_HIDDEN bool rmi_next_field(const char *t, size_t n, const char *seps,
			       size_t *pos, const char **f, size_t *len);

/* Left the public header with ABI 1 (no program needs them); the library and
 * its white-box tests use them. */
void rm_order_from_nest(const rm_layout *l, rm_order *out);

/* Kind for a name (case-insensitive; "mp" = "tp-pp"), or -1. */
int rm_group_kind_from_name(const char *s);
/* Layout resolved; the order as rm_order_parse returns it. */
rm_status rm_layout_groups(const rm_layout *l, const rm_order *o,
			   rm_group_kind kind, rm_groups *out, rm_error *err);
/* Coordinates of a rank (rm_rank_encode's inverse). */
void rm_rank_decode(const rm_layout *l, const rm_order *o, uint32_t rank,
		    uint32_t coord[RM_NAXES]);

#endif /* RANKMAP_LAYOUT_INT_H */
