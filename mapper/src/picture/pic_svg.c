/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pic_svg.c - the static picture: every GPU a square coloured by its
 * pipeline stage, with a <title> a screen reader speaks; pipeline links
 * that leave their leaf drawn as lines; TP groups outside their NVLink
 * domain outlined in red; spares grey; the report's rules above.
 */
#include "picture/pic.h"

#include <stdlib.h>
#include <string.h>

#define S 12.0                       /* pixels per GPU cell */
#define MIN_W 680.0                  /* room for the report text */

/* Stage colours: hues spread by the golden angle, so neighbours differ. */
static void colour(rm_buf *b, uint32_t i)
{
	rm_buf_printf(b, "hsl(%u,65%%,%u%%)", (unsigned)((i * 137.508) + 0.5) % 360,
		       48 + (i / 8 % 3) * 10);
}

static void text(rm_buf *b, double x, double y, const char *cls,
		 const char *s)
{
	rm_buf_printf(b, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\">", cls, x, y);
	rm_buf_xml(b, s);
	rm_buf_puts(b, "</text>\n");
}

/* A tier's box with its name in the top-left corner. */
static void box(rm_buf *b, const rmi_pic_box *x, const char *cls,
		const char *label_cls)
{
	rm_buf_printf(b, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" "
		       "width=\"%.1f\" height=\"%.1f\"/>\n", cls, x->x * S,
		       x->y * S, x->w * S, x->h * S);
	text(b, x->x * S + 3, x->y * S + 12, label_cls, x->name);
}

/* Ranks of TP groups whose GPUs are in more than one NVLink domain. */
static unsigned char *tp_split(const rmi_pic *p, const uint64_t *stride,
			       uint64_t *groups)
{
	const rm_map *m = p->m;
	uint32_t tp = m->layout.size[RM_AXIS_TP], g = m->gpus_per_node;
	unsigned char *bad = calloc((size_t)m->world + 1, 1);
	*groups = 0;
	if (!bad)
		return NULL;
	for (uint32_t r = 0; r < m->world; r++) {
		if (m->rank[r].coord[RM_AXIS_TP] != 0)
			continue;
		uint32_t d = p->host[p->rank_slot[r] / g].dom;
		bool split = false;
		for (uint32_t i = 1; i < tp && !split; i++)
			split = p->host[p->rank_slot[r + i * stride[RM_AXIS_TP]] /
					g].dom != d;
		for (uint32_t i = 0; split && i < tp; i++)
			bad[r + i * stride[RM_AXIS_TP]] = 1;
		*groups += split;
	}
	return bad;
}

/* One header line composed in `l`, written at the next baseline. */
static void head_line(rm_buf *b, double *y, const char *cls, rm_buf *l)
{
	*y += 20;
	text(b, 0, *y, cls, l->data ? l->data : "");
	b->oom |= l->oom;
	rm_buf_clear(l);
	rm_buf_init(l);
}

static void rule_line(rm_buf *b, double *y, rm_buf *l, const char *what,
		      uint64_t split, uint64_t groups)
{
	rm_buf_printf(l, "%s  %s groups inside one NVLink domain (%llu of %llu "
		       "split)", split ? "FAIL" : "PASS", what,
		       (unsigned long long)split, (unsigned long long)groups);
	head_line(b, y, split ? "fail" : "pass", l);
}

/* Lines under the view's name: the price, the must-rules, the pipeline
 * against its bound and per tier, the group spans. Both views use
 * head_height(), so their fabrics start level. */
static unsigned head_lines(const rmi_pic *p)
{
	const rm_report *r = &p->m->report;
	return 7 + !!p->est + r->cp_must + r->ep_must + r->ep_scored +
	       !!r->ep_groups;
}

static double head_height(const rmi_pic *v, const rmi_pic *base,
			  size_t nbase)
{
	unsigned n = head_lines(v);
	for (size_t i = 0; i < nbase; i++)
		if (head_lines(&base[i]) > n)
			n = head_lines(&base[i]);
	return 30.0 + 20.0 * n;
}

static void head(rm_buf *b, const rmi_pic *p, const char *name,
		 uint64_t crossings)
{
	const rm_map *m = p->m;
	const rm_report *r = &m->report;
	char lay[128], words[128];
	rm_layout_format(&m->layout, lay, sizeof(lay));
	double y = 18;
	text(b, 0, y, "h", name);
	rm_buf l;
	rm_buf_init(&l);
	rm_buf_printf(&l, "%s, order %s, %u GPUs on %u nodes", lay,
		       m->order.name, m->world, m->nhost);
	head_line(b, &y, "r", &l);
	if (p->est) {
		rmi_pic_price(&l, p);
		head_line(b, &y, "price", &l);
	}
	rule_line(b, &y, &l, "TP", r->tp_split, r->tp_groups);
	if (r->cp_must)
		rule_line(b, &y, &l, "CP", r->cp_split,
			  m->world / m->layout.size[RM_AXIS_CP]);
	if (r->ep_must)
		rule_line(b, &y, &l, "EP", r->ep_split,
			  m->world / m->layout.size[RM_AXIS_EP]);
	/* where the domains cannot hold every EP group, cut groups are
	 * counted as `check` counts them: a cost, not a broken rule */
	if (r->ep_scored) {
		rm_buf_printf(&l, "%s  EP groups cut across NVLink domains: "
			       "%llu of %llu", r->ep_split ? "CUT " : "PASS",
			       (unsigned long long)r->ep_split,
			       (unsigned long long)r->ep_groups);
		head_line(b, &y, r->ep_split ? "cut" : "pass", &l);
	}
	rm_buf_printf(&l, "all must-rules hold: %s", r->must_ok ? "yes" : "no");
	head_line(b, &y, r->must_ok ? "pass" : "fail", &l);
	rm_buf_printf(&l, "pipeline: %llu of %llu neighbour pairs cross a leaf "
		       "(lower bound %llu: %s); %llu drawn",
		       (unsigned long long)r->pp_cross,
		       (unsigned long long)r->pp_pairs,
		       (unsigned long long)r->pp_cross_lower_bound,
		       rmi_pp_bound_words(r, words, sizeof(words)),
		       (unsigned long long)crossings);
	head_line(b, &y, "r", &l);
	rmi_pic_tiers(&l, r);
	head_line(b, &y, "r", &l);
	rmi_pic_spans(&l, r, "DP");
	rm_buf_printf(&l, "; %u spare nodes", m->nspare);
	head_line(b, &y, "r", &l);
	if (r->ep_groups) {
		rmi_pic_spans(&l, r, "EP");
		head_line(b, &y, "r", &l);
	}
	rm_buf_puts(&l, "colour: pipeline stage");
	head_line(b, &y, "r", &l);
	uint32_t pp = m->layout.size[RM_AXIS_PP];
	for (uint32_t i = 0; i < pp && i < 24; i++) {
		double x = 150 + i * 16;
		rm_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" "
			       "height=\"12\" fill=\"", x, y - 10);
		colour(b, i);
		rm_buf_printf(b, "\"><title>pp %u</title></rect>\n", i);
	}
}

static void view(rm_buf *b, const rmi_pic *p, const char *name, double dx,
		 double top, rm_status *st, rm_error *err)
{
	const rm_map *m = p->m;
	uint32_t g = m->gpus_per_node, pp = m->layout.size[RM_AXIS_PP];
	uint64_t stride[RM_NAXES], split, crossings = 0;
	rmi_pic_strides(m, stride);
	/* The coordinates each GPU's title speaks: the map file's axes. */
	rm_group_kind kind[RMI_MAX_KINDS];
	rmi_coord co[RMI_MAX_KINDS];
	unsigned nk = rmi_map_kinds(&m->layout, kind);
	for (unsigned i = 0; i < nk; i++)
		if ((*st = rmi_coord_prep(&m->layout, &m->order, kind[i], &co[i],
					  err)))
			return;
	unsigned char *bad = tp_split(p, stride, &split);
	if (!bad) {
		*st = rmi_err(err, RM_ENOMEM, "out of memory");
		return;
	}
	/* Count before drawing: the heading states it. */
	for (uint32_t r = 0; pp > 1 && r < m->world; r++)
		if (m->rank[r].coord[RM_AXIS_PP] + 1 < pp)
			crossings += rmi_pic_crosses(
				p, r, (uint32_t)(r + stride[RM_AXIS_PP]));
	rm_buf_printf(b, "<g transform=\"translate(%.1f,0)\" role=\"group\" "
		       "aria-label=\"", dx);
	rm_buf_xml(b, name);
	rm_buf_puts(b, "\">\n");
	head(b, p, name, crossings);
	rm_buf_printf(b, "<g transform=\"translate(0,%.1f)\">\n", top);
	for (uint32_t t = 0; t < p->ntop; t++)
		if (*p->top[t].name)
			box(b, &p->top[t], "top", "t");
	for (uint32_t l = 0; l < p->nleaf; l++)
		box(b, &p->leaf[l], "leaf", "l");
	for (uint32_t d = 0; d < p->ndom; d++)
		box(b, &p->dom[d], "dom", "l");
	for (uint32_t h = 0; h < p->nhost; h++) {
		const rmi_pic_host *x = &p->host[h];
		rm_buf_puts(b, "<g class=\"node\" aria-label=\"");
		rm_buf_xml(b, x->name);
		rm_buf_puts(b, x->spare ? " (spare)\">\n" : "\">\n");
		for (uint32_t i = 0; i < g; i++) {
			int64_t r = p->slot[(uint64_t)h * g + i];
			double cx = (x->x + i % p->cols) * S + 1,
			       cy = (x->y + i / p->cols) * S + 1;
			rm_buf_printf(b, "<rect class=\"gpu%s\" x=\"%.1f\" "
				       "y=\"%.1f\" width=\"%.0f\" height=\"%.0f\"",
				       r < 0 ? " spare" : bad[r] ? " split" : "",
				       cx, cy, S - 2, S - 2);
			if (r >= 0) {
				rm_buf_puts(b, " fill=\"");
				colour(b, m->rank[r].coord[RM_AXIS_PP]);
				rm_buf_printf(b, "\"><title>rank %lld:",
					       (long long)r);
				for (unsigned a = 0; a < nk; a++)
					rm_buf_printf(b, " %s=%u",
						       rm_group_kind_name(kind[a]),
						       rmi_coord_of(&co[a],
								    (uint64_t)r));
			} else {
				rm_buf_puts(b, "><title>idle");
			}
			rm_buf_puts(b, ", ");
			rm_buf_xml(b, x->name);
			rm_buf_printf(b, " GPU %u</title></rect>\n", i);
		}
		rm_buf_puts(b, "</g>\n");
	}
	for (uint32_t r = 0; pp > 1 && r < m->world; r++) {
		uint32_t q = (uint32_t)(r + stride[RM_AXIS_PP]);
		if (m->rank[r].coord[RM_AXIS_PP] + 1 >= pp ||
		    !rmi_pic_crosses(p, r, q))
			continue;
		double x1, y1, x2, y2;
		rmi_pic_cell(p, p->rank_slot[r], &x1, &y1);
		rmi_pic_cell(p, p->rank_slot[q], &x2, &y2);
		rm_buf_printf(b, "<line class=\"cross\" x1=\"%.1f\" y1=\"%.1f\" "
			       "x2=\"%.1f\" y2=\"%.1f\"/>\n", (x1 + .5) * S,
			       (y1 + .5) * S, (x2 + .5) * S, (y2 + .5) * S);
	}
	rm_buf_puts(b, "</g>\n</g>\n");
	free(bad);
}

static double width(const rmi_pic *p)
{
	return p->w * S > MIN_W ? p->w * S : MIN_W;
}

rm_status rmi_pic_svg(const rmi_pic *v, const rmi_pic *base,
		      const char *const *names, size_t nbase,
		      const char *title, rm_buf *b, rm_error *err)
{
	double w = width(v);
	double h = v->h * S;
	for (size_t i = 0; i < nbase; i++) {
		w += 40 + width(&base[i]);
		if (base[i].h * S > h)
			h = base[i].h * S;
	}
	double top = head_height(v, base, nbase);
	h += top + 10;
	rm_buf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		       "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		       "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		       "role=\"img\" aria-labelledby=\"rm-title rm-desc\">\n"
		       "<title id=\"rm-title\">", w, h, w, h);
	rm_buf_xml(b, title);
	rm_buf_puts(b, "</title>\n<desc id=\"rm-desc\">Each square is a GPU "
		     "coloured by pipeline stage, inside its node, leaf switch "
		     "(or rail unit) and top-level subtree; a dashed box is a "
		     "multi-node NVLink domain. Lines join pipeline "
		     "neighbours on different leaves; a red outline marks a TP "
		     "group that leaves its NVLink domain; grey squares are "
		     "spare or idle GPUs.</desc>\n"
		     "<style>text{font-family:sans-serif;font-size:12px;"
		     "fill:#222}.h{font-size:15px;font-weight:bold}"
		     ".pass{fill:#17692c}.price{font-weight:bold}.fail{fill:#b00020;font-weight:bold}"
		     ".cut{fill:#9a5b00;font-weight:bold}"
		     ".t{font-size:11px;fill:#555}.l{font-size:9px;fill:#555}"
		     ".top{fill:#f4f4f4;stroke:#999}.leaf{fill:#fff;"
		     "stroke:#bbb}.dom{fill:none;stroke:#7b3fb5;"
		     "stroke-dasharray:4 3}.gpu{stroke:none}.spare{fill:#d4d4d4}"
		     ".split{stroke:#e00000;stroke-width:2}.cross{stroke:#222;"
		     "stroke-opacity:.45;stroke-width:1}</style>\n");
	rm_status st = RM_OK;
	view(b, v, nbase ? "rankmap" : "map", 0, top, &st, err);
	double x = width(v) + 40;
	for (size_t i = 0; i < nbase && st == RM_OK; i++) {
		view(b, &base[i], names[i], x, top, &st, err);
		x += width(&base[i]) + 40;
	}
	rm_buf_puts(b, "</svg>\n");
	return st;
}
