/* SPDX-License-Identifier: Apache-2.0 */
/*
 * map_compare.c - is this map the job's? A map file from another
 * allocation or another fabric scores as well as the right one (rm_check
 * only sees ranks and links), so `rankmap check --map` asks first whether
 * its hosts are the allocation's and whether it was placed on the fabric it
 * is checked against, and says what differs.
 */
#include "map/mapio.h"
#include "place/place.h"

#include <stdlib.h>
#include <string.h>

#define SHOWN 4

/* A list of names for a sentence: the first few, quoted, then "...". */
typedef struct names {
	char text[4 * 80 + 8];
	size_t len;
	uint32_t n;
} names;

static void names_add(names *s, const char *name, const char *extra)
{
	char q[80];
	if (s->n++ >= SHOWN) {
		if (s->n == SHOWN + 1 && s->len + 5 < sizeof(s->text))
			s->len += (size_t)snprintf(s->text + s->len,
						   sizeof(s->text) - s->len,
						   ", ...");
		return;
	}
	if (s->len + 1 >= sizeof(s->text))
		return;
	int k = snprintf(s->text + s->len, sizeof(s->text) - s->len, "%s%s%s",
			 s->n > 1 ? ", " : "",
			 rm_quote(name, strlen(name), q, sizeof(q)),
			 extra ? extra : "");
	if (k > 0)
		s->len = s->len + (size_t)k < sizeof(s->text)
				 ? s->len + (size_t)k : sizeof(s->text) - 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool in_sorted(const char *const *v, size_t n, const char *s)
{
	return n && bsearch(&s, v, n, sizeof(*v), cmp_str) != NULL;
}

static const char *map_node(const rm_map *m, size_t i)
{
	return i < m->nhost ? m->host[i] : m->spare[i - m->nhost];
}

static rm_status finish(rm_buf *b, char **diff, rm_error *err)
{
	if (b->oom) {
		rm_buf_clear(b);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	if (!b->len) {
		rm_buf_clear(b);
		return RM_OK;
	}
	*diff = rm_buf_take(b, NULL);
	return *diff ? RM_OK : rmi_err(err, RM_ENOMEM, "out of memory");
}

rm_status rm_map_compare_nodes(const rm_map *map, const char *const *nodes,
			       size_t nnodes, bool whole, char **diff,
			       rm_error *err)
{
	if (!map || !diff || (nnodes && !nodes))
		return rmi_err(err, RM_EINPUT, "compare: no map or no nodes");
	*diff = NULL;
	size_t nm = (size_t)map->nhost + map->nspare;
	const char **a = malloc((nm + 1) * sizeof(*a));
	const char **g = malloc((nnodes + 1) * sizeof(*g));
	if (!a || !g) {
		free(a);
		free(g);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nm; i++)
		a[i] = map_node(map, i);
	memcpy(g, nodes, nnodes * sizeof(*g));
	qsort(a, nm, sizeof(*a), cmp_str);
	qsort(g, nnodes, sizeof(*g), cmp_str);
	names out, extra;
	memset(&out, 0, sizeof(out));
	memset(&extra, 0, sizeof(extra));
	for (uint32_t i = 0; i < map->nhost; i++)
		if (!in_sorted(g, nnodes, map->host[i]))
			names_add(&out, map->host[i], NULL);
	/* Only a planned map lists every node it was given (hosts and
	 * spares); an assignment names the hosts it uses. */
	for (size_t i = 0; whole && i < nnodes; i++)
		if ((i == 0 || strcmp(g[i], g[i - 1])) &&
		    !in_sorted(a, nm, g[i]))
			names_add(&extra, g[i], NULL);
	free(a);
	free(g);
	rm_buf b;
	rm_buf_init(&b);
	if (out.n)
		rm_buf_printf(&b, "%u of the map's %u hosts %s not in the node "
			       "list: %s\n", out.n, map->nhost,
			       out.n == 1 ? "is" : "are", out.text);
	if (extra.n)
		rm_buf_printf(&b, "%u node%s of the node list %s not in the "
			       "map, as a host or a spare: %s\n", extra.n,
			       extra.n == 1 ? "" : "s",
			       extra.n == 1 ? "is" : "are", extra.text);
	return finish(&b, diff, err);
}

static bool same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

rm_status rm_map_compare_fabric(const rm_map *map, const rm_fabric *fabric,
				bool allow_missing, char **diff,
				rm_error *err)
{
	if (!map || !diff)
		return rmi_err(err, RM_EINPUT, "compare: no map");
	*diff = NULL;
	/* An empty fabric places nothing: rm_check warns about it already. */
	if (!fabric || fabric->nnode == 0)
		return RM_OK;
	rmi_where w;
	memset(&w, 0, sizeof(w));
	rm_status st = rmi_where_init(&w, fabric, map->nhost, err);
	if (st)
		return st;
	names missing, moved;
	memset(&missing, 0, sizeof(missing));
	memset(&moved, 0, sizeof(moved));
	uint32_t flat = 0;
	for (uint32_t h = 0; h < map->nhost; h++) {
		rmi_hostinfo hi;
		rmi_where_host(&w, map->host[h], h, &hi);
		if (hi.missing) {
			names_add(&missing, map->host[h], NULL);
			continue;
		}
		const char *leaf = map->host_leaf ? map->host_leaf[h] : NULL;
		const char *unit = map->host_unit ? map->host_unit[h] : NULL;
		const char *fl = rmi_where_loc_name(&w, &hi, map->host[h]);
		const char *fu = rmi_where_unit_name(&w, &hi);
		/* A hand-written map may leave leaf and unit out. */
		char extra[200];
		if (leaf && !same(leaf, fl) && same(leaf, "flat")) {
			flat++;
		} else if (leaf && !same(leaf, fl)) {
			snprintf(extra, sizeof(extra), " (map: %.60s, topology: %.60s)",
				 leaf, fl ? fl : "none");
			names_add(&moved, map->host[h], extra);
		} else if (unit && !same(unit, fu)) {
			snprintf(extra, sizeof(extra),
				 " (map: unit %.60s, site: %.60s)", unit,
				 fu ? fu : "none");
			names_add(&moved, map->host[h], extra);
		}
	}
	rmi_where_free(&w);
	rm_buf b;
	rm_buf_init(&b);
	if (missing.n == map->nhost && map->nhost)
		rm_buf_printf(&b, "the topology knows none of the map's %u "
			       "hosts (%s): a map of another cluster?\n",
			       map->nhost, missing.text);
	else if (missing.n && !allow_missing)
		rm_buf_printf(&b, "%u of the map's hosts %s not in the "
			       "topology: %s (--allow-missing counts each as "
			       "a leaf of its own)\n", missing.n,
			       missing.n == 1 ? "is" : "are", missing.text);
	if (flat)
		rm_buf_printf(&b, "the map was planned without a topology "
			       "(%u of its hosts' leaf is \"flat\"); this one "
			       "places them\n", flat);
	if (moved.n)
		rm_buf_printf(&b, "%u host%s sit%s elsewhere in this topology "
			       "than in the map: %s\n", moved.n,
			       moved.n == 1 ? "" : "s",
			       moved.n == 1 ? "s" : "", moved.text);
	return finish(&b, diff, err);
}
