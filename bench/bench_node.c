/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_node.c - reading a node's hardware: a live hwloc scan of this
 * machine next to loading an exported XML (the generated DGX H100 and
 * p5en, and the largest shared capture when it is there). The site file's
 * hwloc_xml exists because a live scan grows with the PCI tree.
 */
#include "rankmap.h"
#include "bench_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RUNS 15

/* The live scan's median CPU ms, which the XML loads are shown against. */
static double live_ms;

/* Median (min-max) CPU and wall ms of RUNS loads (and the output step
 * for the whole report); -1 when the source cannot be read. */
static int measure(const char *label, const char *xml)
{
	double cpu[RUNS], wall[RUNS];
	size_t gpus = 0;
	for (int r = 0; r < RUNS; r++) {
		rm_error e = { 0 };
		rm_node_hw *hw = NULL;
		double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
		if (rm_node_load(xml, NULL, &hw, &e) != RM_OK) {
			printf("%-34s cannot load: %s\n", label, e.msg);
			return -1;
		}
		char *out = NULL;
		if (rm_node_format(hw, NULL, RM_FMT_ENV, 0, &out, NULL, &e) == RM_OK)
			free(out);
		cpu[r] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
		wall[r] = clock_ms(CLOCK_MONOTONIC) - w0;
		gpus = rm_node_gpu_count(hw);
		rm_node_free(hw);
	}
	char b1[64], b2[64], x[32] = "";
	mmm(b1, sizeof(b1), cpu, RUNS, 2);
	if (!xml)
		live_ms = median(cpu, RUNS);
	else if (live_ms > 0)
		snprintf(x, sizeof(x), "  %.2fx the scan", median(cpu, RUNS) / live_ms);
	printf("%-34s %4zu GPUs  cpu %22s ms  wall %22s ms%s\n", label, gpus,
	       b1, mmm(b2, sizeof(b2), wall, RUNS, 2), x);
	return 0;
}

int main(void)
{
	const char *root = getenv("RM_ROOT");
	char dir[64] = "/tmp/rm-bench-node.";
	memset(dir + strlen(dir), 'X', 6);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char cmd[512], path[256];
	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/gen/gen_hwloc.py' '%s'",
		 root ? root : ".", dir);
	int gen = system(cmd);
	printf("node hardware: live scan vs cached hwloc XML; median (min-max) "
	       "of %d runs each; no verdict: the scan reads this machine, the "
	       "XMLs other machines, so their ratio is shown, not judged\n",
	       RUNS);
	measure("live (this machine)", NULL);
	if (gen == 0) {
		snprintf(path, sizeof(path), "%s/dgx-h100.xml", dir);
		measure("xml: generated DGX H100", path);
		snprintf(path, sizeof(path), "%s/p5en.xml", dir);
		measure("xml: generated p5en", path);
	} else {
		printf("(no python3: generated fixtures skipped)\n");
	}
	snprintf(path, sizeof(path), "%s/../shared/fixtures/hwloc/psmgmt-topo.jrc0386.xml",
		 root ? root : ".");
	if (access(path, R_OK) == 0)
		measure("xml: JURECA-DC capture (324 KB)", path);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return 0;
}
