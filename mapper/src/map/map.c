/* SPDX-License-Identifier: Apache-2.0 */
/*
 * map.c - small accessors over a rank map: release it, find the RANK on a
 * GPU, find a host, the communicator group of a rank along an axis, and
 * its place in each framework group the environment carries.
 */
#include "place/place.h"

#include <stdlib.h>
#include <string.h>

void rm_map_free(rm_map *map)
{
	if (!map)
		return;
	rmi_strv_free(map->host, map->nhost);
	rmi_strv_free(map->host_leaf, map->nhost);
	rmi_strv_free(map->host_unit, map->nhost);
	rmi_strv_free(map->spare, map->nspare);
	rmi_strv_free(map->report.warning, map->report.nwarning);
	free(map->rank);
	free(map->slot_rank);
	free(map);
}

int64_t rm_map_rank_at(const rm_map *map, uint32_t node, uint32_t local_gpu)
{
	if (!map || !map->rank || node >= map->nhost ||
	    local_gpu >= map->gpus_per_node)
		return -1;
	if (map->slot_rank) {
		uint32_t r = map->slot_rank[(uint64_t)node *
						    map->gpus_per_node +
					    local_gpu];
		return r == UINT32_MAX ? -1 : (int64_t)r;
	}
	for (uint32_t r = 0; r < map->world; r++)
		if (map->rank[r].node == node &&
		    map->rank[r].local_gpu == local_gpu)
			return r;
	return -1;
}

int64_t rm_map_host_index(const rm_map *map, const char *host)
{
	if (!map || !host || !map->host)
		return -1;
	for (uint32_t i = 0; i < map->nhost; i++)
		if (map->host[i] && strcmp(map->host[i], host) == 0)
			return i;
	return -1;
}

/*
 * Members differ from `rank` only in the axis's digit of the numbering
 * order; the group id is the rank with that digit removed, so ids are
 * dense and increase with each group's smallest rank.
 */
rm_status rm_map_group(const rm_map *map, rm_axis axis, uint32_t rank,
		       uint32_t *members, uint32_t *group_id, rm_error *err)
{
	if (!map || (unsigned)axis >= RM_NAXES)
		return rmi_err(err, RM_EINPUT, "map group: bad map or axis");
	if (rank >= map->world)
		return rmi_err(err, RM_EINPUT,
			       "map group: rank %u is outside the world of %u",
			       rank, map->world);
	uint64_t stride[RM_NAXES];
	rm_status st = rmi_order_strides(&map->layout, &map->order, stride,
					 err);
	if (st)
		return st;
	uint64_t size = map->layout.size[axis];
	if (size == 0)
		return rmi_err(err, RM_EINPUT, "map group: axis %s has size 0",
			       rm_axis_name(axis));
	uint64_t s = stride[axis] ? stride[axis] : 1;
	uint64_t digit = size > 1 ? (rank / s) % size : 0;
	uint64_t base = rank - digit * s;
	if (members)
		for (uint64_t i = 0; i < size; i++)
			members[i] = (uint32_t)(base + i * s);
	if (group_id)
		*group_id = size > 1 ? (uint32_t)(rank % s +
						  rank / (s * size) * s)
				     : rank;
	return RM_OK;
}

_Static_assert(RM_MAX_ENV_GROUPS >= RMI_MAX_KINDS,
	       "rm_rank_group arrays must hold every kind a map shows");

rm_status rm_map_rank_groups(const rm_map *m, uint32_t rank,
			     rm_rank_group out[RM_MAX_ENV_GROUPS],
			     unsigned *n, rm_error *err)
{
	*n = 0;
	if (rank >= m->world)
		return rmi_err(err, RM_EINPUT,
			       "rank %u is outside the world of %u ranks", rank,
			       m->world);
	rm_group_kind kind[RMI_MAX_KINDS];
	unsigned nk = rmi_map_kinds(&m->layout, kind);
	for (unsigned i = 0; i < nk; i++) {
		if (!rmi_kind_env(&m->layout, kind[i]))
			continue;
		rmi_coord co;
		rm_status st = rmi_coord_prep(&m->layout, &m->order, kind[i],
					      &co, err);
		if (st != RM_OK)
			return st;
		out[*n].kind = kind[i];
		out[*n].index = rmi_coord_of(&co, rank);
		out[*n].size = rmi_kind_size(&m->layout, kind[i]);
		(*n)++;
	}
	return RM_OK;
}
