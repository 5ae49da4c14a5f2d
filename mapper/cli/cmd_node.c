/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_node.c - rankmap node: this node's GPUs, NICs, CPU sets and the
 * environment its tasks get. */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rankmap node [--hwloc-xml FILE] [--site FILE] [--format text|json|env]\n"
		"                    [--ranks N] [--nccl-topo FILE] [--timing]\n\n"
		"  --hwloc-xml FILE  read an hwloc XML export instead of this machine\n"
		"                    (default: the site's hwloc_xml when it exists, else live)\n"
		"  --site FILE       site file: NIC exclusions, NCCL variables, rail-optimised\n"
		"  --format F        text (tables, default), json, or env (KEY=value lines)\n"
		"  --ranks N         local ranks on this node (default: one per GPU)\n"
		"  --nccl-topo FILE  also write an NCCL_TOPO_FILE built from the hwloc data\n"
		"  --timing          print how long reading the hardware took (stderr)\n\n"
		"exit: 0 done (also without GPUs), 2 usage or input error\n");
}

static double now_ms(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int parse_ranks(const char *s, uint32_t *out)
{
	if (!s || !*s || strlen(s) > 9 || strspn(s, "0123456789") != strlen(s))
		return -1;
	unsigned long v = strtoul(s, NULL, 10);
	if (v == 0 || v > 1000000)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "rankmap node: cannot write '%.200s': %s\n", path,
			strerror(errno));
		return -1;
	}
	size_t w = fwrite(data, 1, len, f);
	int bad = w != len;
	if (fclose(f) != 0)
		bad = 1;
	if (bad)
		fprintf(stderr, "rankmap node: writing '%.200s' failed\n", path);
	return bad ? -1 : 0;
}

static const rmc_optdef node_opts[] = {
	{ "--hwloc-xml", true, 1, 0 }, { "--site", true, 1, 0 },
	{ "--format", true, 1, 0 },    { "--ranks", true, 1, 0 },
	{ "--nccl-topo", true, 1, 0 }, { "--timing", false, 1, 0 },
};

int rmc_node(int argc, char **argv)
{
	const char *xml = NULL, *site_path = NULL, *topo = NULL;
	rm_format fmt = RM_FMT_TEXT;
	uint32_t ranks = 0;
	bool timing = false;
	for (int i = 1; i < argc; i++) {
		const char *v;
		int rc;
		int k = rmc_opt_own(node_opts,
				    sizeof(node_opts) / sizeof(node_opts[0]), 1,
				    "node", usage, argc, argv, &i, &v, &rc);
		if (k < 0)
			return rc;
		const char *name = node_opts[k].name;
		if (!strcmp(name, "--hwloc-xml")) {
			xml = v;
		} else if (!strcmp(name, "--site")) {
			site_path = v;
		} else if (!strcmp(name, "--nccl-topo")) {
			topo = v;
		} else if (!strcmp(name, "--timing")) {
			timing = true;
		} else if (!strcmp(name, "--format")) {
			if (!strcmp(v, "text"))
				fmt = RM_FMT_TEXT;
			else if (!strcmp(v, "json"))
				fmt = RM_FMT_JSON;
			else if (!strcmp(v, "env"))
				fmt = RM_FMT_ENV;
			else
				return rmc_usage("--format must be text, json "
						 "or env, not '%.40s'", v);
		} else if (!strcmp(name, "--ranks") && parse_ranks(v, &ranks)) {
			return rmc_usage("--ranks wants a whole number from "
					 "1, not '%.40s'", v);
		}
	}

	rm_error err = { 0 };
	rm_site *site = NULL;
	if (site_path && rm_site_load(site_path, &site, &err)) {
		fprintf(stderr, "rankmap node: %s\n", err.msg);
		return RMC_USAGE;
	}
	const rm_site *sp = site;
	rm_node_hw *hw = NULL;
	/* CPU time too: on a busy machine wall time mostly measures the
	 * neighbours. */
	double t0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
	if (rm_node_load(xml, sp, &hw, &err)) {
		fprintf(stderr, "rankmap node: %s\n", err.msg);
		rm_site_free(site);
		return RMC_USAGE;
	}
	double t1 = now_ms(CLOCK_MONOTONIC), c1 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
	if (timing)
		fprintf(stderr, "rankmap node: read %s in %.1f ms (%.1f ms CPU)\n",
			rm_node_source(hw), t1 - t0, c1 - c0);
	int rc = RMC_OK;
	size_t ngpu = rm_node_gpu_count(hw);
	if (ngpu == 0)
		fprintf(stderr, "rankmap node: no GPUs on this node (%s); nothing to pair, NCCL_IB_HCA left unset\n",
			rm_node_source(hw));
	else if (ranks > ngpu) {
		fprintf(stderr, "rankmap node: %u local ranks but %s has %zu GPU%s: at most one rank per GPU\n",
			ranks, rm_node_source(hw), ngpu, ngpu == 1 ? "" : "s");
		rc = RMC_USAGE;
	}
	char *text = NULL, *tx = NULL;
	size_t len = 0, tlen = 0;
	if (rc == RMC_OK && topo) {
		if (rm_node_nccl_topo_xml(hw, &tx, &tlen, &err)) {
			fprintf(stderr, "rankmap node: %s\n", err.msg);
			rc = RMC_USAGE;
		} else if (write_file(topo, tx, tlen)) {
			rc = RMC_USAGE;
		}
	}
	if (rc == RMC_OK) {
		if (rm_node_format(hw, sp, fmt, ranks, &text, &len, &err)) {
			fprintf(stderr, "rankmap node: %s\n", err.msg);
			rc = RMC_USAGE;
		} else {
			fwrite(text, 1, len, stdout);
		}
	}
	free(text);
	free(tx);
	rm_node_free(hw);
	rm_site_free(site);
	return rc;
}
