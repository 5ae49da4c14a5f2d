/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_nccl_init.c - rmn_comms_init's own logic without a GPU: every rank
 * is a thread, the id travels over the real authenticated exchange on
 * 127.0.0.1, and NCCL's set-up calls are the non-blocking stand-ins of
 * fake_gpu.c (which finish only when every member has called). What must
 * hold: the communicators are the map's groups, and a rank that dies after
 * the exchange makes every other rank give up within the time-out, naming
 * the step and the group - not hang. Not an NCCL integration test.
 */
#include "test.h"
#include "nccl_fixture.h"
#include "fake_gpu.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>

#define SECRET "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

typedef struct job {
	const char *map;
	uint32_t rank;
	uint16_t port;
	uint32_t timeout_ms;
	rmn_status st;
	rmn_error err;
	rmn_comms *c;
} job;

static void *rank_main(void *arg)
{
	job *j = arg;
	rmn_opts o;
	rmn_opts_init(&o);
	o.map_path = j->map;
	o.rank = j->rank;
	o.master_addr = "127.0.0.1";
	o.port = j->port;
	o.timeout_ms = j->timeout_ms;
	o.auth = RMN_AUTH_HMAC;
	o.secret = SECRET;
	o.jobid = 3;
	o.stepid = 1;
	j->st = rmn_comms_init(&o, &j->c, &j->err);
	return NULL;
}

/* All ranks of the map at once; the jobs come back filled in. */
static job *start(const fx_map *fx, uint32_t timeout_ms, double *took)
{
	uint32_t n = fx->map->world;
	job *j = calloc(n, sizeof(*j));
	pthread_t *th = calloc(n, sizeof(*th));
	uint16_t port = free_port();
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t r = 0; r < n; r++) {
		j[r] = (job){ .map = fx->path, .rank = r, .port = port,
			      .timeout_ms = timeout_ms };
		pthread_create(&th[r], NULL, rank_main, &j[r]);
	}
	for (uint32_t r = 0; r < n; r++)
		pthread_join(th[r], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*took = (double)(t1.tv_sec - t0.tv_sec) +
		(t1.tv_nsec - t0.tv_nsec) / 1e9;
	free(th);
	return j;
}

static void finish(job *j, uint32_t n)
{
	for (uint32_t r = 0; r < n; r++)
		rmn_comms_free(j[r].c);
	free(j);
	fake_reset();
}

static void every_communicator_is_the_maps_group(void)
{
	fx_map fx;
	double took;
	if (!fx_ready(&fx, "tp=2,pp=3,dp=2", "megatron", "n[0-2]", 4, NULL))
		return;
	uint32_t n = fx.map->world;
	job *j = start(&fx, 5000, &took);
	for (uint32_t r = 0; r < n; r++) {
		CHECK_INT(j[r].st, RMN_OK);
		if (j[r].st != RMN_OK) {
			printf("  rank %u: %s\n", r, j[r].err.msg);
			continue;
		}
		rmn_comms *c = j[r].c;
		CHECK_INT(fake_comm_size(c->comm), 12);
		CHECK_INT(fake_comm_rank(c->comm), r);
		/* Axis communicators: numbered by position in the group. */
		CHECK_INT(fake_comm_size(c->axis[RM_AXIS_TP]), 2);
		CHECK_INT(fake_comm_rank(c->axis[RM_AXIS_TP]),
			  fx.map->rank[r].coord[RM_AXIS_TP]);
		CHECK_INT(fake_comm_size(c->axis[RM_AXIS_PP]), 3);
		CHECK_INT(fake_comm_rank(c->axis[RM_AXIS_PP]),
			  fx.map->rank[r].coord[RM_AXIS_PP]);
		/* Combined groups: numbered by RANK among the members. */
		uint32_t *g = NULL, ng = 0, size = 0;
		rmn_error e;
		CHECK_INT(rmn_group_members(fx.map, RMN_GROUP_MP, &g, &ng,
					    &size, &e), RMN_OK);
		CHECK_INT(fake_comm_size(c->group[RMN_GROUP_MP]), 6);
		int pos = -1;
		for (uint32_t k = 0; g && k < ng * size; k++)
			if (g[k] == r)
				pos = (int)(k % size);
		CHECK_INT(fake_comm_rank(c->group[RMN_GROUP_MP]), pos);
		free(g);
		/* The middle stage has no embedding communicator. */
		bool middle = fx.map->rank[r].coord[RM_AXIS_PP] == 1;
		CHECK(middle == (c->group[RMN_GROUP_EMBEDDING] == NULL));
		if (!middle)
			CHECK_INT(fake_comm_size(c->group[RMN_GROUP_EMBEDDING]),
				  2);
	}
	finish(j, n);
	fx_free(&fx);
}

static void dead_after_exchange(int at_init, const char *says)
{
	fx_map fx;
	double took;
	if (!fx_ready(&fx, "tp=2,pp=2,dp=2", "megatron", "n[0-1]", 4, NULL))
		return;
	uint32_t n = fx.map->world;
	if (at_init)
		fake_die_at_init = 5;
	else
		fake_die_at_split = 5;
	job *j = start(&fx, 1000, &took);
	/* Exchange, then one time-out: far from a hang. */
	CHECK(took < 4.0);
	for (uint32_t r = 0; r < n; r++) {
		if (r == 5) {
			CHECK_INT(j[r].st, RMN_ENCCL);
			continue;
		}
		CHECK_INT(j[r].st, RMN_ETIMEOUT);
		CHECK_HAS(j[r].err.msg, says);
		CHECK_HAS(j[r].err.msg, "did not finish within 1.0 s");
		CHECK(j[r].c == NULL);
	}
	finish(j, n);
	fx_free(&fx);
}

static void a_rank_dead_at_init_stops_everyone_in_time(void)
{
	dead_after_exchange(1, "ncclCommInitRankConfig (world of 8)");
}

static void a_rank_dead_at_a_split_stops_everyone_in_time(void)
{
	/* The first split is tp; rank 5's partner is rank 4. */
	dead_after_exchange(0, "ncclCommSplit (tp group ");
}

/* Two ranks on one GPU, as a real H200 showed it (docs/nccl.md, "A real
 * GPU"): every member fails at once with NCCL's invalid usage and its
 * "Duplicate GPU detected" text, not after a time-out. */
static void two_ranks_on_one_gpu_fail_at_once_as_on_a_gpu(void)
{
	fx_map fx;
	double took;
	if (!fx_ready(&fx, "tp=1,pp=1,dp=2", "megatron", "n0", 2, NULL))
		return;
	fake_duplicate_gpu = true;
	job *j = start(&fx, 5000, &took);
	CHECK(took < 2.0);
	for (uint32_t r = 0; r < 2; r++) {
		char want[256];
		snprintf(want, sizeof(want),
			 "rank %u: ncclCommInitRankConfig (world of 2): invalid usage (run with NCCL_DEBUG=WARN for details): Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 0",
			 r);
		CHECK_INT(j[r].st, RMN_ENCCL);
		CHECK_INT(j[r].err.nccl, ncclInvalidUsage);
		CHECK_STR(j[r].err.msg, want);
		CHECK(j[r].c == NULL);
	}
	finish(j, 2);
	fx_free(&fx);
}

/* The stand-in's result strings are the real library's, read from the
 * NCCL this machine has (no GPU needed to ask it). */
static void error_strings_are_the_real_librarys(void)
{
	void *h = dlopen(NCCL_SO, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("SKIP: nccl_init/error_strings: %s: %s\n", NCCL_SO,
		       dlerror());
		return;
	}
	const char *(*real)(ncclResult_t) =
		(const char *(*)(ncclResult_t))dlsym(h, "ncclGetErrorString");
	CHECK(real != NULL);
	for (int r = ncclSuccess; real && r <= ncclInProgress; r++)
		CHECK_STR(ncclGetErrorString((ncclResult_t)r),
			  real((ncclResult_t)r));
	dlclose(h);
}

int main(void)
{
	RUN("nccl_init", every_communicator_is_the_maps_group);
	RUN("nccl_init", a_rank_dead_at_init_stops_everyone_in_time);
	RUN("nccl_init", a_rank_dead_at_a_split_stops_everyone_in_time);
	RUN("nccl_init", two_ranks_on_one_gpu_fail_at_once_as_on_a_gpu);
	RUN("nccl_init", error_strings_are_the_real_librarys);
	TEST_EXIT();
}
