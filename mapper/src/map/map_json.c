/* SPDX-License-Identifier: Apache-2.0 */
/*
 * map_json.c - the rankmap-map/1 file as JSON and as YAML.
 * One emitter writes both: the content is identical, only the punctuation
 * differs. Every string goes out double-quoted with JSON escapes, which
 * YAML reads the same way, so a host called "yes" or "1e3" stays a string.
 * Rank records are the bulk of a map (131,072 of them for a large job):
 * they are assembled from per-host pieces prepared once, with no printf.
 */
#include "map/mapio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXDEPTH 8

typedef struct em {
	rm_buf *b;
	bool yaml;
	int depth;                   /* 1 = top-level entries */
	bool first[MAXDEPTH];
} em;

static void add(em *e, const char *s)
{
	rm_buf_add(e->b, s, strlen(s));
}

static void indent(em *e, int n)
{
	static const char sp[] = "                                ";
	if (n > 0)
		rm_buf_add(e->b, sp, (size_t)n < sizeof(sp) - 1 ? (size_t)n
								  : sizeof(sp) - 1);
}

/* A block-level key; the value follows on the same line or below. */
static void key(em *e, const char *k)
{
	if (e->yaml) {
		indent(e, 2 * (e->depth - 1));
		add(e, k);
		add(e, ":");
	} else {
		add(e, e->first[e->depth] ? "\n" : ",\n");
		indent(e, 2 * e->depth);
		add(e, "\"");
		add(e, k);
		add(e, "\":");
	}
	e->first[e->depth] = false;
}

static void kv_end(em *e)
{
	if (e->yaml)
		add(e, "\n");
}

static void kv_str(em *e, const char *k, const char *v)
{
	key(e, k);
	add(e, " ");
	rm_buf_json_str(e->b, v);
	kv_end(e);
}

static void kv_u64(em *e, const char *k, uint64_t v)
{
	key(e, k);
	add(e, " ");
	rm_buf_u64(e->b, v);
	kv_end(e);
}

static void kv_bool(em *e, const char *k, bool v)
{
	key(e, k);
	add(e, v ? " true" : " false");
	kv_end(e);
}

/* Fixed four decimals: always has a '.', so YAML 1.1 reads a float, and
 * reading it back and writing it again gives the same text. */
static void kv_real(em *e, const char *k, double v)
{
	/* By hand rather than printf: a caller's LC_NUMERIC must not turn
	 * the decimal point into a comma inside a JSON file. */
	if (!isfinite(v) || v < 0 || v > 1e15)
		v = 0;
	uint64_t units = (uint64_t)(v * 10000.0 + 0.5);
	char frac[6] = { '.', 0, 0, 0, 0, 0 };
	for (int i = 4; i >= 1; i--) {
		frac[i] = (char)('0' + units % 10);
		units /= 10;
	}
	key(e, k);
	add(e, " ");
	rm_buf_u64(e->b, units);
	add(e, frac);
	kv_end(e);
}

static void obj_begin(em *e, const char *k)
{
	key(e, k);
	add(e, e->yaml ? "\n" : " {");
	e->depth++;
	e->first[e->depth] = true;
}

static void obj_end(em *e)
{
	if (!e->yaml) {
		add(e, "\n");
		indent(e, 2 * (e->depth - 1));
		add(e, "}");
	}
	e->depth--;
}

/* Returns false for an empty list, which is written inline as []. */
static bool list_begin(em *e, const char *k, size_t n)
{
	key(e, k);
	if (!n) {
		add(e, " []");
		kv_end(e);
		return false;
	}
	add(e, e->yaml ? "\n" : " [");
	return true;
}

static void item(em *e, size_t i)
{
	if (e->yaml) {
		indent(e, 2 * (e->depth - 1));
		add(e, "- ");
	} else {
		add(e, i ? ",\n" : "\n");
		indent(e, 2 * e->depth + 2);
	}
}

static void item_end(em *e)
{
	if (e->yaml)
		add(e, "\n");
}

static void list_end(em *e)
{
	if (!e->yaml) {
		add(e, "\n");
		indent(e, 2 * e->depth);
		add(e, "]");
	}
}

static void str_list(em *e, const char *k, char *const *v, size_t n)
{
	if (!list_begin(e, k, n))
		return;
	for (size_t i = 0; i < n; i++) {
		item(e, i);
		rm_buf_json_str(e->b, v[i]);
		item_end(e);
	}
	list_end(e);
}

/* Key inside a one-line {...}: `i` is the position (0 = first). */
static void fkey(em *e, size_t i, const char *k)
{
	if (e->yaml) {
		if (i)
			add(e, ", ");
		add(e, k);
		add(e, ": ");
	} else {
		if (i)
			add(e, ",");
		add(e, "\"");
		add(e, k);
		add(e, "\":");
	}
}

bool rmi_map_axis_shown(const rm_layout *l, rm_axis a)
{
	if (a == RM_AXIS_TP || a == RM_AXIS_PP || a == RM_AXIS_DP)
		return true;
	if (l->size[a] > 1)
		return true;
	for (unsigned i = 0; i < l->naxes && i < RM_NAXES; i++)
		if (l->nest[i] == a)
			return true;
	return false;
}

static void report(em *e, const rm_report *r)
{
	kv_bool(e, "must_ok", r->must_ok);
	kv_u64(e, "world", r->world);
	kv_u64(e, "tp_groups", r->tp_groups);
	kv_u64(e, "tp_split", r->tp_split);
	kv_u64(e, "cp_split", r->cp_split);
	kv_u64(e, "ep_split", r->ep_split);
	kv_bool(e, "cp_must", r->cp_must);
	kv_bool(e, "ep_must", r->ep_must);
	kv_bool(e, "ep_scored", r->ep_scored);
	kv_u64(e, "pp_pairs", r->pp_pairs);
	kv_u64(e, "pp_same_node", r->pp_same_node);
	kv_u64(e, "pp_same_leaf", r->pp_same_leaf);
	kv_u64(e, "pp_same_rail", r->pp_same_rail);
	kv_u64(e, "pp_cross", r->pp_cross);
	kv_u64(e, "pp_cross_lower_bound", r->pp_cross_lower_bound);
	kv_bool(e, "pp_bound_exact", r->pp_bound_exact);
	kv_u64(e, "pp_cross_top", r->pp_cross_top);
	kv_u64(e, "pp_cross_top_lower_bound", r->pp_cross_top_lower_bound);
	kv_u64(e, "pp_rail_aligned", r->pp_rail_aligned);
	kv_u64(e, "dp_pairs", r->dp_pairs);
	kv_u64(e, "dp_rail_aligned", r->dp_rail_aligned);
	kv_u64(e, "dp_groups", r->dp_groups);
	kv_u64(e, "dp_leaves_max", r->dp_leaves_max);
	kv_real(e, "dp_leaves_mean", r->dp_leaves_mean);
	kv_u64(e, "dp_tops_max", r->dp_tops_max);
	kv_real(e, "dp_tops_mean", r->dp_tops_mean);
	kv_u64(e, "pp_cross_pod", r->pp_cross_pod);
	kv_u64(e, "pp_cross_spine", r->pp_cross_spine);
	kv_u64(e, "ep_groups", r->ep_groups);
	kv_u64(e, "ep_leaves_max", r->ep_leaves_max);
	kv_real(e, "ep_leaves_mean", r->ep_leaves_mean);
	kv_u64(e, "ep_tops_max", r->ep_tops_max);
	kv_real(e, "ep_tops_mean", r->ep_tops_mean);
	kv_u64(e, "gpus_idle", r->gpus_idle);
	kv_u64(e, "nodes_part_idle", r->nodes_part_idle);
	str_list(e, "warnings", r->warning, r->nwarning);
}

void rm_report_json(rm_buf *b, const rm_report *r, int depth)
{
	em e = { .b = b, .yaml = false, .depth = depth + 1 };
	if (e.depth >= MAXDEPTH)
		e.depth = MAXDEPTH - 1;
	e.first[e.depth] = true;
	rm_buf_add(b, "{", 1);
	report(&e, r);
	e.depth--;
	add(&e, "\n");
	indent(&e, 2 * e.depth);
	add(&e, "}");
}

static void u64_at(char **pp, uint64_t v)
{
	char tmp[24];
	int i = 24;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(*pp, tmp + i, (size_t)(24 - i));
	*pp += 24 - i;
}

/*
 * Per host: the text between the rank number and local_gpu, and the text
 * after the coordinates, so that a rank record is a handful of memcpy.
 */
typedef struct host_parts {
	rm_buf text;
	size_t *mid, *tail;          /* offsets into text, nhost + 1 each */
} host_parts;

static void parts_free(host_parts *hp)
{
	rm_buf_clear(&hp->text);
	free(hp->mid);
	free(hp->tail);
}

static bool parts_build(em *e, const rm_map *m, host_parts *hp)
{
	rm_buf_init(&hp->text);
	hp->mid = malloc(((size_t)m->nhost + 1) * sizeof(size_t));
	hp->tail = malloc(((size_t)m->nhost + 1) * sizeof(size_t));
	if (!hp->mid || !hp->tail)
		return false;
	em sub = *e;
	sub.b = &hp->text;
	for (uint32_t h = 0; h < m->nhost; h++) {
		hp->mid[h] = hp->text.len;
		fkey(&sub, 1, "host");
		rm_buf_json_str(&hp->text, m->host[h]);
		fkey(&sub, 1, "node");
		rm_buf_u64(&hp->text, h);
		fkey(&sub, 1, "local_gpu");
		hp->tail[h] = hp->text.len;
		if (m->host_leaf && m->host_leaf[h]) {
			fkey(&sub, 1, "leaf");
			rm_buf_json_str(&hp->text, m->host_leaf[h]);
		}
		if (m->host_unit && m->host_unit[h]) {
			fkey(&sub, 1, "unit");
			rm_buf_json_str(&hp->text, m->host_unit[h]);
		}
		add(&sub, "}");
	}
	hp->mid[m->nhost] = hp->tail[m->nhost] = hp->text.len;
	return !hp->text.oom;
}

static rm_status ranks(em *e, const rm_map *m, rm_error *err)
{
	host_parts hp;
	memset(&hp, 0, sizeof(hp));
	if (!parts_build(e, m, &hp)) {
		parts_free(&hp);
		return rmi_err(err, RM_ENOMEM, "out of memory writing the map");
	}
	/* Coordinate keys, prepared once: ,"tp": or , tp: */
	rm_group_kind kind[RMI_MAX_KINDS];
	unsigned nshown = rmi_map_kinds(&m->layout, kind);
	char akey[RMI_MAX_KINDS][24];
	size_t aklen[RMI_MAX_KINDS];
	rmi_coord co[RMI_MAX_KINDS];
	for (unsigned i = 0; i < nshown; i++) {
		rm_status st = rmi_coord_prep(&m->layout, &m->order, kind[i],
					      &co[i], err);
		if (st) {
			parts_free(&hp);
			return st;
		}
		int k = snprintf(akey[i], sizeof(akey[i]),
				 e->yaml ? ", %s: " : ",\"%s\":",
				 rm_group_kind_name(kind[i]));
		aklen[i] = (size_t)(k > 0 ? k : 0);
	}
	const char *open = e->yaml ? "{rank: " : "{\"rank\":";
	size_t openlen = strlen(open);
	list_begin(e, "ranks", m->world);
	for (uint32_t r = 0; r < m->world; r++) {
		const rm_rank *rk = &m->rank[r];
		if (rk->node >= m->nhost) {
			parts_free(&hp);
			return rmi_err(err, RM_EINPUT,
				       "rank %u sits on node index %u, but the "
				       "map has %u nodes", r, rk->node,
				       m->nhost);
		}
		item(e, r);
		size_t mid = hp.tail[rk->node] - hp.mid[rk->node];
		size_t tail = hp.mid[rk->node + 1] - hp.tail[rk->node];
		if (!rm_buf_reserve(e->b, openlen + mid + tail +
						   (RMI_MAX_KINDS + 2) * 40))
			break;
		char *p = e->b->data + e->b->len;
		memcpy(p, open, openlen);
		p += openlen;
		u64_at(&p, r);
		memcpy(p, hp.text.data + hp.mid[rk->node], mid);
		p += mid;
		u64_at(&p, rk->local_gpu);
		for (unsigned i = 0; i < nshown; i++) {
			memcpy(p, akey[i], aklen[i]);
			p += aklen[i];
			u64_at(&p, rmi_coord_of(&co[i], r));
		}
		memcpy(p, hp.text.data + hp.tail[rk->node], tail);
		p += tail;
		*p = '\0';
		e->b->len = (size_t)(p - e->b->data);
		item_end(e);
	}
	if (m->world)
		list_end(e);
	parts_free(&hp);
	return e->b->oom ? rmi_err(err, RM_ENOMEM, "out of memory writing the map")
			 : RM_OK;
}

/* One kind's groups, in group-id order (the id is a communicator color). */
static rm_status groups_kind(em *e, const rm_map *m, rm_group_kind k,
			     rm_error *err)
{
	rm_groups g;
	rm_status st = rm_map_groups(m, k, &g, err);
	if (st)
		return st;
	if (!list_begin(e, rm_group_kind_name(k), g.ngroups)) {
		rm_groups_clear(&g);
		return RM_OK;
	}
	const char *sep = e->yaml ? ", " : ",";
	size_t seplen = strlen(sep);
	for (uint32_t gi = 0; gi < g.ngroups; gi++) {
		item(e, gi);
		if (!rm_buf_reserve(e->b, (size_t)g.size * (seplen + 10) + 4))
			break;
		char *p = e->b->data + e->b->len;
		*p++ = '[';
		for (uint32_t i = 0; i < g.size; i++) {
			if (i) {
				memcpy(p, sep, seplen);
				p += seplen;
			}
			u64_at(&p, g.rank[(size_t)gi * g.size + i]);
		}
		*p++ = ']';
		*p = '\0';
		e->b->len = (size_t)(p - e->b->data);
		item_end(e);
	}
	list_end(e);
	rm_groups_clear(&g);
	return RM_OK;
}

/* Dense groups under "groups", expert groups apart under
 * "expert_groups": they come from two different numberings. */
static rm_status groups(em *e, const rm_map *m, bool expert, rm_error *err)
{
	rm_group_kind kind[RMI_MAX_KINDS];
	unsigned n = rmi_map_kinds(&m->layout, kind), shown = 0;
	rm_status st = RM_OK;
	for (unsigned i = 0; i < n; i++)
		shown += rmi_kind_expert(kind[i]) == expert;
	if (!shown)
		return RM_OK;
	obj_begin(e, expert ? "expert_groups" : "groups");
	for (unsigned i = 0; i < n && st == RM_OK; i++)
		if (rmi_kind_expert(kind[i]) == expert)
			st = groups_kind(e, m, kind[i], err);
	if (st == RM_OK)
		obj_end(e);
	return st;
}

static void header(em *e, const rm_map *m)
{
	char text[256];
	kv_str(e, "schema", RM_MAP_SCHEMA);
	kv_str(e, "generator", "rankmap " RM_VERSION_STRING);
	rm_layout_format(&m->layout, text, sizeof(text));
	kv_str(e, "layout", text);
	key(e, "axes");
	add(e, " {");
	rm_group_kind kind[RMI_MAX_KINDS];
	unsigned nk = rmi_map_kinds(&m->layout, kind);
	for (unsigned i = 0; i < nk; i++) {
		fkey(e, i, rm_group_kind_name(kind[i]));
		rm_buf_u64(e->b, rmi_kind_size(&m->layout, kind[i]));
	}
	add(e, "}");
	kv_end(e);
	key(e, "nesting");
	add(e, " [");
	for (unsigned i = 0; i < m->layout.naxes && i < RM_NAXES; i++) {
		if (i)
			add(e, e->yaml ? ", " : ",");
		rm_buf_json_str(e->b, rm_axis_name(m->layout.nest[i]));
	}
	add(e, "]");
	kv_end(e);
	key(e, "order");
	add(e, " {");
	fkey(e, 0, "name");
	rm_buf_json_str(e->b, m->order.name);
	fkey(e, 1, "permutation");
	rm_order_format(&m->order, text, sizeof(text));
	rm_buf_json_str(e->b, text);
	add(e, "}");
	kv_end(e);
	kv_u64(e, "world_size", m->world);
	kv_u64(e, "gpus_per_node", m->gpus_per_node);
}

static void nodes(em *e, const rm_map *m)
{
	if (list_begin(e, "nodes", m->nhost)) {
		for (uint32_t h = 0; h < m->nhost; h++) {
			item(e, h);
			add(e, "{");
			fkey(e, 0, "host");
			rm_buf_json_str(e->b, m->host[h]);
			if (m->host_leaf && m->host_leaf[h]) {
				fkey(e, 1, "leaf");
				rm_buf_json_str(e->b, m->host_leaf[h]);
			}
			if (m->host_unit && m->host_unit[h]) {
				fkey(e, 1, "unit");
				rm_buf_json_str(e->b, m->host_unit[h]);
			}
			add(e, "}");
			item_end(e);
		}
		list_end(e);
	}
	str_list(e, "spares", m->spare, m->nspare);
}

rm_status rmi_map_json(const rm_map *m, bool yaml, rm_buf *b, rm_error *err)
{
	em e = { .b = b, .yaml = yaml, .depth = 1 };
	e.first[1] = true;
	if (!yaml)
		add(&e, "{");
	header(&e, m);
	nodes(&e, m);
	rm_status st = ranks(&e, m, err);
	if (st != RM_OK)
		return st;
	if ((st = groups(&e, m, false, err)) ||
	    (st = groups(&e, m, true, err)))
		return st;
	obj_begin(&e, "validation");
	report(&e, &m->report);
	obj_end(&e);
	kv_str(&e, "inputs_sha256", m->inputs_sha256);
	if (!yaml)
		add(&e, "\n}\n");
	return b->oom ? rmi_err(err, RM_ENOMEM, "out of memory writing the map")
		      : RM_OK;
}
