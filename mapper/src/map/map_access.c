/* SPDX-License-Identifier: Apache-2.0 */
/*
 * map_access.c - the rm_map and rm_report accessors of the public header:
 * programs read a map through these, so the objects can grow without
 * moving a field under a caller built against an older header.
 */
#include "mapio.h"

const rm_layout *rm_map_layout(const rm_map *map)
{
	return &map->layout;
}

const rm_order *rm_map_order(const rm_map *map)
{
	return &map->order;
}

uint32_t rm_map_world(const rm_map *map)
{
	return map->world;
}

uint32_t rm_map_gpus_per_node(const rm_map *map)
{
	return map->gpus_per_node;
}

uint32_t rm_map_host_count(const rm_map *map)
{
	return map->nhost;
}

const char *rm_map_host(const rm_map *map, uint32_t i)
{
	return i < map->nhost ? map->host[i] : NULL;
}

const char *rm_map_host_leaf(const rm_map *map, uint32_t i)
{
	return i < map->nhost && map->host_leaf ? map->host_leaf[i] : NULL;
}

const char *rm_map_host_unit(const rm_map *map, uint32_t i)
{
	return i < map->nhost && map->host_unit ? map->host_unit[i] : NULL;
}

uint32_t rm_map_spare_count(const rm_map *map)
{
	return map->nspare;
}

const char *rm_map_spare(const rm_map *map, uint32_t i)
{
	return i < map->nspare ? map->spare[i] : NULL;
}

bool rm_map_rank(const rm_map *map, uint32_t rank, rm_rank *out)
{
	if (rank >= map->world || !map->rank)
		return false;
	*out = map->rank[rank];
	return true;
}

const rm_report *rm_map_report(const rm_map *map)
{
	return &map->report;
}

const char *rm_map_inputs_digest(const rm_map *map)
{
	return map->inputs_sha256;
}

uint64_t rm_report_count(const rm_report *r, rm_report_key k)
{
	switch (k) {
	case RM_REPORT_WORLD: return r->world;
	case RM_REPORT_MUST_OK: return r->must_ok;
	case RM_REPORT_TP_GROUPS: return r->tp_groups;
	case RM_REPORT_TP_SPLIT: return r->tp_split;
	case RM_REPORT_CP_SPLIT: return r->cp_split;
	case RM_REPORT_EP_SPLIT: return r->ep_split;
	case RM_REPORT_CP_MUST: return r->cp_must;
	case RM_REPORT_EP_MUST: return r->ep_must;
	case RM_REPORT_PP_PAIRS: return r->pp_pairs;
	case RM_REPORT_PP_SAME_NODE: return r->pp_same_node;
	case RM_REPORT_PP_SAME_LEAF: return r->pp_same_leaf;
	case RM_REPORT_PP_SAME_RAIL: return r->pp_same_rail;
	case RM_REPORT_PP_CROSS: return r->pp_cross;
	case RM_REPORT_PP_CROSS_POD: return r->pp_cross_pod;
	case RM_REPORT_PP_CROSS_SPINE: return r->pp_cross_spine;
	case RM_REPORT_PP_CROSS_BOUND: return r->pp_cross_lower_bound;
	case RM_REPORT_PP_BOUND_EXACT: return r->pp_bound_exact;
	case RM_REPORT_PP_CROSS_TOP: return r->pp_cross_top;
	case RM_REPORT_PP_CROSS_TOP_BOUND: return r->pp_cross_top_lower_bound;
	case RM_REPORT_PP_RAIL_ALIGNED: return r->pp_rail_aligned;
	case RM_REPORT_DP_PAIRS: return r->dp_pairs;
	case RM_REPORT_DP_RAIL_ALIGNED: return r->dp_rail_aligned;
	case RM_REPORT_DP_GROUPS: return r->dp_groups;
	case RM_REPORT_DP_LEAVES_MAX: return r->dp_leaves_max;
	case RM_REPORT_DP_TOPS_MAX: return r->dp_tops_max;
	case RM_REPORT_EP_GROUPS: return r->ep_groups;
	case RM_REPORT_EP_LEAVES_MAX: return r->ep_leaves_max;
	case RM_REPORT_EP_TOPS_MAX: return r->ep_tops_max;
	case RM_REPORT_LEAVES: return r->leaves;
	case RM_REPORT_TOPS: return r->tops;
	case RM_REPORT_GPUS_IDLE: return r->gpus_idle;
	case RM_REPORT_NODES_PART_IDLE: return r->nodes_part_idle;
	default: return 0;
	}
}

double rm_report_mean(const rm_report *r, rm_report_key k)
{
	switch (k) {
	case RM_REPORT_DP_LEAVES_MEAN: return r->dp_leaves_mean;
	case RM_REPORT_DP_TOPS_MEAN: return r->dp_tops_mean;
	case RM_REPORT_EP_LEAVES_MEAN: return r->ep_leaves_mean;
	case RM_REPORT_EP_TOPS_MEAN: return r->ep_tops_mean;
	default: return (double)rm_report_count(r, k);
	}
}

size_t rm_report_warning_count(const rm_report *r)
{
	return r->nwarning;
}

const char *rm_report_warning(const rm_report *r, size_t i)
{
	return i < r->nwarning ? r->warning[i] : NULL;
}
