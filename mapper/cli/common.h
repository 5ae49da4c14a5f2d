/* SPDX-License-Identifier: Apache-2.0 */
/*
 * common.h - option handling shared by `rankmap plan`, `check` and
 * `explain`: one spelling, one default and one error style for the
 * layout, order, nodes, topology and site options.
 */
#ifndef RANKMAP_CLI_COMMON_H
#define RANKMAP_CLI_COMMON_H

#include "cli.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* Which options a command accepts (rmc_opt's `mask`). */
enum {
	RMC_O_LAYOUT = 1u << 0,     /* --layout L */
	RMC_O_ORDER = 1u << 1,      /* --order O */
	RMC_O_NODES = 1u << 2,      /* --nodes HOSTLIST, --nodes-file F */
	RMC_O_TOPOLOGY = 1u << 3,   /* --topology F, --partition P */
	RMC_O_SITE = 1u << 4,       /* --site F */
	RMC_O_GPN = 1u << 5,        /* --gpus-per-node N */
	RMC_O_MISSING = 1u << 6,    /* --allow-missing */
	RMC_O_BASELINE = 1u << 7,   /* --baseline */
	RMC_O_OUTPUT = 1u << 8,     /* -o FILE */
	RMC_O_FORMAT = 1u << 9,     /* --format F */
	RMC_O_RANK = 1u << 10,      /* --rank N */
	RMC_O_MAP = 1u << 11,       /* --map F, --assignment F */
	RMC_O_PORT = 1u << 12,      /* --master-port N */
	RMC_O_SITECONF = 1u << 13,  /* --no-site-config */
};

typedef struct rmc_opts {
	const char *layout, *order, *nodes, *nodes_file, *topology, *site;
	const char *partition;       /* --partition: its topology.yaml entry */
	const char *output, *format, *map, *assignment;
	uint32_t gpus_per_node;      /* 0: the site's, else 8 */
	bool allow_missing, baseline;
	/* --baseline KIND[,KIND]: the kinds in the order asked for, each
	 * once; a bare --baseline is Slurm's order */
	rm_baseline baseline_kind[RM_BASELINE_COUNT];
	unsigned nbaseline;
	int64_t rank;                /* -1: not given */
	const char *task;            /* --task HOST:LOCALID */
	bool slurm_task;             /* --slurm-task */
	uint32_t master_port;        /* --master-port N; 0: not given */
	bool no_site_config;         /* --no-site-config */
} rmc_opts;

/* Everything the options point at, loaded and checked. */
typedef struct rmc_inputs {
	rm_site *site;               /* NULL: no site file */
	bool have_site;
	char *topology;              /* path actually used, or NULL */
	rm_fabric *fabric;           /* NULL: one flat switch */
	rm_layout layout;
	rm_order order;
	rm_hostlist nodes;
	uint32_t gpus_per_node;
	bool flat;                   /* no topology or site: one flat switch */
	bool nest_order;             /* no --order, no site order: nesting */
	char *conf_order;            /* plugstack.conf's order=, or NULL */
	/* Inside a job with no --layout: the job's map's (RANKMAP_MAP) */
	char job_layout[256], job_order[64];
	uint32_t job_gpn;
} rmc_inputs;

/*
 * One option of a command, for rmc_opt_match: every command spells its
 * options the same way ("--opt value" or "--opt=value", flags without a
 * value) and says the same things about them.
 */
typedef struct rmc_optdef {
	const char *name;            /* "--layout", "-o" */
	bool value;                  /* takes a value */
	unsigned mask;               /* groups it belongs to (see below) */
	size_t field;                /* rmc_opt: offsetof its rmc_opts member */
} rmc_optdef;

enum { RMC_OPT_BAD = -1, RMC_OPT_NOT_OURS = -2 };
/*
 * Match argv[*i] against the defs whose mask meets `mask`. Returns the
 * index of the one taken, *v its value (NULL for a flag) and *i on its
 * last word; RMC_OPT_NOT_OURS when the word names none of them;
 * RMC_OPT_BAD after printing "--x needs a value" or "--x takes no value".
 */
int rmc_opt_match(const rmc_optdef *defs, size_t ndefs, unsigned mask,
		  int argc, char **argv, int *i, const char **v);
/* The usage error for a word no option took: "unknown option '--x' (see
 * rankmap help CMD)", or "unknown argument" when it is not an option. */
int rmc_unknown(const char *cmd, const char *word);
/*
 * argv[*i] as one of a command's own options (rmc_opt_match over the defs
 * in `mask`): returns the index of the one taken, *v its value. Else -1
 * and *rc the command's exit code: RMC_OK after -h/--help printed
 * help(stdout), a usage error for a bad or unknown word (naming `cmd`).
 */
int rmc_opt_own(const rmc_optdef *defs, size_t ndefs, unsigned mask,
		const char *cmd, void (*help)(FILE *f), int argc, char **argv,
		int *i, const char **v, int *rc);

void rmc_opts_init(rmc_opts *o);
/* --baseline [KIND[,KIND...]] (repeatable) at argv[*i]: 1 when it was
 * one, 0 when not, -1 after a usage error. The word after a bare
 * --baseline is its kinds unless it begins with '-'. */
int rmc_opt_baseline(rmc_opts *o, int argc, char **argv, int *i);
/* Exactly Slurm's order, as before baselines had kinds: the commands
 * keep their two-column output for it. */
bool rmc_baseline_plain(const rmc_opts *o);
/*
 * Try argv[*i] as one of the shared options in `mask` (RMC_O_*). Returns
 * 1 when taken (*i is left on its last word), 0 when it is not one of
 * them, -1 after printing a usage error.
 */
int rmc_opt(rmc_opts *o, unsigned mask, int argc, char **argv, int *i);

/* A command whose options are all rmc_opt ones in `mask`: -h/--help prints
 * help(stdout), an unknown word is a usage error naming `name`, else
 * run(&opts, &inputs) with the inputs freed after. Returns the exit code. */
int rmc_command(const char *name, unsigned mask, int argc, char **argv,
		void (*help)(FILE *f),
		int (*run)(const rmc_opts *o, rmc_inputs *in));

void rmc_inputs_init(rmc_inputs *in);
void rmc_inputs_free(rmc_inputs *in);
/* Site file, GPUs per node, topology and fabric. */
int rmc_load_fabric(const rmc_opts *o, rmc_inputs *in);
/* --layout and --order (the site's default order, else the nesting). */
int rmc_load_layout(const rmc_opts *o, rmc_inputs *in);
/* --nodes, --nodes-file or SLURM_STEP_NODELIST / SLURM_JOB_NODELIST;
 * `required`: say so when none of them is there. Returns RMC_OK with
 * in->nodes.n == 0 when not required and absent. */
int rmc_load_nodes(const rmc_opts *o, rmc_inputs *in, bool required);

/* The subcommand named in messages ("rankmap plan: ..."); main() sets it. */
void rmc_set_command(const char *name);
/* "rankmap <cmd>: " (or "rankmap: " before a command is known) on f. */
void rmc_prefix(FILE *f);
/* The flat-switch warning, after a command's output (not after rc 2). */
void rmc_flat_warning(const rmc_inputs *in, int rc);
/* After the output: the numbering fell back to the layout's nesting. */
void rmc_order_warning(const rmc_inputs *in, int rc);

/* A whole number in [lo, hi], digits only (no sign, no spaces). */
bool rmc_parse_num(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* The hardware priced without --hw and without a site's defaults.hw
 * (explain, check --model, suggest; site validate names it). */
#define RMC_DEFAULT_HW "h100-sxm-80gb"

/* "rankmap <cmd>: <message>" on stderr; the exit code for the error's class
 * (a must-rule that cannot hold is 1, everything else 2). */
int rmc_fail(const rm_error *e);
int rmc_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* stdout, or FILE written atomically (temp file + rename, 0644 & ~umask). */
int rmc_output(const char *path, const char *data, size_t len);

#endif
