/*
 * test_spank_core.c - the SPANK plugin's Slurm-free parts: plugstack
 * arguments, tasks-per-node parsing, the step plan with its refusals and
 * policy, the private map directory, and the per-task environment.
 */
#include "rms.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[64];

static void conf_args(void)
{
	rms_conf c;
	char warn[512];
	rms_conf_init(&c);
	char *ok[] = { "site=/etc/slurm/rankmap.yaml", "enforce=strict",
		       "order=megatron", "topology=/t.conf", "dir=/scratch" };
	CHECK(rms_conf_parse(&c, 5, ok, warn, sizeof(warn)));
	CHECK_STR(warn, "");
	CHECK_STR(c.site, "/etc/slurm/rankmap.yaml");
	CHECK_STR(c.order, "megatron");
	CHECK_STR(c.topology, "/t.conf");
	CHECK_STR(c.dir, "/scratch");
	CHECK_INT(c.enforce, RM_ENFORCE_STRICT);
	rms_conf_free(&c);

	rms_conf_init(&c);
	char *bad[] = { "colour=blue", "enforce=maybe", "dir=relative", "site" };
	CHECK(rms_conf_parse(&c, 4, bad, warn, sizeof(warn)));
	CHECK_HAS(warn, "'colour=blue': unknown argument");
	CHECK_HAS(warn, "'enforce=maybe': enforce is off, warn or strict");
	CHECK_HAS(warn, "'dir=relative': needs a value");
	CHECK_INT(c.enforce, -1);
	CHECK_STR(c.dir, "/tmp");
	CHECK(c.site == NULL);
	rms_conf_free(&c);

	rms_conf_init(&c);
	CHECK(rms_conf_default_topology(&c, "/opt/slurm/etc/slurm.conf"));
	CHECK_STR(c.topology, "/opt/slurm/etc/topology.conf");
	CHECK(c.topology_default);
	rms_conf_free(&c);
	rms_conf_init(&c);
	CHECK(rms_conf_default_topology(&c, NULL));
	CHECK_STR(c.topology, "/etc/slurm/topology.conf");
	rms_conf_free(&c);
}

static void tasks_per_node(void)
{
	uint32_t n = 0;
	char err[256];
	CHECK(rms_uniform_tasks("8(x4)", 4, &n, err, sizeof(err)));
	CHECK_INT(n, 8);
	CHECK(rms_uniform_tasks("4,4(x2),4", 4, &n, err, sizeof(err)));
	CHECK_INT(n, 4);
	CHECK(!rms_uniform_tasks("5,3(x3)", 4, &n, err, sizeof(err)));
	CHECK_HAS(err, "tasks per node are uneven (5,3(x3))");
	CHECK(!rms_uniform_tasks("8(x3)", 4, &n, err, sizeof(err)));
	CHECK_HAS(err, "do not cover the step's 4 nodes");
	const char *junk[] = { "", "x", "8(", "8(x)", "8(y2)", "0", "8,,8",
			       "99999999999999999999", "8(x99999999999)" };
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		CHECK(!rms_uniform_tasks(junk[i], 0, &n, err, sizeof(err)));
	CHECK(!rms_uniform_tasks(NULL, 1, &n, err, sizeof(err)));
}

static void syntax(void)
{
	char err[RMS_ERRLEN];
	CHECK(rms_check_syntax("8x16x128", NULL, err, sizeof(err)));
	CHECK(rms_check_syntax(NULL, "tp-dp-pp", err, sizeof(err)));
	CHECK(rms_check_syntax(NULL, "megatron", err, sizeof(err)));
	CHECK(!rms_check_syntax("8x2", NULL, err, sizeof(err)));
	CHECK_HAS(err, "--parallel-layout: ");
	CHECK(!rms_check_syntax(NULL, "tp-xx", err, sizeof(err)));
	CHECK_HAS(err, "--parallel-order: ");
	char huge[400];
	memset(huge, '8', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = 0;
	CHECK(!rms_check_syntax(huge, NULL, err, sizeof(err)));
	CHECK_HAS(err, "longer than");
}

static void write_topology(char *path, size_t n)
{
	snprintf(path, n, "%s/topology.conf", tmp);
	FILE *f = fopen(path, "w");
	fputs("SwitchName=leaf1 Nodes=n[1-3]\nSwitchName=leaf2 Nodes=n4\n"
	      "SwitchName=spine Switches=leaf[1-2]\n", f);
	fclose(f);
}

static bool plan(const char *layout, const char *order, const char *tpn,
		 uint32_t ntasks, int enforce, const char *site, rms_plan *p,
		 char *err)
{
	char topo[128];
	write_topology(topo, sizeof(topo));
	rms_conf c;
	rms_conf_init(&c);
	c.topology = strdup(topo);
	c.site = site ? strdup(site) : NULL;
	c.enforce = enforce;
	rms_step s = { .layout = layout, .order = order,
		       .nodelist = "n[1-4]", .tasks_per_node = tpn,
		       .ntasks = ntasks, .nnodes = 4 };
	rms_plan_init(p);
	bool ok = rms_plan_step(&c, &s, p, err, RMS_ERRLEN);
	rms_conf_free(&c);
	return ok;
}

static void step_plan(void)
{
	rms_plan p;
	char err[RMS_ERRLEN];
	CHECK(plan("8x2x2", NULL, "8(x4)", 32, -1, NULL, &p, err));
	CHECK_STR(p.layout_text, "tp=8,pp=2,dp=2");
	CHECK_STR(p.order_text, "tp-pp-dp");
	CHECK_INT(p.tasks_per_node, 8);
	CHECK_INT(strlen(p.digest), 64);
	char sha[65];
	rm_sha256_hex(p.json, p.json_len, sha);
	CHECK_STR(p.json_sha256, sha);
	char first[65];
	memcpy(first, p.digest, sizeof(first));
	rms_plan_free(&p);

	/* Same inputs, same digest; another policy, another digest. */
	CHECK(plan("8x2x2", NULL, "8(x4)", 32, -1, NULL, &p, err));
	CHECK_STR(p.digest, first);
	rms_plan_free(&p);
	CHECK(plan("8x2x2", NULL, "8(x4)", 32, RM_ENFORCE_OFF, NULL, &p, err));
	CHECK(strcmp(p.digest, first) != 0);
	rms_plan_free(&p);

	CHECK(!plan("8x2x4", NULL, "8(x4)", 32, -1, NULL, &p, err));
	CHECK_HAS(err, "--parallel-layout=8x2x4 does not fit the step's 32 "
		       "tasks (4 nodes x 8)");
	rms_plan_free(&p);
	CHECK(!plan("16x1x2", NULL, "8(x4)", 32, -1, NULL, &p, err));
	CHECK_HAS(err, "TP=16");
	rms_plan_free(&p);
	CHECK(!plan("8x2x2", NULL, "9,7,8(x2)", 32, -1, NULL, &p, err));
	CHECK_HAS(err, "uneven");
	rms_plan_free(&p);
	CHECK(!plan("8x2x2", NULL, "8(x4)", 31, -1, NULL, &p, err));
	CHECK_HAS(err, "do not add up to the step's 31 tasks");
	rms_plan_free(&p);
}

static void policy(void)
{
	char site[128], err[RMS_ERRLEN];
	snprintf(site, sizeof(site), "%s/site.yaml", tmp);
	FILE *f = fopen(site, "w");
	fputs("schema: rankmap-site/1\nname: t\npolicy:\n"
	      "  max_pp_crossings: 0\n", f);
	fclose(f);
	rms_plan p;
	/* Two pipelines of two nodes over leaves of 3 and 1: one crosses,
	 * 8 GPU pairs. */
	CHECK(!plan("8x2x2", NULL, "8(x4)", 32, RM_ENFORCE_STRICT, site, &p,
		    err));
	CHECK_HAS(err, "refused by the site policy: 8 pipeline neighbour "
		       "pairs cross a leaf switch");
	rms_plan_free(&p);
	CHECK(plan("8x2x2", NULL, "8(x4)", 32, RM_ENFORCE_WARN, site, &p, err));
	CHECK(p.warning != NULL);
	CHECK_HAS(p.warning, "max_pp_crossings of 0");
	rms_plan_free(&p);
	CHECK(plan("8x2x2", NULL, "8(x4)", 32, RM_ENFORCE_OFF, site, &p, err));
	CHECK(p.warning == NULL);
	rms_plan_free(&p);
	/* Within the limit: no warning at all. */
	CHECK(plan("8x4x1", NULL, "8(x4)", 32, RM_ENFORCE_STRICT, NULL, &p,
		   err));
	CHECK(p.warning == NULL);
	rms_plan_free(&p);
}

static void private_files(void)
{
	rms_file f;
	char err[RMS_ERRLEN], path[256];
	uid_t uid = getuid();
	CHECK(rms_file_write(&f, tmp, uid, 7, 0, "n1", "{}\n", 3, err,
			     sizeof(err)));
	struct stat st;
	CHECK(stat(f.path, &st) == 0 && (st.st_mode & 0777) == 0600);
	CHECK(stat(f.dir, &st) == 0 && (st.st_mode & 0777) == 0700);
	/* Writing again (a restarted step) replaces the file. */
	CHECK(rms_file_write(&f, tmp, uid, 7, 0, "n1", "{\"a\":1}\n", 8, err,
			     sizeof(err)));
	CHECK(stat(f.path, &st) == 0 && st.st_size == 8);
	rms_file_remove(&f, uid);
	CHECK(stat(f.dir, &st) != 0 && errno == ENOENT);

	/* A step directory planted as a symbolic link is refused. */
	snprintf(path, sizeof(path), "%s/rankmap-%lu/8.0.n1", tmp,
		 (unsigned long)uid);
	CHECK(symlink("/etc", path) == 0);
	CHECK(!rms_file_write(&f, tmp, uid, 8, 0, "n1", "x", 1, err,
			      sizeof(err)));
	CHECK_HAS(err, "cannot open");
	unlink(path);

	/* So is a user directory others can enter. */
	snprintf(path, sizeof(path), "%s/rankmap-%lu", tmp, (unsigned long)uid);
	CHECK(chmod(path, 0755) == 0);
	CHECK(!rms_file_write(&f, tmp, uid, 9, 0, "n1", "x", 1, err,
			      sizeof(err)));
	CHECK_HAS(err, "private (0700): refusing to use it");
	CHECK(chmod(path, 0700) == 0);
	/* And one that belongs to someone else. */
	CHECK(!rms_file_write(&f, tmp, uid + 1, 9, 0, "n1", "x", 1, err,
			      sizeof(err)));
	CHECK_HAS(err, "refusing to use it");

	CHECK(!rms_file_write(&f, tmp, uid, 9, 0, "../n1", "x", 1, err,
			      sizeof(err)));
	CHECK(!rms_file_write(&f, "relative", uid, 9, 0, "n1", "x", 1, err,
			      sizeof(err)));
	rmdir(path);
}

static const char *get(const rms_envset *e, const char *k)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->kv[i].key, k))
			return e->kv[i].val;
	return NULL;
}

static void task_env(void)
{
	rms_plan p;
	char err[RMS_ERRLEN];
	CHECK(plan("2x2x8", "megatron", "8(x4)", 32, -1, NULL, &p, err));
	rm_env nccl = { 0 };
	char *k[] = { "NCCL_IB_HCA" }, *v[] = { "=mlx5_0:1" };
	nccl.key = k, nccl.val = v, nccl.n = 1;
	bool seen[32] = { false };
	for (uint32_t h = 0; h < p.map->nhost; h++)
		for (uint32_t lr = 0; lr < 8; lr++) {
			rms_envset e = { 0 };
			CHECK(rms_task_env(&p, h, lr, 12345, "/x/map.json",
					   &nccl, false, NULL, &e, err,
					   sizeof(err)));
			int rank = atoi(get(&e, "RANK"));
			CHECK(rank >= 0 && rank < 32 && !seen[rank]);
			if (rank >= 0 && rank < 32)
				seen[rank] = true;
			/* Megatron: rank = tp + dp*TP + pp*TP*DP. */
			int tp = atoi(get(&e, "RANKMAP_TP_RANK"));
			int pp = atoi(get(&e, "RANKMAP_PP_RANK"));
			int dp = atoi(get(&e, "RANKMAP_DP_RANK"));
			CHECK_INT(rank, tp + dp * 2 + pp * 2 * 8);
			char lrs[4];
			snprintf(lrs, sizeof(lrs), "%u", (unsigned)lr);
			CHECK_STR(get(&e, "LOCAL_RANK"), lrs);
			CHECK_STR(get(&e, "WORLD_SIZE"), "32");
			CHECK_STR(get(&e, "LOCAL_WORLD_SIZE"), "8");
			CHECK_STR(get(&e, "MASTER_PORT"), "32345");
			CHECK_STR(get(&e, "RANKMAP_ORDER"), "tp-dp-pp");
			CHECK_STR(get(&e, "RANKMAP_MAP"), "/x/map.json");
			CHECK(get(&e, "RANKMAP_CP_RANK") == NULL);
			CHECK_STR(get(&e, "NCCL_IB_HCA"), "=mlx5_0:1");
			for (size_t i = 0; i < e.n; i++) {
				/* The job's own MASTER_PORT and NCCL
				 * settings win; the rest is ours. */
				bool soft = !strcmp(e.kv[i].key, "MASTER_PORT") ||
					    !strcmp(e.kv[i].key, "NCCL_IB_HCA");
				CHECK(e.kv[i].overwrite == !soft);
			}
			rms_envset_free(&e);
		}
	rms_envset e = { 0 };
	CHECK(!rms_task_env(&p, 4, 0, 1, NULL, NULL, false, NULL, &e, err,
			    sizeof(err)));
	CHECK(!rms_task_env(&p, 0, 8, 1, NULL, NULL, false, NULL, &e, err,
			    sizeof(err)));
	CHECK_HAS(err, "local task 8 has no rank");
	rms_envset_free(&e);
	rms_plan_free(&p);
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/rms-test.123456");
	memset(tmp + strlen(tmp) - 6, 'X', 6); /* mkdtemp's template */
	if (!mkdtemp(tmp))
		return 1;
	RUN("spank", conf_args);
	RUN("spank", tasks_per_node);
	RUN("spank", syntax);
	RUN("spank", step_plan);
	RUN("spank", policy);
	RUN("spank", private_files);
	RUN("spank", task_env);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		return 1;
	return t_total_bad ? 1 : 0;
}
