/* cmd_model.h - options shared by `rankmap explain` and `rankmap suggest`. */
#ifndef RANKMAP_CMD_MODEL_H
#define RANKMAP_CMD_MODEL_H

#include "cli.h"
#include "common.h"

#include <stdio.h>

typedef struct rmc_model_args {
	rm_model model;
	rm_hw hw;
	rm_train train;
	rm_format fmt;
	rmc_opts common;             /* --layout, --nodes, --topology, --site ... */
	const char *model_spec, *hw_spec, *around;
	uint64_t gpus;
	uint32_t top, max_cp, max_mb;
	unsigned schedules;          /* suggest: bits 1 << rm_schedule */
	bool recompute_given;        /* suggest: else it tries selective, full */
} rmc_model_args;

/* Parse the command line; returns -1 to go on, else the exit code. */
int rmc_model_parse(int argc, char **argv, bool suggest,
		    rmc_model_args *a, void (*help)(FILE *));

#endif
