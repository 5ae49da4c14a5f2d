/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_check.c - `rankmap check`: score a map, ours or a user's. */
#include "cmd_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
	fputs("usage: rankmap check (--map FILE | --assignment FILE --layout L\n"
	      "         [--order O] [--gpus-per-node N]) [--topology F] [--site F]\n"
	      "         [--no-site-config] [--nodes HOSTLIST | --nodes-file F]\n"
	      "         [--allow-missing]\n"
	      "         [--baseline [KINDS]] [--format text|json|html|svg] [-o FILE]\n"
	      "         [--model M [--batch TOKENS] [--hw H] ...]\n\n"
	      "  --map FILE         a rankmap-map/1 file (JSON or YAML)\n"
	      "  --assignment FILE  lines of `rank host local_gpu` (whitespace or\n"
	      "                     commas, '#' comments, optional header line)\n"
	      "  --layout, --order  how the assignment's ranks are numbered\n"
	      "  --topology F       Slurm topology.conf or topology.yaml (default:\n"
	      "                     the site's; without --site, what the SPANK\n"
	      "                     plugin gets, as for `rankmap plan`)\n"
	      "  --no-site-config   not the plugin's site file and topology\n"
	      "  --partition P      with a topology.yaml: partition P's topology\n"
	      "  --baseline [KINDS] also score what a job gets without rankmap over\n"
	      "                     the nodes (--nodes, else the map's own), side\n"
	      "                     by side: slurm (default: Slurm's block order),\n"
	      "                     sorted (a hostfile sorted by pod, leaf, name),\n"
	      "                     switch-rank (SwitchAsNodeRank); several:\n"
	      "                     slurm,sorted\n"
	      "  --format F         text (default), json; html or svg: a picture\n"
	      "                     (with --baseline beside the map)\n"
	      "  -o FILE            write atomically to FILE instead of stdout\n"
	      "  --model M          also price each map: seconds per step and MFU\n"
	      "                     on the links it uses (the model, hardware and\n"
	      "                     training options of `rankmap explain --help`,\n"
	      "                     but not --gpus: the map has its GPUs)\n\n"
	      "exit: 0 all must-rules hold, 1 one fails, 2 usage or input error\n",
	      f);
}

static int cmp_host(const void *a, const void *b)
{
	return rm_host_cmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Nodes for the baseline: the list given, else an assignment's hosts in the
 * order first seen (the user's own order), else a map's hosts and spares in
 * Slurm's natural order.
 */
static int baseline_nodes(const rmc_opts *o, rmc_inputs *in, const rm_map *m,
			  char ***out, size_t *n)
{
	/* foreign() has read them */
	(void)o;
	uint32_t nh = rm_map_host_count(m), ns = rm_map_spare_count(m);
	size_t k = in->nodes.n ? in->nodes.n : (size_t)nh + ns;
	char **v = calloc(k + 1, sizeof(char *));
	if (!v)
		return rmc_usage("out of memory");
	if (in->nodes.n) {
		memcpy(v, in->nodes.host, k * sizeof(char *));
	} else {
		/* borrowed from the map, which outlives v */
		for (uint32_t i = 0; i < nh; i++)
			v[i] = (char *)rm_map_host(m, i);
		for (uint32_t i = 0; i < ns; i++)
			v[nh + i] = (char *)rm_map_spare(m, i);
		if (o->map)
			qsort(v, k, sizeof(char *), cmp_host);
	}
	*out = v;
	*n = k;
	return RMC_OK;
}

/*
 * A map of another allocation or fabric scores like the right one, so
 * first: are its hosts the job's (the node list given, else the step's or
 * the job's), and does this fabric put them where the map says?
 */
static int foreign(const rmc_opts *o, rmc_inputs *in, const rm_map *m)
{
	int rc = rmc_load_nodes(o, in, false);
	if (rc)
		return rc;
	rm_error e;
	memset(&e, 0, sizeof(e));
	char *dn = NULL, *df = NULL;
	bool allow = o->allow_missing ||
		     (in->site && rm_site_allow_missing_nodes(in->site));
	if ((in->nodes.n &&
	     rm_map_compare_nodes(m, (const char *const *)in->nodes.host,
				  in->nodes.n, o->map != NULL, &dn, &e)) ||
	    rm_map_compare_fabric(m, in->fabric, allow, &df, &e)) {
		free(dn);
		return rmc_fail(&e);
	}
	if (!dn && !df)
		return RMC_OK;
	rmc_prefix(stderr);
	fprintf(stderr, "%s does not match the nodes and fabric it is checked against:\n",
		o->map ? o->map : o->assignment);
	for (const char *d = dn ? dn : df; d; d = d == dn ? df : NULL)
		for (const char *l = d; *l;) {
			const char *nl = strchr(l, '\n');
			int len = nl ? (int)(nl - l) : (int)strlen(l);
			fprintf(stderr, "  %.*s\n", len, l);
			l += len + (nl != NULL);
		}
	free(dn);
	free(df);
	return RMC_RULE_FAILED;
}

/* Each map priced by one model (check --model); est[1 + i] is baseline
 * i's. */
typedef struct priced {
	rmc_model_args *a;           /* NULL: no --model */
	rm_estimate *est[1 + RM_BASELINE_COUNT];   /* NULL: not priced */
	char by[160];                /* "llama3-405b on h100-sxm-80gb" */
} priced;

/* The explain report of the map, or the map and its baselines compared,
 * as JSON. */
static rm_status priced_json(rm_buf *b, const rmc_opts *o, const priced *p,
			     unsigned nb, rm_error *e)
{
	const rmc_model_args *a = p->a;
	char *text = NULL;
	size_t len = 0;
	rm_status st;
	if (nb && !rmc_baseline_plain(o))
		st = rm_estimate_baselines_write(
			&a->model, &a->hw, &a->train, p->est[0], "checked",
			(const rm_estimate *const *)p->est + 1,
			o->baseline_kind, nb, RM_FMT_JSON, &text, &len, e);
	else if (nb)
		st = rm_estimate_compare_write(&a->model, &a->hw, &a->train,
					       p->est[0], "checked", p->est[1],
					       "baseline", RM_FMT_JSON, &text,
					       &len, e);
	else
		st = rm_estimate_write(&a->model, &a->hw, &a->train,
				       p->est[0], RM_FMT_JSON, &text, &len, e);
	if (st)
		return st;
	while (len && text[len - 1] == '\n')
		len--;
	rm_buf_puts(b, ",\n  \"priced\": ");
	rm_buf_add(b, text, len);
	free(text);
	return RM_OK;
}

/* Under the text report: what the model makes of the map alone. */
static void priced_text(rm_buf *b, const priced *p, int i)
{
	const rm_estimate *x = p->est[i];
	rm_buf_printf(b, "\npriced by %s: %.3f s per step, MFU %.1f %%\n",
		       p->by, rm_estimate_step_seconds(x),
		       100 * rm_estimate_mfu(x));
	if (!rm_estimate_fits(x))
		rm_buf_printf(b, "  the layout does not fit memory (%.1f GiB per "
			       "GPU): see rankmap explain\n",
			       rm_estimate_memory_peak(x) /
				       (1024.0 * 1024 * 1024));
}

/* How the text report heads each baseline's comparison. */
static const char *compared_with(rm_baseline k)
{
	switch (k) {
	case RM_BASELINE_SORTED:
		return "Slurm's block order over the nodes sorted by pod, "
		       "leaf, name (a sorted hostfile)";
	case RM_BASELINE_SWITCH_RANK:
		return "Slurm's block order over the nodes in switch rank "
		       "order (TopologyParam=SwitchAsNodeRank)";
	default:
		return "Slurm's block order over the same nodes";
	}
}

static int render(const rmc_opts *o, rm_format fmt, rm_map *m,
		  rm_map *const *base, unsigned nb, const rm_fabric *fabric,
		  const priced *p)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	rm_buf b;
	rm_buf_init(&b);
	bool has = p->a != NULL;
	if (fmt == RM_FMT_HTML || fmt == RM_FMT_SVG) {
		char *pic = NULL;
		size_t len = 0;
		rm_picture_options po = RM_PICTURE_OPTIONS_INIT;
		po.format = fmt;
		po.fabric = fabric;
		po.baselines = (const rm_map *const *)base;
		po.baseline_kinds = o->baseline_kind;
		po.nbaselines = nb;
		po.estimate = has ? p->est[0] : NULL;
		po.baseline_estimates =
			has ? (const rm_estimate *const *)p->est + 1 : NULL;
		po.priced_by = has ? p->by : NULL;
		if (rm_map_picture(m, &po, &pic, &len, &e) != RM_OK) {
			rm_buf_clear(&b);
			return rmc_fail(&e);
		}
		rm_buf_add(&b, pic, len);
		free(pic);
	} else if (fmt == RM_FMT_JSON) {
		rm_buf_puts(&b, "{\n  \"schema\": \"rankmap-check/1\",\n"
				 "  \"source\": ");
		rm_buf_json_str(&b, o->map ? o->map : o->assignment);
		rm_buf_puts(&b, ",\n  \"map\": ");
		rm_report_json(&b, rm_map_report(m), 1);
		/* "baseline": the first asked for, as before kinds; then
		 * every one with its kind */
		if (nb) {
			rm_buf_puts(&b, ",\n  \"baseline\": ");
			rm_report_json(&b, rm_map_report(base[0]), 1);
		}
		if (nb && !rmc_baseline_plain(o)) {
			rm_buf_puts(&b, ",\n  \"baselines\": [");
			for (unsigned i = 0; i < nb; i++) {
				rm_buf_printf(&b, "%s\n    {\"kind\": \"%s\", "
					       "\"report\": ", i ? "," : "",
					       rm_baseline_name(
						       o->baseline_kind[i]));
				rm_report_json(&b, rm_map_report(base[i]), 2);
				rm_buf_puts(&b, "}");
			}
			rm_buf_puts(&b, "]");
		}
		if (has && priced_json(&b, o, p, nb, &e)) {
			rm_buf_clear(&b);
			return rmc_fail(&e);
		}
		rm_buf_puts(&b, "\n}\n");
	} else {
		char *text = NULL;
		size_t len = 0;
		if (rm_map_write(m, RM_FMT_TEXT, &text, &len, &e) != RM_OK) {
			rm_buf_clear(&b);
			return rmc_fail(&e);
		}
		rm_buf_add(&b, text, len);
		free(text);
		if (has && !nb)
			priced_text(&b, p, 0);
		for (unsigned i = 0; i < nb; i++) {
			rm_baseline k = o->baseline_kind[i];
			rm_buf_printf(&b, "\ncompared with %s", compared_with(k));
			if (has)
				rm_buf_printf(&b, ", priced by %s", p->by);
			rm_buf_puts(&b, "\n");
			rm_report_compare_priced_text(
				&b, rm_map_report(m), has ? p->est[0] : NULL,
				"checked", rm_map_report(base[i]),
				has ? p->est[1 + i] : NULL,
				rmc_baseline_plain(o) ? "baseline"
						      : rm_baseline_name(k));
		}
		if (has && nb) {
			rm_buf_puts(&b, "verdict: ");
			if (rmc_baseline_plain(o))
				rm_estimate_compare_verdict(&b, p->est[0],
							    "checked map",
							    p->est[1],
							    "baseline");
			else
				rm_estimate_baselines_verdict(
					&b, p->est[0], "checked map",
					(const rm_estimate *const *)p->est + 1,
					o->baseline_kind, nb);
			rm_buf_puts(&b, "\n");
			for (unsigned i = 0; i <= nb; i++)
				if (!rm_estimate_fits(p->est[i]))
					priced_text(&b, p, (int)i);
		}
	}
	int rc = b.oom ? rmc_usage("out of memory")
		       : rmc_output(o->output, b.data ? b.data : "", b.len);
	rm_buf_clear(&b);
	return rc;
}

/* Price the map and its baselines on the fabric they were scored on. */
static int price(priced *p, const rm_map *m, rm_map *const *base,
		 unsigned nb, const rm_fabric *fabric)
{
	const rmc_model_args *a = p->a;
	if (!a)
		return RMC_OK;
	rm_error e;
	memset(&e, 0, sizeof(e));
	snprintf(p->by, sizeof(p->by), "%s on %s", a->model.name, a->hw.name);
	if (rm_estimate_map(&a->model, &a->hw, &a->train, m, fabric,
			    &p->est[0], &e))
		return rmc_fail(&e);
	for (unsigned i = 0; i < nb; i++)
		if (rm_estimate_map(&a->model, &a->hw, &a->train, base[i],
				    fabric, &p->est[1 + i], &e))
			return rmc_fail(&e);
	return RMC_OK;
}

static int check(const rmc_opts *o, rmc_inputs *in, priced *p)
{
	rm_format fmt = RM_FMT_TEXT;
	rm_error e;
	memset(&e, 0, sizeof(e));
	if (o->format && (rm_format_parse(o->format, &fmt, &e) != RM_OK ||
			  fmt == RM_FMT_YAML || fmt == RM_FMT_CSV ||
			  fmt == RM_FMT_ENV))
		return rmc_usage("--format %.60s: check writes text, json, "
				 "html or svg", o->format);
	if (!!o->map == !!o->assignment)
		return rmc_usage("give --map FILE or --assignment FILE");
	if (o->map && (o->layout || o->order))
		return rmc_usage("--layout and --order go with "
				 "--assignment (a map file has its own)");
	int rc = rmc_load_fabric(o, in);
	if (!rc && p->a)
		rc = rmc_model_site_hw(p->a, in->site);
	if (rc)
		return rc;
	rm_map *m = NULL;
	if (o->map) {
		if (rm_map_read(o->map, &m, &e) != RM_OK)
			return rmc_fail(&e);
	} else {
		if ((rc = rmc_load_layout(o, in)))
			return rc;
		if (rm_map_read_assignment(o->assignment, &in->layout,
					   &in->order, in->gpus_per_node, &m,
					   &e) != RM_OK)
			return rmc_fail(&e);
		if (rm_map_locate(m, in->fabric, &e) != RM_OK) {
			rm_map_free(m);
			return rmc_fail(&e);
		}
	}
	if ((rc = foreign(o, in, m))) {
		rm_map_free(m);
		return rc;
	}
	if (rm_check(m, in->fabric, &e) != RM_OK) {
		rm_map_free(m);
		return rmc_fail(&e);
	}
	rm_map *base[RM_BASELINE_COUNT] = { 0 };
	unsigned nb = o->baseline ? o->nbaseline : 0;
	if (nb) {
		char **nodes = NULL;
		size_t n = 0;
		rc = baseline_nodes(o, in, m, &nodes, &n);
		if (rc) {
			rm_map_free(m);
			return rc;
		}
		rm_plan_options po = RM_PLAN_OPTIONS_INIT;
		po.layout = rm_map_layout(m);
		po.order = rm_map_order(m);
		po.nodes = (const char *const *)nodes;
		po.nnodes = n;
		po.gpus_per_node = rm_map_gpus_per_node(m);
		po.fabric = in->fabric;
		po.allow_missing = o->allow_missing ||
				   (in->site &&
				    rm_site_allow_missing_nodes(in->site));
		po.baseline = true;
		rm_status st = RM_OK;
		for (unsigned i = 0; i < nb && !st; i++) {
			po.baseline_kind = o->baseline_kind[i];
			st = rm_plan(&po, &base[i], &e);
		}
		free(nodes);
		if (st != RM_OK) {
			rm_map_free(m);
			for (unsigned i = 0; i < nb; i++)
				rm_map_free(base[i]);
			return rmc_fail(&e);
		}
	}
	rc = price(p, m, base, nb, in->fabric);
	if (!rc)
		rc = render(o, fmt, m, base, nb, in->fabric, p);
	bool ok = rm_report_count(rm_map_report(m), RM_REPORT_MUST_OK);
	rm_map_free(m);
	for (unsigned i = 0; i < nb; i++)
		rm_map_free(base[i]);
	if (rc)
		return rc;
	return ok ? RMC_OK : RMC_RULE_FAILED;
}

int rmc_check(int argc, char **argv)
{
	rmc_model_args a;
	int rc = rmc_model_parse(argc, argv, RMC_CHECK, &a, help);
	if (rc >= 0)
		return rc;
	priced p;
	memset(&p, 0, sizeof(p));
	p.a = a.model_spec ? &a : NULL;
	rmc_inputs in;
	rmc_inputs_init(&in);
	rc = check(&a.common, &in, &p);
	for (unsigned i = 0; i <= RM_BASELINE_COUNT; i++)
		rm_estimate_free(p.est[i]);
	rmc_flat_warning(&in, rc);
	rmc_order_warning(&in, rc);
	rmc_inputs_free(&in);
	return rc;
}
