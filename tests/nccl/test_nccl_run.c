/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_nccl_run.c - rankmap-nccl-check's GPU side (check_run.c) without a
 * GPU: every rank is a thread, CUDA and NCCL are the host-memory fakes of
 * fake_gpu.c, communicators are built from the map's groups exactly as
 * ncclCommSplit(color = group, key = position) would. What must hold: no
 * rank hangs, every rank ends with the same gathered records, every
 * result checks out, and a wrong element is counted where it happened.
 */
#include "test.h"
#include "nccl_fixture.h"
#include "check.h"
#include "fake_gpu.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

typedef struct world {
	const nck_plan *plan;
	const nck_opts *opts;
	rmn_comms *c;                /* per rank */
	double **all;                /* per rank: gathered records */
	int *rc;
} world;

typedef struct job {
	world *w;
	uint32_t rank;
} job;

/* What the next run() does differently: a rank that is gone after the
 * exchange (never runs), the options' extra words. */
static int dead_rank = -1;
static const char *extra_args[4];

static void *rank_main(void *arg)
{
	job *j = arg;
	world *w = j->w;
	if ((int)j->rank == dead_rank) {
		w->rc[j->rank] = -1;
		return NULL;
	}
	w->rc[j->rank] = nck_run(w->plan, w->opts, &w->c[j->rank],
				 &w->all[j->rank]);
	return NULL;
}

/*
 * Run the check's GPU side on `layout`; the all-reduce results of
 * `corrupt_rank` along `corrupt_axis` come back with one wrong element.
 */
static void run(const char *layout, const char *order, const char *nodes,
		uint32_t gpn, int corrupt_rank, rm_axis corrupt_axis,
		nck_result *res, nck_plan *plan, fx_map *fx, nck_opts *o)
{
	char msg[256];
	char *argv[16] = { "rankmap-nccl-check", "-b", "8", "-e", "64K",
			   "-n", "2", "-w", "1" };
	int argc = 9;
	for (int i = 0; i < 4 && extra_args[i]; i++)
		argv[argc++] = (char *)extra_args[i];
	rmn_error e = { 0 };
	memset(res, 0, sizeof(*res));
	if (!fx_make(fx, layout, order, nodes, gpn, NULL) ||
	    nck_parse_args(argc, argv, o, msg, sizeof(msg)) ||
	    nck_plan_build(fx->map, o, plan, &e) != RMN_OK) {
		printf("  setup: %s %s\n", msg, e.msg);
		t_bad++;
		fx_free(fx);
		return;
	}
	const rm_map *m = fx->map;
	uint32_t n = m->world;
	world w = { .plan = plan, .opts = o };
	w.c = calloc(n, sizeof(*w.c));
	w.all = calloc(n, sizeof(*w.all));
	w.rc = calloc(n, sizeof(*w.rc));
	fake_comm *shared[1 + (RM_NAXES + RMN_NGROUPS) * 64];
	size_t nshared = 0;
	shared[nshared++] = fake_comm_new((int)n);
	for (uint32_t r = 0; r < n; r++) {
		w.c[r].map = fx->map;
		w.c[r].rank = r;
		w.c[r].world = n;
		w.c[r].comm = fake_handle(shared[0], (int)r, false);
		CHECK_INT(rmn_splits(m, r, w.c[r].split, &e), RMN_OK);
	}
	for (int a = 0; a < RM_NAXES; a++) {
		if (!w.c[0].split[a].present)
			continue;
		uint32_t *g = NULL, ng = 0, size = 0;
		CHECK_INT(rmn_axis_groups(m, (rm_axis)a, &g, &ng, &size, &e),
			  RMN_OK);
		for (uint32_t k = 0; k < ng && nshared < 64 * RM_NAXES;
		     k++) {
			fake_comm *fc = fake_comm_new((int)size);
			shared[nshared++] = fc;
			for (uint32_t i = 0; i < size; i++) {
				uint32_t r = g[(size_t)k * size + i];
				w.c[r].axis[a] = fake_handle(
					fc, (int)i,
					(int)r == corrupt_rank &&
						a == (int)corrupt_axis);
			}
		}
		free(g);
	}
	/* The combined groups, as ncclCommSplit(color, key = RANK) makes
	 * them from the same lists. */
	for (int g = 0; g < RMN_NGROUPS; g++) {
		uint32_t *gl = NULL, ng = 0, size = 0;
		CHECK_INT(rmn_group_members(m, (rmn_group)g, &gl, &ng, &size,
					    &e), RMN_OK);
		for (uint32_t k = 0; k < ng && nshared < 64 * (RM_NAXES +
								RMN_NGROUPS);
		     k++) {
			fake_comm *fc = fake_comm_new((int)size);
			shared[nshared++] = fc;
			for (uint32_t i = 0; i < size; i++)
				w.c[gl[(size_t)k * size + i]].group[g] =
					fake_handle(fc, (int)i, false);
		}
		free(gl);
	}
	pthread_t *th = calloc(n, sizeof(*th));
	job *jobs = calloc(n, sizeof(*jobs));
	for (uint32_t r = 0; r < n; r++) {
		jobs[r] = (job){ .w = &w, .rank = r };
		pthread_create(&th[r], NULL, rank_main, &jobs[r]);
	}
	for (uint32_t r = 0; r < n; r++)
		pthread_join(th[r], NULL);
	for (uint32_t r = 0; r < n && dead_rank >= 0; r++)
		CHECK_INT(w.rc[r], (int)r == dead_rank ? -1 : NCK_EXIT_RUN);
	for (uint32_t r = 0; r < n && dead_rank < 0; r++) {
		CHECK_INT(w.rc[r], 0);
		CHECK(w.all[r] != NULL);
		/* The gather leaves every rank with the same view. */
		if (w.all[r] && w.all[0])
			CHECK(memcmp(w.all[r], w.all[0], sizeof(double) * n *
							      plan->record) ==
			      0);
	}
	if (w.all[0] && dead_rank < 0)
		CHECK_INT(nck_analyse(plan, &o->nominal, w.all[0], res, &e),
			  RMN_OK);
	for (uint32_t r = 0; r < n; r++) {
		free(w.all[r]);
		fake_handle_free(w.c[r].comm);
		for (int a = 0; a < RM_NAXES; a++)
			if (w.c[r].axis[a])
				fake_handle_free(w.c[r].axis[a]);
		for (int g = 0; g < RMN_NGROUPS; g++)
			if (w.c[r].group[g])
				fake_handle_free(w.c[r].group[g]);
	}
	for (size_t i = 0; i < nshared; i++)
		fake_comm_free(shared[i]);
	free(th);
	free(jobs);
	free(w.c);
	free(w.all);
	free(w.rc);
}

/* Every axis of the plan was measured, each unit at every size in a time. */
static void all_measured(const nck_plan *p, const nck_result *r)
{
	for (size_t a = 0; a < p->nax; a++) {
		CHECK(r->ax[a].measured);
		for (uint32_t u = 0; u < p->ax[a].nunits; u++)
			for (size_t s = 0; s < p->nsizes; s++)
				CHECK(r->ax[a].unit[u].seconds[s] > 0);
	}
}

static void every_result_exact(void)
{
	fx_map fx;
	nck_plan p;
	nck_opts o;
	nck_result r;
	/* 16 ranks, pipelines of 4: three neighbour pairs take turns. */
	run("tp=2,pp=4,dp=2", "megatron", "n[0-3]", 4, -1, RM_AXIS_TP, &r, &p,
	    &fx, &o);
	if (!fx.map)
		return;
	CHECK_INT(r.wrong, 0);
	CHECK_INT(p.nax, 3);
	all_measured(&p, &r);
	CHECK_INT(p.ax[1].nunits, 3 * 4);  /* 4 pipelines x 3 pairs */
	nck_result_free(&p, &r);
	nck_plan_free(&p);
	fx_free(&fx);
}

static void a_wrong_element_is_counted_where_it_happened(void)
{
	fx_map fx;
	nck_plan p;
	nck_opts o;
	nck_result r;
	run("tp=2,cp=2,pp=2,dp=2", "megatron", "n[0-3]", 4, 5, RM_AXIS_CP, &r,
	    &p, &fx, &o);
	if (!fx.map)
		return;
	/* Sizes 8 B .. 64 KiB by 4: all but 8 B (two elements) have an
	 * element 3 to spoil, once per size. */
	size_t spoiled = 0;
	for (size_t s = 0; s < p.nsizes; s++)
		spoiled += p.sizes[s] / 4 > 3;
	CHECK_INT(p.nsizes, 8);
	CHECK_INT(r.wrong, spoiled);
	uint32_t gid = 0;
	rm_map_group(fx.map, RM_AXIS_CP, 5, NULL, &gid, NULL);
	for (size_t a = 0; a < p.nax; a++) {
		bool cp = p.ax[a].axis == RM_AXIS_CP;
		CHECK_INT(r.ax[a].wrong, cp ? spoiled : 0);
		for (uint32_t u = 0; cp && u < p.ax[a].nunits; u++)
			CHECK_INT(r.ax[a].unit[u].wrong,
				  p.ax[a].group[u] == gid ? spoiled : 0);
	}
	nck_result_free(&p, &r);
	nck_plan_free(&p);
	fx_free(&fx);
}

static void a_spoiled_message_is_counted_on_both_of_its_pairs(void)
{
	fx_map fx;
	nck_plan p;
	nck_opts o;
	nck_result r;
	/* Rank 4 is stage 1 of a 4-stage pipeline under megatron numbering
	 * with tp=2, dp=2 (tp fastest, then dp, then pp): it receives in
	 * the pair with stage 0 and in the pair with stage 2. */
	run("tp=2,pp=4,dp=2", "megatron", "n[0-3]", 4, 4, RM_AXIS_PP, &r, &p,
	    &fx, &o);
	if (!fx.map)
		return;
	CHECK_INT(fx.map->rank[4].coord[RM_AXIS_PP], 1);
	size_t spoiled = 0;
	for (size_t s = 0; s < p.nsizes; s++)
		spoiled += p.sizes[s] / 4 > 3;
	CHECK_INT(r.wrong, 2 * spoiled);
	const nck_axis *x = &p.ax[1];
	CHECK_INT(x->axis, RM_AXIS_PP);
	size_t hit = 0;
	for (uint32_t u = 0; u < x->nunits; u++) {
		bool has4 = x->members[2 * u] == 4 || x->members[2 * u + 1] == 4;
		CHECK_INT(r.ax[1].unit[u].wrong, has4 ? spoiled : 0);
		hit += has4;
	}
	CHECK_INT(hit, 2);
	nck_result_free(&p, &r);
	nck_plan_free(&p);
	fx_free(&fx);
}

/* --axes all: every axis and every combined group Megatron-Core builds,
 * each all-reduced exactly over its own members. */
static void combined_groups_run_exact(void)
{
	fx_map fx;
	nck_plan p;
	nck_opts o;
	nck_result r;
	extra_args[0] = "--axes";
	extra_args[1] = "all";
	run("tp=2,cp=2,pp=2,dp=2", "megatron", "n[0-3]", 4, -1, RM_AXIS_TP,
	    &r, &p, &fx, &o);
	extra_args[0] = extra_args[1] = NULL;
	if (!fx.map)
		return;
	CHECK_INT(p.nax, 4 + RMN_NGROUPS);   /* tp, cp, pp, dp (ep is 1) */
	CHECK_INT(r.wrong, 0);
	all_measured(&p, &r);
	CHECK_STR(p.ax[4].name, "mp");
	CHECK_INT(p.ax[4].group_size, 4);
	CHECK_STR(p.ax[8].name, "embedding");
	CHECK_INT(p.ax[8].nunits, 8);   /* one per pipeline: 16 / pp 2 */
	nck_result_free(&p, &r);
	nck_plan_free(&p);
	fx_free(&fx);
}

/*
 * A rank gone after the exchange: every other rank gives up within the
 * time-out, exits with 3 and says which group it was waiting in. (The
 * stand-ins never complete an operation a member did not post - as a dead
 * peer leaves NCCL - so this is the check's own deadline at work.)
 */
static void a_dead_peer_ends_every_rank_within_the_timeout(void)
{
	fx_map fx;
	nck_plan p;
	nck_opts o;
	nck_result r;
	char path[] = "/tmp/rmn-stderr.XXXXXX";
	int fd = mkstemp(path);
	int saved = dup(2);
	fflush(stderr);
	dup2(fd, 2);
	extra_args[0] = "--timeout";
	extra_args[1] = "1";
	dead_rank = 6;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run("tp=2,pp=2,dp=2", "megatron", "n[0-1]", 4, -1, RM_AXIS_TP, &r, &p,
	    &fx, &o);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	dead_rank = -1;
	extra_args[0] = extra_args[1] = NULL;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	double took = (double)(t1.tv_sec - t0.tv_sec) +
		      (t1.tv_nsec - t0.tv_nsec) / 1e9;
	/* One time-out per rank at most, all ranks at once: well under 3 s. */
	CHECK(took < 3.0);
	char text[8192] = "";
	ssize_t k = pread(fd, text, sizeof(text) - 1, 0);
	text[k > 0 ? k : 0] = '\0';
	close(fd);
	unlink(path);
	/* Rank 7 shares tp group 3 with rank 6: it names it. */
	CHECK_HAS(text, "rank 7: allreduce in tp group 3 (ranks 6-7) did not "
			"finish within 1.0 s: another member died or stalled");
	if (fx.map) {
		nck_plan_free(&p);
		fx_free(&fx);
	}
}

int main(void)
{
	RUN("nccl_run", every_result_exact);
	RUN("nccl_run", a_wrong_element_is_counted_where_it_happened);
	RUN("nccl_run", a_spoiled_message_is_counted_on_both_of_its_pairs);
	RUN("nccl_run", combined_groups_run_exact);
	RUN("nccl_run", a_dead_peer_ends_every_rank_within_the_timeout);
	TEST_EXIT();
}
