/* SPDX-License-Identifier: Apache-2.0 */
/*
 * site_apply.c - fold what the site file knows into a fabric read from
 * topology.conf: NVLink groups, rail-optimised units and tier bandwidths.
 *
 * The site file wins where both speak: explicit groups replace Slurm
 * blocks, `domain: node` drops them. Nodes the site names but the topology
 * does not are added without a leaf; whether such a node may be used is
 * the planner's call (policy.missing_nodes).
 *
 * On error the fabric stays consistent (every index it holds is valid) but
 * may be partly updated; callers free it.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static rm_status oom(rm_error *err, const char *file)
{
	return rmi_err(err, RM_ENOMEM, "%s: out of memory", file);
}

/* Empty the rail units (`unit`) or else the NVLink domains before the
 * site file states its own: no node may keep a set that is gone. */
static void drop(rm_fabric *f, bool unit)
{
	for (uint32_t i = 0; i < f->nnode; i++)
		*(unit ? &f->node[i].unit : &f->node[i].domain) = -1;
	char ***name = unit ? &f->unit_name : &f->domain_name;
	uint32_t *n = unit ? &f->nunit : &f->ndomain;
	rmi_strv_free(*name, *n);
	*name = NULL;
	*n = 0;
	*(unit ? &f->rails : &f->nvl_domain_gpus) = 0;
}

/*
 * Put every node of hostlist `expr` into set `idx` (a domain when `unit`
 * is false, else a unit), adding nodes the topology does not know. `label`
 * names the set in messages.
 */
static rm_status assign(rm_fabric *f, const char *file, const char *label,
			const char *expr, int32_t idx, bool unit, rm_error *err)
{
	rm_hostlist hl;
	rm_error e;
	if (rm_hostlist_parse(expr, &hl, &e))
		return e.code == RM_ENOMEM
			       ? oom(err, file)
			       : rmi_err_at(err, RM_EINPUT, file, 0, 0,
					    "%s: %s", label, e.msg);
	rm_status st = RM_OK;
	for (size_t i = 0; i < hl.n && !st; i++) {
		int64_t k = rmi_fabric_add_node(f, hl.host[i]);
		if (k < 0) {
			st = oom(err, file);
			break;
		}
		int32_t *slot = unit ? &f->node[k].unit : &f->node[k].domain;
		if (*slot >= 0) {
			char q[160];
			st = rmi_err_at(err, RM_EINPUT, file, 0, 0,
					"%s: node %s is already in %s", label,
					rm_quote(hl.host[i],
						  strlen(hl.host[i]), q,
						  sizeof(q)),
					unit ? f->unit_name[*slot]
					     : f->domain_name[*slot]);
			break;
		}
		*slot = idx;
	}
	rm_hostlist_clear(&hl);
	return st;
}

static rm_status apply_groups(rm_fabric *f, const rm_site *s, const char *file,
			      rm_error *err)
{
	drop(f, false);
	if (!s->n_nvl_groups)
		return rmi_err_at(err, RM_EINPUT, file, 0, 0,
				  "nvlink.domain is groups but no groups are "
				  "given");
	/* topology.c grows this array at powers of two: keep to that. */
	size_t cap = 16;
	while (cap < s->n_nvl_groups)
		cap *= 2;
	f->domain_name = calloc(cap, sizeof(char *));
	if (!f->domain_name)
		return oom(err, file);
	for (size_t g = 0; g < s->n_nvl_groups; g++) {
		/* A group is named by the hostlist the site wrote for it. */
		if (!(f->domain_name[g] = strdup(s->nvl_groups[g])))
			return oom(err, file);
		f->ndomain = (uint32_t)g + 1;
		char label[64];
		snprintf(label, sizeof(label), "nvlink.groups[%zu]", g);
		rm_status st = assign(f, file, label, s->nvl_groups[g],
				      (int32_t)g, false, err);
		if (st)
			return st;
	}
	return RM_OK;
}

static rm_status apply_units(rm_fabric *f, const rm_site *s, const char *file,
			     rm_error *err)
{
	drop(f, true);
	f->unit_name = calloc(s->nunits, sizeof(char *));
	if (!f->unit_name)
		return oom(err, file);
	f->rails = s->rails;
	for (size_t u = 0; u < s->nunits; u++) {
		if (!(f->unit_name[u] = strdup(s->unit_name[u])))
			return oom(err, file);
		f->nunit = (uint32_t)u + 1;
		char label[96];
		snprintf(label, sizeof(label), "unit %.60s", s->unit_name[u]);
		rm_status st = assign(f, file, label, s->unit_nodes[u],
				      (int32_t)u, true, err);
		if (st)
			return st;
	}
	return RM_OK;
}

/* A stated domain size is a promise; a domain bigger than it means the
 * site file and the topology disagree. */
static rm_status check_domain_size(const rm_fabric *f, const rm_site *s,
				   const char *file, rm_error *err)
{
	if (!s->nvl_domain_gpus || !s->gpus_per_node || !f->ndomain)
		return RM_OK;
	uint32_t *cnt = calloc(f->ndomain, sizeof(*cnt));
	if (!cnt)
		return oom(err, file);
	rm_status st = RM_OK;
	for (uint32_t i = 0; i < f->nnode; i++) {
		int32_t d = f->node[i].domain;
		if (d >= 0 && (uint32_t)d < f->ndomain)
			cnt[d]++;
	}
	for (uint32_t d = 0; d < f->ndomain && !st; d++) {
		uint64_t g = (uint64_t)cnt[d] * s->gpus_per_node;
		if (g > s->nvl_domain_gpus)
			st = rmi_err_at(err, RM_EINPUT, file, 0, 0,
					"NVLink domain %.200s holds %llu GPUs, "
					"more than nvlink.domain_gpus (%u)",
					f->domain_name[d],
					(unsigned long long)g,
					s->nvl_domain_gpus);
	}
	free(cnt);
	return st;
}

rm_status rm_fabric_apply_site(rm_fabric *f, const rm_site *s, rm_error *err)
{
	if (!f || !s)
		return rmi_err(err, RM_EINPUT,
			       "rm_fabric_apply_site: no fabric or site");
	const char *file = s->path ? s->path : "<site>";
	rm_status st = RM_OK;
	switch (s->nvl_kind) {
	case RM_NVL_NODE:
		if (s->nvl_given)
			drop(f, false);
		break;
	case RM_NVL_BLOCK:
		if (!f->ndomain)
			return rmi_err_at(
				err, RM_EINPUT, file, 0, 0,
				"nvlink.domain is block, but the "
				"topology %s has no BlockName= blocks",
				f->source ? f->source : "(none read)");
		break;
	case RM_NVL_GROUPS: st = apply_groups(f, s, file, err); break;
	default:
		return rmi_err_at(err, RM_EINPUT, file, 0, 0,
				  "unknown NVLink domain kind %d",
				  (int)s->nvl_kind);
	}
	if (!st && s->nvl_kind != RM_NVL_NODE) {
		f->nvl_domain_gpus = s->nvl_domain_gpus;
		st = check_domain_size(f, s, file, err);
	}
	if (!st && s->nunits)
		st = apply_units(f, s, file, err);
	if (st)
		return st;
	f->cross_policy = s->cross_policy;
	if (s->ntiers) {
		size_t n = s->ntiers < RM_MAX_TIERS ? s->ntiers : RM_MAX_TIERS;
		memcpy(f->tier, s->tier, n * sizeof(f->tier[0]));
		f->ntiers = n;
	}
	return RM_OK;
}
