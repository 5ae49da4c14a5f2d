/*
 * groups_combined.c - the combined groups Megatron-Core builds besides the
 * single axes (model parallel, tp-cp, dp-cp, tp-dp-cp, embedding), from the
 * map's coordinates, so that the communicators and rankmap-nccl-check use
 * the very groups training will.
 *
 * Megatron-Core makes a group of the ranks whose coordinates agree outside
 * the group's axes and orders it by global rank; torch numbers a group's
 * members in that order too. So: color = the index of the coordinates
 * outside (mixed radix), key = RANK.
 */
#include "nccl_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[RMN_NGROUPS] = {
	[RMN_GROUP_MP] = "mp",
	[RMN_GROUP_TP_CP] = "tp-cp",
	[RMN_GROUP_DP_CP] = "dp-cp",
	[RMN_GROUP_TP_DP_CP] = "tp-dp-cp",
	[RMN_GROUP_EMBEDDING] = "embedding",
};

const char *rmn_group_name(rmn_group g)
{
	return (unsigned)g < RMN_NGROUPS ? names[g] : "?";
}

int rmn_group_from_name(const char *s, size_t len)
{
	for (int g = 0; g < RMN_NGROUPS; g++)
		if (strlen(names[g]) == len && !strncmp(s, names[g], len))
			return g;
	return -1;
}

/* The axes inside group g; ep goes with dp (expert parallelism is carved
 * out of data parallelism). */
static void axes_of(rmn_group g, bool in[RM_NAXES])
{
	memset(in, 0, sizeof(bool) * RM_NAXES);
	switch (g) {
	case RMN_GROUP_MP:
		in[RM_AXIS_TP] = in[RM_AXIS_PP] = true;
		break;
	case RMN_GROUP_TP_CP:
		in[RM_AXIS_TP] = in[RM_AXIS_CP] = true;
		break;
	case RMN_GROUP_DP_CP:
		in[RM_AXIS_DP] = in[RM_AXIS_EP] = in[RM_AXIS_CP] = true;
		break;
	case RMN_GROUP_TP_DP_CP:
		in[RM_AXIS_TP] = in[RM_AXIS_DP] = in[RM_AXIS_EP] =
			in[RM_AXIS_CP] = true;
		break;
	default:                     /* embedding: along pp, picked stages */
		in[RM_AXIS_PP] = true;
		break;
	}
}

static uint32_t size_of(const rm_map *map, rmn_group g)
{
	bool in[RM_NAXES];
	uint32_t n = 1;
	if (g == RMN_GROUP_EMBEDDING)
		return map->layout.size[RM_AXIS_PP] > 1 ? 2 : 1;
	axes_of(g, in);
	for (int a = 0; a < RM_NAXES; a++)
		if (in[a])
			n *= map->layout.size[a];
	return n;
}

/* Color of `rank`, or -1 when it is in no group of this kind. */
static int64_t color_of(const rm_map *map, rmn_group g, uint32_t rank)
{
	bool in[RM_NAXES];
	const rm_rank *r = &map->rank[rank];
	if (g == RMN_GROUP_EMBEDDING) {
		uint32_t pp = map->layout.size[RM_AXIS_PP];
		uint32_t at = r->coord[RM_AXIS_PP];
		if (at != 0 && at + 1 != pp)
			return -1;
	}
	axes_of(g, in);
	int64_t c = 0;
	for (int a = RM_NAXES; a-- > 0;)
		if (!in[a])
			c = c * map->layout.size[a] + r->coord[a];
	return c;
}

static rmn_status check(const rm_map *map, rmn_group g, rmn_error *err)
{
	if (!map || !map->rank || map->world == 0)
		return rmni_err(err, RMN_EINPUT, "map: no ranks");
	if ((unsigned)g >= RMN_NGROUPS)
		return rmni_err(err, RMN_EINPUT, "unknown group %d", (int)g);
	uint64_t all = 1;
	for (int a = 0; a < RM_NAXES; a++)
		all *= map->layout.size[a];
	if (all != map->world)
		return rmni_err(err, RMN_EINPUT,
				"map: the layout's sizes multiply to %llu, "
				"not the world of %u",
				(unsigned long long)all, map->world);
	return RMN_OK;
}

rmn_status rmn_group_split(const rm_map *map, rmn_group g, uint32_t rank,
			   rmn_split *out, rmn_error *err)
{
	rmn_status st = check(map, g, err);
	memset(out, 0, sizeof(*out));
	if (st != RMN_OK)
		return st;
	if (rank >= map->world)
		return rmni_err(err, RMN_EINPUT,
				"RANK %u is outside the map's world of %u",
				rank, map->world);
	int64_t c = color_of(map, g, rank);
	if (c < 0)
		return RMN_OK;
	*out = (rmn_split){ .present = true, .size = size_of(map, g),
			    .color = (int32_t)c, .key = (int32_t)rank };
	return RMN_OK;
}

rmn_status rmn_group_members(const rm_map *map, rmn_group g,
			     uint32_t **groups, uint32_t *ngroups,
			     uint32_t *size, rmn_error *err)
{
	*groups = NULL;
	*ngroups = 0;
	rmn_status st = check(map, g, err);
	if (st != RMN_OK)
		return st;
	uint32_t n = size_of(map, g), count;
	if (g == RMN_GROUP_EMBEDDING)
		count = map->world / map->layout.size[RM_AXIS_PP];
	else
		count = map->world / n;
	uint32_t *out = malloc(sizeof(*out) * ((size_t)count * n + 1));
	uint32_t *fill = calloc(count ? count : 1, sizeof(*fill));
	if (!out || !fill) {
		free(out);
		free(fill);
		return rmni_err(err, RMN_ENOMEM, "out of memory");
	}
	/* Ranks in ascending order land in ascending order. */
	for (uint32_t r = 0; r < map->world && st == RMN_OK; r++) {
		int64_t c = color_of(map, g, r);
		if (c < 0)
			continue;
		if (c >= count || fill[c] >= n)
			st = rmni_err(err, RMN_EINPUT,
				      "map: rank %u does not fit the %s groups "
				      "(coordinates out of range or repeated)",
				      r, names[g]);
		else
			out[(size_t)c * n + fill[c]++] = r;
	}
	for (uint32_t k = 0; k < count && st == RMN_OK; k++)
		if (fill[k] != n)
			st = rmni_err(err, RMN_EINPUT,
				      "map: %s group %u has %u ranks, not %u",
				      names[g], k, fill[k], n);
	free(fill);
	if (st != RMN_OK) {
		free(out);
		return st;
	}
	*groups = out;
	*ngroups = count;
	*size = n;
	return RMN_OK;
}
