/* SPDX-License-Identifier: Apache-2.0 */
/*
 * map_locate.c - name the leaf (or unit, or NVLink block) and the rail unit
 * of each host of a map that came without them - a user's assignment file
 * knows hosts, not switches - using the same rules the planner uses, so a
 * checked assignment reads like a planned map.
 */
#include "map/mapio.h"
#include "place/place.h"

#include <stdlib.h>
#include <string.h>

rm_status rm_map_locate(rm_map *m, const rm_fabric *f, rm_error *err)
{
	if (!m->nhost)
		return RM_OK;
	if (!m->host_leaf)
		m->host_leaf = calloc((size_t)m->nhost + 1, sizeof(char *));
	if (!m->host_unit)
		m->host_unit = calloc((size_t)m->nhost + 1, sizeof(char *));
	if (!m->host_leaf || !m->host_unit)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	rmi_where w;
	memset(&w, 0, sizeof(w));
	rm_status st = rmi_where_init(&w, f, m->nhost, err);
	if (st)
		return st;
	bool oom = false;
	for (uint32_t h = 0; h < m->nhost; h++) {
		if (m->host_leaf[h])
			continue;
		rmi_hostinfo hi;
		rmi_where_host(&w, m->host[h], h, &hi);
		m->host_leaf[h] = rmi_dup_or_null(
			rmi_where_loc_name(&w, &hi, m->host[h]), &oom);
		free(m->host_unit[h]);
		m->host_unit[h] = rmi_dup_or_null(
			rmi_where_unit_name(&w, &hi), &oom);
	}
	rmi_where_free(&w);
	return oom ? rmi_err(err, RM_ENOMEM, "out of memory") : RM_OK;
}
