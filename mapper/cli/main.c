/* main.c - rankmap: dispatch to a subcommand. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *what;
} cmds[] = {
	{ "plan", rmc_plan, "compute a rank map for a layout, nodes and fabric" },
	{ "check", rmc_check, "score a rank map (ours or a user's) against the fabric" },
	{ "node", rmc_node, "this node's GPUs, NICs, CPU sets and NCCL environment" },
	{ "explain", rmc_explain, "memory, compute and per-axis cost of a layout" },
	{ "suggest", rmc_suggest, "rank layouts for a model, GPU count and batch" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: rankmap COMMAND [OPTIONS]   (rankmap COMMAND --help)\n\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].what);
	fprintf(f, "\n  --version  print the version\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return RMC_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return RMC_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rankmap %s\n", RM_VERSION_STRING);
		return RMC_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "rankmap: unknown command '%.64s'\n", argv[1]);
	usage(stderr);
	return RMC_USAGE;
}
