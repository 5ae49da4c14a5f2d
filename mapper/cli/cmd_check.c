/* cmd_check.c - placeholder until the check command lands (owned by its module). */
#include "cli.h"

#include <stdio.h>

int rmc_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rankmap check: not built yet\n");
	return RMC_USAGE;
}
