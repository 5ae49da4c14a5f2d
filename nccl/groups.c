/* SPDX-License-Identifier: Apache-2.0 */
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
	    l->size[a] > 1 || (a == RM_AXIS_EP && rm_layout_ep(l) > 1))
		return true;
	for (unsigned i = 0; i < l->naxes && i < RM_NAXES; i++)
		if (l->nest[i] == a)
			return true;
	return false;
}

/* The framework's group for an axis: ep is the expert-parallel group and
 * dp the dense data-parallel one, which with experts are not placement
 * axes of the map (librankmap's rm_map_groups). */
static rmn_status axis_groups(const rm_map *map, rm_axis axis, rm_groups *g,
			      rmn_error *err)
{
	static const rm_group_kind kind[RM_NAXES] = {
		[RM_AXIS_TP] = RM_GROUP_TP, [RM_AXIS_CP] = RM_GROUP_CP,
		[RM_AXIS_EP] = RM_GROUP_EP, [RM_AXIS_PP] = RM_GROUP_PP,
		[RM_AXIS_DP] = RM_GROUP_DP,
	};
	rm_error e = { 0 };
	if (rm_map_groups(map, kind[axis], g, &e) != RM_OK)
		return rmni_from_rm(err, &e);
	if (g->ngroups > INT32_MAX) {
		rm_groups_clear(g);
		return rmni_err(err, RMN_EINPUT, "map: too many %s groups",
				rm_axis_name(axis));
	}
	return RMN_OK;
}

static rmn_status check_map(const rm_map *map, uint32_t rank, rmn_error *err)
{
	if (!map || !rm_map_rank(map, 0, &(rm_rank){ 0 }))
		return rmni_err(err, RMN_EINPUT, "map: no ranks");
	if (rank >= rm_map_world(map))
		return rmni_err(err, RMN_EINPUT,
				"RANK %u is outside the map's world of %u",
				rank, rm_map_world(map));
	return RMN_OK;
}

rmn_status rmn_splits(const rm_map *map, uint32_t rank,
		      rmn_split out[RM_NAXES], rmn_error *err)
{
	rmn_status st = check_map(map, rank, err);
	if (st != RMN_OK)
		return st;
	memset(out, 0, sizeof(*out) * RM_NAXES);
	for (int a = 0; a < RM_NAXES && st == RMN_OK; a++) {
		rm_axis axis = (rm_axis)a;
		if (!in_layout(rm_map_layout(map), axis))
			continue;
		rm_groups g;
		if ((st = axis_groups(map, axis, &g, err)) != RMN_OK)
			break;
		/* tp, cp and pp are placement axes too: the rank must sit at
		 * its own coordinate, or the map is inconsistent. */
		rm_rank r = { 0 };
		rm_map_rank(map, rank, &r);
		uint32_t pos = r.coord[a];
		if ((axis == RM_AXIS_TP || axis == RM_AXIS_CP ||
		     axis == RM_AXIS_PP) && pos != g.index_of[rank]) {
			rm_groups_clear(&g);
			st = rmni_err(err, RMN_EINPUT,
				      "map: rank %u has %s coordinate %u but "
				      "its %s group does not list it there",
				      rank, rm_axis_name(axis), pos,
				      rm_axis_name(axis));
			break;
		}
		out[a] = rmni_split_of(&g, rank);
		rm_groups_clear(&g);
	}
	return st;
}

rmn_split rmni_split_of(const rm_groups *g, uint32_t rank)
{
	if (g->group_of[rank] == UINT32_MAX)
		return (rmn_split){ .present = false };
	return (rmn_split){ .present = true,
			    .size = g->size,
			    .color = (int32_t)g->group_of[rank],
			    .key = (int32_t)g->index_of[rank] };
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
	rm_groups gr;
	if ((st = axis_groups(map, axis, &gr, err)) != RMN_OK)
		return st;
	*groups = gr.rank;
	gr.rank = NULL;
	*ngroups = gr.ngroups;
	*size = gr.size;
	rm_groups_clear(&gr);
	return RMN_OK;
}
