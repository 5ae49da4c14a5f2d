/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_nccl_busbw.c - rankmap-nccl-check's arithmetic without a GPU:
 * busBw in nccl-tests' convention, statistics, the link a placement
 * promises, the options, and the analysis of gathered timings (fed here
 * with timings chosen by hand) down to the text and JSON reports.
 */
#include "test.h"
#include "nccl_fixture.h"
#include "check.h"

#include <fcntl.h>
#include <math.h>

static bool NEAR(double a, double b)
{
	return fabs(a - b) < 1e-9 * (fabs(b) + 1);
}

/* Two leaves of two nodes; 4 GPUs per node. */
static const char *TOPO2 = "SwitchName=leaf0 Nodes=n[0-1]\n"
			   "SwitchName=leaf1 Nodes=n[2-3]\n"
			   "SwitchName=spine Switches=leaf[0-1]\n";

static void busbw_convention(void)
{
	/* 1 GB in 10 ms is 100 GB/s of algBw. */
	CHECK(NEAR(rmn_algbw(1000000000ull, 0.01), 100));
	/* all-reduce over 8: 2*7/8 = 1.75 */
	CHECK(NEAR(rmn_busbw_factor(RMN_OP_ALLREDUCE, 8), 1.75));
	CHECK(NEAR(rmn_busbw(RMN_OP_ALLREDUCE, 8, 1000000000ull, 0.01), 175));
	CHECK(NEAR(rmn_busbw(RMN_OP_ALLREDUCE, 2, 1000000000ull, 0.01), 100));
	CHECK(NEAR(rmn_busbw(RMN_OP_ALLGATHER, 4, 1000000000ull, 0.01), 75));
	CHECK(NEAR(rmn_busbw(RMN_OP_REDUCESCATTER, 4, 1000000000ull, 0.01),
		   75));
	CHECK(NEAR(rmn_busbw(RMN_OP_BROADCAST, 4, 1000000000ull, 0.01), 100));
	/* send/recv: busBw is algBw, whatever n */
	CHECK(NEAR(rmn_busbw(RMN_OP_SENDRECV, 2, 1000000000ull, 0.01), 100));
	/* one rank moves nothing; no time measured means no bandwidth */
	CHECK(NEAR(rmn_busbw(RMN_OP_ALLREDUCE, 1, 1000000000ull, 0.01), 0));
	CHECK(NEAR(rmn_algbw(100, 0), 0));
	CHECK(NEAR(rmn_algbw(100, -1), 0));
	CHECK_STR(rmn_op_name(RMN_OP_SENDRECV), "sendrecv");
}

static void statistics(void)
{
	rmn_stats s;
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 10 };
	CHECK_INT(rmn_stats_of(odd, 3, &s, NULL), RMN_OK);
	CHECK(NEAR(s.min, 1) && NEAR(s.median, 3) && NEAR(s.max, 5));
	CHECK_INT(rmn_stats_of(even, 4, &s, NULL), RMN_OK);
	CHECK(NEAR(s.min, 1) && NEAR(s.median, 3.5) && NEAR(s.max, 10));
	CHECK(NEAR(even[0], 4));          /* input left alone */
	CHECK_INT(rmn_stats_of(odd, 0, &s, NULL), RMN_OK);
	CHECK_INT(s.n, 0);
}

static void links_from_placement(void)
{
	fx_map fx;
	if (!fx_ready(&fx, "tp=2,pp=2,dp=4", "megatron", "n[0-3]", 4, TOPO2))
		return;
	const rm_map *m = fx.map;
	/* Find ranks by where they sit, not by numbering. */
	uint32_t n0a = (uint32_t)rm_map_rank_at(m, 0, 0);
	uint32_t n0b = (uint32_t)rm_map_rank_at(m, 0, 1);
	int64_t i1 = rm_map_host_index(m, "n1"), i2 = rm_map_host_index(m, "n2");
	CHECK(i1 >= 0 && i2 >= 0);
	uint32_t n1 = (uint32_t)rm_map_rank_at(m, (uint32_t)i1, 0);
	uint32_t n2 = (uint32_t)rm_map_rank_at(m, (uint32_t)i2, 0);
	uint32_t same[] = { n0a, n0b }, leaf[] = { n0a, n1 },
		 spine[] = { n0a, n1, n2 };
	CHECK_INT(rmn_group_link(m, same, 2), RMN_LINK_NVLINK);
	CHECK_INT(rmn_group_link(m, leaf, 2), RMN_LINK_LEAF);
	CHECK_INT(rmn_group_link(m, spine, 3), RMN_LINK_SPINE);
	CHECK_STR(rmn_link_name(RMN_LINK_SPINE), "spine");
	fx_free(&fx);
}

static int parse(nck_opts *o, char *msg, const char *a1, const char *a2,
		 const char *a3)
{
	char *argv[5] = { "rankmap-nccl-check", (char *)a1, (char *)a2,
			  (char *)a3, NULL };
	int argc = 1 + (a1 != NULL) + (a2 != NULL) + (a3 != NULL);
	return nck_parse_args(argc, argv, o, msg, 256);
}

static void options(void)
{
	nck_opts o;
	char msg[256];
	uint64_t sz[NCK_MAX_SIZES];
	CHECK_INT(parse(&o, msg, NULL, NULL, NULL), 0);
	size_t n = nck_sizes(&o, sz, NCK_MAX_SIZES);
	/* 8 * 4^k up to 128 MiB is 13 sizes, then 256 MiB itself. */
	CHECK_INT(n, 14);
	CHECK_INT(sz[0], 8);
	CHECK_INT(sz[12], 128u << 20);
	CHECK_INT(sz[13], 256u << 20);
	CHECK(NEAR(o.nominal.gbps[RMN_LINK_NVLINK], 450));
	CHECK(NEAR(o.nominal.gbps[RMN_LINK_LEAF], 50));

	CHECK_INT(parse(&o, msg, "-b", "1K", "--maxbytes=1MiB"), 0);
	n = nck_sizes(&o, sz, NCK_MAX_SIZES);
	CHECK_INT(n, 6);                  /* 1K 4K 16K 64K 256K, then 1M */
	CHECK_INT(sz[4], 256u << 10);
	CHECK_INT(sz[5], 1u << 20);
	CHECK_INT(parse(&o, msg, "-b", "6", "-e6"), NCK_EXIT_USAGE);
	CHECK_HAS(msg, "unknown option '-e6'");
	CHECK_INT(parse(&o, msg, "-b", "6", NULL), 0);
	CHECK_INT(o.minbytes, 8);         /* whole 32-bit elements */

	CHECK_INT(parse(&o, msg, "--nic-gbps", "25", NULL), 0);
	CHECK(NEAR(o.nominal.gbps[RMN_LINK_LEAF], 25));
	CHECK(NEAR(o.nominal.gbps[RMN_LINK_SPINE], 25));
	CHECK_INT(parse(&o, msg, "--spine-gbps=12.5", "--nic-gbps=25", NULL),
		  0);
	CHECK(NEAR(o.nominal.gbps[RMN_LINK_SPINE], 12.5));
	CHECK_INT(parse(&o, msg, "--axes", "pp,dp", "--json"), 0);
	CHECK(!o.want[RM_AXIS_TP] && o.want[RM_AXIS_PP] && o.want[RM_AXIS_DP]);
	CHECK(o.json);

	CHECK_INT(parse(&o, msg, "-f", "1", NULL), NCK_EXIT_USAGE);
	CHECK_HAS(msg, "-f: bad value '1'");
	CHECK_INT(parse(&o, msg, "--axes", "tp,tp", NULL), NCK_EXIT_USAGE);
	CHECK_INT(parse(&o, msg, "--axes", "tp,", NULL), NCK_EXIT_USAGE);
	CHECK_INT(parse(&o, msg, "--axes", "xx", NULL), NCK_EXIT_USAGE);
	CHECK_INT(parse(&o, msg, "-e", "9G", NULL), NCK_EXIT_USAGE);
	CHECK_INT(parse(&o, msg, "-e", "99999999999999999999999", NULL),
		  NCK_EXIT_USAGE);
	CHECK_INT(parse(&o, msg, "--json=1", NULL, NULL), NCK_EXIT_USAGE);
	CHECK_HAS(msg, "--json: takes no value");
	CHECK_INT(parse(&o, msg, "-n", NULL, NULL), NCK_EXIT_USAGE);
	CHECK_HAS(msg, "-n: needs a value");
	CHECK_INT(parse(&o, msg, "--slow-fraction", "2", NULL), NCK_EXIT_USAGE);
	CHECK_INT(parse(&o, msg, "--nvlink-gbps", "nan", NULL), NCK_EXIT_USAGE);
	CHECK_INT(parse(&o, msg, "-b", "2M", "-e1M"), NCK_EXIT_USAGE);
	CHECK_INT(parse(&o, msg, "-b", "2M", "--maxbytes=1M"), NCK_EXIT_USAGE);
	CHECK_HAS(msg, "--minbytes is above --maxbytes");
	CHECK_INT(parse(&o, msg, "--bo\x1bgus", NULL, NULL), NCK_EXIT_USAGE);
	CHECK(strchr(msg, 0x1b) == NULL);
}

static void site_tiers(void)
{
	nck_opts o;
	char msg[256], path[] = "/tmp/rmn-site." "XX" "XX" "XX";
	/* Llama-3-like: the spine is 50 GB/s at 1:8, i.e. 6.25 per GPU. */
	const char *yaml = "schema: rankmap-site/1\n"
			   "tiers:\n"
			   "  - {name: nvlink, bandwidth_gbs: 900}\n"
			   "  - {name: tor, bandwidth_gbs: 25}\n"
			   "  - {name: pod, bandwidth_gbs: 25, oversubscription: 1}\n"
			   "  - {name: spine, bandwidth_gbs: 50, "
			   "oversubscription: 8}\n";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, yaml, strlen(yaml)) == (ssize_t)strlen(yaml));
	if (fd >= 0)
		close(fd);
	CHECK_INT(parse(&o, msg, "--site", path, NULL), 0);
	if (msg[0])
		printf("  %s\n", msg);
	CHECK(NEAR(o.nominal.gbps[RMN_LINK_NVLINK], 900));
	CHECK(NEAR(o.nominal.gbps[RMN_LINK_LEAF], 25));
	CHECK(NEAR(o.nominal.gbps[RMN_LINK_SPINE], 6.25));
	/* What is given on the command line wins. */
	char arg[96];
	snprintf(arg, sizeof(arg), "--site=%s", path);
	CHECK_INT(parse(&o, msg, arg, "--nvlink-gbps=300", "--spine-gbps=20"),
		  0);
	CHECK(NEAR(o.nominal.gbps[RMN_LINK_NVLINK], 300));
	CHECK(NEAR(o.nominal.gbps[RMN_LINK_LEAF], 25));
	CHECK(NEAR(o.nominal.gbps[RMN_LINK_SPINE], 20));
	/* A broken site file is the user's error, named as such. */
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, "tiers: [\n", 9) == 9);
	if (fd >= 0)
		close(fd);
	CHECK_INT(parse(&o, msg, "--site", path, NULL), NCK_EXIT_USAGE);
	CHECK_HAS(msg, "--site: ");
	CHECK_HAS(msg, path);
	unlink(path);
}

/* Seconds for `bytes` to show `busbw` GB/s with busBw factor `f`. */
static double secs(uint64_t bytes, double busbw, double f)
{
	return (double)bytes * f / (busbw * 1e9);
}

static void analysis_and_reports(void)
{
	fx_map fx;
	nck_opts o;
	char msg[256];
	nck_plan p;
	rmn_error e = { 0 };
	if (!fx_make(&fx, "tp=2,pp=2,dp=4", "megatron", "n[0-3]", 4, TOPO2) ||
	    parse(&o, msg, "-b", "1M", "-e4M") != NCK_EXIT_USAGE ||
	    parse(&o, msg, "-b", "1M", "--maxbytes=4M") != 0 ||
	    nck_plan_build(fx.map, &o, &p, &e) != RMN_OK) {
		printf("  setup: %s %s\n", msg, e.msg);
		t_bad++;
		fx_free(&fx);
		return;
	}
	const rm_map *m = fx.map;
	CHECK_INT(p.nsizes, 2);           /* 1M, then 4M (x4) */
	CHECK_INT(p.nax, 3);
	CHECK_INT(p.ax[0].axis, RM_AXIS_TP);
	CHECK_INT(p.ax[1].op, RMN_OP_SENDRECV);
	CHECK_INT(p.ax[1].nunits, 8);     /* 8 pipelines of 2 stages */
	CHECK_INT(p.ax[2].nunits, 4);     /* 4 DP groups of 4 */

	/* The slow one: the TP group of the GPUs 2,3 of n3. */
	int64_t n3 = rm_map_host_index(m, "n3");
	uint32_t slow_rank = (uint32_t)rm_map_rank_at(m, (uint32_t)n3, 3);
	uint32_t wrong_rank = (uint32_t)rm_map_rank_at(m, 0, 0);
	double *rec = calloc((size_t)m->world * p.record, sizeof(double));
	for (uint32_t r = 0; r < m->world; r++) {
		double *x = rec + (size_t)r * p.record;
		for (size_t s = 0; s < p.nsizes; s++) {
			uint64_t b = p.sizes[s];
			/* TP at 360 GB/s, one member at a tenth of it */
			x[nck_rec_index(&p, 0, 0, s)] =
				secs(b, r == slow_rank ? 36 : 360, 1.0);
			/* PP pairs at 300 each way, both slots */
			x[nck_rec_index(&p, 1, 0, s)] = secs(b, 300, 1.0);
			x[nck_rec_index(&p, 1, 1, s)] = secs(b, 300, 1.0);
			/* DP over 4: busBw 45 = algBw 30 * 1.5 */
			x[nck_rec_index(&p, 2, 0, s)] = secs(b, 45, 1.5);
		}
		if (r == wrong_rank)
			x[nck_rec_index(&p, 2, 0, p.nsizes)] = 5;
	}
	/* A NaN from a broken rank must not poison anything. */
	rec[nck_rec_index(&p, 1, 1, 0)] = NAN;
	nck_result res;
	CHECK_INT(nck_analyse(&p, &o.nominal, rec, &res, &e), RMN_OK);
	CHECK_INT(res.slow, 1);
	CHECK_INT(res.wrong, 5);
	CHECK_INT(res.ax[0].slow, 1);
	CHECK(NEAR(res.ax[0].peak_stats.min, 36));
	CHECK(NEAR(res.ax[0].peak_stats.median, 360));
	CHECK(NEAR(res.ax[0].peak_stats.max, 360));
	CHECK(NEAR(res.ax[1].peak_stats.median, 300));
	CHECK_INT(res.ax[1].slow, 0);
	CHECK(NEAR(res.ax[2].size_stats[1].max, 45));
	CHECK_INT(res.ax[2].slow, 0);     /* 45 is above half of 50 */
	CHECK_INT(res.ax[2].wrong, 5);
	for (uint32_t u = 0; u < p.ax[2].nunits; u++)
		CHECK_INT(p.ax[2].link[u], RMN_LINK_SPINE);
	for (uint32_t u = 0; u < p.ax[0].nunits; u++)
		CHECK_INT(p.ax[0].link[u], RMN_LINK_NVLINK);

	nck_meta meta = { .nccl_version = "2.28.9", .iters = 20, .warmup = 5 };
	char *text = nck_report_text(&p, &o.nominal, &res, &meta);
	char want[160];
	/* Group number and members are the map's own. */
	uint32_t gid = 0, mem[2] = { 0, 0 };
	rm_map_group(m, RM_AXIS_TP, slow_rank, mem, &gid, NULL);
	snprintf(want, sizeof(want), "SLOW: tp group %u (ranks %u,%u on n3): "
				     "peak 36.00 GB/s, placed on nvlink "
				     "(nominal 450 GB/s)",
		 gid, mem[0], mem[1]);
	CHECK_HAS(text, want);
	CHECK_HAS(text, "WRONG: dp group");
	CHECK_HAS(text, ": 5 wrong elements");
	CHECK_HAS(text, "placed on: spine 4");
	CHECK_HAS(text, "result: 5 wrong elements, 1 slow");
	/* `rankmap calibrate --nccl-check` reads this very report: one link
	 * per axis, each its median group's peak, the DP one on the network */
	rm_cal_link links[8];
	size_t got = 0;
	rm_error ce = { 0 };
	CHECK_INT(rm_cal_nccl_check(text, strlen(text), "report.txt", links, 8,
				    &got, &ce), RM_OK);
	CHECK_INT(got, 3);
	if (got == 3) {
		CHECK(NEAR(links[0].busbw, 360) && !links[0].network);
		CHECK(NEAR(links[1].busbw, 300));
		CHECK(NEAR(links[2].busbw, 45) && links[2].network);
		CHECK_HAS(links[2].what, "dp on spine");
	}
	free(text);

	char *json = nck_report_json(&p, &o.nominal, &res, &meta);
	rmi_ynode *root = NULL;
	rm_error re = { 0 };
	CHECK_INT(rmi_yaml_load(json, strlen(json), "report.json", &root, &re),
		  RM_OK);
	if (root) {
		const rmi_ynode *v = rmi_y_get(root, "slow");
		CHECK(v && !strcmp(v->str, "1"));
		v = rmi_y_get(root, "ok");
		CHECK(v && !strcmp(v->str, "false"));
		const rmi_ynode *axes = rmi_y_get(root, "axes");
		CHECK(axes && axes->n == 3);
		if (axes && axes->n == 3) {
			const rmi_ynode *pk =
				rmi_y_get(axes->item[0], "peak_busbw");
			v = pk ? rmi_y_get(pk, "min") : NULL;
			CHECK(v && !strcmp(v->str, "36.0000"));
			v = rmi_y_get(axes->item[1], "op");
			CHECK(v && !strcmp(v->str, "sendrecv"));
		}
		rmi_yaml_free(root);
	}
	free(json);
	nck_result_free(&p, &res);
	free(rec);
	nck_plan_free(&p);
	fx_free(&fx);
}

static void one_rank_is_never_slow(void)
{
	/* The one-GPU run: groups of one move nothing over any link. */
	fx_map fx;
	nck_opts o;
	char msg[256];
	nck_plan p;
	rmn_error e = { 0 };
	if (!fx_make(&fx, "tp=1,pp=1,dp=1", NULL, "n0", 1, NULL) ||
	    parse(&o, msg, "--maxbytes=1K", NULL, NULL) != 0 ||
	    nck_plan_build(fx.map, &o, &p, &e) != RMN_OK) {
		printf("  setup: %s\n", e.msg);
		t_bad++;
		fx_free(&fx);
		return;
	}
	double *rec = calloc(p.record, sizeof(double));
	for (size_t i = 0; i < p.record; i++)
		rec[i] = 1e-5;
	for (size_t a = 0; a < p.nax; a++)
		rec[nck_rec_index(&p, a, 0, p.nsizes)] = 0;
	nck_result res;
	CHECK_INT(nck_analyse(&p, &o.nominal, rec, &res, &e), RMN_OK);
	CHECK_INT(res.slow, 0);
	CHECK_INT(res.wrong, 0);
	CHECK_INT(p.ax[1].nunits, 0);     /* no pipeline neighbours */
	nck_meta meta = { .nccl_version = "2.28.9", .iters = 1 };
	char *text = nck_report_text(&p, &o.nominal, &res, &meta);
	/* 1 KiB in 10 us: 0.1 GB/s of a local copy, shown, not judged */
	CHECK_HAS(text, "tp  allreduce over 1 groups of 1: one rank per group, "
			"no link to judge");
	CHECK_HAS(text, "       1 KiB             10.0               0.10\n");
	CHECK_HAS(text, "pp  sendrecv between 0 pairs of consecutive stages "
			"(groups of 1): no neighbours to measure");
	CHECK_HAS(text, "result: all results exact");
	free(text);
	nck_result_free(&p, &res);
	free(rec);
	nck_plan_free(&p);
	fx_free(&fx);
}

int main(void)
{
	RUN("nccl_busbw", busbw_convention);
	RUN("nccl_busbw", statistics);
	RUN("nccl_busbw", links_from_placement);
	RUN("nccl_busbw", options);
	RUN("nccl_busbw", site_tiers);
	RUN("nccl_busbw", analysis_and_reports);
	RUN("nccl_busbw", one_rank_is_never_slow);
	TEST_EXIT();
}
