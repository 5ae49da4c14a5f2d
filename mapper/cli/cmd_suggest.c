/* cmd_suggest.c - placeholder until the suggest command lands (owned by its module). */
#include "cli.h"

#include <stdio.h>

int rmc_suggest(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rankmap suggest: not built yet\n");
	return RMC_USAGE;
}
