/* cmd_explain.c - placeholder until the explain command lands (owned by its module). */
#include "cli.h"

#include <stdio.h>

int rmc_explain(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rankmap explain: not built yet\n");
	return RMC_USAGE;
}
