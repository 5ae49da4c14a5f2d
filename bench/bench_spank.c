/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_spank.c - what the SPANK plugin costs on one node of a 2,048-node
 * step (16,384 GPUs, 8x16x128), through the plugin's own functions:
 *  per node per step: read the site's topology.conf, plan the whole map,
 *    render it, write the map file into the private directory, remove it
 *    (what init_post_opt + user_init + exit do);
 *  per task: build the task's environment (what task_init does).
 * The topology is generated: 64 leaves of 32 nodes under 4 spines.
 * Every figure is the median (min-max) of its runs, CPU time. The verdict
 * is a ratio taken in this run: the node's side against its floor, what
 * any node that plans for itself must do (read topology.conf, rm_plan,
 * render the JSON map), at most 2x. bench/bench_stepd.sh prices the
 * plugin inside real slurmstepds against steps without it.
 */
#include "rms.h"
#include "internal.h"        /* rm_fabric_load_topology: the floor's read */
#include "bench_clock.h"
#include "bench_map.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NODES 2048
#define GPN 8
#define LEAF 32
#define REPS 7
#define HWREPS 7

static double wall_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* On a shared machine the wall clock includes other people's work; the
 * process CPU time is what this code costs. Both are printed. */
static double cpu_ms(void)
{
	return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

/* CPU ms of one hardware read the way the plugin does it: the node, then
 * its NCCL settings. `cache` NULL: live. */
static double hw_read(const char *cache, rms_hw_how *how)
{
	rm_node_hw *hw = NULL;
	rm_env nccl = { 0 };
	rm_error e;
	char note[600];
	rms_hw_how h;
	double c0 = cpu_ms();
	if (rms_hwcache_load(cache, NULL, &hw, how ? how : &h, note,
			     sizeof(note), &e) == RM_OK)
		rm_node_nccl_env(hw, NULL, &nccl, &e);
	double t = cpu_ms() - c0;
	if (note[0])
		fprintf(stderr, "bench_spank: %s\n", note);
	rm_env_clear(&nccl);
	rm_node_free(hw);
	return t;
}

/* CPU ms of the floor: topology.conf read, the map planned and rendered
 * as JSON, nothing else. -1: failed. */
static double floor_cpu(const char *topo, const char *nodes,
			const char *layout)
{
	rm_fabric *f = NULL;
	rm_hostlist hl = { 0 };
	rm_error e;
	rm_map *m = NULL;
	char *out = NULL;
	size_t len = 0;
	double c0 = cpu_ms();
	bool ok = rm_fabric_new(&f, &e) == RM_OK &&
		  rm_fabric_load_topology(f, topo, &e) == RM_OK &&
		  rm_hostlist_parse(nodes, &hl, &e) == RM_OK &&
		  bench_plan_render(layout, (const char *const *)hl.host, hl.n,
				    GPN, f, RM_FMT_JSON, &m, &out, &len, &e);
	double t = cpu_ms() - c0;
	if (!ok)
		fprintf(stderr, "bench_spank: floor: %s\n", e.msg);
	free(out);
	rm_map_free(m);
	rm_hostlist_clear(&hl);
	rm_fabric_free(f);
	return ok ? t : -1;
}

/* CPU ms of the node's side of one step without the hardware: plan,
 * stamp, job directory, map file written and removed. -1: failed. */
static double step_cpu(const rms_conf *conf, const rms_step *step, uint32_t id)
{
	rms_plan p;
	rms_file file;
	char err[RMS_ERRLEN], mine[RMS_STAMP_LEN];
	rms_plan_init(&p);
	double c0 = cpu_ms();
	int jfd = -1;
	bool ok = rms_plan_step(conf, step, &p, err, sizeof(err)) &&
		  rms_stamp_format(&p, conf, mine, sizeof(mine)) &&
		  (jfd = rms_job_dir_open(conf->runtime_dir, 1234, getgid(),
					  err, sizeof(err))) >= 0 &&
		  rms_file_write(&file, jfd, conf->runtime_dir, 1234, id,
				 "gpu0001", getgid(), p.json, p.json_len, err,
				 sizeof(err));
	if (jfd >= 0)
		close(jfd);
	if (ok)
		rms_file_remove(&file);
	else
		fprintf(stderr, "bench_spank: %s\n", err);
	double t = cpu_ms() - c0;
	rms_plan_free(&p);
	return ok ? t : -1;
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
	size_t envn = 0;
	for (int r = 0; r < REPS; r++) {
		rms_plan p;
		rms_file file;
		rms_plan_init(&p);
		double t0 = wall_ms(), c0 = cpu_ms();
		/* The node's side: plan, compare with srun's stamp (here
		 * its own), the job and step directories, the file. */
		char mine[RMS_STAMP_LEN], why[512];
		int jfd = -1;
		if (!rms_plan_step(&conf, &step, &p, err, sizeof(err)) ||
		    !rms_stamp_format(&p, &conf, mine, sizeof(mine)) ||
		    rms_stamp_compare(mine, mine, why, sizeof(why)) !=
			    RMS_DRIFT_NONE ||
		    (jfd = rms_job_dir_open(conf.runtime_dir, 1234, getgid(),
					    err, sizeof(err))) < 0 ||
		    !rms_file_write(&file, jfd, conf.runtime_dir, 1234,
				    (uint32_t)r, "gpu1000", getgid(), p.json,
				    p.json_len, err, sizeof(err))) {
			fprintf(stderr, "bench_spank: %s\n", err);
			return 1;
		}
		close(jfd);
		int64_t host = rm_map_host_index(p.map, "gpu1000");
		rms_file_remove(&file);
		node_ms[r] = wall_ms() - t0;
		node_cpu[r] = cpu_ms() - c0;

		double t1 = wall_ms();
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
		task_us[r] = (wall_ms() - t1) * 1e3 / GPN;
		if (r == 0)
			printf("spank  map file %zu bytes, %zu variables per task\n",
			       p.json_len, envn);
		rms_plan_free(&p);
	}
	double fl[REPS];
	for (int r = 0; r < REPS; r++)
		if ((fl[r] = floor_cpu(topo, step.nodelist, step.layout)) < 0)
			return 1;
	qsort(node_ms, REPS, sizeof(double), cmp_double);
	qsort(node_cpu, REPS, sizeof(double), cmp_double);
	qsort(task_us, REPS, sizeof(double), cmp_double);
	qsort(fl, REPS, sizeof(double), cmp_double);
	char b1[64], b2[64], b3[64];
	printf("spank  median (min-max) of %d runs, CPU time; verdict: the "
	       "node's side at most 2x its floor (read topology.conf, "
	       "rm_plan, render the JSON map) in this run\n", REPS);
	printf("spank  per node per step, 2,048 nodes x 8 (16,384 GPUs): "
	       "%s ms (wall %s); floor %s ms; %.2fx the floor  %s\n",
	       mmm(b1, sizeof(b1), node_cpu, REPS, 2),
	       mmm(b2, sizeof(b2), node_ms, REPS, 2),
	       mmm(b3, sizeof(b3), fl, REPS, 2),
	       node_cpu[REPS / 2] / fl[REPS / 2],
	       node_cpu[REPS / 2] <= 2 * fl[REPS / 2] ? "ok" : "SLOWER");
	printf("spank  per task (environment):                          "
	       "%s us; no verdict (nothing cheaper sets the same variables)\n",
	       mmm(b1, sizeof(b1), task_us, REPS, 2));
	/* The node's NCCL settings need its hardware, once per node per
	 * step: a live hwloc scan of this machine, or (slurmstepd as root)
	 * the per-boot cache hwcache.c keeps. Median of HWREPS, min, max. */
	char cache[300];
	snprintf(cache, sizeof(cache), "%s/hwcache", dir);
	double live[HWREPS], cached[HWREPS];
	bool root = geteuid() == 0;
	for (int r = 0; r < HWREPS; r++) {
		live[r] = hw_read(NULL, NULL);
		rms_hw_how how = RMS_HW_LIVE;
		if (root && r == 0)
			hw_read(cache, &how); /* the step that writes it */
		cached[r] = root ? hw_read(cache, &how) : 0;
		if (root && how != RMS_HW_CACHED) {
			fprintf(stderr, "bench_spank: the cache was not used\n");
			return 1;
		}
	}
	qsort(live, HWREPS, sizeof(double), cmp_double);
	qsort(cached, HWREPS, sizeof(double), cmp_double);
	double plan = node_cpu[REPS / 2];
	printf("spank  hardware read, live hwloc scan:                  "
	       "%s ms\n", mmm(b1, sizeof(b1), live, HWREPS, 2));
	if (root) {
		printf("spank  hardware read, per-boot cache:                   "
		       "%s ms, %.2fx the scan\n",
		       mmm(b1, sizeof(b1), cached, HWREPS, 2),
		       cached[HWREPS / 2] / live[HWREPS / 2]);
		/* A step of 4 nodes (the test cluster's): the 10 ms target. */
		rms_step small = { .layout = "8x2x2", .nodelist = "gpu[0001-0004]",
				   .tasks_per_node = "8(x4)", .ntasks = 32,
				   .nnodes = 4 };
		double sm[HWREPS];
		for (int r = 0; r < HWREPS; r++)
			if ((sm[r] = step_cpu(&conf, &small, 100 + (uint32_t)r)) < 0)
				return 1;
		qsort(sm, HWREPS, sizeof(double), cmp_double);
		double sc = sm[HWREPS / 2] + cached[HWREPS / 2];
		double sl = sm[HWREPS / 2] + live[HWREPS / 2];
		printf("spank  per node per step, 4 nodes x 8, with hardware:   "
		       "%.2f ms cached, %.2f live (%.2fx); without it %s ms "
		       "(inside slurmstepd: bench_stepd.sh)\n",
		       sc, sl, sc / sl, mmm(b1, sizeof(b1), sm, HWREPS, 2));
		double with = plan + cached[HWREPS / 2];
		printf("spank  per node per step, 2,048 nodes, with hardware:   "
		       "%8.2f ms CPU cached, %.2f live (%.2fx)\n",
		       with, plan + live[HWREPS / 2],
		       with / (plan + live[HWREPS / 2]));
		DIR *d = opendir(cache);
		for (struct dirent *de; d && (de = readdir(d));)
			if (de->d_name[0] != '.' || strlen(de->d_name) > 2)
				unlinkat(dirfd(d), de->d_name, 0);
		if (d)
			closedir(d);
		rmdir(cache);
	} else {
		printf("spank  hardware read, per-boot cache: skipped (needs root, "
		       "as slurmstepd has)\n");
	}
	unlink(topo);
	if (!rms_job_dir_remove(conf.runtime_dir, 1234, err, sizeof(err)))
		fprintf(stderr, "bench_spank: %s\n", err);
	rmdir(conf.runtime_dir);
	rmdir(dir);
	rms_conf_free(&conf);
	return 0;
}
