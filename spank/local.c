/* SPDX-License-Identifier: Apache-2.0 */
/*
 * local.c - srun's side. local_user_init is the first callback that knows
 * the step (job id, nodes, tasks), and a -1 there makes srun exit 1 with
 * our message before any task starts: every refusal we can make on the
 * submit side happens here.
 */
#include "plugin.h"

#include <slurm/slurm.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * srun's environment has the job's node list, not the step's (an srun -N2
 * inside a 4-node allocation still sees SLURM_NODELIST=node[1-4]). The
 * step exists by now, so one RPC to slurmctld gives its layout: the nodes
 * and each one's task count. Written in Slurm's own "4(x2)" form so that
 * srun and the nodes go through the same parser.
 */
static bool step_layout(spank_t sp, char **nodes, char **tpn_out)
{
	uint32_t job, step;
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
		return false;
	slurm_step_id_t id = rms_step_id(job, step);
	slurm_step_layout_t *l = slurm_job_step_layout_get(&id);
	if (!l)
		return false;
	/* At most "65535(x4294967295)," per node. */
	size_t tpnlen = (size_t)l->node_cnt * 20 + 1;
	char *tpn = malloc(tpnlen);
	bool ok = tpn && l->node_list && l->node_cnt && l->tasks &&
		  (*nodes = strdup(l->node_list));
	size_t used = 0;
	for (uint32_t i = 0; ok && i < l->node_cnt;) {
		uint32_t j = i;
		while (j < l->node_cnt && l->tasks[j] == l->tasks[i])
			j++;
		int k = j - i == 1
				? snprintf(tpn + used, tpnlen - used, "%s%u",
					   used ? "," : "", (unsigned)l->tasks[i])
				: snprintf(tpn + used, tpnlen - used,
					   "%s%u(x%" PRIu32 ")", used ? "," : "",
					   (unsigned)l->tasks[i], j - i);
		if (k < 0 || (size_t)k >= tpnlen - used)
			ok = false;
		else
			used += (size_t)k;
		i = j;
	}
	slurm_job_step_layout_free(l);
	if (!ok)
		free(tpn);
	else
		*tpn_out = tpn;
	return ok;
}

/*
 * Refuses the step. A -1 here would make srun exit, but in 22.05 the step
 * it already created then stays RUNNING with all its CPUs (no slurmstepd
 * ever reports it complete, and scancel cannot end it), so inside salloc
 * or sbatch the next srun waits forever. So srun says why, returns 0 and
 * tells the nodes through the stamp to fail every task before it execs:
 * the step ends the normal way, exit 1, and nothing of the user's runs.
 */
static int refuse(spank_t sp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int refuse(spank_t sp, const char *fmt, ...)
{
	(void)sp;
	char msg[RMS_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	slurm_error(RMS_PREFIX "%s", msg);
	if (setenv(RMS_STAMP_ENV, RMS_STAMP_REFUSED, 1) != 0)
		return -1; /* no way to tell the nodes: at least stop here */
	return 0;
}

int rms_local_user_init(spank_t sp)
{
	char err[RMS_ERRLEN];
	if (rms_g.layout_none)
		return 0;
	if (!rms_g.have_layout) {
		if (rms_g.have_order)
			return refuse(sp, "--parallel-order=%s needs "
				      "--parallel-layout as well", rms_g.order);
		return 0;
	}
	if (rms_g.conf_err[0])
		return refuse(sp, "%s", rms_g.conf_err);
	/* A heterogeneous step reaches every component's nodes with one
	 * option; each would plan its part as the whole. */
	const char *het = getenv("SLURM_HET_SIZE");
	if (het && *het && strcmp(het, "1"))
		return refuse(sp, "--parallel-layout does not support "
			      "heterogeneous jobs (%s components): submit the "
			      "layout step as a job of its own; "
			      "--parallel-layout=none runs a step untouched",
			      het);
	/* Without SLURM_HET_SIZE (a wrapper cleaned it) the allocation's
	 * per-component variables still tell; otherwise the plan below
	 * would refuse the step for not fitting one component. */
	if (getenv("SLURM_JOB_ID_HET_GROUP_1"))
		return refuse(sp, "--parallel-layout does not support "
			      "heterogeneous jobs (SLURM_JOB_ID_HET_GROUP_1 is "
			      "set, SLURM_HET_SIZE is not): submit the layout "
			      "step as a job of its own; --parallel-layout=none "
			      "runs a step untouched");
	uint32_t ntasks = 0, nnodes = 0;
	if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntasks) !=
		    ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NNODES, &nnodes) != ESPANK_SUCCESS)
		return refuse(sp, "srun did not say how many tasks and nodes "
			      "the step has");
	if (!rms_conf_default_topology(&rms_g.conf, getenv("SLURM_CONF")))
		return refuse(sp, "out of memory");
	const char *part = getenv("SLURM_JOB_PARTITION");
	snprintf(rms_g.partition, sizeof(rms_g.partition), "%s",
		 part ? part : "");
	char *nodes = NULL, *tpn = NULL;
	if (!step_layout(sp, &nodes, &tpn)) {
		free(nodes);
		return refuse(sp, "cannot get the step's layout from "
			      "slurmctld");
	}
	rms_plan p;
	rms_plan_init(&p);
	bool planned = rms_plan_options(nodes, tpn, ntasks, nnodes, &p, err,
					sizeof(err));
	free(nodes);
	free(tpn);
	char stamp[RMS_STAMP_LEN];
	bool stamped = planned &&
		       rms_stamp_format(&p, &rms_g.conf, stamp, sizeof(stamp));
	if (planned && p.warning)
		slurm_info(RMS_PREFIX "warning: %s", p.warning);
	rms_plan_free(&p);
	if (!planned)
		return refuse(sp, "%s", err);
	/* spank_setenv is refused in srun (22.05: "valid only in remote
	 * context"); srun copies its own environment into the step's after
	 * this callback, so setenv reaches the nodes. */
	if (!stamped || setenv(RMS_STAMP_ENV, stamp, 1) != 0)
		return refuse(sp, "cannot pass the plan's stamp to the nodes");
	/* Without it a refusing node still prints its reason itself. */
	(void)rms_notice_listen();
	return 0;
}
