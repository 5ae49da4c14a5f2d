/* SPDX-License-Identifier: Apache-2.0 */
/*
 * remote.c - slurmstepd's side, once per node per step.
 *
 * A node that cannot place its tasks cancels the whole step (refuse_step):
 * the other nodes' tasks would otherwise start with the full WORLD_SIZE and
 * wait in their rendezvous for ranks that never come. Slurm ignores what
 * the per-node callbacks return as far as the user can see, so the reason
 * is kept and the task callbacks print it once per node
 * ("slurmstepd-nodeX: error: rankmap: node nodeX: ...") and fail.
 */
#include "plugin.h"

#include <slurm/slurm.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Steps that are not a user's srun: batch script, extern, interactive. */
#define FIRST_SPECIAL_STEP 0xfffffff0u
#define ENVLEN 65536

/* Keeps the first error for the task callbacks; returns what a per-node
 * callback returns (0: Slurm would not show anything else anyway). */
static int set_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static int set_error(const char *fmt, ...)
{
	if (rms_g.failed)
		return 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rms_g.error, sizeof(rms_g.error), fmt, ap);
	va_end(ap);
	rms_g.failed = true;
	return 0;
}

static bool get_env(spank_t sp, const char *name, char *buf, int len)
{
	return spank_getenv(sp, name, buf, len) == ESPANK_SUCCESS;
}

static bool items(spank_t sp, uint32_t *ntasks, uint32_t *nnodes)
{
	return spank_get_item(sp, S_JOB_ID, &rms_g.jobid) == ESPANK_SUCCESS &&
	       spank_get_item(sp, S_JOB_STEPID, &rms_g.stepid) ==
		       ESPANK_SUCCESS &&
	       spank_get_item(sp, S_JOB_NODEID, &rms_g.nodeid) ==
		       ESPANK_SUCCESS &&
	       spank_get_item(sp, S_JOB_NNODES, nnodes) == ESPANK_SUCCESS &&
	       spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, ntasks) ==
		       ESPANK_SUCCESS &&
	       spank_get_item(sp, S_JOB_UID, &rms_g.uid) == ESPANK_SUCCESS &&
	       spank_get_item(sp, S_JOB_GID, &rms_g.gid) == ESPANK_SUCCESS;
}

static void kill_step(void)
{
	/* 24.11 added a flags argument (22.05 has none) and dropped
	 * slurm_get_errno(); 26.05 takes the step's slurm_step_id_t instead
	 * of job and step ids (the old form only under
	 * SLURM_BACKWARD_COMPAT, which we do not use). All set errno. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_step_id_t id = rms_step_id(rms_g.jobid, rms_g.stepid);
	int rc = slurm_kill_job_step(&id, SIGKILL, 0);
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
	int rc = slurm_kill_job_step(rms_g.jobid, rms_g.stepid, SIGKILL, 0);
#else
	int rc = slurm_kill_job_step(rms_g.jobid, rms_g.stepid, SIGKILL);
#endif
	if (rc != 0 && errno != ESLURM_ALREADY_DONE &&
	    errno != ESLURM_INVALID_JOB_ID)
		slurm_error(RMS_PREFIX "cannot cancel step %" PRIu32 ".%" PRIu32
			    ": %s", rms_g.jobid, rms_g.stepid,
			    slurm_strerror(errno));
}

/*
 * Refuses the whole step, not only this node's tasks: the other nodes'
 * tasks would start and wait forever for ours. Slurm has no check across
 * nodes before tasks start, so the step is cancelled through slurmctld
 * (one RPC, only from a node that found a problem; as root or as the job
 * user, both may cancel the job's steps); tasks other nodes started
 * meanwhile are killed with it, and srun returns at once.
 */
enum { REFUSING = 1, CANCELLED = 2 };

static void refuse_step(spank_t sp, const char *msg)
{
	set_error("%s", msg);
	if (rms_g.cancelled)
		return;
	rms_g.cancelled = true;
	/* Another task of this node refused first (with --gpus-per-task
	 * each may): it tells srun and cancels the step. This task fails
	 * quietly, but not before that cancel went out (up to 2 s), so the
	 * step ends as it did when every task cancelled it (26.05's srun
	 * reported exit 0 when quiet tasks failed first). */
	if (rms_g.refused) {
		int was = 0;
		if (!atomic_compare_exchange_strong(rms_g.refused, &was,
						    REFUSING)) {
			rms_g.quiet = true;
			for (int i = 0; i < 200 &&
					atomic_load(rms_g.refused) != CANCELLED;
			     i++)
				usleep(10000);
			return;
		}
	}
	/* In a task, slurm_error goes to the user's stderr, where srun
	 * prints the notice too: one of them is enough. In slurmstepd it
	 * goes to the node's log. */
	bool told = rms_notice_send(sp, msg);
	if (!told || !rms_g.in_task)
		slurm_error(RMS_PREFIX "%s", msg);
	/* srun prints it after every task's exit line; only when srun
	 * cannot be told does the node print it to the user itself. */
	if (told)
		rms_g.quiet = true;
	kill_step();
	if (rms_g.refused)
		atomic_store(rms_g.refused, CANCELLED);
}

static char nodelist[ENVLEN], tpn[ENVLEN];
static void task_envs_make(spank_t sp);

/* This node's name for a message, before the plan may have said it: the
 * step's node list at our node id (only on the way to a refusal). */
static const char *node_name(spank_t sp)
{
	if (rms_g.node[0])
		return rms_g.node;
	rm_hostlist hl = { 0 };
	rm_error e;
	if (get_env(sp, "SLURM_STEP_NODELIST", nodelist, sizeof(nodelist)) &&
	    rm_hostlist_parse(nodelist, &hl, &e) == RM_OK &&
	    rms_g.nodeid < hl.n)
		snprintf(rms_g.node, sizeof(rms_g.node), "%s",
			 hl.host[rms_g.nodeid]);
	rm_hostlist_clear(&hl);
	return rms_g.node[0] ? rms_g.node : "(unknown)";
}

/* A node-side failure: this node cannot run its part, so no node may. */
static int fail_step(spank_t sp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail_step(spank_t sp, const char *fmt, ...)
{
	char why[RMS_ERRLEN - 300], msg[RMS_ERRLEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(msg, sizeof(msg), "node %s: %s; step cancelled",
		 node_name(sp), why);
	refuse_step(sp, msg);
	return 0;
}

static const char *enforce_name(rm_enforce e)
{
	return e == RM_ENFORCE_OFF ? "off"
	       : e == RM_ENFORCE_STRICT ? "strict" : "warn";
}

/* srun's plan against ours: one map per step, whatever the mode. */
static void compare_stamp(spank_t sp)
{
	char mine[RMS_STAMP_LEN], why[512], msg[RMS_ERRLEN];
	if (!get_env(sp, RMS_STAMP_ENV, rms_g.stamp, sizeof(rms_g.stamp))) {
		/* Set by hand (_SLURM_SPANK_OPTION_...), or an srun without
		 * the plugin: nobody planned the step for all nodes. */
		refuse_step(sp, "this step's layout did not come through srun's "
			    "rankmap plugin (is rankmap.so in the submit "
			    "host's plugstack.conf?): no common map");
		return;
	}
	if (!rms_stamp_format(&rms_g.plan, &rms_g.conf, mine, sizeof(mine))) {
		fail_step(sp, "cannot stamp the plan");
		return;
	}
	rms_g.drift = rms_stamp_compare(rms_g.stamp, mine, why, sizeof(why));
	/* The usual cause: configless Slurm 22.05 caches slurm.conf and
	 * plugstack.conf on the node (slurmstepd's SLURM_CONF points into
	 * that cache, which is where we look) but not topology.conf. */
	if (rms_g.drift != RMS_DRIFT_NONE && strstr(why, "topology.conf") &&
	    rms_g.conf.topology_default && !rms_g.plan.topology_sha256[0]) {
		size_t n = strlen(why);
		snprintf(why + n, sizeof(why) - n, " (none here at %.200s; with "
			 "configless Slurm set topology= in plugstack.conf to "
			 "a file on every host)", rms_g.conf.topology);
	}
	if (rms_g.drift == RMS_DRIFT_MAP) {
		snprintf(msg, sizeof(msg),
			 "node %s planned another map than srun: its %s "
			 "differ from srun's; step cancelled (one map per step, "
			 "enforce=%s)", rms_g.node, why,
			 enforce_name(rms_g.plan.enforce));
		refuse_step(sp, msg);
	} else if (rms_g.drift == RMS_DRIFT_INPUTS) {
		snprintf(msg, sizeof(msg),
			 "node %s: its %s differ from srun's (same map)",
			 rms_g.node, why);
		if (rms_g.plan.enforce == RM_ENFORCE_STRICT) {
			size_t n = strlen(msg);
			snprintf(msg + n, sizeof(msg) - n, "; step cancelled "
				 "under enforce=strict");
			refuse_step(sp, msg);
		} else if (rms_g.plan.enforce == RM_ENFORCE_WARN &&
			   !rms_g.warning[0]) {
			snprintf(rms_g.warning, sizeof(rms_g.warning), "%s",
				 msg);
		}
	}
}

/* The node's topology, from its per-boot cache when valid. A node whose
 * hardware cannot be read at all (a site hwloc_xml that is missing or
 * broken, hwloc failing) cannot give its tasks their GPUs and CPUs, so it
 * refuses the step (false, `e` says why); the NCCL hints alone are an
 * optimisation and only warn. */
static bool load_hardware(rm_error *e)
{
	const rm_site *site = rms_g.plan.site;
	char note[600];
	rms_hw_how how;
	char *cache = rms_hwcache_dir(&rms_g.conf);
	rm_status hs = rms_hwcache_load(cache, site, &rms_g.hw, &how, note,
					sizeof(note), e);
	if (note[0])
		slurm_info(RMS_PREFIX "%s", note);
	slurm_debug(RMS_PREFIX "hardware: %s", how == RMS_HW_CACHED ? "cached"
		    : how == RMS_HW_REBUILT ? "scanned, cached" : "scanned");
	free(cache);
	rms_g.nccl_override = site && rm_site_nccl_override_user(site);
	if (hs != RM_OK) {
		rm_node_free(rms_g.hw);
		rms_g.hw = NULL;
		return false;
	}
	rm_error ne;
	memset(&ne, 0, sizeof(ne));
	if (rm_node_nccl_env(rms_g.hw, site, &rms_g.nccl, &ne) != RM_OK &&
	    !rms_g.warning[0])
		snprintf(rms_g.warning, sizeof(rms_g.warning),
			 "no NCCL settings on %s: %.600s", rms_g.node, ne.msg);
	return true;
}

int rms_remote_post_opt(spank_t sp)
{
	char err[RMS_ERRLEN];
	if (!rms_g.have_layout && !rms_g.have_order && !rms_g.option_bad)
		return 0;
	uint32_t ntasks = 0, nnodes = 0;
	if (!items(sp, &ntasks, &nnodes)) {
		/* Without the ids we cannot even tell the batch step apart:
		 * fail closed. */
		rms_g.active = true;
		return set_error("slurmstepd did not give the step's ids");
	}
	if (rms_g.stepid >= FIRST_SPECIAL_STEP || nnodes == 0)
		return 0;
	if (rms_g.layout_none && !rms_g.option_bad)
		return 0;
	rms_g.active = true;
	/* Before any task is forked; without it each task refuses alone. */
	void *page = mmap(NULL, sizeof(*rms_g.refused), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (page != MAP_FAILED) {
		rms_g.refused = page;
		atomic_init(rms_g.refused, 0);
	}
	if (rms_g.conf_err[0])
		return fail_step(sp, "%s", rms_g.conf_err);
	if (rms_g.option_bad)
		return fail_step(sp, "a --parallel-* value is longer than %d "
				 "bytes or not valid", RMS_MAX_OPT);
	/* srun said why already, and every node reads the same refusal: the
	 * tasks only have to fail. */
	if (get_env(sp, RMS_STAMP_ENV, rms_g.stamp, sizeof(rms_g.stamp)) &&
	    !strcmp(rms_g.stamp, RMS_STAMP_REFUSED)) {
		rms_g.quiet = true;
		return set_error("refused by srun");
	}
	if (!rms_g.have_layout)
		return fail_step(sp, "--parallel-order=%s needs "
				 "--parallel-layout as well", rms_g.order);
	/* Each component of a heterogeneous step would plan its part as the
	 * whole step; srun refuses these with the reason (its refusal stamp
	 * does not reach every component, so stay quiet). Where srun did not
	 * see SLURM_HET_SIZE, neither do the tasks: plan.c's node-count
	 * check names the heterogeneous step then. */
	char het[16];
	if (get_env(sp, "SLURM_HET_SIZE", het, sizeof(het)) &&
	    strcmp(het, "1")) {
		rms_g.quiet = true;
		return set_error("heterogeneous step");
	}
	if (!get_env(sp, "SLURM_STEP_NODELIST", nodelist, sizeof(nodelist)) ||
	    !get_env(sp, "SLURM_STEP_TASKS_PER_NODE", tpn, sizeof(tpn)))
		return fail_step(sp, "the step's node list or tasks per node "
				 "are missing from its environment");
	/* slurmstepd's own SLURM_CONF (from slurmd), never the job's: the
	 * job's would let a user point root at a topology file of theirs. */
	if (!rms_conf_default_topology(&rms_g.conf, getenv("SLURM_CONF")))
		return fail_step(sp, "out of memory");
	/* Under proctrack/linuxproc slurmstepd adopts what its tasks orphan
	 * (a rank whose wrapper shell or launcher died first, a helper that
	 * double-forked): linuxproc kills the process tree under
	 * slurmstepd, and a process reparented to PID 1 is out of it, so a
	 * cancelled step could leave ranks running (issue 38.1). Its walk
	 * skips zombies, and slurmstepd's wait loop reaps adopted ones
	 * (unknown pids are skipped). Not under pgid or cgroup: they kill
	 * by process group or cgroup, which an orphan stays in, and they
	 * wait until nothing is left in it, an adopted zombie included,
	 * which slurmstepd no longer reaps after its last task (KillWait). */
	char pt[64];
	if (rm_slurm_proctrack(rms_g.conf.slurm_conf, pt, sizeof(pt)) &&
	    !strcmp(pt, "proctrack/linuxproc") &&
	    prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L) != 0)
		slurm_debug(RMS_PREFIX "cannot adopt orphaned tasks: %s",
			    strerror(errno));
	if (!get_env(sp, "SLURM_JOB_PARTITION", rms_g.partition,
		     sizeof(rms_g.partition)))
		rms_g.partition[0] = 0;
	if (!rms_plan_options(nodelist, tpn, ntasks, nnodes, &rms_g.plan, err,
			      sizeof(err)))
		return fail_step(sp, "%s", err);
	if (rms_g.nodeid >= rms_g.plan.nodes.n)
		return fail_step(sp, "node id %" PRIu32 " is outside the "
				 "step's %zu nodes", rms_g.nodeid,
				 rms_g.plan.nodes.n);
	snprintf(rms_g.node, sizeof(rms_g.node), "%s",
		 rms_g.plan.nodes.host[rms_g.nodeid]);
	rms_g.host_index = rm_map_host_index(rms_g.plan.map, rms_g.node);
	if (rms_g.host_index < 0)
		return fail_step(sp, "no place in the map");
	if (rms_g.plan.warning)
		snprintf(rms_g.warning, sizeof(rms_g.warning), "%s",
			 rms_g.plan.warning);
	else
		rms_pyxis_order(rms_g.warning, sizeof(rms_g.warning));
	compare_stamp(sp);
	if (rms_g.failed)
		return 0;
	/* The job's directory, the step's and the map are made here, as root
	 * (user_init already runs with the job user's ids), and stay root's:
	 * the job's group may read the map, nobody else may add to them. */
	rms_g.jobfd = rms_job_dir_open(rms_g.conf.runtime_dir, rms_g.jobid,
				       rms_g.gid, err, sizeof(err));
	if (rms_g.jobfd < 0)
		return fail_step(sp, "map file: %s", err);
	if (!rms_file_write(&rms_g.file, rms_g.jobfd, rms_g.conf.runtime_dir,
			    rms_g.jobid, rms_g.stepid, rms_g.node, rms_g.gid,
			    rms_g.plan.json, rms_g.plan.json_len, err,
			    sizeof(err)))
		return fail_step(sp, "map file: %s", err);
	rm_error he;
	memset(&he, 0, sizeof(he));
	if (!load_hardware(&he))
		return fail_step(sp, "hardware: %s", he.msg);
	/* Without gpus_per_node in the site file, the node's own count
	 * bounds a launcher's ranks here (plan.c checks the site's). */
	size_t ngpu = rms_g.hw ? rm_node_gpu_count(rms_g.hw) : 0;
	if (rms_g.plan.nproc && ngpu && rms_g.plan.nproc > ngpu)
		return fail_step(sp, "one task per node (a launcher) with %"
				 PRIu32 " ranks per node, but this node has "
				 "%zu GPUs: give the step more nodes, %" PRIu32
				 " ranks per node at most", rms_g.plan.nproc,
				 ngpu, (uint32_t)ngpu);
	rms_ephemeral_ports(RMS_PORT_RANGE_FILE, &rms_g.eph_lo, &rms_g.eph_hi);
	if (rm_slurm_mpi_ports(rms_g.conf.slurm_conf, &rms_g.mpi_lo,
			       &rms_g.mpi_hi, &he) != RM_OK)
		return fail_step(sp, "%s", he.msg);
	task_envs_make(sp);
	return 0;
}

static void set_all(spank_t sp, const rms_envset *env)
{
	for (size_t i = 0; i < env->n; i++) {
		const rms_kv *k = &env->kv[i];
		spank_err_t rc = spank_setenv(sp, k->key, k->val, k->overwrite);
		if (rc != ESPANK_SUCCESS && rc != ESPANK_ENV_EXISTS) {
			fail_step(sp, "cannot set %s: %s", k->key,
				  spank_strerror(rc));
			return;
		}
	}
}

/* What a task's variables need besides its local id and its own
 * CUDA_VISIBLE_DEVICES. */
static rms_task_ids task_ids(spank_t sp, char *ports, int plen)
{
	rms_task_ids ids = {
		.jobid = rms_g.jobid,
		.stepid = rms_g.stepid,
		.resv_ports = get_env(sp, "SLURM_STEP_RESV_PORTS", ports,
				      plen) ? ports : NULL,
		.eph_lo = rms_g.eph_lo,
		.eph_hi = rms_g.eph_hi,
		.mpi_lo = rms_g.mpi_lo,
		.mpi_hi = rms_g.mpi_hi,
		.export_slurm = rms_g.export_slurm >= 0
					? rms_g.export_slurm == 1
					: rms_g.conf.export_slurm == 1,
	};
	return ids;
}

/* One task's variables (NULL visible: its CUDA_VISIBLE_DEVICES unchecked). */
static bool task_env(const rms_task_ids *ids, uint32_t local, rms_envset *env,
		     char *err, size_t errlen)
{
	rm_env rank_env = { 0 };
	rm_error e;
	memset(&e, 0, sizeof(e));
	if (rms_g.hw &&
	    rm_node_rank_env(rms_g.hw, local, rms_g.plan.tasks_per_node,
			     &rank_env, &e) != RM_OK)
		rm_env_clear(&rank_env);
	bool ok = rms_task_env(&rms_g.plan, rms_g.host_index, local, ids,
			       rms_g.file.path, &rms_g.nccl,
			       rms_g.nccl_override, &rank_env, env, err, errlen);
	rm_env_clear(&rank_env);
	return ok;
}

static void task_envs_free(void)
{
	for (uint32_t i = 0; rms_g.task_env && i < rms_g.ntask_env; i++)
		rms_envset_free(&rms_g.task_env[i]);
	free(rms_g.task_env);
	rms_g.task_env = NULL;
	rms_g.ntask_env = 0;
}

/*
 * Every local task's variables, made here, once, before slurmstepd forks
 * the tasks. Made in each forked task instead, they cost about 1.2 ms of
 * CPU per task on this project's machine (bench/bench_stepd.sh: +12 ms per
 * node per step of 8 tasks, +5 ms this way), with about 70 more page
 * faults per task: copy-on-write, most likely, as the task writes pages
 * it still shares with slurmstepd. A launcher (one task per node) builds
 * its own: its variables depend on what Slurm made visible to it. Anything that fails here is
 * made again in the task, which then says why.
 */
static void task_envs_make(spank_t sp)
{
	uint32_t n = rms_g.plan.tasks_per_node;
	if (rms_g.plan.nproc || n == 0 || n > 4096)
		return;
	char ports[64], err[RMS_ERRLEN];
	rms_task_ids ids = task_ids(sp, ports, sizeof(ports));
	rms_g.task_env = calloc(n, sizeof(*rms_g.task_env));
	if (!rms_g.task_env)
		return;
	rms_g.ntask_env = n;
	for (uint32_t i = 0; i < n; i++)
		if (!task_env(&ids, i, &rms_g.task_env[i], err, sizeof(err))) {
			task_envs_free();
			return;
		}
}

int rms_remote_task_init(spank_t sp, bool privileged)
{
	if (!rms_g.active)
		return 0;
	rms_g.in_task = true;
	int local = -1;
	if (spank_get_item(sp, S_TASK_ID, &local) != ESPANK_SUCCESS)
		local = -1;
	if (rms_g.failed) {
		/* In task_init, not task_init_privileged: failing there
		 * also makes slurmstepd log a broken pipe per task. One line
		 * per node, not one per task. */
		if (privileged)
			return 0;
		if (local <= 0 && !rms_g.quiet)
			slurm_error(RMS_PREFIX "%s", rms_g.error);
		return -1;
	}
	if (privileged)
		return 0;
	if (local < 0) {
		fail_step(sp, "no local task id");
		if (!rms_g.quiet)
			slurm_error(RMS_PREFIX "%s", rms_g.error);
		return -1;
	}
	char err[RMS_ERRLEN];
	char ports[64], visible[1024];
	const char *vis = get_env(sp, "CUDA_VISIBLE_DEVICES", visible,
				  sizeof(visible)) ? visible : NULL;
	if (rms_g.task_env && (uint32_t)local < rms_g.ntask_env) {
		if (!rms_task_visible_ok(&rms_g.plan, (uint32_t)local, vis, err,
					 sizeof(err)))
			fail_step(sp, "%s", err);
		else
			set_all(sp, &rms_g.task_env[local]);
	} else {
		rms_task_ids ids = task_ids(sp, ports, sizeof(ports));
		ids.visible = vis;
		rms_envset env = { 0 };
		if (!task_env(&ids, (uint32_t)local, &env, err, sizeof(err)))
			fail_step(sp, "%s", err);
		else
			set_all(sp, &env);
		rms_envset_free(&env);
	}
	/* Only srun's hand-over to the nodes; absent when the value came
	 * without srun, which is fine. */
	(void)spank_unsetenv(sp, RMS_STAMP_ENV);
	rms_notice_unset(sp);
	if (rms_g.failed) {
		if (!rms_g.quiet)
			slurm_error(RMS_PREFIX "%s", rms_g.error);
		return -1;
	}
	if (local == 0 && rms_g.warning[0])
		fprintf(stderr, RMS_PREFIX "warning: %s\n", rms_g.warning);
	return 0;
}

void rms_pyxis_order(char *out, size_t n)
{
	rm_site_config c;
	rm_error e;
	memset(&e, 0, sizeof(e));
	out[0] = 0;
	if (rm_site_config_find(NULL, &c, &e) != RM_OK)
		return;
	if (c.pyxis_after)
		snprintf(out, n, "pyxis (%.200s:%u) comes after rankmap "
			 "(%.200s:%u) in plugstack.conf: its container "
			 "environment import gives every task of a node the "
			 "first task's RANKMAP_* values; put rankmap's line "
			 "after pyxis's", c.pyxis_after, c.pyxis_line,
			 c.plugstack, c.line);
	rm_site_config_clear(&c);
}

void rms_remote_exit(void)
{
	/* A node whose slurmstepd did not exist yet when the cancel came
	 * starts its tasks anyway (Slurm signals running steps only), and
	 * srun would wait KillWait + 2 s for them: cancel again once those
	 * have had time to start. Only a refusing node waits here. */
	bool task_refused = rms_g.refused && atomic_load(rms_g.refused);
	if (rms_g.refused)
		munmap(rms_g.refused, sizeof(*rms_g.refused));
	rms_g.refused = NULL;
	if (rms_g.cancelled || task_refused) {
		sleep(1);
		kill_step();
		sleep(2);
		kill_step();
	}
	task_envs_free();
	rms_file_remove(&rms_g.file);
	if (rms_g.jobfd >= 0)
		close(rms_g.jobfd);
	rms_g.jobfd = -1;
	rms_plan_free(&rms_g.plan);
	rm_env_clear(&rms_g.nccl);
	rm_node_free(rms_g.hw);
	rms_g.hw = NULL;
	rms_conf_free(&rms_g.conf);
}

int rms_job_epilog(spank_t sp, int argc, char **argv)
{
	/* Runs in slurmd for every job that ran on the node, so it must be
	 * cheap and quiet when the job never used the option. */
	rms_conf c;
	char err[RMS_ERRLEN];
	uint32_t jobid = 0;
	rms_conf_init(&c);
	if (spank_get_item(sp, S_JOB_ID, &jobid) == ESPANK_SUCCESS &&
	    rms_conf_parse(&c, argc, argv, err, sizeof(err)) &&
	    !rms_job_dir_remove(c.runtime_dir, jobid, err, sizeof(err)))
		slurm_error(RMS_PREFIX "job epilog: %s", err);
	rms_conf_free(&c);
	return 0;
}
