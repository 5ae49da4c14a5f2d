/* cmd_node.c - placeholder until the node command lands (owned by its module). */
#include "cli.h"

#include <stdio.h>

int rmc_node(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rankmap node: not built yet\n");
	return RMC_USAGE;
}
