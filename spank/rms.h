/*
 * rms.h - the rankmap SPANK plugin's own parts. Everything declared here
 * except options.c, local.c, remote.c and rankmap_spank.c is free of SPANK
 * calls, so the benchmark and the unit test link it without Slurm.
 * Names start with rms_; the version script keeps them out of the plugin's
 * exported symbols.
 */
#ifndef RANKMAP_SPANK_RMS_H
#define RANKMAP_SPANK_RMS_H

#include "rankmap.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RMS_ERRLEN 1024
/* Longest option value we accept (layouts and orders are short). */
#define RMS_MAX_OPT 256
/* Environment variable srun uses to hand the input digest to the nodes. */
#define RMS_DIGEST_ENV "RANKMAP_STEP_DIGEST"

/* ---- plugstack.conf arguments (conf.c) ---- */
typedef struct rms_conf {
	char *site;                  /* site file; NULL: none */
	char *topology;              /* topology.conf; NULL: site's or default */
	char *order;                 /* default numbering; NULL: site's */
	char *dir;                   /* base of the private map directories */
	int enforce;                 /* rm_enforce, or -1: the site's */
	bool topology_default;       /* path guessed, absence is not an error */
} rms_conf;

void rms_conf_init(rms_conf *c);
void rms_conf_free(rms_conf *c);
/*
 * Parse "key=value" words. Unknown keys and bad values are reported in
 * `warn` (one line; the plugin logs it) and ignored, so that a typo in
 * plugstack.conf cannot take every job on the cluster down. Returns false
 * only when memory ran out.
 */
bool rms_conf_parse(rms_conf *c, int argc, char **argv, char *warn,
		    size_t warnlen);
/* Fill in the topology default: dirname($SLURM_CONF)/topology.conf. */
bool rms_conf_default_topology(rms_conf *c, const char *slurm_conf);

/* ---- the step's inputs and its map (plan.c) ---- */
typedef struct rms_step {
	const char *layout;          /* --parallel-layout */
	const char *order;           /* --parallel-order; NULL: default */
	const char *nodelist;        /* the step's nodes, Slurm hostlist */
	const char *tasks_per_node;  /* SLURM_STEP_TASKS_PER_NODE, "8(x4)" */
	uint32_t ntasks;             /* total tasks of the step */
	uint32_t nnodes;             /* nodes of the step */
} rms_step;

typedef struct rms_plan {
	rm_site site;
	bool have_site;
	rm_fabric *fabric;           /* NULL: one flat switch */
	rm_map *map;
	rm_hostlist nodes;           /* the step's nodes, Slurm's order */
	uint32_t tasks_per_node;
	rm_enforce enforce;
	char layout_text[128];       /* canonical forms for the env */
	char order_text[64];
	char digest[65];             /* inputs + policy; srun vs node */
	char *json;                  /* the map file's bytes */
	size_t json_len;
	char json_sha256[65];
	char *warning;               /* policy warning (warn mode), or NULL */
} rms_plan;

void rms_plan_init(rms_plan *p);
void rms_plan_free(rms_plan *p);
/* Check the option's syntax alone (option callbacks). */
bool rms_check_syntax(const char *layout, const char *order, char *err,
		      size_t errlen);
/*
 * Everything from the inputs to the map file's bytes: site, fabric,
 * layout against the step's tasks, placement, policy. On failure `err`
 * holds one line for the user. Under strict enforcement a policy breach is
 * a failure; under warn it lands in p->warning.
 */
bool rms_plan_step(const rms_conf *conf, const rms_step *step, rms_plan *p,
		   char *err, size_t errlen);

/* ---- per-node map file (files.c) ---- */
typedef struct rms_file {
	char dir[512];               /* BASE/rankmap-UID/JOB.STEP.NODE */
	char path[600];              /* dir/map.json */
	bool written;
} rms_file;

/*
 * Create the private directory (0700, owned by uid) and write the map
 * atomically. Must run with the job user's effective ids (the caller
 * switches); refuses a directory someone else owns or others can enter,
 * and never follows a symbolic link.
 */
bool rms_file_write(rms_file *f, const char *base, uid_t uid, uint32_t jobid,
		    uint32_t stepid, const char *node, const char *data,
		    size_t len, char *err, size_t errlen);
/* Remove what rms_file_write made; safe to run as root. */
void rms_file_remove(rms_file *f, uid_t uid);

/* ---- per-task environment (env.c) ---- */
typedef struct rms_kv {
	char key[40];
	char val[256];
	bool overwrite;              /* false: the job's own value wins */
} rms_kv;

typedef struct rms_envset {
	rms_kv *kv;
	size_t n, cap;
} rms_envset;

void rms_envset_free(rms_envset *e);
bool rms_envset_add(rms_envset *e, const char *key, const char *val,
		    bool overwrite);
/*
 * The variables of the task playing `local_rank` on map host `host_index`.
 * `nccl` (node-wide, may be NULL) is appended with the job-wins rule unless
 * `nccl_override`.
 */
bool rms_task_env(const rms_plan *p, int64_t host_index, uint32_t local_rank,
		  uint32_t jobid, const char *map_path, const rm_env *nccl,
		  bool nccl_override, const rm_env *rank_env, rms_envset *out,
		  char *err, size_t errlen);

/* ---- helpers shared by the SPANK files ---- */
/* "8(x4)", "8,8,8" or "5,1(x3)": the per-node count when it is uniform. */
bool rms_uniform_tasks(const char *spec, uint32_t nnodes, uint32_t *per_node,
		       char *err, size_t errlen);

#endif
