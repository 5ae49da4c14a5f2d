/* SPDX-License-Identifier: Apache-2.0 */
/*
 * site_nvl.c - the site file's membership sections: NVLink groups and
 * rail-optimised units. Both are lists of hostlists in which a node may
 * appear only once.
 */
#include "fabric/site_int.h"

#include <stdlib.h>
#include <string.h>

/*
 * Expand each hostlist expr[i] (written at where[i]) and refuse malformed
 * ones, a node listed twice, and a node in two of them. `label` names an
 * owner in messages ("group", "unit").
 */
static rm_status check_disjoint(ctx *c, const char *what, const char *label,
				char *const *expr,
				const rmi_ynode *const *where,
				const char *const *owner_name, size_t n)
{
	rm_hostlist *hl = calloc(n ? n : 1, sizeof(*hl));
	if (!hl)
		return rmi_site_oom(c);
	rm_status st = RM_OK;
	size_t total = 0;
	char q[160];
	for (size_t i = 0; i < n && !st; i++) {
		rm_error e;
		if (rm_hostlist_parse(expr[i], &hl[i], &e)) {
			st = e.code == RM_ENOMEM
				     ? rmi_site_oom(c)
				     : rmi_site_bad(c, where[i], "%s[%zu]: %s",
						    what, i, e.msg);
		} else if (hl[i].n == 0) {
			st = rmi_site_bad(c, where[i], "%s[%zu] names no nodes",
					  what, i);
		} else if ((total += hl[i].n) > SITE_MAX_NAMED) {
			st = rmi_site_bad(c, where[i],
					  "%s name more than %u nodes", what,
					  (unsigned)SITE_MAX_NAMED);
		}
	}
	rmi_named *o = NULL;
	if (!st && !(o = malloc((total ? total : 1) * sizeof(*o))))
		st = rmi_site_oom(c);
	if (!st) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < hl[i].n; j++)
				o[k++] = (rmi_named){hl[i].host[j], i};
		qsort(o, total, sizeof(*o), rmi_named_cmp);
		/* Report the conflict met first in file order. */
		size_t best = SIZE_MAX, bi = 0;
		for (size_t i = 1; i < total; i++)
			if (strcmp(o[i - 1].name, o[i].name) == 0 &&
			    o[i].ix < best) {
				best = o[i].ix;
				bi = i;
			}
		if (best != SIZE_MAX) {
			const rmi_named *a = &o[bi - 1], *b = &o[bi];
			rm_quote(b->name, strlen(b->name), q, sizeof(q));
			if (a->ix == b->ix)
				st = rmi_site_bad(
					c, where[b->ix],
					"node %s is listed twice in %s %s", q,
					label, owner_name[b->ix]);
			else
				st = rmi_site_bad(
					c, where[b->ix],
					"node %s is in %s %s and in %s %s "
					"(line %lu); a node belongs to one %s",
					q, label, owner_name[a->ix], label,
					owner_name[b->ix],
					where[a->ix]->line, label);
		}
	}
	free(o);
	for (size_t i = 0; i < n; i++)
		rm_hostlist_clear(&hl[i]);
	free(hl);
	return st;
}

rm_status rmi_site_nvlink(ctx *c, const rmi_ynode *m)
{
	static const char *const keys[] = {"domain", "groups", "domain_gpus",
					   NULL};
	rm_site *s = c->s;
	rm_status st = rmi_y_keys(m, c->file, "nvlink", keys, c->err);
	if (st)
		return st;
	const rmi_ynode *dom = rmi_y_get(m, "domain");
	const rmi_ynode *groups = rmi_y_get(m, "groups");
	static const rmi_word kinds[] = {{"node", RM_NVL_NODE},
					 {"block", RM_NVL_BLOCK},
					 {"groups", RM_NVL_GROUPS},
					 {NULL, 0}};
	int k = RM_NVL_NODE;
	if ((st = rmi_site_word(c, dom, "nvlink.domain", kinds, &k)))
		return st;
	s->nvl_kind = (rm_nvl_kind)k;
	s->nvl_given = dom != NULL;
	const rmi_ynode *dg = rmi_y_get(m, "domain_gpus");
	uint64_t v;
	if (dg) {
		if ((st = rmi_y_u64(dg, c->file, "nvlink.domain_gpus", 1,
				    RM_MAX_WORLD, &v, c->err)))
			return st;
		s->nvl_domain_gpus = (uint32_t)v;
		if (s->gpus_per_node && v % s->gpus_per_node)
			return rmi_site_bad(c, dg,
					    "nvlink.domain_gpus (%u) must be a "
					    "multiple of gpus_per_node (%u)",
					    s->nvl_domain_gpus,
					    s->gpus_per_node);
		if (s->nvl_kind == RM_NVL_NODE && s->gpus_per_node &&
		    v != s->gpus_per_node)
			return rmi_site_bad(
				c, dg,
				"nvlink.domain_gpus (%u) differs from "
				"gpus_per_node (%u) with domain: node",
				s->nvl_domain_gpus, s->gpus_per_node);
	}
	if (s->nvl_kind != RM_NVL_GROUPS) {
		if (groups)
			return rmi_site_bad(c, groups,
					    "nvlink.groups is only read with "
					    "domain: groups (domain is %s)",
					    dom ? dom->str : "node");
		return RM_OK;
	}
	if (!groups)
		return rmi_site_bad(
			c, dom,
			"nvlink.domain: groups needs nvlink.groups, "
			"a list of hostlists");
	if ((st = rmi_site_list(c, groups, "nvlink.groups", SITE_MAX_PATH, NULL,
				&s->nvl_groups, &s->n_nvl_groups)))
		return st;
	if (!s->n_nvl_groups)
		return rmi_site_bad(c, groups, "nvlink.groups is empty");
	/* Owners are named by their expression, written by the user. */
	char **names = calloc(s->n_nvl_groups, sizeof(*names));
	if (!names)
		return rmi_site_oom(c);
	for (size_t i = 0; i < s->n_nvl_groups; i++) {
		char q[160];
		const char *t = s->nvl_groups[i];
		rm_quote(t, strlen(t), q, sizeof(q));
		names[i] = strdup(q);
		if (!names[i]) {
			rmi_strv_free(names, s->n_nvl_groups);
			return rmi_site_oom(c);
		}
	}
	st = check_disjoint(c, "nvlink.groups", "group", s->nvl_groups,
			    (const rmi_ynode *const *)groups->item,
			    (const char *const *)names, s->n_nvl_groups);
	rmi_strv_free(names, s->n_nvl_groups);
	if (st || !s->nvl_domain_gpus || !s->gpus_per_node)
		return st;
	/* domain_gpus is a promise about every group: check it. */
	for (size_t i = 0; i < s->n_nvl_groups; i++) {
		rm_hostlist hl;
		if (rm_hostlist_parse(s->nvl_groups[i], &hl, NULL))
			return rmi_site_oom(c);
		uint64_t g = (uint64_t)hl.n * s->gpus_per_node;
		rm_hostlist_clear(&hl);
		if (g > s->nvl_domain_gpus)
			return rmi_site_bad(
				c, groups->item[i],
				"nvlink.groups[%zu] holds %llu GPUs, more than "
				"nvlink.domain_gpus (%u)",
				i, (unsigned long long)g, s->nvl_domain_gpus);
	}
	return RM_OK;
}

rm_status rmi_site_units(ctx *c, const rmi_ynode *m)
{
	static const char *const keys[] = {"rails", "list", NULL};
	static const char *const ukeys[] = {"name", "nodes", NULL};
	rm_site *s = c->s;
	rm_status st = rmi_y_keys(m, c->file, "units", keys, c->err);
	if (st)
		return st;
	uint64_t rails;
	const rmi_ynode *r = rmi_y_get(m, "rails");
	if (!r)
		return rmi_site_bad(
			c, m, "units needs rails (rails per unit, 1 to 64)");
	if ((st = rmi_y_u64(r, c->file, "units.rails", 1, 64, &rails, c->err)))
		return st;
	s->rails = (uint32_t)rails;
	const rmi_ynode *list = rmi_y_get(m, "list");
	if (!list)
		return rmi_site_bad(
			c, m, "units needs list (name and nodes per unit)");
	if ((st = rmi_y_kind(list, c->file, "units.list", RMI_Y_SEQ, c->err)))
		return st;
	if (!list->n)
		return rmi_site_bad(c, list, "units.list is empty");
	size_t n = list->n;
	s->unit_name = calloc(n, sizeof(char *));
	s->unit_nodes = calloc(n, sizeof(char *));
	const rmi_ynode **where = calloc(n, sizeof(*where));
	if (!s->unit_name || !s->unit_nodes || !where) {
		free(where);
		return rmi_site_oom(c);
	}
	s->nunits = n;
	for (size_t i = 0; i < n && !st; i++) {
		const rmi_ynode *u = list->item[i];
		char w[64];
		snprintf(w, sizeof(w), "units.list[%zu]", i);
		if ((st = rmi_y_keys(u, c->file, w, ukeys, c->err)))
			break;
		const rmi_ynode *nm = rmi_y_get(u, "name");
		const rmi_ynode *nd = rmi_y_get(u, "nodes");
		if (!nm || !nd) {
			st = rmi_site_bad(c, u, "%s needs %s", w,
					  nm ? "nodes" : "name");
			break;
		}
		snprintf(w, sizeof(w), "units.list[%zu].name", i);
		if ((st = rmi_site_dup(c, nm, w, 63, &s->unit_name[i])))
			break;
		for (size_t j = 0; j < i; j++)
			if (strcmp(s->unit_name[j], s->unit_name[i]) == 0)
				st = rmi_site_bad(
					c, nm,
					"unit name '%s' is used twice "
					"(first at line %lu)",
					s->unit_name[i], where[j]->line);
		snprintf(w, sizeof(w), "units.list[%zu].nodes", i);
		if (!st)
			st = rmi_site_dup(c, nd, w, SITE_MAX_PATH,
					  &s->unit_nodes[i]);
		where[i] = nd;
	}
	if (!st) {
		char **names = calloc(n, sizeof(*names));
		for (size_t i = 0; names && i < n && !st; i++) {
			char q[96];
			const char *t = s->unit_name[i];
			names[i] =
				strdup(rm_quote(t, strlen(t), q, sizeof(q)));
			if (!names[i])
				st = rmi_site_oom(c);
		}
		if (!names)
			st = rmi_site_oom(c);
		if (!st)
			st = check_disjoint(c, "units.list", "unit",
					    s->unit_nodes, where,
					    (const char *const *)names, n);
		rmi_strv_free(names, n);
	}
	free(where);
	return st;
}
