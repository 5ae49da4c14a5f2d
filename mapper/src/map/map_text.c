/* SPDX-License-Identifier: Apache-2.0 */
/*
 * map_text.c - the map as a report for people: what was placed where, per
 * tier, and whether the rules hold. Machines read the JSON; this is for the
 * person deciding whether to launch.
 */
#include "map/mapio.h"

#include <stdlib.h>
#include <string.h>

/*
 * Dense ids for the distinct names in `names` (NULL entries get -1).
 * Returns the number of distinct names, or -1 when out of memory.
 */
static int64_t intern(char *const *names, uint32_t n, int64_t *id)
{
	rmi_named *v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return -1;
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		id[i] = -1;
		if (names && names[i])
			v[k++] = (rmi_named){ names[i], i };
	}
	qsort(v, k, sizeof(*v), rmi_named_cmp);
	int64_t distinct = 0;
	for (uint32_t i = 0; i < k; i++) {
		if (i && strcmp(v[i].name, v[i - 1].name))
			distinct++;
		id[v[i].ix] = distinct;
	}
	free(v);
	return k ? distinct + 1 : 0;
}

const char *rmi_pp_bound_words(const rm_report *r, char *buf, size_t n)
{
	uint64_t x = r->pp_cross, lb = r->pp_cross_lower_bound;
	/* Twice the bound is far enough from it to be worth a placement
	 * whatever the bound's slack: say so rather than "not proven". */
	if (x <= lb)
		snprintf(buf, n, "optimal");
	else if (lb > 0 && x / 2 >= lb)
		snprintf(buf, n, "at least twice its lower bound (%llu vs "
			 "bound %llu)", (unsigned long long)x,
			 (unsigned long long)lb);
	else
		snprintf(buf, n, "not proven optimal");
	return buf;
}

static void line(rm_buf *b, const char *label)
{
	rm_buf_printf(b, "  %-16s", label);
}

static void rule(rm_buf *b, bool ok, const char *what)
{
	rm_buf_printf(b, "  %s  %s", ok ? "PASS" : "FAIL", what);
}

/* Replicas (one DP index each) whole inside one leaf vs spread. */
static void replicas(rm_buf *b, const rm_map *m, const int64_t *leaf)
{
	uint32_t n = m->layout.size[RM_AXIS_DP];
	int64_t *first = malloc((n ? n : 1) * sizeof(*first));
	unsigned char *split = calloc(n ? n : 1, 1);
	if (!first || !split || !n) {
		free(first);
		free(split);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		first[i] = -2;
	for (uint32_t r = 0; r < m->world; r++) {
		uint32_t d = m->rank[r].coord[RM_AXIS_DP];
		if (d >= n || m->rank[r].node >= m->nhost)
			continue;
		int64_t l = leaf[m->rank[r].node];
		if (first[d] == -2)
			first[d] = l;
		else if (first[d] != l || l < 0)
			split[d] = 1;
	}
	uint32_t nsplit = 0;
	for (uint32_t i = 0; i < n; i++)
		nsplit += split[i];
	line(b, "replicas");
	rm_buf_printf(b, "%u (one per DP index): %u whole in one leaf, "
		       "%u spread over leaves\n", n, n - nsplit, nsplit);
	free(first);
	free(split);
}

static void placement(rm_buf *b, const rm_map *m)
{
	const rm_report *r = &m->report;
	line(b, "nodes");
	rm_buf_printf(b, "%u used, %u GPUs each, %u spare", m->nhost,
		       m->gpus_per_node, m->nspare);
	char *spares = NULL;
	if (m->nspare &&
	    rm_hostlist_format((const char *const *)m->spare, m->nspare,
			       &spares, NULL) == RM_OK && spares)
		rm_buf_printf(b, ": %s", spares);
	free(spares);
	if (r->gpus_idle) {
		rm_buf_printf(b, "; %u GPUs idle on %u partly used nodes",
			       r->gpus_idle, r->nodes_part_idle);
		/* idle GPUs that would fill a node: the planner chose them
		 * over a whole spare node (fewer leaf crossings) */
		if (r->gpus_idle >= m->gpus_per_node)
			rm_buf_puts(b, " (rather than a whole node spare: "
				       "fewer PP crossings)");
	}
	rm_buf_puts(b, "\n");

	int64_t *leaf = malloc(((size_t)m->nhost + 1) * sizeof(*leaf));
	int64_t *unit = malloc(((size_t)m->nhost + 1) * sizeof(*unit));
	int64_t nleaf = leaf ? intern(m->host_leaf, m->nhost, leaf) : -1;
	int64_t nunit = unit ? intern(m->host_unit, m->nhost, unit) : -1;
	line(b, "leaves");
	if (nleaf > 0)
		rm_buf_printf(b, "%lld used", (long long)nleaf);
	else
		rm_buf_puts(b, "not known (no topology)");
	if (nunit > 0)
		rm_buf_printf(b, ", %lld rail units", (long long)nunit);
	rm_buf_puts(b, "\n");
	line(b, "NVLink domain");
	rm_buf_printf(b, "%llu TP groups, %llu leave their domain\n",
		       (unsigned long long)r->tp_groups,
		       (unsigned long long)r->tp_split);
	line(b, "pipeline");
	rm_buf_printf(b, "%llu neighbour pairs: %llu same node, %llu same "
		       "leaf, %llu same rail, %llu cross (lower bound %llu)\n",
		       (unsigned long long)r->pp_pairs,
		       (unsigned long long)r->pp_same_node,
		       (unsigned long long)r->pp_same_leaf,
		       (unsigned long long)r->pp_same_rail,
		       (unsigned long long)r->pp_cross,
		       (unsigned long long)r->pp_cross_lower_bound);
	line(b, "pipeline tiers");
	rm_buf_printf(b, "%llu in a node, %llu in a leaf or rail, %llu across "
		       "leaves in a pod, %llu across pods (spine)\n",
		       (unsigned long long)r->pp_same_node,
		       (unsigned long long)(r->pp_same_leaf + r->pp_same_rail),
		       (unsigned long long)r->pp_cross_pod,
		       (unsigned long long)r->pp_cross_spine);
	if (r->tops > 1 || r->pp_cross_top) {
		line(b, "pods");
		rm_buf_printf(b, "%llu PP pairs leave their top-level subtree "
			       "(lower bound %llu)\n",
			       (unsigned long long)r->pp_cross_top,
			       (unsigned long long)r->pp_cross_top_lower_bound);
	}
	if (nleaf > 0)
		replicas(b, m, leaf);
	free(leaf);
	free(unit);
	line(b, "data parallel");
	rm_buf_printf(b, "%u DP groups span at most %u leaves (mean %.2f) "
		       "and %u top-level subtrees (mean %.2f)\n", r->dp_groups,
		       r->dp_leaves_max, r->dp_leaves_mean, r->dp_tops_max,
		       r->dp_tops_mean);
	if (r->ep_groups) {
		line(b, "expert parallel");
		rm_buf_printf(b, "%u EP groups span at most %u leaves (mean "
			       "%.2f) and %u top-level subtrees (mean %.2f)\n",
			       r->ep_groups, r->ep_leaves_max, r->ep_leaves_mean,
			       r->ep_tops_max, r->ep_tops_mean);
	}
	line(b, "rail alignment");
	rm_buf_printf(b, "PP %llu of %llu pairs, DP %llu of %llu pairs\n",
		       (unsigned long long)r->pp_rail_aligned,
		       (unsigned long long)r->pp_pairs,
		       (unsigned long long)r->dp_rail_aligned,
		       (unsigned long long)r->dp_pairs);
}

static void rules(rm_buf *b, const rm_report *r)
{
	char what[160];
	snprintf(what, sizeof(what),
		 "TP groups inside one NVLink domain (%llu of %llu split)\n",
		 (unsigned long long)r->tp_split,
		 (unsigned long long)r->tp_groups);
	rule(b, r->tp_split == 0, what);
	if (r->cp_must) {
		snprintf(what, sizeof(what),
			 "CP groups inside one NVLink domain (%llu split)\n",
			 (unsigned long long)r->cp_split);
		rule(b, r->cp_split == 0, what);
	}
	if (r->ep_must) {
		snprintf(what, sizeof(what),
			 "EP groups inside one NVLink domain (%llu split)\n",
			 (unsigned long long)r->ep_split);
		rule(b, r->ep_split == 0, what);
	}
	/* A soft goal where EP is no must-rule: reported, never failed. */
	if (r->ep_scored)
		rm_buf_printf(b,
			      "  %s  EP groups cut across NVLink domains: %llu of %llu\n",
			      r->ep_split ? "CUT " : "PASS",
			      (unsigned long long)r->ep_split,
			      (unsigned long long)r->ep_groups);
	/* A should-rule: reported, never failed. */
	char words[128];
	rm_buf_printf(b, "  %s  PP crossings %llu, lower bound %llu: %s\n",
		       r->pp_cross <= r->pp_cross_lower_bound ? "BEST" : "MORE",
		       (unsigned long long)r->pp_cross,
		       (unsigned long long)r->pp_cross_lower_bound,
		       rmi_pp_bound_words(r, words, sizeof(words)));
	rm_buf_printf(b, "  all must-rules hold: %s\n",
		       r->must_ok ? "yes" : "NO");
}

rm_status rmi_map_text(const rm_map *m, rm_buf *b, rm_error *err)
{
	char layout[256], order[128];
	rm_layout_format(&m->layout, layout, sizeof(layout));
	rm_order_format(&m->order, order, sizeof(order));
	rm_buf_printf(b, "rankmap: %s = %u GPUs, rank order %s (%s)\n",
		       layout, m->world, m->order.name, order);
	rm_buf_puts(b, "\nplacement\n");
	placement(b, m);
	rm_buf_puts(b, "\nrules\n");
	rules(b, &m->report);
	if (m->report.nwarning) {
		rm_buf_puts(b, "\nwarnings\n");
		for (size_t i = 0; i < m->report.nwarning; i++)
			rm_buf_printf(b, "  - %s\n", m->report.warning[i]);
	}
	rm_buf_printf(b, "\ninputs sha256 %s\n", m->inputs_sha256);
	(void)err;
	return RM_OK;
}

static void row_u(rm_buf *b, const char *label, uint64_t x, uint64_t y)
{
	rm_buf_printf(b, "  %-32s %12llu %12llu\n", label,
		       (unsigned long long)x, (unsigned long long)y);
}

static void row_f(rm_buf *b, const char *label, double x, double y)
{
	rm_buf_printf(b, "  %-32s %12.2f %12.2f\n", label, x, y);
}

void rm_report_compare_text(rm_buf *b, const rm_report *a,
			     const char *name_a, const rm_report *c,
			     const char *name_c)
{
	rm_report_compare_priced_text(b, a, NULL, name_a, c, NULL, name_c);
}

void rm_report_compare_priced_text(rm_buf *b, const rm_report *a,
				   const rm_estimate *ea, const char *name_a,
				   const rm_report *c, const rm_estimate *ec,
				   const char *name_c)
{
	rm_buf_printf(b, "  %-32s %12.12s %12.12s\n", "", name_a, name_c);
	if (ea && ec) {
		rm_buf_printf(b, "  %-32s %12.3f %12.3f\n", "seconds per step",
			       ea->t_step, ec->t_step);
		rm_buf_printf(b, "  %-32s %12.1f %12.1f\n", "MFU, %",
			       100 * ea->mfu, 100 * ec->mfu);
	}
	rm_buf_printf(b, "  %-32s %12s %12s\n", "all must-rules hold",
		       a->must_ok ? "yes" : "NO", c->must_ok ? "yes" : "NO");
	row_u(b, "world size", a->world, c->world);
	row_u(b, "TP groups", a->tp_groups, c->tp_groups);
	row_u(b, "TP groups leaving NVLink domain", a->tp_split, c->tp_split);
	if (a->cp_must || c->cp_must)
		row_u(b, "CP groups leaving NVLink domain", a->cp_split,
		      c->cp_split);
	if (a->ep_must || c->ep_must)
		row_u(b, "EP groups leaving NVLink domain", a->ep_split,
		      c->ep_split);
	row_u(b, "PP neighbour pairs", a->pp_pairs, c->pp_pairs);
	row_u(b, "PP pairs on the same node", a->pp_same_node,
	      c->pp_same_node);
	row_u(b, "PP pairs on the same leaf", a->pp_same_leaf,
	      c->pp_same_leaf);
	row_u(b, "PP pairs on the same rail", a->pp_same_rail,
	      c->pp_same_rail);
	row_u(b, "PP pairs crossing leaf/rail", a->pp_cross, c->pp_cross);
	row_u(b, "PP crossings lower bound", a->pp_cross_lower_bound,
	      c->pp_cross_lower_bound);
	row_u(b, "PP pairs leaving their pod", a->pp_cross_top,
	      c->pp_cross_top);
	row_u(b, "PP pairs per tier: node", a->pp_same_node, c->pp_same_node);
	row_u(b, "PP pairs per tier: leaf or rail",
	      a->pp_same_leaf + a->pp_same_rail,
	      c->pp_same_leaf + c->pp_same_rail);
	row_u(b, "PP pairs per tier: pod", a->pp_cross_pod, c->pp_cross_pod);
	row_u(b, "PP pairs per tier: spine", a->pp_cross_spine,
	      c->pp_cross_spine);
	row_u(b, "PP pairs rail-aligned", a->pp_rail_aligned,
	      c->pp_rail_aligned);
	row_u(b, "DP pairs rail-aligned", a->dp_rail_aligned,
	      c->dp_rail_aligned);
	row_u(b, "DP group leaves, max", a->dp_leaves_max, c->dp_leaves_max);
	row_f(b, "DP group leaves, mean", a->dp_leaves_mean, c->dp_leaves_mean);
	row_u(b, "DP group top subtrees, max", a->dp_tops_max, c->dp_tops_max);
	row_f(b, "DP group top subtrees, mean", a->dp_tops_mean,
	      c->dp_tops_mean);
	if (a->ep_groups || c->ep_groups) {
		row_u(b, "EP groups", a->ep_groups, c->ep_groups);
		row_u(b, "EP group leaves, max", a->ep_leaves_max,
		      c->ep_leaves_max);
		row_f(b, "EP group leaves, mean", a->ep_leaves_mean,
		      c->ep_leaves_mean);
		row_u(b, "EP group top subtrees, max", a->ep_tops_max,
		      c->ep_tops_max);
		row_f(b, "EP group top subtrees, mean", a->ep_tops_mean,
		      c->ep_tops_mean);
	}
	const rm_report *r[2] = { a, c };
	const char *name[2] = { name_a, name_c };
	char words[128];
	for (int i = 0; i < 2; i++)
		rm_buf_printf(b, "  %s PP crossings: %s\n", name[i],
			       rmi_pp_bound_words(r[i], words, sizeof(words)));
}
