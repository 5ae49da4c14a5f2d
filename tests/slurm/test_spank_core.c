/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_spank_core.c - the SPANK plugin's Slurm-free parts: plugstack
 * arguments, tasks-per-node parsing, the step plan with its refusals and
 * policy, the private map directory, and the per-task environment.
 */
#include "rms.h"
#include "test.h"
#include "spank_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmp[64];

static void conf_args(void)
{
	rms_conf c;
	char errb[512];
	rms_conf_init(&c);
	char *ok[] = { "site=/etc/slurm/rankmap.yaml", "enforce=strict",
		       "order=megatron", "topology=/t.conf",
		       "runtime_dir=/scratch", "export=slurm" };
	CHECK(rms_conf_parse(&c, 6, ok, errb, sizeof(errb)));
	CHECK_STR(errb, "");
	CHECK_STR(c.site, "/etc/slurm/rankmap.yaml");
	CHECK_STR(c.order, "megatron");
	CHECK_STR(c.topology, "/t.conf");
	CHECK_STR(c.runtime_dir, "/scratch");
	CHECK_INT(c.enforce, RM_ENFORCE_STRICT);
	CHECK_INT(c.export_slurm, 1);
	CHECK_INT(strlen(c.args_sha256), 64);
	char first[65];
	memcpy(first, c.args_sha256, sizeof(first));
	rms_conf_free(&c);

	/* Typos are errors (the plugin fails closed on them), each named. */
	rms_conf_init(&c);
	char *bad[] = { "enforse=strict", "enforce=strcit", "runtime_dir=rel",
			"site", "export=all", "dir=/tmp" };
	CHECK(rms_conf_parse(&c, 6, bad, errb, sizeof(errb)));
	CHECK_HAS(errb, "'enforse=strict': unknown argument");
	CHECK_HAS(errb, "'enforce=strcit': enforce is off, warn or strict");
	CHECK_HAS(errb, "'runtime_dir=rel': needs an absolute path");
	CHECK_HAS(errb, "'site': needs an absolute path");
	CHECK_HAS(errb, "'export=all': export is rank or slurm");
	CHECK_HAS(errb, "'dir=/tmp': unknown argument");
	CHECK_INT(c.enforce, -1);
	CHECK_STR(c.runtime_dir, "/run/rankmap");
	CHECK(c.site == NULL);
	rms_conf_free(&c);

	/* Another argument list, another digest. */
	rms_conf_init(&c);
	CHECK(rms_conf_parse(&c, 5, ok, errb, sizeof(errb)));
	CHECK(strcmp(c.args_sha256, first) != 0);
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
	CHECK(!rms_check_syntax(NULL, "tp-pp-tp", err, sizeof(err)));
	CHECK_HAS(err, "names tp twice");
	CHECK(!rms_check_syntax(NULL, "megatrom", err, sizeof(err)));
	/* An order alone is not judged against a stand-in layout: these fit
	 * real layouts (torchtitan has no ep axis; tp-pp leaves dp=1 out). */
	CHECK(rms_check_syntax(NULL, "torchtitan", err, sizeof(err)));
	CHECK(rms_check_syntax(NULL, "tp-pp", err, sizeof(err)));
	CHECK(rms_check_syntax("8x2x1", "tp-pp", err, sizeof(err)));
	CHECK(rms_check_syntax("8x2x4", "torchtitan", err, sizeof(err)));
	/* Once both are known, the order is checked against the layout. */
	CHECK(!rms_check_syntax("tp=2,ep=2,dp=2", "torchtitan", err,
				sizeof(err)));
	CHECK_HAS(err, "--parallel-order=torchtitan with "
		       "--parallel-layout=tp=2,ep=2,dp=2: order 'torchtitan'");
	char huge[400];
	memset(huge, '8', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = 0;
	CHECK(!rms_check_syntax(huge, NULL, err, sizeof(err)));
	CHECK_HAS(err, "longer than");
}

/* `text` as the file `name` in the test's directory. */
static void put_file(const char *name, const char *text)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void write_topology(char *path, size_t n)
{
	snprintf(path, n, "%s/topology.conf", tmp);
	put_file("topology.conf",
		 "SwitchName=leaf1 Nodes=n[1-3]\nSwitchName=leaf2 Nodes=n4\n"
		 "SwitchName=spine Switches=leaf[1-2]\n");
}

/* Plans step s with conf c, which it frees; what rms_plan_step says. */
static bool plan_step(rms_conf *c, const rms_step *s, rms_plan *p, char *err)
{
	rms_plan_init(p);
	bool ok = rms_plan_step(c, s, p, err, RMS_ERRLEN);
	rms_conf_free(c);
	return ok;
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
	return plan_step(&c, &s, p, err);
}

static void step_plan(void)
{
	rms_plan p;
	char err[RMS_ERRLEN];
	CHECK(plan("8x2x2", NULL, "8(x4)", 32, -1, NULL, &p, err));
	CHECK_STR(p.layout_text, "tp=8,pp=2,dp=2");
	CHECK_STR(p.order_text, "tp-pp-dp");
	CHECK_INT(p.tasks_per_node, 8);
	char sha[65];
	rm_sha256_hex(p.json, p.json_len, sha);
	CHECK_STR(p.json_sha256, sha);
	CHECK_INT(strlen(p.topology_sha256), 64);
	CHECK_STR(p.site_sha256, "");
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

/* With no topology= argument the plugin reads what slurmctld reads beside
 * slurm.conf: topology.yaml before topology.conf, the job partition's
 * Topology= entry, the cluster default otherwise. */

static bool plan_in(const char *partition, const char *layout, rms_plan *p,
		    char *err)
{
	char conf[160];
	snprintf(conf, sizeof(conf), "%s/slurm.conf", tmp);
	rms_conf c;
	rms_conf_init(&c);
	CHECK(rms_conf_default_topology(&c, conf));
	rms_step s = { .layout = layout, .nodelist = "n[1-4]",
		       .tasks_per_node = "1(x4)", .ntasks = 4, .nnodes = 4,
		       .partition = partition };
	return plan_step(&c, &s, p, err);
}

static void topology_choice(void)
{
	rms_plan p;
	char err[RMS_ERRLEN];
	put_file("slurm.conf", "PartitionName=nvl Nodes=n[1-4] Topology=blk\n"
			       "PartitionName=ib Nodes=n[1-4]\n");
	put_file("topology.yaml",
		 "- topology: tree\n  cluster_default: true\n  tree:\n"
		 "    switches:\n    - {switch: s1, nodes: \"n[1-4]\"}\n"
		 "- topology: blk\n  block:\n    blocks:\n"
		 "    - {block: b1, nodes: \"n[1-2]\"}\n"
		 "    - {block: b2, nodes: \"n[3-4]\"}\n");
	/* TP=2 across nodes needs the blocks' NVLink domains. */
	CHECK(plan_in("nvl", "2x1x2", &p, err));
	rms_plan_free(&p);
	CHECK(!plan_in("ib", "2x1x2", &p, err));
	CHECK_HAS(err, "TP=2");
	rms_plan_free(&p);
	CHECK(!plan_in(NULL, "2x1x2", &p, err));
	rms_plan_free(&p);
	CHECK(plan_in("ib", "1x2x2", &p, err));
	char sha[65];
	char path[160];
	snprintf(path, sizeof(path), "%s/topology.yaml", tmp);
	char *data = NULL;
	size_t len = 0;
	rm_error e;
	CHECK_INT(rm_file_read(path, &data, &len, &e), RM_OK);
	rm_sha256_hex(data, len, sha);
	free(data);
	CHECK_STR(p.topology_sha256, sha); /* drift is checked on its bytes */
	rms_plan_free(&p);
	/* A broken topology.yaml refuses the step, naming file:line:col. */
	put_file("topology.yaml", "- topology: t\n  tree: {switches: 3}\n");
	CHECK(!plan_in("ib", "1x2x2", &p, err));
	CHECK_HAS(err, "topology.yaml:2:20:");
	rms_plan_free(&p);
	/* topology/ring: refused, naming the plugin. */
	unlink(path);
	put_file("slurm.conf", "TopologyPlugin=topology/ring\n");
	CHECK(!plan_in("ib", "1x2x2", &p, err));
	CHECK_HAS(err, "TopologyPlugin=topology/ring: rankmap cannot place");
	rms_plan_free(&p);
	snprintf(path, sizeof(path), "%s/slurm.conf", tmp);
	unlink(path);
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
	/* More tasks than the site's GPUs per node (--overcommit). */
	snprintf(site, sizeof(site), "%s/site8.yaml", tmp);
	f = fopen(site, "w");
	fputs("schema: rankmap-site/1\nname: t\ngpus_per_node: 8\n", f);
	fclose(f);
	CHECK(!plan("16x1x4", NULL, "16(x4)", 64, -1, site, &p, err));
	CHECK_HAS(err, "16 tasks per node, but the nodes have 8 GPUs");
	rms_plan_free(&p);
	/* One launcher task per node: its ranks per node are the GPUs it
	 * needs there (issue 37: 8x2x1 on one 8-GPU node ran 16 ranks). */
	CHECK(!plan("8x2x4", NULL, "1(x4)", 4, -1, site, &p, err));
	CHECK_HAS(err, "puts 16 ranks on each of the step's 4 node(s), but "
		       "the nodes have 8 GPUs (site file): give the step 8 "
		       "nodes (-N8 --ntasks-per-node=1)");
	rms_plan_free(&p);
	CHECK(plan("8x2x2", NULL, "1(x4)", 4, -1, site, &p, err));
	CHECK_INT(p.nproc, 8);
	rms_plan_free(&p);
	/* Within the limit: no warning at all. */
	CHECK(plan("8x4x1", NULL, "8(x4)", 32, RM_ENFORCE_STRICT, NULL, &p,
		   err));
	CHECK(p.warning == NULL);
	rms_plan_free(&p);
}

static void runtime_dir(void)
{
	if (geteuid() != 0) {
		/* The runtime directory must be root's; as another user the
		 * refusal is all there is to see. */
		printf("SKIP: spank/runtime_dir: needs root\n");
		return;
	}
	rms_file f;
	char err[RMS_ERRLEN], root[128], path[256];
	uid_t uid = 4242;
	gid_t gid = 4243;
	snprintf(root, sizeof(root), "%s/rt", tmp);
	/* Made when missing, root's, 0711 (nobody lists the job ids); the
	 * job level root's too, readable by the job's group only. */
	int jfd = rms_job_dir_open(root, 7, gid, err, sizeof(err));
	CHECK(jfd >= 0);
	struct stat st;
	CHECK(stat(root, &st) == 0 && st.st_uid == 0 &&
	      (st.st_mode & 0777) == 0711);
	snprintf(path, sizeof(path), "%s/7", root);
	CHECK(stat(path, &st) == 0 && st.st_uid == 0 && st.st_gid == gid &&
	      (st.st_mode & 0777) == 0750);
	/* The step level and the file: root's, the group may read. */
	CHECK(rms_file_write(&f, jfd, root, 7, 3, "n1", gid, "{}\n", 3, err,
			     sizeof(err)));
	CHECK_HAS(f.path, "/rt/7/3.n1/map.json");
	CHECK(stat(f.path, &st) == 0 && (st.st_mode & 0777) == 0440 &&
	      st.st_uid == 0 && st.st_gid == gid);
	CHECK(stat(f.dir, &st) == 0 && (st.st_mode & 0777) == 0750 &&
	      st.st_uid == 0 && st.st_gid == gid);
	CHECK(rms_file_write(&f, jfd, root, 7, 3, "n1", gid, "{\"a\":1}\n", 8,
			     err, sizeof(err)));
	CHECK(stat(f.path, &st) == 0 && st.st_size == 8);
	/* A planted step directory link is replaced, never followed. */
	snprintf(path, sizeof(path), "%s/7/4.n1", root);
	CHECK(symlink("/etc", path) == 0);
	CHECK(rms_file_write(&f, jfd, root, 7, 4, "n1", gid, "x", 1, err,
			     sizeof(err)));
	CHECK(lstat(path, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(stat("/etc/passwd", &st) == 0);
	CHECK(!rms_file_write(&f, jfd, root, 7, 5, "../n1", gid, "x", 1, err,
			      sizeof(err)));
	close(jfd);
	/* Step end removes the step level and keeps the job level. */
	CHECK(rms_file_write(&f, jfd = rms_job_dir_open(root, 7, gid, err,
							 sizeof(err)),
			     root, 7, 6, "n2", gid, "x", 1, err, sizeof(err)));
	close(jfd);
	rms_file_remove(&f);
	CHECK(stat(f.dir, &st) != 0 && errno == ENOENT);
	/* The epilog removes the job level at any depth, links inside it
	 * unfollowed. */
	snprintf(path, sizeof(path), "%s/7", root);
	int here = open(".", O_RDONLY | O_DIRECTORY);
	CHECK(here >= 0 && chdir(path) == 0);
	for (int i = 0; i < 300; i++)
		CHECK(mkdir("d", 0700) == 0 && chdir("d") == 0);
	CHECK(symlink("/etc", "l") == 0);
	int fd = open("f", O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0);
	close(fd);
	CHECK(fchdir(here) == 0);
	close(here);
	CHECK(rms_job_dir_remove(root, 7, err, sizeof(err)));
	snprintf(path, sizeof(path), "%s/7", root);
	CHECK(stat(path, &st) != 0 && errno == ENOENT);
	CHECK(stat("/etc/passwd", &st) == 0);
	CHECK(rms_job_dir_remove(root, 7, err, sizeof(err)));

	/* A job level of another owner (an earlier job's, an older
	 * plugin's) or planted as a link is replaced by root's. */
	snprintf(path, sizeof(path), "%s/8", root);
	CHECK(symlink(tmp, path) == 0);
	CHECK((jfd = rms_job_dir_open(root, 8, gid, err, sizeof(err))) >= 0);
	close(jfd);
	CHECK(lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0);
	CHECK(stat(tmp, &st) == 0);
	CHECK(rms_job_dir_remove(root, 8, err, sizeof(err)));
	CHECK(mkdir(path, 0700) == 0 && chown(path, uid, gid) == 0);
	snprintf(path, sizeof(path), "%s/8/junk", root);
	CHECK(mkdir(path, 0700) == 0);
	CHECK((jfd = rms_job_dir_open(root, 8, gid + 1, err, sizeof(err))) >= 0);
	close(jfd);
	CHECK(lstat(path, &st) != 0 && errno == ENOENT);
	snprintf(path, sizeof(path), "%s/8", root);
	CHECK(stat(path, &st) == 0 && st.st_uid == 0 && st.st_gid == gid + 1);
	CHECK(rms_job_dir_remove(root, 8, err, sizeof(err)));
	CHECK(lstat(path, &st) != 0 && errno == ENOENT);
	/* A root others can write (squatted, or a bad mode) is refused, and
	 * so is a root that is a link; a 0755 one is made private. */
	CHECK(chmod(root, 01777) == 0);
	CHECK(rms_job_dir_open(root, 9, gid, err, sizeof(err)) < 0);
	CHECK_HAS(err, "must be root's and writable by root alone");
	CHECK(chmod(root, 0755) == 0);
	CHECK(chown(root, uid, gid) == 0);
	CHECK(rms_job_dir_open(root, 9, gid, err, sizeof(err)) < 0);
	CHECK_HAS(err, "belongs to uid 4242");
	CHECK(chown(root, 0, 0) == 0);
	CHECK((jfd = rms_job_dir_open(root, 9, gid, err, sizeof(err))) >= 0);
	close(jfd);
	CHECK(stat(root, &st) == 0 && (st.st_mode & 0777) == 0711);
	CHECK(rms_job_dir_remove(root, 9, err, sizeof(err)));
	snprintf(path, sizeof(path), "%s/link", tmp);
	CHECK(symlink(root, path) == 0);
	CHECK(rms_job_dir_open(path, 9, gid, err, sizeof(err)) < 0);
	CHECK_HAS(err, "cannot open the runtime directory");
	CHECK(rms_job_dir_open("relative", 9, gid, err, sizeof(err)) < 0);
}

/* slurmd's start removes job directories no slurmstepd holds (issue 38: a
 * node that died kept its maps), but not a running job's, not a young one,
 * and nothing that is not a job directory of ours. */
static void sweep(void)
{
	if (geteuid() != 0) {
		printf("SKIP: spank/sweep: needs root\n");
		return;
	}
	char err[RMS_ERRLEN], root[128], path[256];
	snprintf(root, sizeof(root), "%s/sw", tmp);
	CHECK_INT(rms_runtime_sweep(root, 60, err, sizeof(err)), 0);
	/* a job that is running here: a process titled as its slurmstepd */
	pid_t live = fork();
	if (live == 0) {
		execl("/bin/sleep", "slurmstepd: [4242.0]", "30", (char *)NULL);
		_exit(127);
	}
	CHECK(live > 0);
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	int jfd;
	static const uint32_t jobs[] = { 4242, 4243, 4244 };
	for (int i = 0; i < 3; i++) {
		CHECK((jfd = rms_job_dir_open(root, jobs[i], 5, err,
					      sizeof(err))) >= 0);
		close(jfd);
	}
	snprintf(path, sizeof(path), "%s/4243/3.n1", root);
	CHECK(mkdir(path, 0750) == 0);
	snprintf(path, sizeof(path), "%s/notajob", root);
	CHECK(mkdir(path, 0750) == 0);
	/* 4242 (running) and 4243 (gone) look an hour old; 4244 (gone)
	 * was made just now, as by a step starting during the sweep */
	struct timespec old[2] = { { time(NULL) - 3600, 0 },
				   { time(NULL) - 3600, 0 } };
	snprintf(path, sizeof(path), "%s/4242", root);
	CHECK(utimensat(AT_FDCWD, path, old, 0) == 0);
	snprintf(path, sizeof(path), "%s/4243", root);
	CHECK(utimensat(AT_FDCWD, path, old, 0) == 0);
	snprintf(path, sizeof(path), "%s/notajob", root);
	CHECK(utimensat(AT_FDCWD, path, old, 0) == 0);
	CHECK_INT(rms_runtime_sweep(root, 60, err, sizeof(err)), 1);
	struct stat st;
	snprintf(path, sizeof(path), "%s/4243", root);
	CHECK(lstat(path, &st) != 0 && errno == ENOENT);
	snprintf(path, sizeof(path), "%s/4242", root);
	CHECK(lstat(path, &st) == 0);
	snprintf(path, sizeof(path), "%s/4244", root);
	CHECK(lstat(path, &st) == 0);
	snprintf(path, sizeof(path), "%s/notajob", root);
	CHECK(lstat(path, &st) == 0);
	/* once its slurmstepd is gone, the running job's goes too */
	kill(live, SIGKILL);
	waitpid(live, NULL, 0);
	CHECK_INT(rms_runtime_sweep(root, 60, err, sizeof(err)), 1);
	snprintf(path, sizeof(path), "%s/4242", root);
	CHECK(lstat(path, &st) != 0 && errno == ENOENT);
	/* a root that is not root's is not touched */
	CHECK(chown(root, 4242, 4242) == 0);
	CHECK_INT(rms_runtime_sweep(root, 0, err, sizeof(err)), -1);
	CHECK_HAS(err, "is not root's");
	snprintf(path, sizeof(path), "%s/4244", root);
	CHECK(lstat(path, &st) == 0);
	CHECK(chown(root, 0, 0) == 0);
}

static void stamps(void)
{
	rms_plan p;
	rms_conf c;
	char err[RMS_ERRLEN], a[RMS_STAMP_LEN], b[RMS_STAMP_LEN], why[512];
	char *args[] = { "enforce=warn" };
	rms_conf_init(&c);
	CHECK(rms_conf_parse(&c, 1, args, err, sizeof(err)));
	CHECK(plan("8x2x2", NULL, "8(x4)", 32, -1, NULL, &p, err));
	CHECK(rms_stamp_format(&p, &c, a, sizeof(a)));
	CHECK(rms_stamp_format(&p, &c, b, sizeof(b)));
	CHECK_INT(rms_stamp_compare(a, b, why, sizeof(why)), RMS_DRIFT_NONE);
	/* Another topology.conf, same map. */
	memset(p.topology_sha256, 'f', 64);
	CHECK(rms_stamp_format(&p, &c, b, sizeof(b)));
	CHECK_INT(rms_stamp_compare(a, b, why, sizeof(why)),
		  RMS_DRIFT_INPUTS);
	CHECK_STR(why, "topology.conf");
	/* ... and another map. */
	memset(p.json_sha256, 'e', 64);
	CHECK(rms_stamp_format(&p, &c, b, sizeof(b)));
	CHECK_INT(rms_stamp_compare(a, b, why, sizeof(why)), RMS_DRIFT_MAP);
	CHECK_STR(why, "topology.conf");
	rms_plan_free(&p);
	/* Another plugin version, other plugstack arguments. */
	char *v = strstr(a, " v=");
	CHECK(v != NULL);
	char old[RMS_STAMP_LEN];
	snprintf(old, sizeof(old), "rankmap-step/1 v=0.0.9%s",
		 v ? strchr(v + 1, ' ') : "");
	/* Another plugin version with the same map: told, like any input
	 * (a version that places differently has another map too). */
	CHECK_INT(rms_stamp_compare(old, a, why, sizeof(why)),
		  RMS_DRIFT_INPUTS);
	CHECK_HAS(why, "plugin version (srun 0.0.9, here ");
	CHECK_INT(rms_stamp_compare("garbage", a, why, sizeof(why)),
		  RMS_DRIFT_MAP);
	CHECK_HAS(why, "unreadable");
	rms_conf_free(&c);
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
	rms_task_ids ids = { .jobid = 12345, .stepid = 2 };
	for (uint32_t h = 0; h < rm_map_host_count(p.map); h++)
		for (uint32_t lr = 0; lr < 8; lr++) {
			rms_envset e = { 0 };
			CHECK(rms_task_env(&p, h, lr, &ids, "/x/map.json",
					   &nccl, false, NULL, &e, err,
					   sizeof(err)));
			int rank = atoi(env_get(&e, "RANK"));
			CHECK(rank >= 0 && rank < 32 && !seen[rank]);
			if (rank >= 0 && rank < 32)
				seen[rank] = true;
			/* Megatron: rank = tp + dp*TP + pp*TP*DP. */
			int tp = atoi(env_get(&e, "RANKMAP_TP_RANK"));
			int pp = atoi(env_get(&e, "RANKMAP_PP_RANK"));
			int dp = atoi(env_get(&e, "RANKMAP_DP_RANK"));
			CHECK_INT(rank, tp + dp * 2 + pp * 2 * 8);
			char lrs[4];
			snprintf(lrs, sizeof(lrs), "%u", (unsigned)lr);
			CHECK_STR(env_get(&e, "LOCAL_RANK"), lrs);
			CHECK_STR(env_get(&e, "WORLD_SIZE"), "32");
			CHECK_STR(env_get(&e, "LOCAL_WORLD_SIZE"), "8");
			/* (fmix32(12345) + 2) % 17302 = 1011272158 % 17302
			 * = 4862 of the pool 20000-32766, 61000-65534 (no
			 * range given: Linux's default 32768-60999); also
			 * tests/slurm/port_rule.py's answer */
			CHECK_STR(env_get(&e, "MASTER_PORT"), "24862");
			CHECK(env_get(&e, "SLURM_PROCID") == NULL);
			CHECK_STR(env_get(&e, "RANKMAP_ORDER"), "tp-dp-pp");
			CHECK_STR(env_get(&e, "RANKMAP_MAP"), "/x/map.json");
			CHECK(env_get(&e, "RANKMAP_CP_RANK") == NULL);
			CHECK_STR(env_get(&e, "NCCL_IB_HCA"), "=mlx5_0:1");
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
	/* --parallel-export=slurm: Slurm's ids follow the map. */
	ids.export_slurm = true;
	CHECK(rms_task_env(&p, 1, 3, &ids, NULL, NULL, false, NULL, &e, err,
			   sizeof(err)));
	CHECK_STR(env_get(&e, "SLURM_PROCID"), env_get(&e, "RANK"));
	CHECK_STR(env_get(&e, "SLURM_LOCALID"), "3");
	rms_envset_free(&e);
	CHECK(!rms_task_env(&p, 4, 0, &ids, NULL, NULL, false, NULL, &e, err,
			    sizeof(err)));
	CHECK(!rms_task_env(&p, 0, 8, &ids, NULL, NULL, false, NULL, &e, err,
			    sizeof(err)));
	CHECK_HAS(err, "local task 8 has no rank");
	rms_envset_free(&e);
	rms_plan_free(&p);
}

/* With experts the framework's groups are not the placement axes: the
 * task sees the same RANKMAP_*_RANK/_SIZE as `rankmap plan --format env
 * --rank 5` prints for tp=2,ep=2,dp=16 (nest order). */
static void expert_env(void)
{
	rms_plan p;
	char err[RMS_ERRLEN];
	CHECK(plan("tp=2,ep=2,dp=16", NULL, "8(x4)", 32, -1, NULL, &p, err));
	rms_task_ids ids = { .jobid = 1 };
	int seen = 0;
	for (uint32_t h = 0; h < rm_map_host_count(p.map); h++)
		for (uint32_t lr = 0; lr < 8; lr++) {
			rms_envset e = { 0 };
			CHECK(rms_task_env(&p, h, lr, &ids, NULL, NULL, false,
					   NULL, &e, err, sizeof(err)));
			if (env_get(&e, "RANK") && !strcmp(env_get(&e, "RANK"), "5")) {
				seen++;
				CHECK_STR(env_get(&e, "RANKMAP_TP_RANK"), "1");
				CHECK_STR(env_get(&e, "RANKMAP_EP_RANK"), "0");
				CHECK_STR(env_get(&e, "RANKMAP_ETP_RANK"), "1");
				CHECK_STR(env_get(&e, "RANKMAP_EDP_RANK"), "1");
				CHECK_STR(env_get(&e, "RANKMAP_DP_RANK"), "2");
				CHECK_STR(env_get(&e, "RANKMAP_DP_SIZE"), "16");
				CHECK_STR(env_get(&e, "RANKMAP_EDP_SIZE"), "8");
				CHECK_STR(env_get(&e, "RANKMAP_EP_SIZE"), "2");
			}
			rms_envset_free(&e);
		}
	CHECK_INT(seen, 1);
	rms_plan_free(&p);
}

static void master_port(void)
{
	const uint32_t L = RM_EPHEMERAL_LO, H = RM_EPHEMERAL_HI;
	/* Two steps of one job, and neighbouring jobs, differ. */
	CHECK(rm_master_port(100, 0, NULL, L, H) !=
	      rm_master_port(100, 1, NULL, L, H));
	CHECK(rm_master_port(100, 0, NULL, L, H) !=
	      rm_master_port(101, 0, NULL, L, H));
	CHECK_INT(rm_master_port(0, 0, NULL, L, H), 20000);
	/* Slurm's reserved ports (MpiParams=ports) win. */
	CHECK_INT(rm_master_port(100, 0, "12000-12003", L, H), 12000);
	CHECK_INT(rm_master_port(100, 0, "12007,12009", L, H), 12007);
	CHECK_INT(rm_master_port(100, 0, "x", L, H),
		  rm_master_port(100, 0, NULL, L, H));
	CHECK_INT(rm_master_port(100, 0, "70000", L, H),
		  rm_master_port(100, 0, NULL, L, H));

	/* The node's range, as the plugin reads it from /proc; anything
	 * unusable there is Linux's default. */
	char path[128];
	uint32_t lo = 0, hi = 0;
	static const struct {
		const char *text;
		uint32_t lo, hi;
	} files[] = {
		{ "40000\t45000\n", 40000, 45000 },
		{ "1024 65535\n", 1024, 65535 },
		{ "", RM_EPHEMERAL_LO, RM_EPHEMERAL_HI },
		{ "60999\t32768\n", RM_EPHEMERAL_LO, RM_EPHEMERAL_HI },
		{ "garbage\n", RM_EPHEMERAL_LO, RM_EPHEMERAL_HI },
	};
	snprintf(path, sizeof(path), "%s/port_range", tmp);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f = fopen(path, "w");
		CHECK(f && fputs(files[i].text, f) >= 0);
		if (f)
			fclose(f);
		rms_ephemeral_ports(path, &lo, &hi);
		CHECK_INT(lo, files[i].lo);
		CHECK_INT(hi, files[i].hi);
	}
	unlink(path);
	rms_ephemeral_ports("/nonexistent/port_range", &lo, &hi);
	CHECK_INT(lo, RM_EPHEMERAL_LO);
	CHECK_INT(hi, RM_EPHEMERAL_HI);
	/* This machine's own file reads. */
	rms_ephemeral_ports(RMS_PORT_RANGE_FILE, &lo, &hi);
	CHECK(lo >= 1 && lo <= hi && hi <= 65535);

	/* MASTER_PORT in the task's variables follows the range it is
	 * given: 40000-45000 leaves 20000-39998 and 45001-65534. */
	rms_plan p;
	char err[RMS_ERRLEN];
	CHECK(plan("2x2x8", "megatron", "8(x4)", 32, -1, NULL, &p, err));
	rms_task_ids ids = { .jobid = 12345, .stepid = 2, .eph_lo = 40000,
			     .eph_hi = 45000 };
	rms_envset e = { 0 };
	CHECK(rms_task_env(&p, 0, 0, &ids, "/x/map.json", NULL, false, NULL,
			   &e, err, sizeof(err)));
	char want[16];
	snprintf(want, sizeof(want), "%u",
		 (unsigned)rm_master_port(12345, 2, NULL, 40000, 45000));
	CHECK_STR(env_get(&e, "MASTER_PORT"), want);
	/* 1011272158 % (19999 + 20534) = 14341: 20000 + 14341 */
	CHECK_STR(want, "34341");
	rms_envset_free(&e);
	rms_plan_free(&p);
}

int main(void)
{
	if (!t_tmpdir(tmp, sizeof(tmp), "/tmp/rms-test."))
		return 1;
	RUN("spank", conf_args);
	RUN("spank", tasks_per_node);
	RUN("spank", syntax);
	RUN("spank", step_plan);
	RUN("spank", topology_choice);
	RUN("spank", policy);
	RUN("spank", runtime_dir);
	RUN("spank", sweep);
	RUN("spank", stamps);
	RUN("spank", master_port);
	RUN("spank", expert_env);
	RUN("spank", task_env);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		return 1;
	return t_total_bad ? 1 : 0;
}
