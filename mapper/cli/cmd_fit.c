/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_fit.c - `rankmap fit`: would the plugin refuse this layout on a step
 * of N nodes x T tasks? For a cli_filter at submission (templates/lua/
 * cli_filter.lua): the same checks (mapper/priv/fit.c) and the same
 * words as the refusal at launch, before the job waits in the queue.
 */
#include "cli.h"
#include "common.h"
#include "rankmap_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
	fputs("usage: rankmap fit --layout L [--order O] --nnodes N\n"
	      "         (--ntasks-per-node T | --ntasks N) [--site F]\n"
	      "         [--no-site-config]\n\n"
	      "  Says whether the SPANK plugin would refuse --parallel-layout=L on\n"
	      "  a step of N nodes: tasks per node against the site's GPUs per node,\n"
	      "  one launcher task per node (torchrun), the layout against the\n"
	      "  step's size. Prints nothing when it fits, else the plugin's\n"
	      "  message. The site file is the plugin's (rankmap's plugstack.conf\n"
	      "  line, as `rankmap plan` finds it) unless --site or\n"
	      "  --no-site-config; no topology is read.\n\n"
	      "exit: 0 fits, 1 refused (the layout or order cannot run there),\n"
	      "2 usage or input error (the site file cannot be read)\n",
	      f);
}

static const rmc_optdef fit_opts[] = {
	{ "--layout", true, 1, 0 },	      { "--order", true, 1, 0 },
	{ "--nnodes", true, 1, 0 },	      { "--ntasks-per-node", true, 1, 0 },
	{ "--ntasks", true, 1, 0 },	      { "--site", true, 1, 0 },
	{ "--no-site-config", false, 1, 0 },
};

/* The refusal as the plugin words it; exit 1: the answer is no. */
static int refuse(const char *what, const char *msg)
{
	rmc_prefix(stderr);
	fprintf(stderr, "%s%s\n", what, msg);
	return 1;
}

/* The plugin's site file: --site, else rankmap's plugstack.conf line. */
static int load_site(const char *path, bool none, rm_site **site,
		     char **conf_order)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	rm_site_config sc;
	memset(&sc, 0, sizeof(sc));
	if (!path && !none) {
		if (rm_site_config_find(NULL, &sc, &e) != RM_OK)
			return rmc_fail(&e);
		path = sc.site;
		if (sc.order && !(*conf_order = strdup(sc.order))) {
			rm_site_config_clear(&sc);
			return rmc_usage("out of memory");
		}
	}
	int rc = RMC_OK;
	if (path && rm_site_load(path, site, &e) != RM_OK)
		rc = rmc_fail(&e);
	rm_site_config_clear(&sc);
	return rc;
}

static int run(const char *layout, const char *order, uint64_t nnodes,
	       uint64_t tpn, uint64_t ntasks, const rm_site *site,
	       const char *conf_order)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	rm_layout l;
	rm_order o;
	if (rm_layout_parse(layout, &l, &e) != RM_OK)
		return refuse("--parallel-layout: ", e.msg);
	const char *ord = order			   ? order
			  : conf_order		   ? conf_order
			  : site && rm_site_order(site)[0] ? rm_site_order(site)
							   : NULL;
	if (rm_order_parse(ord, &l, &o, &e) != RM_OK)
		return refuse("--parallel-order: ", e.msg);
	if (!tpn) {
		if (ntasks % nnodes) {
			char m[160];
			snprintf(m, sizeof(m), "%llu tasks on %llu nodes: "
				 "tasks per node are uneven: every node must "
				 "run the same number of tasks; use "
				 "--ntasks-per-node", (unsigned long long)ntasks,
				 (unsigned long long)nnodes);
			return refuse("", m);
		}
		tpn = ntasks / nnodes;
	}
	char err[1024];
	if (!rm_step_fit(layout, &l, site, (size_t)nnodes, (uint32_t)tpn, NULL,
			 NULL, err, sizeof(err)))
		return refuse("", err);
	return RMC_OK;
}

int rmc_fit(int argc, char **argv)
{
	const char *layout = NULL, *order = NULL, *site_path = NULL;
	uint64_t nnodes = 0, tpn = 0, ntasks = 0;
	bool none = false;
	for (int i = 1; i < argc; i++) {
		const char *v;
		int rc;
		int k = rmc_opt_own(fit_opts, sizeof(fit_opts) / sizeof(fit_opts[0]),
				    1, "fit", help, argc, argv, &i, &v, &rc);
		if (k < 0)
			return rc;
		const char *name = fit_opts[k].name;
		uint64_t *num = !strcmp(name, "--nnodes")	   ? &nnodes
				: !strcmp(name, "--ntasks-per-node") ? &tpn
				: !strcmp(name, "--ntasks")	   ? &ntasks
								   : NULL;
		if (num) {
			if (!rmc_parse_num(v, 1, 1u << 24, num))
				return rmc_usage("%s '%.40s': a whole number "
						 "from 1 to 16777216", name, v);
		} else if (!strcmp(name, "--layout")) {
			layout = v;
		} else if (!strcmp(name, "--order")) {
			order = v;
		} else if (!strcmp(name, "--site")) {
			site_path = v;
		} else {
			none = true;
		}
	}
	if (!layout || !nnodes || (!tpn && !ntasks) || (tpn && ntasks))
		return rmc_usage("give --layout, --nnodes and one of "
				 "--ntasks-per-node or --ntasks (see rankmap "
				 "help fit)");
	rm_site *site = NULL;
	char *conf_order = NULL;
	int rc = load_site(site_path, none, &site, &conf_order);
	if (rc == RMC_OK)
		rc = run(layout, order, nnodes, tpn, ntasks, site, conf_order);
	rm_site_free(site);
	free(conf_order);
	return rc;
}
