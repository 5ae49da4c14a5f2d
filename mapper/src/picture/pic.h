/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pic.h - the picture of a map (rm_map_picture): one model of boxes laid
 * out on the fabric's tiers (top-level subtree > leaf > multi-node NVLink
 * domain > node > GPU), drawn
 * by pic_svg.c as static SVG and handed to the page script by pic_html.c.
 * Coordinates are in GPU cells (a GPU is a 1 x 1 cell).
 */
#ifndef RANKMAP_PIC_H
#define RANKMAP_PIC_H

#include "map/mapio.h"

typedef struct rmi_pic_box {
	const char *name;            /* "" when the tier has no name (flat) */
	double x, y, w, h;
	uint32_t parent;             /* leaf of a domain box */
} rmi_pic_box;

typedef struct rmi_pic_host {
	const char *name;
	uint32_t leaf;               /* index into leaf[] */
	int32_t mdom;                /* index into dom[]: a multi-node NVLink
					domain drawn inside the leaf; -1 none */
	uint32_t dom;                /* NVLink domain id (equality only) */
	bool unit;                   /* on a rail-optimised unit */
	bool spare;
	double x, y;                 /* top-left GPU cell */
} rmi_pic_host;

typedef struct rmi_pic {
	const rm_map *m;
	rmi_pic_host *host;          /* hosts then spares, in drawing order */
	uint32_t nhost;
	rmi_pic_box *leaf, *top, *dom;
	uint32_t nleaf, ntop, ndom;
	uint32_t cols, rows;         /* GPU grid of one node */
	int64_t *slot;               /* per drawn host x GPU: RANK, -1 idle */
	uint32_t *rank_slot;         /* RANK -> index into slot[] */
	/* Locality (rm_check's leaf or rail unit) per drawn host: pipeline
	 * crossings compare these, not leaf boxes, so a rail unit drawn in
	 * two subtrees still counts as one. */
	uint32_t *loc;
	double w, h;                 /* whole picture */
	/* The header's price (rm_picture_options): this map's, the one its
	 * difference is taken against (the baseline's view only) and who
	 * priced them; NULL when not given. */
	const rm_estimate *est, *ref;
	const char *priced_by;
} rmi_pic;

/* Lay `m` out on fabric `f` (NULL: flat). */
RMI_HIDDEN rm_status rmi_pic_build(rmi_pic *p, const rm_map *m,
				   const rm_fabric *f, rm_error *err);
RMI_HIDDEN void rmi_pic_free(rmi_pic *p);

/* Top-left corner of a slot's GPU cell. */
RMI_HIDDEN void rmi_pic_cell(const rmi_pic *p, uint64_t slot, double *x,
			     double *y);
/* Stride of every axis in the map's numbering order. */
RMI_HIDDEN void rmi_pic_strides(const rm_map *m, uint64_t stride[RM_NAXES]);
/* Whether the pipeline pair (a, b) leaves its leaf or rail, by the rule
 * rm_check scores (pp_cross). */
RMI_HIDDEN bool rmi_pic_crosses(const rmi_pic *p, uint32_t a, uint32_t b);

/* The header's lines that are the same in the SVG and the page: the
 * price, each PP tier and the group spans (pic.c). */
RMI_HIDDEN void rmi_pic_price(rm_buf *b, const rmi_pic *p);
RMI_HIDDEN void rmi_pic_tiers(rm_buf *b, const rm_report *r);
RMI_HIDDEN void rmi_pic_spans(rm_buf *b, const rm_report *r, const char *axis);

/* The writers: into `b`, the map and then the `nbase` baselines in
 * base[] (none: NULL), each headed by its name. */
RMI_HIDDEN rm_status rmi_pic_svg(const rmi_pic *v, const rmi_pic *base,
				 const char *const *names, size_t nbase,
				 const char *title, rm_buf *b, rm_error *err);
RMI_HIDDEN rm_status rmi_pic_html(const rmi_pic *v, const rmi_pic *base,
				  const char *const *names, size_t nbase,
				  const char *title, rm_buf *b,
				  rm_error *err);

/* Text escaped for XML/HTML content and attribute values. */
RMI_HIDDEN void rm_buf_xml(rm_buf *b, const char *s);

#endif
