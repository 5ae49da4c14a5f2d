/*
 * groups.c - the colors and keys of a communicator split, from the map.
 *
 * ncclCommSplit puts ranks with the same color into one communicator and
 * orders them by key. Taking the color from the map's dense group id and
 * the key from the position in the group makes rank i of the axis
 * communicator the rank at position i of the map's group list - the same
 * numbering the training framework derives from RANK.
 */
#include "nccl_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The axes a map file lists groups for: tp, pp and dp always (a size-1
 * communicator keeps the training code uniform), cp and ep when used. */
static bool in_layout(const rm_layout *l, rm_axis a)
{
	if (a == RM_AXIS_TP || a == RM_AXIS_PP || a == RM_AXIS_DP ||
	    l->size[a] > 1)
		return true;
	for (unsigned i = 0; i < l->naxes && i < RM_NAXES; i++)
		if (l->nest[i] == a)
			return true;
	return false;
}

/* Group of `rank` along `axis` into members[size]; checks what NCCL will
 * rely on: the rank sits at its own coordinate, ids fit an int. */
static rmn_status group_of(const rm_map *map, rm_axis axis, uint32_t rank,
			   uint32_t *members, uint32_t *id, rmn_error *err)
{
	rm_error e = { 0 };
	uint32_t size = map->layout.size[axis];
	if (rm_map_group(map, axis, rank, members, id, &e) != RM_OK)
		return rmni_from_rm(err, &e);
	uint32_t pos = map->rank[rank].coord[axis];
	if (pos >= size || members[pos] != rank)
		return rmni_err(err, RMN_EINPUT,
				"map: rank %u has %s coordinate %u but its "
				"%s group does not list it there",
				rank, rm_axis_name(axis), pos,
				rm_axis_name(axis));
	if (*id > INT32_MAX)
		return rmni_err(err, RMN_EINPUT,
				"map: %s group id %u of rank %u is too large",
				rm_axis_name(axis), *id, rank);
	return RMN_OK;
}

static rmn_status check_map(const rm_map *map, uint32_t rank, rmn_error *err)
{
	if (!map || !map->rank || map->world == 0)
		return rmni_err(err, RMN_EINPUT, "map: no ranks");
	if (rank >= map->world)
		return rmni_err(err, RMN_EINPUT,
				"RANK %u is outside the map's world of %u",
				rank, map->world);
	return RMN_OK;
}

rmn_status rmn_splits(const rm_map *map, uint32_t rank,
		      rmn_split out[RM_NAXES], rmn_error *err)
{
	rmn_status st = check_map(map, rank, err);
	if (st != RMN_OK)
		return st;
	memset(out, 0, sizeof(*out) * RM_NAXES);
	uint32_t maxsize = 1;
	for (int a = 0; a < RM_NAXES; a++)
		if (map->layout.size[a] > maxsize)
			maxsize = map->layout.size[a];
	uint32_t *members = malloc(sizeof(*members) * maxsize);
	if (!members)
		return rmni_err(err, RMN_ENOMEM, "out of memory");
	for (int a = 0; a < RM_NAXES && st == RMN_OK; a++) {
		rm_axis axis = (rm_axis)a;
		if (!in_layout(&map->layout, axis))
			continue;
		uint32_t id = 0;
		st = group_of(map, axis, rank, members, &id, err);
		if (st != RMN_OK)
			break;
		out[a] = (rmn_split){ .present = true,
				      .size = map->layout.size[a],
				      .color = (int32_t)id,
				      .key = (int32_t)map->rank[rank]
						     .coord[a] };
	}
	free(members);
	return st;
}

rmn_status rmn_axis_groups(const rm_map *map, rm_axis axis,
			   uint32_t **groups, uint32_t *ngroups,
			   uint32_t *size, rmn_error *err)
{
	*groups = NULL;
	*ngroups = 0;
	rmn_status st = check_map(map, 0, err);
	if (st != RMN_OK)
		return st;
	if ((unsigned)axis >= RM_NAXES)
		return rmni_err(err, RMN_EINPUT, "unknown axis %d", (int)axis);
	uint32_t n = map->layout.size[axis];
	if (n == 0 || map->world % n != 0)
		return rmni_err(err, RMN_EINPUT,
				"map: %s size %u does not divide the world "
				"of %u",
				rm_axis_name(axis), n, map->world);
	uint32_t count = map->world / n;
	uint32_t *g = malloc(sizeof(*g) * map->world);
	uint32_t *members = malloc(sizeof(*members) * n);
	unsigned char *seen = calloc(count, 1);
	if (!g || !members || !seen) {
		st = rmni_err(err, RMN_ENOMEM, "out of memory");
		goto out;
	}
	/* Ask once per group, from the member at position 0. */
	for (uint32_t r = 0; r < map->world && st == RMN_OK; r++) {
		if (map->rank[r].coord[axis] != 0)
			continue;
		uint32_t id = 0;
		st = group_of(map, axis, r, members, &id, err);
		if (st != RMN_OK)
			break;
		if (id >= count || seen[id])
			st = rmni_err(err, RMN_EINPUT,
				      "map: %s group ids are not dense "
				      "(id %u at rank %u, %u groups)",
				      rm_axis_name(axis), id, r, count);
		else {
			seen[id] = 1;
			memcpy(g + (size_t)id * n, members,
			       sizeof(*members) * n);
		}
	}
	for (uint32_t i = 0; st == RMN_OK && i < count; i++)
		if (!seen[i])
			st = rmni_err(err, RMN_EINPUT,
				      "map: no %s group with id %u",
				      rm_axis_name(axis), i);
	if (st == RMN_OK) {
		*groups = g;
		g = NULL;
		*ngroups = count;
		*size = n;
	}
out:
	free(g);
	free(members);
	free(seen);
	return st;
}
