/* SPDX-License-Identifier: Apache-2.0 */
/* pic.c - rm_map_picture: lay the map (and its baseline) out, then write. */
#include "picture/pic.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

void rm_buf_xml(rm_buf *b, const char *s)
{
	for (const char *p = s; p && *p; p++) {
		const char *run = p;
		while (*p && !strchr("&<>\"'", *p) &&
		       ((unsigned char)*p >= 0x20 || *p == '\n'))
			p++;
		rm_buf_add(b, run, (size_t)(p - run));
		if (!*p)
			break;
		switch (*p) {
		case '&': rm_buf_puts(b, "&amp;"); break;
		case '<': rm_buf_puts(b, "&lt;"); break;
		case '>': rm_buf_puts(b, "&gt;"); break;
		case '"': rm_buf_puts(b, "&quot;"); break;
		case '\'': rm_buf_puts(b, "&#39;"); break;
		default: rm_buf_puts(b, "?"); break; /* not allowed in XML */
		}
	}
}

void rmi_pic_price(rm_buf *b, const rmi_pic *p)
{
	const rm_estimate *e = p->est, *r = p->ref;
	if (!e)
		return;
	rm_buf_printf(b, "%.3f s per step, MFU %.1f %%", e->t_step,
		       100 * e->mfu);
	if (r && r->t_step > 0)
		rm_buf_printf(b, " (%+.3f s, %+.1f %% against rankmap)",
			       e->t_step - r->t_step,
			       100 * (e->t_step - r->t_step) / r->t_step);
	if (p->priced_by)
		rm_buf_printf(b, "; %s", p->priced_by);
}

void rmi_pic_tiers(rm_buf *b, const rm_report *r)
{
	rm_buf_printf(b, "PP pairs per tier: node %llu, leaf %llu, pod %llu, "
		       "spine %llu", (unsigned long long)r->pp_same_node,
		       (unsigned long long)(r->pp_same_leaf + r->pp_same_rail),
		       (unsigned long long)r->pp_cross_pod,
		       (unsigned long long)r->pp_cross_spine);
}

void rmi_pic_spans(rm_buf *b, const rm_report *r, const char *axis)
{
	bool ep = !strcmp(axis, "EP");
	rm_buf_printf(b, "%s groups span leaves: max %u, mean %.2f; pods: max "
		       "%u, mean %.2f", axis,
		       ep ? r->ep_leaves_max : r->dp_leaves_max,
		       ep ? r->ep_leaves_mean : r->dp_leaves_mean,
		       ep ? r->ep_tops_max : r->dp_tops_max,
		       ep ? r->ep_tops_mean : r->dp_tops_mean);
}

/* A baseline view's heading: what order the nodes took. */
static const char *view_name(rm_baseline k)
{
	switch (k) {
	case RM_BASELINE_SORTED: return "baseline (sorted hostfile)";
	case RM_BASELINE_SWITCH_RANK: return "baseline (Slurm switch ranks)";
	default: return "baseline (Slurm block order)";
	}
}

rm_status rm_map_picture(const rm_map *map, const rm_picture_options *o,
			 char **out, size_t *len, rm_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	/* version 1 ends where version 2's baselines begin */
	static const size_t sizes[] = {
		[1] = offsetof(rm_picture_options, baselines),
		[2] = sizeof(rm_picture_options),
	};
	rm_picture_options full = RM_PICTURE_OPTIONS_INIT;
	if (!o)
		return rmi_err(err, RM_EINPUT, "picture: no options given");
	rm_status vst = rmi_versioned(o, sizes, 3, &full,
				      "rm_picture_options", err);
	if (vst)
		return vst;
	o = &full;
	if (o->format != RM_FMT_HTML && o->format != RM_FMT_SVG)
		return rmi_err(err, RM_EINPUT,
			       "picture: the format is html or svg");
	/* one list of baselines, whichever version gave them */
	const rm_map *one[1] = { o->baseline };
	const rm_estimate *one_est[1] = { o->baseline_estimate };
	rm_baseline one_kind[1] = { RM_BASELINE_SLURM };
	const rm_map *const *bm = o->nbaselines ? o->baselines : one;
	const rm_estimate *const *be = o->nbaselines ? o->baseline_estimates
						     : one_est;
	const rm_baseline *bk = o->nbaselines ? o->baseline_kinds : one_kind;
	size_t nb = o->nbaselines ? o->nbaselines : o->baseline ? 1 : 0;
	if (nb > RM_BASELINE_COUNT || (nb && !bm))
		return rmi_err(err, RM_EINPUT, "picture: %zu baselines: give "
			       "at most %d, each a map", nb, RM_BASELINE_COUNT);
	rmi_pic v, base[RM_BASELINE_COUNT];
	const char *names[RM_BASELINE_COUNT];
	memset(base, 0, sizeof(base));
	rm_status st = rmi_pic_build(&v, map, o->fabric, err);
	for (size_t i = 0; !st && i < nb; i++) {
		if (!bm[i])
			st = rmi_err(err, RM_EINPUT, "picture: baseline %zu "
				     "has no map", i + 1);
		else
			st = rmi_pic_build(&base[i], bm[i], o->fabric, err);
		names[i] = view_name(bk ? bk[i] : RM_BASELINE_SLURM);
		base[i].est = be ? be[i] : NULL;
		base[i].ref = o->estimate;
		base[i].priced_by = o->priced_by;
	}
	if (st) {
		rmi_pic_free(&v);
		for (size_t i = 0; i < nb; i++)
			rmi_pic_free(&base[i]);
		return st;
	}
	v.est = o->estimate;
	v.priced_by = o->priced_by;
	char lay[128], title[256];
	rm_layout_format(&map->layout, lay, sizeof(lay));
	snprintf(title, sizeof(title), "rankmap: %s, order %s%s", lay,
		 map->order.name, nb == 1 ? ", plan vs baseline"
				  : nb ? ", plan vs baselines" : "");
	rm_buf b;
	rm_buf_init(&b);
	const char *t = o->title ? o->title : title;
	const rmi_pic *bp = nb ? base : NULL;
	st = o->format == RM_FMT_SVG
		     ? rmi_pic_svg(&v, bp, names, nb, t, &b, err)
		     : rmi_pic_html(&v, bp, names, nb, t, &b, err);
	rmi_pic_free(&v);
	for (size_t i = 0; i < nb; i++)
		rmi_pic_free(&base[i]);
	if (st == RM_OK && b.oom)
		st = rmi_err(err, RM_ENOMEM, "out of memory drawing the map");
	if (st == RM_OK && !(*out = rm_buf_take(&b, len)))
		st = rmi_err(err, RM_ENOMEM, "out of memory drawing the map");
	rm_buf_clear(&b);
	return st;
}
