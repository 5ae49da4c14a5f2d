/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rankmap-nccl-check - does every axis of the map get the bandwidth of
 * the link it was placed on? Run like the training job, one task per GPU:
 *   srun --parallel-layout=8x16x128 rankmap-nccl-check
 * Rank 0 prints the report; every rank exits with the same status.
 */
#include "check.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

static const char *who(void)
{
	const char *r = getenv("RANK");
	if (!r)
		r = getenv("SLURM_PROCID");
	return r ? r : "?";
}

/* Refused connections of the id exchange, as the library reports them. */
static void log_line(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "rankmap-nccl-check: %s\n", line);
}

static void nccl_version(char *out, size_t cap)
{
	int v = 0;
	if (ncclGetVersion(&v) != ncclSuccess)
		snprintf(out, cap, "unknown");
	else
		snprintf(out, cap, "%d.%d.%d", v / 10000, v / 100 % 100,
			 v % 100);
}

static int report(const nck_plan *p, const nck_opts *o, const double *all,
		  uint32_t rank)
{
	nck_result r;
	rmn_error e = { 0 };
	if (nck_analyse(p, &o->nominal, all, &r, &e) != RMN_OK) {
		fprintf(stderr, "rankmap-nccl-check: %s\n", e.msg);
		return NCK_EXIT_RUN;
	}
	if (rank == 0) {
		char ver[32];
		nccl_version(ver, sizeof(ver));
		nck_meta m = { .nccl_version = ver, .iters = o->iters,
			       .warmup = o->warmup };
		char *text = o->json ? nck_report_json(p, &o->nominal, &r, &m)
				     : nck_report_text(p, &o->nominal, &r, &m);
		if (!text) {
			fprintf(stderr, "rankmap-nccl-check: out of memory\n");
			nck_result_free(p, &r);
			return NCK_EXIT_RUN;
		}
		fputs(text, stdout);
		fflush(stdout);
		free(text);
	}
	int rc = r.wrong || (o->fail_slow && r.slow) ? NCK_EXIT_BAD
						    : NCK_EXIT_OK;
	nck_result_free(p, &r);
	return rc;
}

int main(int argc, char **argv)
{
	nck_opts o;
	char msg[512];
	if (nck_parse_args(argc, argv, &o, msg, sizeof(msg))) {
		fprintf(stderr, "rankmap-nccl-check: %s (see --help)\n", msg);
		return NCK_EXIT_USAGE;
	}
	if (o.help) {
		fputs(nck_usage, stdout);
		return NCK_EXIT_OK;
	}
	if (o.version) {
		printf("rankmap-nccl-check %s\n", RM_VERSION_STRING);
		return NCK_EXIT_OK;
	}
	/* Before anything else: without a GPU nothing below can work. */
	int ndev = 0;
	cudaError_t ce = cudaGetDeviceCount(&ndev);
	if (ce != cudaSuccess || ndev <= 0) {
		fprintf(stderr, "rankmap-nccl-check: no CUDA device (%s)\n",
			ce != cudaSuccess ? cudaGetErrorString(ce)
					  : "none visible");
		return NCK_EXIT_RUN;
	}

	rmn_opts ro;
	rmn_opts_init(&ro);
	ro.map_path = o.map_path;
	ro.log = log_line;
	ro.timeout_ms = (uint32_t)(o.timeout_s * 1000);
	rmn_comms *c = NULL;
	rmn_error e = { 0 };
	rmn_status st = rmn_comms_init(&ro, &c, &e);
	if (st != RMN_OK) {
		fprintf(stderr, "rankmap-nccl-check: rank %s: %s\n", who(),
			e.msg);
		return st == RMN_EINPUT ? NCK_EXIT_USAGE : NCK_EXIT_RUN;
	}
	nck_plan plan;
	if (nck_plan_build(c->map, &o, &plan, &e) != RMN_OK) {
		fprintf(stderr, "rankmap-nccl-check: rank %u: %s\n", c->rank,
			e.msg);
		rmn_comms_free(c);
		return NCK_EXIT_USAGE;
	}
	double *all = NULL;
	int rc = nck_run(&plan, &o, c, &all);
	bool healthy = rc == 0;
	if (!rc)
		rc = report(&plan, &o, all, c->rank);
	free(all);
	nck_plan_free(&plan);
	/* After a failure a peer may be gone: finalizing would wait for it. */
	if (healthy)
		rmn_comms_free(c);
	else
		rmn_comms_abort(c);
	return rc;
}
