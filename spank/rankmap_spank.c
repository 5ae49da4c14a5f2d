/*
 * rankmap_spank.c - the SPANK entry points of rankmap.so. Each one hands
 * over to the file of its context: options.c (all), local.c (srun),
 * remote.c (slurmstepd). Nothing here runs for a step without
 * --parallel-layout beyond a flag test.
 */
#include "plugin.h"

#include <string.h>

SPANK_PLUGIN(rankmap, 1);

rms_state rms_g;

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR &&
	    ctx != S_CTX_REMOTE)
		return 0;
	memset(&rms_g, 0, sizeof(rms_g));
	rms_conf_init(&rms_g.conf);
	rms_plan_init(&rms_g.plan);
	rms_g.host_index = -1;
	rms_read_conf(ac, av);
	return rms_register_options(sp);
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	return rms_remote_post_opt(sp);
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	int rc = rms_local_user_init(sp);
	return rc == 0 && rms_g.have_layout ? rms_local_secret() : rc;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return rms_remote_user_init(sp);
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

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	if (spank_context() == S_CTX_REMOTE)
		rms_remote_exit();
	else
		rms_conf_free(&rms_g.conf);
	return 0;
}
