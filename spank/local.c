/*
 * local.c - srun's side. local_user_init is the first callback that knows
 * the step (job id, nodes, tasks), and a -1 there makes srun exit 1 with
 * our message before any task starts: every refusal we can make on the
 * submit side happens here.
 */
#include "plugin.h"

#include <slurm/slurm.h>

#include <inttypes.h>
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
	slurm_step_id_t id = { .step_het_comp = NO_VAL };
	if (spank_get_item(sp, S_JOB_ID, &id.job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &id.step_id) != ESPANK_SUCCESS)
		return false;
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

int rms_local_user_init(spank_t sp)
{
	char err[RMS_ERRLEN];
	if (!rms_g.have_layout) {
		if (rms_g.have_order) {
			slurm_error(RMS_PREFIX "--parallel-order=%s needs "
				    "--parallel-layout as well", rms_g.order);
			return -1;
		}
		return 0;
	}
	if (rms_g.conf_warn[0])
		slurm_error(RMS_PREFIX "%s", rms_g.conf_warn);
	uint32_t ntasks = 0, nnodes = 0;
	if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntasks) !=
		    ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_NNODES, &nnodes) != ESPANK_SUCCESS) {
		slurm_error(RMS_PREFIX "srun did not say how many tasks and "
			    "nodes the step has");
		return -1;
	}
	if (!rms_conf_default_topology(&rms_g.conf, getenv("SLURM_CONF"))) {
		slurm_error(RMS_PREFIX "out of memory");
		return -1;
	}
	char *nodes = NULL, *tpn = NULL;
	if (!step_layout(sp, &nodes, &tpn)) {
		free(nodes);
		slurm_error(RMS_PREFIX "cannot get the step's layout from "
			    "slurmctld");
		return -1;
	}
	rms_plan p;
	rms_plan_init(&p);
	bool planned = rms_plan_options(nodes, tpn, ntasks, nnodes, &p, err,
					sizeof(err));
	free(nodes);
	free(tpn);
	if (!planned) {
		slurm_error(RMS_PREFIX "%s", err);
		rms_plan_free(&p);
		return -1;
	}
	if (p.warning)
		slurm_info(RMS_PREFIX "warning: %s", p.warning);
	/* spank_setenv is refused in srun (22.05: "valid only in remote
	 * context"); srun copies its own environment into the step's after
	 * this callback, so setenv reaches the nodes. */
	int rc = setenv(RMS_DIGEST_ENV, p.digest, 1);
	rms_plan_free(&p);
	if (rc != 0) {
		slurm_error(RMS_PREFIX "cannot pass the input digest to the "
			    "nodes: out of memory");
		return -1;
	}
	return 0;
}
