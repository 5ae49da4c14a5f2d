/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_spank.c - what the SPANK plugin costs on one node of a 2,048-node
 * step (16,384 GPUs, 8x16x128), through the plugin's own functions:
 *  per node per step: read the site's topology.conf, plan the whole map,
 *    render it, write the map file into the private directory, remove it
 *    (what init_post_opt + user_init + exit do);
 *  per task: build the task's environment (what task_init does).
 * The topology is generated: 64 leaves of 32 nodes under 4 spines.
 */
#include "rms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NODES 2048
#define GPN 8
#define LEAF 32
#define REPS 7

static double clock_ms(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* On a shared machine the wall clock includes other people's work; the
 * process CPU time is what this code costs. Both are printed. */
static double cpu_ms(void)
{
	return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	char dir[] = "/tmp/rankmap-bench.123456";
	memset(dir + sizeof(dir) - 7, 'X', 6); /* mkdtemp's template */
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char topo[256];
	snprintf(topo, sizeof(topo), "%s/topology.conf", dir);
	FILE *f = fopen(topo, "w");
	if (!f) {
		perror(topo);
		return 1;
	}
	for (int l = 0; l < NODES / LEAF; l++)
		fprintf(f, "SwitchName=leaf%d Nodes=gpu[%04d-%04d]\n", l + 1,
			l * LEAF + 1, (l + 1) * LEAF);
	for (int s = 0; s < 4; s++)
		fprintf(f, "SwitchName=spine%d Switches=leaf[%d-%d]\n", s + 1,
			s * 16 + 1, (s + 1) * 16);
	fclose(f);

	rms_conf conf;
	rms_conf_init(&conf);
	char arg[300], warn[256];
	snprintf(arg, sizeof(arg), "topology=%s", topo);
	char dirarg[300];
	snprintf(dirarg, sizeof(dirarg), "runtime_dir=%s/run", dir);
	char *argv[] = { arg, dirarg, "order=megatron" };
	if (!rms_conf_parse(&conf, 3, argv, warn, sizeof(warn)) || warn[0]) {
		fprintf(stderr, "conf: %s\n", warn);
		return 1;
	}
	rms_step step = {
		.layout = "8x16x128",
		.nodelist = "gpu[0001-2048]",
		.tasks_per_node = "8(x2048)",
		.ntasks = NODES * GPN,
		.nnodes = NODES,
	};
	double node_ms[REPS], node_cpu[REPS], task_us[REPS];
	char err[RMS_ERRLEN];
	uid_t uid = getuid();
	size_t envn = 0;
	for (int r = 0; r < REPS; r++) {
		rms_plan p;
		rms_file file;
		rms_plan_init(&p);
		double t0 = now_ms(), c0 = cpu_ms();
		/* The node's side: plan, compare with srun's stamp (here
		 * its own), the job and step directories, the file. */
		char mine[RMS_STAMP_LEN], why[512];
		int jfd = -1;
		if (!rms_plan_step(&conf, &step, &p, err, sizeof(err)) ||
		    !rms_stamp_format(&p, &conf, mine, sizeof(mine)) ||
		    rms_stamp_compare(mine, mine, why, sizeof(why)) !=
			    RMS_DRIFT_NONE ||
		    (jfd = rms_job_dir_open(conf.runtime_dir, 1234, uid,
					    getgid(), err, sizeof(err))) < 0 ||
		    !rms_file_write(&file, jfd, conf.runtime_dir, 1234,
				    (uint32_t)r, "gpu1000", uid, p.json,
				    p.json_len, err, sizeof(err))) {
			fprintf(stderr, "bench_spank: %s\n", err);
			return 1;
		}
		close(jfd);
		int64_t host = rm_map_host_index(p.map, "gpu1000");
		rms_file_remove(&file, uid);
		node_ms[r] = now_ms() - t0;
		node_cpu[r] = cpu_ms() - c0;

		double t1 = now_ms();
		for (uint32_t lr = 0; lr < GPN; lr++) {
			rms_envset env = { 0 };
			rms_task_ids ids = { .jobid = 1234, .stepid = 0 };
			if (!rms_task_env(&p, host, lr, &ids, file.path, NULL,
					  false, NULL, &env, err, sizeof(err))) {
				fprintf(stderr, "bench_spank: %s\n", err);
				return 1;
			}
			envn = env.n;
			rms_envset_free(&env);
		}
		task_us[r] = (now_ms() - t1) * 1e3 / GPN;
		if (r == 0)
			printf("spank  map file %zu bytes, %zu variables per task\n",
			       p.json_len, envn);
		rms_plan_free(&p);
	}
	qsort(node_ms, REPS, sizeof(double), cmp_d);
	qsort(node_cpu, REPS, sizeof(double), cmp_d);
	qsort(task_us, REPS, sizeof(double), cmp_d);
	printf("spank  per node per step, 2,048 nodes x 8 (16,384 GPUs): "
	       "%8.2f ms median (min %.2f), CPU %.2f ms   target 20 ms  %s\n",
	       node_ms[REPS / 2], node_ms[0], node_cpu[REPS / 2],
	       node_cpu[REPS / 2] <= 20 ? "ok" : "SLOWER");
	printf("spank  per task (environment):                          "
	       "%8.2f us median (min %.2f)   target 1 ms   %s\n",
	       task_us[REPS / 2], task_us[0],
	       task_us[REPS / 2] <= 1000 ? "ok" : "SLOWER");
	/* The node's NCCL settings need its hardware: hwloc on this machine,
	 * once per node per step, on top of the figure above. */
	double hw_ms[3], hw_cpu[3];
	for (int r = 0; r < 3; r++) {
		rm_node_hw *hw = NULL;
		rm_env nccl = { 0 };
		rm_error e;
		double t0 = now_ms(), c0 = cpu_ms();
		if (rm_node_load(NULL, NULL, &hw, &e) == RM_OK)
			rm_node_nccl_env(hw, NULL, &nccl, &e);
		hw_ms[r] = now_ms() - t0;
		hw_cpu[r] = cpu_ms() - c0;
		rm_env_free(&nccl);
		rm_node_free(hw);
	}
	qsort(hw_ms, 3, sizeof(double), cmp_d);
	qsort(hw_cpu, 3, sizeof(double), cmp_d);
	printf("spank  per node per step, hardware read (hwloc, this machine): "
	       "%6.2f ms median, CPU %.2f ms (separate from the above)\n",
	       hw_ms[1], hw_cpu[1]);
	unlink(topo);
	if (!rms_job_dir_remove(conf.runtime_dir, 1234, err, sizeof(err)))
		fprintf(stderr, "bench_spank: %s\n", err);
	rmdir(conf.runtime_dir);
	rmdir(dir);
	rms_conf_free(&conf);
	return 0;
}
