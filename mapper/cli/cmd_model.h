/* SPDX-License-Identifier: Apache-2.0 */
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
	const char *model_spec, *around;
	const char *hw_spec;         /* --hw; NULL: the site's, else the default */
	uint64_t gpus;
	uint32_t top, max_cp, max_mb;
	unsigned schedules;          /* suggest: bits 1 << rm_schedule */
	bool recompute_given;        /* suggest: else it tries selective, full */
	bool batch_given, sharding_given; /* --batch/--sharding or --set */
	const char *train_given;     /* the first training option seen */
} rmc_model_args;

/* The commands that take the model options, each its own set. */
typedef enum rmc_model_cmd {
	RMC_EXPLAIN,                 /* --model and --layout required */
	RMC_SUGGEST,                 /* --model and --gpus required */
	RMC_CHECK,                   /* a map's layout: the model optional,
					no --gpus; text, json, html, svg */
} rmc_model_cmd;

/* The options that set one rm_train key each ("--batch" -> "batch"),
 * NULL-ended. */
typedef struct rmc_train_opt {
	const char *name, *key;
} rmc_train_opt;
extern const rmc_train_opt rmc_train_opts[];

/* Parse the command line; returns -1 to go on, else the exit code.
 * a->model_spec stays NULL when RMC_CHECK is given no --model. a->hw is
 * --hw's, else RMC_DEFAULT_HW's. */
int rmc_model_parse(int argc, char **argv, rmc_model_cmd cmd,
		    rmc_model_args *a, void (*help)(FILE *));
/* Once the site is known (NULL: none): without --hw, its defaults.hw
 * replaces a->hw. RMC_OK, else the exit code. */
int rmc_model_site_hw(rmc_model_args *a, const rm_site *site);

#endif
