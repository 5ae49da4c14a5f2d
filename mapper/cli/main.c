/* SPDX-License-Identifier: Apache-2.0 */
/* main.c - rankmap: dispatch to a subcommand. */
#include "cli.h"
#include "common.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *what;
} cmds[] = {
	{ "plan", rmc_plan, "compute a rank map for a layout, nodes and fabric" },
	{ "check", rmc_check, "score a rank map (ours or a user's) against the fabric" },
	{ "fit", rmc_fit, "would the plugin refuse a layout on N nodes x T tasks (for a cli_filter)" },
	{ "node", rmc_node, "this node's GPUs, NICs, CPU sets and NCCL environment" },
	{ "explain", rmc_explain, "memory, compute and per-axis cost of a layout" },
	{ "suggest", rmc_suggest, "rank layouts for a model, GPU count and batch" },
	{ "calibrate", rmc_calibrate, "fit a site's calibration to its training logs and NCCL tests" },
	{ "site", rmc_site, "validate a site file (site validate FILE) or build one from the fabric (site import)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: rankmap COMMAND [OPTIONS]   (rankmap help COMMAND)\n\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].what);
	fprintf(f, "\n  help [COMMAND]  this list, or a command's options\n"
		   "  -V, --version   print the version\n\n"
		   "exit: 0 done (and every must-rule holds), 1 done but the "
		   "answer is no\n(a must-rule fails, does not fit, nothing "
		   "fits), 2 usage or input error,\n3 plan --task: that task "
		   "plays no rank\n");
}

static int find(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return (int)i;
	return -1;
}

static int unknown(const char *name)
{
	char q[96];
	fprintf(stderr, "rankmap: unknown command %s (see rankmap help)\n",
		rm_quote(name, strlen(name), q, sizeof(q)));
	return RMC_USAGE;
}

/* `rankmap help CMD` is `rankmap CMD --help`. */
static int help(int argc, char **argv)
{
	if (argc < 3) {
		usage(stdout);
		return RMC_OK;
	}
	if (argc > 3) {
		fprintf(stderr, "rankmap help: one command at a time\n");
		return RMC_USAGE;
	}
	int k = find(argv[2]);
	if (k < 0)
		return unknown(argv[2]);
	char *args[] = { argv[2], (char *)"--help", NULL };
	rmc_set_command(cmds[k].name);
	return cmds[k].fn(2, args);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "rankmap: no command (see rankmap help)\n");
		return RMC_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help"))
		return help(argc, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("rankmap %s\n", RM_VERSION_STRING);
		return RMC_OK;
	}
	int k = find(argv[1]);
	if (k < 0)
		return unknown(argv[1]);
	rmc_set_command(cmds[k].name);
	return cmds[k].fn(argc - 1, argv + 1);
}
