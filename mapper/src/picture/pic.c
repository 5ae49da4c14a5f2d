/* pic.c - rm_map_picture: lay the map (and its baseline) out, then write. */
#include "picture/pic.h"

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

rm_status rm_map_picture(const rm_map *map, const rm_picture_opts *o,
			 char **out, size_t *len, rm_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	if (!o || (o->format != RM_FMT_HTML && o->format != RM_FMT_SVG))
		return rmi_err(err, RM_EINPUT,
			       "picture: the format is html or svg");
	rmi_pic v, base;
	memset(&base, 0, sizeof(base));
	rm_status st = rmi_pic_build(&v, map, o->fabric, err);
	if (st)
		return st;
	if (o->baseline &&
	    (st = rmi_pic_build(&base, o->baseline, o->fabric, err))) {
		rmi_pic_free(&v);
		return st;
	}
	char lay[128], title[256];
	rm_layout_format(&map->layout, lay, sizeof(lay));
	snprintf(title, sizeof(title), "rankmap: %s, order %s%s", lay,
		 map->order.name, o->baseline ? ", plan vs baseline" : "");
	rm_buf b;
	rm_buf_init(&b);
	const char *t = o->title ? o->title : title;
	const rmi_pic *bp = o->baseline ? &base : NULL;
	st = o->format == RM_FMT_SVG ? rmi_pic_svg(&v, bp, t, &b, err)
				     : rmi_pic_html(&v, bp, t, &b, err);
	rmi_pic_free(&v);
	rmi_pic_free(&base);
	if (st == RM_OK && b.oom)
		st = rmi_err(err, RM_ENOMEM, "out of memory drawing the map");
	if (st == RM_OK && !(*out = rm_buf_take(&b, len)))
		st = rmi_err(err, RM_ENOMEM, "out of memory drawing the map");
	rm_buf_free(&b);
	return st;
}
