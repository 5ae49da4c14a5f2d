/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_plan.c - what rankmap-nccl-check measures, from the map alone:
 * the groups of every axis (all-reduce) and the consecutive stages of
 * every pipeline (send/recv), each with the slowest link its placement
 * crosses. Every rank builds the same plan, so records line up.
 */
#include "check.h"
#include "nccl_internal.h"

#include <stdlib.h>
#include <string.h>

/* An axis (group < 0) or a combined group (axis ignored). */
static rmn_status plan_axis(const rm_map *map, rm_axis axis, int group,
			    nck_axis *x, rmn_error *err)
{
	uint32_t *groups = NULL, ngroups = 0, size = 0;
	rmn_status st =
		group < 0 ? rmn_axis_groups(map, axis, &groups, &ngroups,
					    &size, err)
			  : rmn_group_members(map, (rmn_group)group, &groups,
					      &ngroups, &size, err);
	if (st != RMN_OK)
		return st;
	x->axis = group < 0 ? axis : RM_NAXES;
	x->kind = group;
	x->name = group < 0 ? rm_axis_name(axis)
			    : rmn_group_name((rmn_group)group);
	x->group_size = size;
	if (group < 0 && axis == RM_AXIS_PP) {
		/* One unit per pair of consecutive stages: a pipeline's
		 * traffic is between neighbours, never around a ring. */
		x->op = RMN_OP_SENDRECV;
		x->unit_size = 2;
		x->nunits = size > 1 ? ngroups * (size - 1) : 0;
	} else {
		x->op = RMN_OP_ALLREDUCE;
		x->unit_size = size;
		x->nunits = ngroups;
	}
	size_t nm = (size_t)x->nunits * x->unit_size;
	x->members = malloc(sizeof(*x->members) * (nm ? nm : 1));
	x->group = malloc(sizeof(*x->group) * (x->nunits ? x->nunits : 1));
	x->link = malloc(sizeof(*x->link) * (x->nunits ? x->nunits : 1));
	if (!x->members || !x->group || !x->link) {
		free(groups);
		return rmni_err(err, RMN_ENOMEM, "out of memory");
	}
	if (x->op == RMN_OP_SENDRECV) {
		for (uint32_t g = 0; g < ngroups; g++)
			for (uint32_t s = 0; s + 1 < size; s++) {
				size_t u = (size_t)g * (size - 1) + s;
				x->members[2 * u] = groups[(size_t)g * size + s];
				x->members[2 * u + 1] =
					groups[(size_t)g * size + s + 1];
				x->group[u] = g;
			}
	} else {
		memcpy(x->members, groups, sizeof(*groups) * nm);
		for (uint32_t g = 0; g < ngroups; g++)
			x->group[g] = g;
	}
	for (uint32_t u = 0; u < x->nunits; u++)
		x->link[u] = rmn_group_link(map,
					    x->members +
						    (size_t)u * x->unit_size,
					    x->unit_size);
	free(groups);
	return RMN_OK;
}

rmn_status nck_plan_build(const rm_map *map, const nck_opts *o,
			  nck_plan *p, rmn_error *err)
{
	memset(p, 0, sizeof(*p));
	p->map = map;
	p->nsizes = nck_sizes(o, p->sizes, NCK_MAX_SIZES);
	rmn_split split[RM_NAXES];
	rmn_status st = rmn_splits(map, 0, split, err);
	if (st != RMN_OK)
		return st;
	/* Innermost first, as people read a layout. */
	static const rm_axis order[] = { RM_AXIS_TP, RM_AXIS_CP, RM_AXIS_EP,
					 RM_AXIS_PP, RM_AXIS_DP };
	for (size_t i = 0; i < RM_NAXES; i++) {
		rm_axis a = order[i];
		if (!split[a].present || !o->want[a])
			continue;
		nck_axis *x = &p->ax[p->nax++];
		st = plan_axis(map, a, -1, x, err);
		if (st != RMN_OK) {
			nck_plan_free(p);
			return st;
		}
		x->slot = p->record;
		p->record += 2 * (p->nsizes + 1);
	}
	/* Then the combined groups asked for, in Megatron-Core's names. */
	for (int g = 0; g < RMN_NGROUPS; g++) {
		if (!o->want_group[g])
			continue;
		nck_axis *x = &p->ax[p->nax++];
		st = plan_axis(map, RM_NAXES, g, x, err);
		if (st != RMN_OK) {
			nck_plan_free(p);
			return st;
		}
		x->slot = p->record;
		p->record += 2 * (p->nsizes + 1);
	}
	return RMN_OK;
}

void nck_plan_free(nck_plan *p)
{
	for (size_t i = 0; i < p->nax; i++) {
		free(p->ax[i].members);
		free(p->ax[i].group);
		free(p->ax[i].link);
	}
	p->nax = 0;
}

size_t nck_rec_index(const nck_plan *p, size_t ax, int slot, size_t s)
{
	return p->ax[ax].slot + (size_t)slot * (p->nsizes + 1) + s;
}

uint32_t nck_unit_of(const nck_axis *x, uint32_t rank, uint32_t from)
{
	for (uint32_t u = from; u < x->nunits; u++)
		for (uint32_t i = 0; i < x->unit_size; i++)
			if (x->members[(size_t)u * x->unit_size + i] == rank)
				return u;
	return UINT32_MAX;
}

ncclComm_t nck_comm(const nck_axis *x, const rmn_comms *c)
{
	return x->kind < 0 ? c->axis[x->axis] : c->group[x->kind];
}
