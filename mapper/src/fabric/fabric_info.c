/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fabric_info.c - counts that describe a loaded fabric, for people
 * checking a configuration (`rankmap site validate`): how many nodes and
 * switches, how deep the tree is, and which nodes a site file names that
 * the topology does not place or that fall outside its NVLink groups and
 * rail units.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Nodes in the largest of `nset` rail units (`unit`) or NVLink domains. */
static uint32_t largest(const rm_fabric *f, uint32_t nset, bool unit)
{
	if (!nset)
		return 0;
	uint32_t *n = calloc(nset, sizeof(uint32_t)), best = 0;
	if (!n)
		return 0;
	for (uint32_t i = 0; i < f->nnode; i++) {
		int32_t s = unit ? f->node[i].unit : f->node[i].domain;
		if (s >= 0 && (uint32_t)s < nset && ++n[s] > best)
			best = n[s];
	}
	free(n);
	return best;
}

void rm_fabric_info_get(const rm_fabric *f, rm_fabric_info *out)
{
	memset(out, 0, sizeof(*out));
	if (!f)
		return;
	out->nodes = f->nnode;
	out->switches = f->nsw;
	out->tree = f->has_tree;
	out->blocks = f->has_blocks;
	for (uint32_t i = 0; i < f->nsw; i++) {
		if (f->sw[i].level == 0)
			out->leaves++;
		if (f->sw[i].parent < 0)
			out->top_switches++;
		if (f->sw[i].level + 1 > out->levels)
			out->levels = f->sw[i].level + 1;
	}
	for (uint32_t i = 0; i < f->nnode; i++) {
		if (f->node[i].leaf < 0)
			out->no_leaf++;
		if (f->ndomain && f->node[i].domain < 0)
			out->no_domain++;
		if (f->nunit && f->node[i].unit < 0)
			out->no_unit++;
	}
	out->nvl_domains = f->ndomain;
	out->nvl_domain_nodes = largest(f, f->ndomain, false);
	out->nvl_domain_gpus = f->nvl_domain_gpus;
	out->units = f->nunit;
	out->unit_nodes = largest(f, f->nunit, true);
	out->rails = f->rails;
}

const char *rm_fabric_node_name(const rm_fabric *f, uint32_t i)
{
	return f && i < f->nnode ? f->node[i].name : NULL;
}

int rm_fabric_node_where(const rm_fabric *f, uint32_t i)
{
	if (!f || i >= f->nnode)
		return 0;
	return (f->node[i].leaf >= 0 ? RM_FABRIC_NODE_LEAF : 0) |
	       (f->node[i].domain >= 0 ? RM_FABRIC_NODE_DOMAIN : 0) |
	       (f->node[i].unit >= 0 ? RM_FABRIC_NODE_UNIT : 0);
}
