/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pyxis_sim_spank.c - a SPANK plugin for tests only (tests/slurm/
 * t_container.sh) that does to each task's environment what NVIDIA's
 * pyxis does when a step runs in a container (pyxis_slurmstepd.c,
 * spank_import_container_env): in task_init, every task takes the
 * variables of the container's process, which the node's first task
 * started, with overwrite. pyxis itself needs enroot and a container
 * image, neither of which this machine has.
 *
 * Local task 0 writes the variables it sees (the names below: what
 * rankmap sets per task) to DIR/env.JOB.STEP; the other tasks wait for
 * that file (10 s at most) and set every variable in it. DIR is the job
 * variable RM_TEST_PYXIS_DIR; without it the plugin does nothing. Its
 * file name holds "pyxis", so rankmap's plugstack check sees it as pyxis.
 */
#include <slurm/spank.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

SPANK_PLUGIN(rankmap_test_pyxis, 1);

static const char *const names[] = {
	"RANK",		   "LOCAL_RANK",      "WORLD_SIZE",
	"RANKMAP_TP_RANK", "RANKMAP_PP_RANK", "RANKMAP_DP_RANK",
	"CUDA_VISIBLE_DEVICES",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	char dir[512], path[700], tmp[720], val[256];
	uint32_t job = 0, step = 0;
	int local = -1;
	if (spank_getenv(sp, "RM_TEST_PYXIS_DIR", dir, sizeof(dir)) !=
		    ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_ID, &local) != ESPANK_SUCCESS)
		return 0;
	snprintf(path, sizeof(path), "%s/env.%u.%u", dir, job, step);
	if (local == 0) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		FILE *f = fopen(tmp, "w");
		if (!f)
			return -1;
		for (size_t i = 0; i < NNAMES; i++)
			if (spank_getenv(sp, names[i], val, sizeof(val)) ==
			    ESPANK_SUCCESS)
				fprintf(f, "%s=%s\n", names[i], val);
		if (fclose(f) != 0 || rename(tmp, path) != 0)
			return -1;
		return 0;
	}
	FILE *f = NULL;
	for (int i = 0; i < 1000 && !(f = fopen(path, "r")); i++)
		sleep_ms(10);
	if (!f)
		return -1;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');
		char *nl = strchr(line, '\n');
		if (!eq)
			continue;
		*eq = 0;
		if (nl)
			*nl = 0;
		spank_setenv(sp, line, eq + 1, 1);
	}
	fclose(f);
	return 0;
}
