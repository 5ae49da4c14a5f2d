/*
 * map_report.c - the `validation` object of a map file back into an
 * rm_report. The numbers are only reported, never trusted for decisions:
 * `rankmap check` scores the map again.
 */
#include "map/mapio.h"

#include <stdlib.h>
#include <string.h>

rm_status rmi_report_read(const rmi_ynode *v, const char *file,
			  rm_report *rp, rm_error *err)
{
	static const char *const keys[] = {
		"must_ok", "world", "tp_groups", "tp_split", "cp_split",
		"ep_split", "cp_must", "ep_must", "pp_pairs", "pp_same_node",
		"pp_same_leaf", "pp_same_rail", "pp_cross",
		"pp_cross_lower_bound", "pp_bound_exact", "pp_cross_top",
		"pp_cross_top_lower_bound", "pp_rail_aligned", "dp_pairs",
		"dp_rail_aligned", "dp_groups", "dp_leaves_max",
		"dp_leaves_mean", "dp_tops_max", "dp_tops_mean", "warnings",
		NULL
	};
	rm_status st = rmi_y_keys(v, file, "validation", keys, err);
	const struct {
		const char *k;
		uint64_t *p;
	} u64s[] = {
		{ "tp_groups", &rp->tp_groups }, { "tp_split", &rp->tp_split },
		{ "cp_split", &rp->cp_split }, { "ep_split", &rp->ep_split },
		{ "pp_pairs", &rp->pp_pairs },
		{ "pp_same_node", &rp->pp_same_node },
		{ "pp_same_leaf", &rp->pp_same_leaf },
		{ "pp_same_rail", &rp->pp_same_rail },
		{ "pp_cross", &rp->pp_cross },
		{ "pp_cross_lower_bound", &rp->pp_cross_lower_bound },
		{ "pp_cross_top", &rp->pp_cross_top },
		{ "pp_cross_top_lower_bound", &rp->pp_cross_top_lower_bound },
		{ "pp_rail_aligned", &rp->pp_rail_aligned },
		{ "dp_pairs", &rp->dp_pairs },
		{ "dp_rail_aligned", &rp->dp_rail_aligned },
	};
	const struct {
		const char *k;
		uint32_t *p;
	} u32s[] = {
		{ "world", &rp->world }, { "dp_groups", &rp->dp_groups },
		{ "dp_leaves_max", &rp->dp_leaves_max },
		{ "dp_tops_max", &rp->dp_tops_max },
	};
	const struct {
		const char *k;
		bool *p;
	} bools[] = {
		{ "must_ok", &rp->must_ok }, { "cp_must", &rp->cp_must },
		{ "ep_must", &rp->ep_must },
		{ "pp_bound_exact", &rp->pp_bound_exact },
	};
	const struct {
		const char *k;
		double *p;
	} reals[] = {
		{ "dp_leaves_mean", &rp->dp_leaves_mean },
		{ "dp_tops_mean", &rp->dp_tops_mean },
	};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
	const rmi_ynode *n;
	for (size_t i = 0; st == RM_OK && i < COUNT(u64s); i++)
		if ((n = rmi_y_get(v, u64s[i].k)))
			st = rmi_y_u64(n, file, u64s[i].k, 0, UINT64_MAX,
				       u64s[i].p, err);
	for (size_t i = 0; st == RM_OK && i < COUNT(u32s); i++) {
		uint64_t x = 0;
		if ((n = rmi_y_get(v, u32s[i].k)))
			st = rmi_y_u64(n, file, u32s[i].k, 0, UINT32_MAX, &x,
				       err);
		if (n && st == RM_OK)
			*u32s[i].p = (uint32_t)x;
	}
	for (size_t i = 0; st == RM_OK && i < COUNT(bools); i++)
		if ((n = rmi_y_get(v, bools[i].k)))
			st = rmi_y_bool(n, file, bools[i].k, bools[i].p, err);
	for (size_t i = 0; st == RM_OK && i < COUNT(reals); i++)
		if ((n = rmi_y_get(v, reals[i].k)))
			st = rmi_y_double(n, file, reals[i].k, 0, 1e15,
					  reals[i].p, err);
#undef COUNT
	if (st || !(n = rmi_y_get(v, "warnings")))
		return st;
	if ((st = rmi_y_kind(n, file, "warnings", RMI_Y_SEQ, err)))
		return st;
	if (n->n > 100000)
		return rmi_err_at(err, RM_EINPUT, file, n->line, n->col,
				  "more than 100000 warnings");
	rp->warning = calloc(n->n + 1, sizeof(char *));
	if (!rp->warning)
		return rmi_err(err, RM_ENOMEM, "%s: out of memory", file);
	for (size_t i = 0; i < n->n && st == RM_OK; i++) {
		const rmi_ynode *w = n->item[i];
		const char *t;
		if ((st = rmi_y_str(w, file, "warning", &t, err)))
			break;
		if (strlen(t) != w->len || w->len > 4096)
			return rmi_err_at(err, RM_EINPUT, file, w->line, w->col,
					  "warning must be at most 4096 bytes "
					  "without NUL");
		if (!(rp->warning[i] = strdup(t)))
			return rmi_err(err, RM_ENOMEM, "%s: out of memory",
				       file);
		rp->nwarning = i + 1;
	}
	return st;
}

