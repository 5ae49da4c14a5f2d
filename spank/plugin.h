/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plugin.h - state and context handlers of the SPANK plugin. One process
 * (srun, sbatch, salloc or one slurmstepd) holds one plugin state.
 */
#ifndef RANKMAP_SPANK_PLUGIN_H
#define RANKMAP_SPANK_PLUGIN_H

#include "rms.h"

#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdatomic.h>

#define RMS_PREFIX "rankmap: "

/*
 * A step's id for libslurm's step calls. 26.05 added a field (sluid, the
 * id slurmctld gives a job cluster-wide) and SLURM_STEP_ID_INITIALIZER,
 * which is the only way to leave every field, present and future, at
 * "unset"; 22.05 and 24.11 have neither, and zero means "unset" there
 * only for job_id, not for step_het_comp (NO_VAL).
 */
static inline slurm_step_id_t rms_step_id(uint32_t jobid, uint32_t stepid)
{
#ifdef SLURM_STEP_ID_INITIALIZER
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;
#else
	slurm_step_id_t id = { .step_het_comp = NO_VAL };
#endif
	id.job_id = jobid;
	id.step_id = stepid;
	return id;
}

typedef struct rms_state {
	rms_conf conf;
	char conf_err[512];          /* plugstack.conf errors: fail closed */
	char layout[RMS_MAX_OPT + 1];
	char order[RMS_MAX_OPT + 1];
	bool have_layout, have_order;
	bool layout_none;            /* --parallel-layout=none: hands off */
	int export_slurm;            /* --parallel-export; -1: not given */
	bool option_bad;             /* a value failed the syntax check */
	/* SLURM_JOB_PARTITION: only picks among the admin's topology.yaml
	 * entries, never a path. */
	char partition[128];

	/* remote: this step is ours (option given, a real step) */
	bool active;
	bool failed;                 /* fail every task with `error` */
	bool cancelled;              /* this process asked to end the step */
	/* One page shared by slurmstepd and the tasks it forks (mapped
	 * before the fork): set by the first of them to refuse, so a node
	 * sends one notice and one cancel however many tasks refuse. */
	atomic_int *refused;
	bool in_task;                /* running in a task's process */
	char error[RMS_ERRLEN];
	char warning[RMS_ERRLEN];    /* shown once by the node's first task */
	uint32_t jobid, stepid, nodeid;
	uid_t uid;
	gid_t gid;
	char node[RM_MAX_HOSTNAME + 1];
	int64_t host_index;
	rms_plan plan;
	rms_file file;
	int jobfd;                   /* RUNTIME/JOB, opened as root; or -1 */
	bool quiet;                  /* srun has shown the error already */
	rms_drift drift;             /* srun's plan against this node's */
	char stamp[RMS_STAMP_LEN];   /* srun's, from the step's environment */
	rm_env nccl;                 /* node-wide NCCL variables */
	bool nccl_override;
	uint32_t eph_lo, eph_hi;     /* ephemeral ports, read once per node */
	uint32_t mpi_lo, mpi_hi;     /* slurm.conf's MpiParams=ports, or 0 0 */
	rm_node_hw *hw;
	/* each local task's variables, made once per node before the tasks
	 * are forked (one task per GPU only; NULL: made in each task) */
	rms_envset *task_env;
	uint32_t ntask_env;

	/* srun: where refusing nodes tell their reason (notice.c) */
	int notice_fd;               /* listening socket, or -1 */
	char notice_token[33];
} rms_state;

/* The process's one plugin state (rankmap_spank.c). */
extern rms_state rms_g;

/* options.c */
int rms_register_options(spank_t sp);
void rms_read_conf(int argc, char **argv);
/* Plan the step the options ask for on these nodes. srun and every
 * slurmstepd call this with what Slurm tells each of them, so that their
 * maps (and digests) agree. */
bool rms_plan_options(const char *nodelist, const char *tasks_per_node,
		      uint32_t ntasks, uint32_t nnodes, rms_plan *p,
		      char *err, size_t errlen);

/* Whether the step has a layout to place: the option was given and was
 * not "none". */
bool rms_wants_layout(void);
/* sbatch, salloc, srun: the order against the layout once both are known. */
int rms_check_options(void);

/* release.c: false when loaded by another Slurm release than the build's */
bool rms_release_ok(void);

/* local.c: srun */
int rms_local_user_init(spank_t sp);
/* secret.c: srun, a step of ours: RANKMAP_NCCL_SECRET for the tasks */
int rms_local_secret(void);

/* notice.c: srun listens (local_user_init) and prints what refusing nodes
 * sent (at exit, after every task's line); a node sends its reason. */
bool rms_notice_listen(void);
size_t rms_notice_print(void);
bool rms_notice_send(spank_t sp, const char *msg);
void rms_notice_unset(spank_t sp);

/* remote.c: slurmstepd */
int rms_remote_post_opt(spank_t sp);
int rms_remote_task_init(spank_t sp, bool privileged);
void rms_remote_exit(void);
/* "" when plugstack.conf loads pyxis before rankmap (or not at all), else
 * why rankmap's line must come after pyxis's. */
void rms_pyxis_order(char *out, size_t n);
/* slurmd: the job epilog removes the job's runtime directory. */
int rms_job_epilog(spank_t sp, int argc, char **argv);

#endif
