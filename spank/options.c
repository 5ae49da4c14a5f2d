/* SPDX-License-Identifier: Apache-2.0 */
/*
 * options.c - --parallel-layout, --parallel-order, --parallel-export, the
 * plugin's plugstack.conf arguments, and the plan of the step they ask for.
 *
 * The callbacks run in srun, sbatch and salloc (where a -1 makes Slurm say
 * "Invalid --parallel-layout argument" and exit 255 before anything is
 * submitted) and twice on every node, where nothing they return is shown
 * to anyone: there they only record the value, and the node validates it
 * again before using it.
 */
#include "plugin.h"

#include <stdio.h>
#include <string.h>

enum { OPT_LAYOUT = 1, OPT_ORDER = 2, OPT_EXPORT = 3 };

static const char *opt_name(int val)
{
	return val == OPT_LAYOUT ? "layout"
	       : val == OPT_ORDER ? "order"
				  : "export";
}

static int take(int val, const char *optarg, int remote)
{
	char err[RMS_ERRLEN];
	const char *v = optarg ? optarg : "";
	if (strnlen(v, RMS_MAX_OPT + 1) > RMS_MAX_OPT) {
		rms_g.option_bad = true;
		if (!remote)
			slurm_error(RMS_PREFIX "--parallel-%s: longer than %d "
				    "bytes", opt_name(val), RMS_MAX_OPT);
		return remote ? 0 : -1;
	}
	if (val == OPT_EXPORT) {
		if (!strcmp(v, "slurm") || !strcmp(v, "rank")) {
			rms_g.export_slurm = !strcmp(v, "slurm");
			return 0;
		}
		rms_g.option_bad = true;
		if (!remote)
			slurm_error(RMS_PREFIX "--parallel-export=%s: rank or "
				    "slurm", v);
		return remote ? 0 : -1;
	}
	bool layout = val == OPT_LAYOUT;
	if (!layout && !*v) {
		/* An empty order would be the nest order, not the site's
		 * default that leaving the option out gives. */
		rms_g.option_bad = true;
		if (!remote)
			slurm_error(RMS_PREFIX "--parallel-order= is empty: "
				    "name an order (megatron, tp-dp-pp...) or "
				    "leave the option out for the site's");
		return remote ? 0 : -1;
	}
	if (layout && !strcmp(v, "none")) {
		/* The opt-out: this step (a helper srun inside a layout job)
		 * runs untouched, whatever sbatch was given. */
		rms_g.layout_none = true;
		rms_g.have_layout = false;
		return 0;
	}
	snprintf(layout ? rms_g.layout : rms_g.order, RMS_MAX_OPT + 1, "%s", v);
	if (layout) {
		rms_g.have_layout = true;
		rms_g.layout_none = false;
	} else {
		rms_g.have_order = true;
	}
	if (remote)
		return 0;
	if (!rms_check_syntax(layout ? v : NULL, layout ? NULL : v, err,
			      sizeof(err))) {
		slurm_error(RMS_PREFIX "%s", err);
		return -1;
	}
	return 0;
}

static int cb(int val, const char *optarg, int remote)
{
	return take(val, optarg, remote);
}

static struct spank_option opts[] = {
	{ "parallel-layout", "LAYOUT",
	  "rankmap: place ranks topology-aware for LAYOUT, TPxPPxDP innermost "
	  "first (8x16x128) or named (tp=8,pp=16,dp=auto); sets RANK, "
	  "WORLD_SIZE, MASTER_ADDR... per task; none: leave this step alone",
	  1, OPT_LAYOUT, cb },
	{ "parallel-order", "ORDER",
	  "rankmap: rank numbering the framework expects: megatron, llama3, "
	  "torchtitan or e.g. tp-dp-pp (default: the site's)",
	  1, OPT_ORDER, cb },
	{ "parallel-export", "WHAT",
	  "rankmap: rank (default: RANK, LOCAL_RANK...) or slurm (also "
	  "SLURM_PROCID/SLURM_LOCALID, for Lightning and NeMo)",
	  1, OPT_EXPORT, cb },
};

int rms_register_options(spank_t sp)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		spank_err_t rc = spank_option_register(sp, &opts[i]);
		if (rc != ESPANK_SUCCESS) {
			slurm_error(RMS_PREFIX "cannot register --%s: %s",
				    opts[i].name, spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

void rms_read_conf(int argc, char **argv)
{
	rms_conf_free(&rms_g.conf);
	if (!rms_conf_parse(&rms_g.conf, argc, argv, rms_g.conf_err,
			    sizeof(rms_g.conf_err)))
		snprintf(rms_g.conf_err, sizeof(rms_g.conf_err),
			 "out of memory reading the plugstack.conf arguments");
}

bool rms_wants_layout(void)
{
	return rms_g.have_layout && !rms_g.layout_none;
}

int rms_check_options(void)
{
	char err[RMS_ERRLEN];
	if (!rms_wants_layout() || !rms_g.have_order)
		return 0;
	if (rms_check_syntax(rms_g.layout, rms_g.order, err, sizeof(err)))
		return 0;
	slurm_error(RMS_PREFIX "%s", err);
	return -1;
}

bool rms_plan_options(const char *nodelist, const char *tasks_per_node,
		      uint32_t ntasks, uint32_t nnodes, rms_plan *p,
		      char *err, size_t errlen)
{
	rms_step step = {
		.layout = rms_g.layout,
		.order = rms_g.have_order ? rms_g.order : NULL,
		.nodelist = nodelist,
		.tasks_per_node = tasks_per_node,
		.partition = rms_g.partition[0] ? rms_g.partition : NULL,
		.ntasks = ntasks,
		.nnodes = nnodes,
	};
	return rms_plan_step(&rms_g.conf, &step, p, err, errlen);
}
