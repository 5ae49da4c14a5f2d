/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_plan_1m.c - one rm_plan of 1,048,576 GPUs (8x16x8192, Megatron
 * order) on the bench's tree (32 nodes per leaf, 16 leaves per pod, 1/8
 * more nodes than the job, the job a random subset in random order).
 * Public API only, so the same file builds against an older library:
 * bench_plan_vs.sh runs it against this tree's build and e45650b's, side
 * by side, for time and peak memory. Prints CPU ms of rm_plan alone and
 * the crossings the plan reached. RM_ABI_VERSION (ABI 1 on) tells the
 * two public APIs apart.
 */
#include "rankmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The generated topology.conf into f. ABI 1 reads one from a file only
 * (rm_fabric_parse_topology left the public header): a temporary one. */
static rm_status load_topology(rm_fabric *f, const char *text, size_t len,
			       rm_error *e)
{
#ifdef RM_ABI_VERSION
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[512];
	snprintf(path, sizeof(path), "%.480s/bench_plan_1m.XXXXXX", dir);
	int fd = mkstemp(path);
	if (fd < 0) {
		e->code = RM_EIO;
		snprintf(e->msg, sizeof(e->msg), "%s: %s", path,
			 strerror(errno));
		return RM_EIO;
	}
	FILE *fp = fdopen(fd, "w");
	bool ok = fp && fwrite(text, 1, len, fp) == len;
	if (fp)
		ok = fclose(fp) == 0 && ok;
	else
		close(fd);
	rm_status st = RM_EIO;
	if (!ok) {
		e->code = RM_EIO;
		snprintf(e->msg, sizeof(e->msg), "%s: cannot write", path);
	} else {
		rm_slurm_topology t;
		st = rm_slurm_topology_find(NULL, NULL, path, &t, e);
		if (st == RM_OK) {
			st = rm_fabric_load_slurm_topology(f, &t, e);
			rm_slurm_topology_clear(&t);
		}
	}
	unlink(path);
	return st;
#else
	return rm_fabric_parse_topology(f, text, len, "generated", e);
#endif
}

int main(void)
{
	const uint32_t job = (1u << 20) / 8, total = job + job / 8;
	const uint32_t per_leaf = 32, per_pod = 16;
	uint32_t leaves = (total + per_leaf - 1) / per_leaf;
	uint32_t pods = (leaves + per_pod - 1) / per_pod;
	size_t cap = (size_t)(leaves + pods + 1) * 80, o = 0;
	char *t = malloc(cap);
	for (uint32_t l = 0; l < leaves; l++) {
		uint32_t a = l * per_leaf + 1, b = a + per_leaf - 1;
		o += (size_t)snprintf(t + o, cap - o,
				      "SwitchName=leaf%05u Nodes=gpu[%06u-%06u]\n",
				      l, a, b > total ? total : b);
	}
	for (uint32_t p = 0; p < pods; p++) {
		uint32_t a = p * per_pod, b = a + per_pod - 1;
		o += (size_t)snprintf(t + o, cap - o,
				      "SwitchName=pod%03u Switches=leaf[%05u-%05u]\n",
				      p, a, b >= leaves ? leaves - 1 : b);
	}
	o += (size_t)snprintf(t + o, cap - o,
			      "SwitchName=spine Switches=pod[000-%03u]\n",
			      pods - 1);
	rm_fabric *f = NULL;
	rm_error e;
	if (rm_fabric_new(&f, &e) ||
	    load_topology(f, t, o, &e)) {
		fprintf(stderr, "bench: fabric: %s\n", e.msg);
		return 1;
	}
	free(t);
	char **all = malloc(total * sizeof(char *));
	for (uint32_t i = 0; i < total; i++) {
		all[i] = malloc(16);
		snprintf(all[i], 16, "gpu%06u", i + 1);
	}
	for (uint32_t i = total - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(next() % (i + 1));
		char *x = all[i];
		all[i] = all[j];
		all[j] = x;
	}
	rm_layout l;
	rm_order ord;
	if (rm_layout_parse("8x16x8192", &l, &e) ||
	    rm_order_parse("megatron", &l, &ord, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
#ifdef RM_ABI_VERSION
	rm_plan_options po = RM_PLAN_OPTIONS_INIT;
#else
	rm_plan_opts po = { 0 };
#endif
	po.layout = &l;
	po.order = &ord;
	po.nodes = (const char *const *)all;
	po.nnodes = job;
	po.gpus_per_node = 8;
	po.fabric = f;
	rm_map *m = NULL;
	double t0 = cpu_ms();
	if (rm_plan(&po, &m, &e)) {
		fprintf(stderr, "bench: plan: %s\n", e.msg);
		return 1;
	}
	double t1 = cpu_ms();
#ifdef RM_ABI_VERSION
	const rm_report *r = rm_map_report(m);
	unsigned long long cross = rm_report_count(r, RM_REPORT_PP_CROSS),
			   bound = rm_report_count(r, RM_REPORT_PP_CROSS_BOUND),
			   top = rm_report_count(r, RM_REPORT_PP_CROSS_TOP);
#else
	unsigned long long cross = m->report.pp_cross,
			   bound = m->report.pp_cross_lower_bound,
			   top = m->report.pp_cross_top;
#endif
	printf("plan_ms %.1f pp_cross %llu bound %llu top %llu\n", t1 - t0,
	       cross, bound, top);
	rm_map_free(m);
	for (uint32_t i = 0; i < total; i++)
		free(all[i]);
	free(all);
	rm_fabric_free(f);
	return 0;
}
