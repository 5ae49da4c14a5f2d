/* SPDX-License-Identifier: Apache-2.0 */
/* cli.h - the rankmap command: one function per subcommand (cmd_*.c). */
#ifndef RANKMAP_CLI_H
#define RANKMAP_CLI_H

#include "rankmap.h"
#include "rankmap_priv.h"

/* Exit codes shared by every subcommand. */
enum { RMC_OK = 0, RMC_RULE_FAILED = 1, RMC_USAGE = 2 };

int rmc_plan(int argc, char **argv);
int rmc_check(int argc, char **argv);
int rmc_fit(int argc, char **argv);
int rmc_node(int argc, char **argv);
int rmc_explain(int argc, char **argv);
int rmc_suggest(int argc, char **argv);
int rmc_calibrate(int argc, char **argv);
int rmc_site(int argc, char **argv);
/* cmd_import.c: `rankmap site import` (argv[0] is "import") */
int rmc_site_import(int argc, char **argv);

#endif
