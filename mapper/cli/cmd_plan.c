/* cmd_plan.c - `rankmap plan`: compute the rank map for a job. */
#include "common.h"
#include "mapio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
	fputs("usage: rankmap plan --layout L [--order O]\n"
	      "         (--nodes HOSTLIST | --nodes-file F | Slurm env)\n"
	      "         [--topology F] [--site F] [--gpus-per-node N]\n"
	      "         [--allow-missing] [--baseline] [-o FILE]\n"
	      "         [--format text|json|yaml|csv|env|html|svg] [--rank N]\n\n"
	      "  --layout L         8x16x128 (TP x PP x DP, innermost first) or\n"
	      "                     tp=8,cp=2,pp=4,dp=auto\n"
	      "  --order O          rank numbering: megatron, llama3, torchtitan\n"
	      "                     or a permutation like tp-dp-pp (default: the\n"
	      "                     site's order, else the layout's nesting)\n"
	      "  --nodes HOSTLIST   the allocation, e.g. gpu[001-128]; default\n"
	      "                     SLURM_STEP_NODELIST, then SLURM_JOB_NODELIST\n"
	      "  --nodes-file F     one host or hostlist per line, '#' comments\n"
	      "  --topology F       Slurm topology.conf (default: the site's)\n"
	      "  --site F           site file (rankmap-site/1 YAML)\n"
	      "  --gpus-per-node N  default: the site's, else 8\n"
	      "  --allow-missing    nodes absent from the topology get a leaf of\n"
	      "                     their own instead of an error\n"
	      "  --baseline         plan what Slurm's block order would give\n"
	      "                     (html, svg: drawn beside the plan)\n"
	      "  -o FILE            write atomically to FILE instead of stdout\n"
	      "  --format F         text (default), json, yaml, csv, env; html\n"
	      "                     (interactive page) or svg: a picture\n"
	      "  --rank N           with --format env: the variables of task N\n\n"
	      "exit: 0 all must-rules hold, 1 one fails, 2 usage or input error\n",
	      f);
}

static int plan(const rmc_opts *o, rmc_inputs *in)
{
	rm_format fmt = RM_FMT_TEXT;
	rm_error e;
	memset(&e, 0, sizeof(e));
	if (o->format && rm_format_parse(o->format, &fmt, &e) != RM_OK)
		return rmc_fail(&e);
	if (o->rank >= 0 && fmt != RM_FMT_ENV)
		return rmc_usage("--rank goes with --format env");
	if (!o->layout)
		return rmc_usage("--layout is required (e.g. --layout 8x16x128)");
	int rc;
	if ((rc = rmc_load_fabric(o, in)) || (rc = rmc_load_layout(o, in)) ||
	    (rc = rmc_load_nodes(o, in, true)))
		return rc;
	rm_plan_opts po = {
		.layout = &in->layout,
		.order = &in->order,
		.nodes = (const char *const *)in->nodes.host,
		.nnodes = in->nodes.n,
		.gpus_per_node = in->gpus_per_node,
		.fabric = in->fabric,
		.allow_missing = o->allow_missing ||
				 (in->have_site && in->site.allow_missing_nodes),
		.exact = false,
		.baseline = o->baseline,
	};
	rm_map *map = NULL, *base = NULL;
	bool picture = fmt == RM_FMT_HTML || fmt == RM_FMT_SVG;
	/* A picture puts the baseline beside the plan of the same job. */
	po.baseline = o->baseline && !picture;
	if (rm_plan(&po, &map, &e) != RM_OK)
		return rmc_fail(&e);
	po.baseline = true;
	if (picture && o->baseline && rm_plan(&po, &base, &e) != RM_OK) {
		rm_map_free(map);
		return rmc_fail(&e);
	}
	char *text = NULL;
	size_t len = 0;
	rm_status st;
	if (picture) {
		rm_picture_opts pic = { .format = fmt, .fabric = in->fabric,
					.baseline = base };
		st = rm_map_picture(map, &pic, &text, &len, &e);
		rm_map_free(base);
	} else if (fmt == RM_FMT_ENV && o->rank >= 0) {
		rmi_buf b;
		rmi_buf_init(&b);
		st = rmi_map_env(map, o->rank, &b, &e);
		if (st == RM_OK && !(text = rmi_buf_take(&b, &len)))
			st = rmi_err(&e, RM_ENOMEM, "out of memory");
		rmi_buf_free(&b);
	} else {
		st = rm_map_write(map, fmt, &text, &len, &e);
	}
	bool ok = map->report.must_ok;
	rm_map_free(map);
	if (st != RM_OK)
		return rmc_fail(&e);
	rc = rmc_output(o->output, text, len);
	free(text);
	if (rc)
		return rc;
	return ok ? RMC_OK : RMC_RULE_FAILED;
}

int rmc_plan(int argc, char **argv)
{
	const unsigned mask = RMC_O_LAYOUT | RMC_O_ORDER | RMC_O_NODES |
			      RMC_O_TOPOLOGY | RMC_O_SITE | RMC_O_GPN |
			      RMC_O_MISSING | RMC_O_BASELINE | RMC_O_OUTPUT |
			      RMC_O_FORMAT | RMC_O_RANK;
	return rmc_command("plan", mask, argc, argv, help, plan);
}
