/* cmd_plan.c - placeholder until the plan command lands (owned by its module). */
#include "cli.h"

#include <stdio.h>

int rmc_plan(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rankmap plan: not built yet\n");
	return RMC_USAGE;
}
