/* SPDX-License-Identifier: Apache-2.0 */
/*
 * groups_combined.c - the groups Megatron-Core builds besides the single
 * axes (model parallel, tp-cp, dp-cp, tp-dp-cp, embedding, and for MoE the
 * expert-tensor- and expert-data-parallel groups), taken from the map
 * through librankmap's groups API (rm_map_groups), so that the
 * communicators and rankmap-nccl-check use the very groups training will.
 *
 * rm_groups lists each group in Megatron-Core's member order (ascending
 * RANK, which torch's new_group keeps): color = the group, key = the
 * place in it.
 */
#include "nccl_internal.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	rm_group_kind kind;
} table[RMN_NGROUPS] = {
	[RMN_GROUP_MP] = { "mp", RM_GROUP_TP_PP },
	[RMN_GROUP_TP_CP] = { "tp-cp", RM_GROUP_TP_CP },
	[RMN_GROUP_DP_CP] = { "dp-cp", RM_GROUP_DP_CP },
	[RMN_GROUP_TP_DP_CP] = { "tp-dp-cp", RM_GROUP_TP_DP_CP },
	[RMN_GROUP_EMBEDDING] = { "embedding", RM_GROUP_EMBEDDING },
	[RMN_GROUP_ETP] = { "etp", RM_GROUP_ETP },
	[RMN_GROUP_EDP] = { "edp", RM_GROUP_EDP },
};

const char *rmn_group_name(rmn_group g)
{
	return (unsigned)g < RMN_NGROUPS ? table[g].name : "?";
}

int rmn_group_from_name(const char *s, size_t len)
{
	for (int g = 0; g < RMN_NGROUPS; g++)
		if (strlen(table[g].name) == len &&
		    !strncmp(s, table[g].name, len))
			return g;
	return -1;
}

static rmn_status load(const rm_map *map, rmn_group g, rm_groups *out,
		       rmn_error *err)
{
	rm_error e = { 0 };
	memset(out, 0, sizeof(*out));
	if (!map || !rm_map_rank(map, 0, &(rm_rank){ 0 }))
		return rmni_err(err, RMN_EINPUT, "map: no ranks");
	if ((unsigned)g >= RMN_NGROUPS)
		return rmni_err(err, RMN_EINPUT, "unknown group %d", (int)g);
	if (rm_map_groups(map, table[g].kind, out, &e) != RM_OK)
		return rmni_from_rm(err, &e);
	if (out->world != rm_map_world(map) || out->ngroups * out->size == 0 ||
	    out->size > rm_map_world(map)) {
		rm_groups_clear(out);
		return rmni_err(err, RMN_EINPUT,
				"map: %s groups do not cover its world of %u",
				table[g].name, rm_map_world(map));
	}
	return RMN_OK;
}

rmn_status rmn_group_split(const rm_map *map, rmn_group g, uint32_t rank,
			   rmn_split *out, rmn_error *err)
{
	rm_groups gr;
	memset(out, 0, sizeof(*out));
	rmn_status st = load(map, g, &gr, err);
	if (st != RMN_OK)
		return st;
	if (rank >= rm_map_world(map))
		st = rmni_err(err, RMN_EINPUT,
			      "RANK %u is outside the map's world of %u", rank,
			      rm_map_world(map));
	else
		*out = rmni_split_of(&gr, rank);
	rm_groups_clear(&gr);
	return st;
}

rmn_status rmn_group_members(const rm_map *map, rmn_group g,
			     uint32_t **groups, uint32_t *ngroups,
			     uint32_t *size, rmn_error *err)
{
	rm_groups gr;
	*groups = NULL;
	*ngroups = 0;
	rmn_status st = load(map, g, &gr, err);
	if (st != RMN_OK)
		return st;
	/* Handed over as they are: the caller frees with free(). */
	*groups = gr.rank;
	gr.rank = NULL;
	*ngroups = gr.ngroups;
	*size = gr.size;
	rm_groups_clear(&gr);
	return RMN_OK;
}
