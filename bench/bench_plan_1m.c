/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_plan_1m.c - one rm_plan of 1,048,576 GPUs (8x16x8192, Megatron
 * order) on the bench's tree (32 nodes per leaf, 16 leaves per pod, 1/8
 * more nodes than the job, the job a random subset in random order).
 * Public API only, so the same file builds against an older library:
 * bench_plan_vs.sh runs it against this tree's build and e45650b's, side
 * by side, for time and peak memory. Prints CPU ms of rm_plan alone and
 * the crossings the plan reached.
 */
#include "rankmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	    rm_fabric_parse_topology(f, t, o, "generated", &e)) {
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
	rm_plan_opts po = { .layout = &l, .order = &ord,
			    .nodes = (const char *const *)all, .nnodes = job,
			    .gpus_per_node = 8, .fabric = f };
	rm_map *m = NULL;
	double t0 = cpu_ms();
	if (rm_plan(&po, &m, &e)) {
		fprintf(stderr, "bench: plan: %s\n", e.msg);
		return 1;
	}
	double t1 = cpu_ms();
	printf("plan_ms %.1f pp_cross %llu bound %llu top %llu\n", t1 - t0,
	       (unsigned long long)m->report.pp_cross,
	       (unsigned long long)m->report.pp_cross_lower_bound,
	       (unsigned long long)m->report.pp_cross_top);
	rm_map_free(m);
	for (uint32_t i = 0; i < total; i++)
		free(all[i]);
	free(all);
	rm_fabric_free(f);
	return 0;
}
