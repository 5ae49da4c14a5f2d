/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan.c - from a step's inputs to its map file. srun and every node run
 * this same function on the same inputs; the digest tells them apart when a
 * node's files differ.
 */
#include "rms.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void rms_plan_init(rms_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->site = NULL;
}

void rms_plan_free(rms_plan *p)
{
	rm_site_free(p->site);
	rm_fabric_free(p->fabric);
	rm_map_free(p->map);
	rm_hostlist_clear(&p->nodes);
	free(p->json);
	free(p->warning);
	rms_plan_init(p);
}

static bool fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return false;
}

/*
 * An order alone (the option callback, before the step's layout is known)
 * is checked for what it is, not against a stand-in layout: a name the
 * parser knows (torchtitan, megatron...), "nest", or distinct axis names
 * joined by "-". Whether it fits the layout is checked once both are
 * known: in srun's plan, and in sbatch/salloc when both options are given.
 */
static bool order_alone(const char *order, char *err, size_t errlen)
{
	rm_layout l;
	rm_order o;
	rm_error e;
	memset(&e, 0, sizeof(e));
	if (!strchr(order, '-')) {
		/* A named order keeps the axes the layout has: one layout
		 * with every axis, one without ep (torchtitan has none). */
		static const char *const probes[] = {
			"tp=2,cp=2,ep=2,pp=2,dp=2", "tp=2,cp=2,pp=2,dp=2"
		};
		for (size_t i = 0; i < 2; i++)
			if (rm_layout_parse(probes[i], &l, &e) == RM_OK &&
			    rm_order_parse(order, &l, &o, &e) == RM_OK)
				return true;
		return fail(err, errlen, "--parallel-order: %s", e.msg);
	}
	unsigned seen = 0;
	for (const char *p = order; *p;) {
		size_t n = strcspn(p, "-");
		int a = rm_axis_from_name(p, n);
		char q[96];
		if (a < 0 || n == 0)
			return fail(err, errlen, "--parallel-order: %s: %s is not "
				    "an axis (tp, cp, ep, pp, dp)",
				    rm_quote(order, strlen(order), q, sizeof(q)),
				    rm_quote(p, n, q + 48, sizeof(q) - 48));
		if (seen & (1u << a))
			return fail(err, errlen, "--parallel-order: %s names %.*s "
				    "twice", rm_quote(order, strlen(order), q,
						       sizeof(q)), (int)n, p);
		seen |= 1u << a;
		p += n;
		if (*p == '-')
			p++;
	}
	return true;
}

bool rms_check_syntax(const char *layout, const char *order, char *err,
		      size_t errlen)
{
	rm_layout l;
	rm_order o;
	rm_error e;
	memset(&e, 0, sizeof(e));
	if (layout) {
		if (strnlen(layout, RMS_MAX_OPT + 1) > RMS_MAX_OPT)
			return fail(err, errlen, "%s",
				    "--parallel-layout: longer than 256 bytes");
		if (rm_layout_parse(layout, &l, &e) != RM_OK)
			return fail(err, errlen, "--parallel-layout: %s", e.msg);
	}
	if (order) {
		if (strnlen(order, RMS_MAX_OPT + 1) > RMS_MAX_OPT)
			return fail(err, errlen, "%s",
				    "--parallel-order: longer than 256 bytes");
		if (!layout)
			return order_alone(order, err, errlen);
		if (rm_order_parse(order, &l, &o, &e) != RM_OK)
			return fail(err, errlen, "--parallel-order=%.64s with "
				    "--parallel-layout=%.64s: %s", order, layout,
				    e.msg);
	}
	return true;
}

bool rms_uniform_tasks(const char *spec, uint32_t nnodes, uint32_t *per_node,
		       char *err, size_t errlen)
{
	/* Slurm writes counts per node as "8(x4)" or "5,1(x3)". */
	uint64_t first = 0, seen = 0;
	bool uneven = false;
	const char *p = spec;
	if (!spec || !*spec)
		return fail(err, errlen, "%s",
			    "the step's tasks per node are unknown "
			    "(no SLURM_STEP_TASKS_PER_NODE)");
	while (*p) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(p, &end, 10);
		unsigned long long rep = 1;
		if (end == p || errno || n == 0 || n > 1u << 20)
			goto bad;
		p = end;
		if (*p == '(') {
			if (p[1] != 'x')
				goto bad;
			errno = 0;
			rep = strtoull(p + 2, &end, 10);
			if (end == p + 2 || errno || *end != ')' || rep == 0 ||
			    rep > RM_MAX_HOSTS)
				goto bad;
			p = end + 1;
		}
		if (!first)
			first = n;
		else if (n != first)
			uneven = true;
		seen += rep;
		if (seen > RM_MAX_HOSTS)
			goto bad;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (uneven) {
		snprintf(err, errlen,
			 "tasks per node are uneven (%.64s): every node must "
			 "run the same number of tasks; use --ntasks-per-node",
			 spec);
		return false;
	}
	if (nnodes && seen != nnodes) {
		snprintf(err, errlen,
			 "tasks per node %.64s do not cover the step's %" PRIu32
			 " nodes", spec, nnodes);
		return false;
	}
	*per_node = (uint32_t)first;
	return true;
bad:
	snprintf(err, errlen, "cannot read the tasks per node %.64s", spec);
	return false;
}

/* The digest of a file's bytes ("" without a file), so that a node can
 * say which of its inputs differs from srun's. */
static bool file_sha(const char *path, char hex[65], char *err, size_t errlen)
{
	hex[0] = 0;
	if (!path)
		return true;
	char *data = NULL;
	size_t len = 0;
	rm_error e;
	memset(&e, 0, sizeof(e));
	if (rm_file_read(path, &data, &len, &e) != RM_OK)
		return fail(err, errlen, "%s", e.msg);
	rm_sha256_hex(data, len, hex);
	free(data);
	return true;
}

static bool load_fabric(const rms_conf *conf, const char *partition,
			rms_plan *p, char *err, size_t errlen)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	if (conf->site) {
		if (rm_site_load(conf->site, &p->site, &e) != RM_OK)
			return fail(err, errlen, "site file: %s", e.msg);
		p->have_site = true;
	}
	/* An explicit file, the site's, else what slurmctld reads beside
	 * slurm.conf: topology.yaml before topology.conf. */
	const char *given = NULL;
	if (conf->topology && !conf->topology_default)
		given = conf->topology;
	else if (p->have_site && rm_site_topology(p->site))
		given = rm_site_topology(p->site);
	rm_slurm_topology t;
	if (rm_slurm_topology_find(conf->slurm_conf, partition, given, &t,
				   &e) != RM_OK)
		return fail(err, errlen, "%s", e.msg);
	const char *topo = t.path;
	bool ok = file_sha(conf->site, p->site_sha256, err, errlen) &&
		  file_sha(topo, p->topology_sha256, err, errlen);
	if (ok && (topo || p->have_site) &&
	    (rm_fabric_new(&p->fabric, &e) != RM_OK ||
	     rm_fabric_load_slurm_topology(p->fabric, &t, &e) != RM_OK ||
	     (p->have_site &&
	      rm_fabric_apply_site(p->fabric, p->site, &e) != RM_OK)))
		ok = fail(err, errlen, "%s", e.msg);
	rm_slurm_topology_clear(&t);
	return ok;
}

static bool policy(rms_plan *p, char *err, size_t errlen)
{
	const rm_report *r = rm_map_report(p->map);
	int64_t max_pp = p->site ? rm_site_max_pp_crossings(p->site) : -1;
	uint64_t cross = rm_report_count(r, RM_REPORT_PP_CROSS);
	char why[512] = "";
	if (!rm_report_count(r, RM_REPORT_MUST_OK))
		snprintf(why, sizeof(why),
			 "the placement breaks a must-rule (%s)",
			 rm_report_warning_count(r) ? rm_report_warning(r, 0)
						    : "see rankmap check");
	else if (max_pp >= 0 && cross > (uint64_t)max_pp)
		snprintf(why, sizeof(why),
			 "%" PRIu64 " pipeline neighbour pairs cross a leaf "
			 "switch, above the site's max_pp_crossings of %" PRId64
			 " (at best %" PRIu64 " with these nodes)",
			 cross, max_pp,
			 rm_report_count(r, RM_REPORT_PP_CROSS_BOUND));
	if (!why[0] || p->enforce == RM_ENFORCE_OFF)
		return true;
	if (p->enforce == RM_ENFORCE_STRICT) {
		snprintf(err, errlen, "refused by the site policy: %s", why);
		return false;
	}
	p->warning = strdup(why);
	return true;
}

bool rms_plan_step(const rms_conf *conf, const rms_step *s, rms_plan *p,
		   char *err, size_t errlen)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	char q[96];
	if (!s->layout || !s->nodelist)
		return fail(err, errlen, "%s", "no layout or no node list");
	if (!rms_check_syntax(s->layout, s->order, err, errlen))
		return false;
	if (rm_hostlist_parse(s->nodelist, &p->nodes, &e) != RM_OK)
		return fail(err, errlen, "the step's node list: %s", e.msg);
	if (s->nnodes && p->nodes.n != s->nnodes) {
		/* The step's node list covering more nodes than its part
		 * here is what a heterogeneous step looks like on a node
		 * when SLURM_HET_SIZE did not reach it. */
		snprintf(err, errlen, "the node list %s names %zu nodes, the "
			 "step has %" PRIu32 " here: a heterogeneous step "
			 "(srun ... : ..., --het-group), which --parallel-layout "
			 "does not support; submit the layout step as a job of "
			 "its own",
			 rm_quote(s->nodelist, strlen(s->nodelist), q,
				   sizeof(q)), p->nodes.n, s->nnodes);
		return false;
	}
	if (!rms_uniform_tasks(s->tasks_per_node, (uint32_t)p->nodes.n,
			       &p->tasks_per_node, err, errlen))
		return false;
	if ((uint64_t)p->tasks_per_node * p->nodes.n != s->ntasks) {
		snprintf(err, errlen, "tasks per node %.64s do not add up to "
			 "the step's %" PRIu32 " tasks", s->tasks_per_node,
			 s->ntasks);
		return false;
	}
	if (!load_fabric(conf, s->partition, p, err, errlen))
		return false;
	p->enforce = conf->enforce >= 0 ? (rm_enforce)conf->enforce
		     : p->have_site    ? rm_site_enforce(p->site)
				       : RM_ENFORCE_WARN;

	rm_layout l;
	rm_order o;
	if (rm_layout_parse(s->layout, &l, &e) != RM_OK)
		return fail(err, errlen, "--parallel-layout: %s", e.msg);
	const char *site_order = p->site ? rm_site_order(p->site) : "";
	const char *order = s->order && *s->order ? s->order
			    : conf->order	   ? conf->order
			    : site_order[0]	   ? site_order
						   : NULL;
	if (rm_order_parse(order, &l, &o, &e) != RM_OK)
		return fail(err, errlen, "--parallel-order: %s", e.msg);
	rm_layout resolved;
	if (!rm_step_fit(s->layout, &l, p->have_site ? p->site : NULL,
			 p->nodes.n, p->tasks_per_node, &p->nproc, &resolved,
			 err, errlen))
		return false;
	uint32_t gpn = p->nproc ? p->nproc : p->tasks_per_node;
	rm_layout_format(&resolved, p->layout_text, sizeof(p->layout_text));
	rm_order_format(&o, p->order_text, sizeof(p->order_text));
	/* The same call `rankmap plan` makes, so that the CLI reproduces the
	 * step's map byte for byte from the same inputs. */
	rm_plan_options po = {
		.version = RM_PLAN_OPTIONS_VERSION,
		.layout = &l,
		.order = &o,
		.nodes = (const char *const *)p->nodes.host,
		.nnodes = p->nodes.n,
		.gpus_per_node = gpn,
		.fabric = p->fabric,
		.allow_missing = p->site &&
				 rm_site_allow_missing_nodes(p->site),
		.exact = false,
	};
	if (rm_plan(&po, &p->map, &e) != RM_OK)
		return fail(err, errlen, "%s", e.msg);
	if (p->nproc && !rms_per_node_check(p->map, p->nproc, err, errlen))
		return false;
	if (!policy(p, err, errlen))
		return false;
	if (rm_map_write(p->map, RM_FMT_JSON, &p->json, &p->json_len, &e) !=
	    RM_OK)
		return fail(err, errlen, "%s", e.msg);
	rm_sha256_hex(p->json, p->json_len, p->json_sha256);
	return true;
}
