/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rankmap_spank.c - the SPANK entry points of rankmap.so. Each one hands
 * over to the file of its context: options.c (all), local.c (srun),
 * remote.c (slurmstepd, and slurmd's job epilog). Nothing here runs for a
 * step without --parallel-layout beyond a flag test.
 */
#include "plugin.h"

#include <slurm/slurm_version.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

SPANK_PLUGIN(rankmap, 1);

rms_state rms_g;

/* CPU ms of this thread: what the node side of a step costs, logged at
 * SlurmdDebug=debug (bench/bench_stepd.sh reads it). */
static double thread_ms(void)
{
	struct timespec t;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
		return 0;
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* slurmd loads the plugin at start (and on reconfigure): one line with what
 * it will do, and a loud error for a plugstack.conf it cannot honour. */
static void announce(void)
{
	char desc[1024];
	rms_conf_describe(&rms_g.conf, desc, sizeof(desc));
	slurm_info(RMS_PREFIX "version %s, built for Slurm %d.%02d.%d; %s",
		   RMS_PLUGIN_VERSION,
		   (int)SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		   (int)SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		   (int)SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER), desc);
	if (rms_g.conf_err[0])
		slurm_error(RMS_PREFIX "%s: every --parallel-layout step will "
			    "be refused until this is fixed", rms_g.conf_err);
	char pyxis[RMS_ERRLEN];
	rms_pyxis_order(pyxis, sizeof(pyxis));
	if (pyxis[0])
		slurm_error(RMS_PREFIX "%s", pyxis);
}

/* Maps of jobs that died with this node (issue 38): their epilog never
 * ran here. A minute's grace for steps starting while slurmd restarts. */
static void sweep(void)
{
	char err[RMS_ERRLEN];
	const char *root = rms_g.conf.runtime_dir ? rms_g.conf.runtime_dir
						  : RMS_RUNTIME_DIR;
	int n = rms_runtime_sweep(root, 60, err, sizeof(err));
	if (n < 0)
		slurm_error(RMS_PREFIX "%s", err);
	else if (n > 0)
		slurm_info(RMS_PREFIX "removed the maps of %d job(s) that "
			   "ended while this node was down", n);
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR &&
	    ctx != S_CTX_REMOTE && ctx != S_CTX_SLURMD)
		return 0;
	if (!rms_release_ok()) {
		slurm_error(RMS_PREFIX "refusing to run in another Slurm "
			    "release than the build's");
		return -1;
	}
	memset(&rms_g, 0, sizeof(rms_g));
	rms_conf_init(&rms_g.conf);
	rms_plan_init(&rms_g.plan);
	rms_g.host_index = -1;
	rms_g.jobfd = -1;
	rms_g.notice_fd = -1;
	rms_g.export_slurm = -1;
	rms_read_conf(ac, av);
	if (ctx == S_CTX_SLURMD) {
		announce();
		sweep();
		return 0;
	}
	return rms_register_options(sp);
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	spank_context_t ctx = spank_context();
	if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR)
		return rms_check_options();
	if (ctx != S_CTX_REMOTE)
		return 0;
	double t0 = thread_ms();
	int rc = rms_remote_post_opt(sp);
	if (rms_g.active || rms_g.failed)
		slurm_debug(RMS_PREFIX "node side %.3f ms CPU", thread_ms() - t0);
	return rc;
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	int rc = rms_local_user_init(sp);
	if (rc != 0 || !rms_g.have_layout)
		return rc;
	/* Like every refusal in srun (local.c): the nodes fail the tasks,
	 * a -1 here would leave the step RUNNING in 22.05. */
	if (rms_local_secret() != 0 &&
	    setenv(RMS_STAMP_ENV, RMS_STAMP_REFUSED, 1) != 0)
		return -1;
	return 0;
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return rms_remote_task_init(sp, true);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return rms_remote_task_init(sp, false);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	return rms_job_epilog(sp, ac, av);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	spank_context_t ctx = spank_context();
	if (ctx == S_CTX_REMOTE) {
		double t0 = thread_ms();
		bool was = rms_g.active;
		rms_remote_exit();
		if (was)
			slurm_debug(RMS_PREFIX "exit %.3f ms CPU", thread_ms() - t0);
		return 0;
	}
	size_t refused = ctx == S_CTX_LOCAL ? rms_notice_print() : 0;
	rms_conf_free(&rms_g.conf);
	/* A node refused and cancelled the step, yet srun up to 26.05 exits
	 * 0 when the cancel lands before every node reported its launch
	 * (no task exit status ever reaches it; SchedMD ticket 25307, fixed
	 * after 26.05). A job script's `set -e` or `&&` must stop there, so
	 * srun ends with 1. srun calls this from atexit(), after its own
	 * cleanup (the step and allocation are already ended), so only the
	 * status changes; whatever srun counted is lost, 1 says "refused". */
	if (refused) {
		fflush(NULL);
		_exit(1);
	}
	return 0;
}
