/* SPDX-License-Identifier: Apache-2.0 */
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
		"ep_split", "cp_must", "ep_must", "ep_scored", "pp_pairs", "pp_same_node",
		"pp_same_leaf", "pp_same_rail", "pp_cross",
		"pp_cross_lower_bound", "pp_bound_exact", "pp_cross_top",
		"pp_cross_top_lower_bound", "pp_rail_aligned", "dp_pairs",
		"dp_rail_aligned", "dp_groups", "dp_leaves_max",
		"dp_leaves_mean", "dp_tops_max", "dp_tops_mean",
		"pp_cross_pod", "pp_cross_spine", "ep_groups", "ep_leaves_max",
		"ep_leaves_mean", "ep_tops_max", "ep_tops_mean", "gpus_idle",
		"nodes_part_idle", "warnings", NULL
	};
	rm_status st = rmi_y_keys(v, file, "validation", keys, err);
	/* One table, so that the first bad field in this order is the one
	 * reported, as it always was. */
	enum { U64, U32, BOOL, REAL };
	const struct {
		const char *k;
		int kind;
		void *p;
	} f[] = {
		{ "tp_groups", U64, &rp->tp_groups },
		{ "tp_split", U64, &rp->tp_split },
		{ "cp_split", U64, &rp->cp_split },
		{ "ep_split", U64, &rp->ep_split },
		{ "pp_pairs", U64, &rp->pp_pairs },
		{ "pp_same_node", U64, &rp->pp_same_node },
		{ "pp_same_leaf", U64, &rp->pp_same_leaf },
		{ "pp_same_rail", U64, &rp->pp_same_rail },
		{ "pp_cross", U64, &rp->pp_cross },
		{ "pp_cross_lower_bound", U64, &rp->pp_cross_lower_bound },
		{ "pp_cross_top", U64, &rp->pp_cross_top },
		{ "pp_cross_top_lower_bound", U64,
		  &rp->pp_cross_top_lower_bound },
		{ "pp_rail_aligned", U64, &rp->pp_rail_aligned },
		{ "dp_pairs", U64, &rp->dp_pairs },
		{ "dp_rail_aligned", U64, &rp->dp_rail_aligned },
		{ "world", U32, &rp->world },
		{ "dp_groups", U32, &rp->dp_groups },
		{ "dp_leaves_max", U32, &rp->dp_leaves_max },
		{ "dp_tops_max", U32, &rp->dp_tops_max },
		{ "pp_cross_pod", U64, &rp->pp_cross_pod },
		{ "pp_cross_spine", U64, &rp->pp_cross_spine },
		{ "ep_groups", U32, &rp->ep_groups },
		{ "ep_leaves_max", U32, &rp->ep_leaves_max },
		{ "ep_tops_max", U32, &rp->ep_tops_max },
		{ "gpus_idle", U32, &rp->gpus_idle },
		{ "nodes_part_idle", U32, &rp->nodes_part_idle },
		{ "must_ok", BOOL, &rp->must_ok },
		{ "cp_must", BOOL, &rp->cp_must },
		{ "ep_must", BOOL, &rp->ep_must },
		{ "ep_scored", BOOL, &rp->ep_scored },
		{ "pp_bound_exact", BOOL, &rp->pp_bound_exact },
		{ "dp_leaves_mean", REAL, &rp->dp_leaves_mean },
		{ "dp_tops_mean", REAL, &rp->dp_tops_mean },
		{ "ep_leaves_mean", REAL, &rp->ep_leaves_mean },
		{ "ep_tops_mean", REAL, &rp->ep_tops_mean },
	};
	const rmi_ynode *n;
	for (size_t i = 0; st == RM_OK && i < sizeof(f) / sizeof(f[0]); i++) {
		uint64_t x = 0;
		if (!(n = rmi_y_get(v, f[i].k)))
			continue;
		switch (f[i].kind) {
		case U64:
			st = rmi_y_u64(n, file, f[i].k, 0, UINT64_MAX, f[i].p,
				       err);
			break;
		case U32:
			st = rmi_y_u64(n, file, f[i].k, 0, UINT32_MAX, &x, err);
			if (!st)
				*(uint32_t *)f[i].p = (uint32_t)x;
			break;
		case BOOL:
			st = rmi_y_bool(n, file, f[i].k, f[i].p, err);
			break;
		default:
			st = rmi_y_double(n, file, f[i].k, 0, 1e15, f[i].p,
					  err);
		}
	}
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

