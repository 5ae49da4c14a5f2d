/* SPDX-License-Identifier: Apache-2.0 */
/* The per-node (torchrun) contract of the plugin's core, without Slurm:
 * when a step is one launcher per node, which maps torchrun can number,
 * and the launcher's variables. The real torchrun runs in t_launchers.sh. */
#include "rms.h"
#include "internal.h"        /* rmi_site_*: a site without a file */
#include "test.h"
#include "spank_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool plan(const char *layout, const char *order, const char *tpn,
		 uint32_t ntasks, rms_plan *p, char *err)
{
	rms_conf c;
	rms_conf_init(&c);
	rms_step s = { .layout = layout, .order = order, .nodelist = "n[1-2]",
		       .tasks_per_node = tpn, .ntasks = ntasks, .nnodes = 2 };
	rms_plan_init(p);
	bool ok = rms_plan_step(&c, &s, p, err, RMS_ERRLEN);
	rms_conf_free(&c);
	return ok;
}

static void which_steps(void)
{
	rm_layout l;
	rm_error e;
	CHECK(rm_layout_parse("tp=2,pp=2,dp=2", &l, &e) == RM_OK);
	CHECK_INT(rm_step_nproc(&l, NULL, 1, 2), 4);
	CHECK_INT(rm_step_nproc(&l, NULL, 4, 2), 0);  /* a rank per task */
	CHECK_INT(rm_step_nproc(&l, NULL, 1, 8), 0);  /* 8 nodes, 8 ranks */
	CHECK_INT(rm_step_nproc(&l, NULL, 1, 3), 0);  /* 8 over 3 nodes */
	CHECK(rm_layout_parse("tp=2,dp=auto", &l, &e) == RM_OK);
	CHECK_INT(rm_step_nproc(&l, NULL, 1, 2), 0);
	rm_site site;
	rmi_site_init(&site);
	site.gpus_per_node = 8;
	CHECK_INT(rm_step_nproc(&l, &site, 1, 2), 8);
	rmi_site_clear(&site);
	CHECK_INT(rms_visible_count(NULL), 0);
	CHECK_INT(rms_visible_count(""), 0);
	CHECK_INT(rms_visible_count("3"), 1);
	CHECK_INT(rms_visible_count("0,2,5"), 3);
}

static void launcher_env(void)
{
	rms_plan p;
	char err[RMS_ERRLEN];
	/* pp-tp-dp numbers a node together, rank 1 on GPU 2 */
	CHECK(plan("tp=2,pp=2,dp=2", "pp-tp-dp", "1(x2)", 2, &p, err));
	CHECK_INT(p.nproc, 4);
	CHECK_INT(rm_map_world(p.map), 8);
	int64_t h = rm_map_host_index(p.map, "n2");
	CHECK(h >= 0);
	rms_task_ids ids = { .jobid = 7, .stepid = 0, .visible = "4,5,6,7" };
	rms_envset env = { 0 };
	CHECK(rms_task_env(&p, h, 0, &ids, "/run/m.json", NULL, false, NULL,
			   &env, err, sizeof(err)));
	int64_t base = rm_map_rank_at(p.map, (uint32_t)h, 0);
	char want[24];
	snprintf(want, sizeof(want), "%lld", (long long)(base / 4));
	CHECK_STR(env_get(&env, "NODE_RANK"), want);
	CHECK_STR(env_get(&env, "PET_NODE_RANK"), want);
	CHECK_STR(env_get(&env, "PET_NNODES"), "2");
	CHECK_STR(env_get(&env, "PET_NPROC_PER_NODE"), "4");
	CHECK_STR(env_get(&env, "WORLD_SIZE"), "8");
	/* worker j = rank base+j must see the map's GPU of that rank */
	CHECK_STR(env_get(&env, "CUDA_VISIBLE_DEVICES"), "4,6,5,7");
	CHECK(env_get(&env, "RANK") == NULL);
	CHECK_STR(env_get(&env, "RANKMAP_MAP"), "/run/m.json");
	rms_envset_free(&env);
	/* fewer GPUs than the node's workers */
	ids.visible = "0,1";
	CHECK(!rms_task_env(&p, h, 0, &ids, NULL, NULL, false, NULL, &env,
			    err, sizeof(err)));
	CHECK_HAS(err, "Slurm made 2 GPU(s) visible");
	rms_envset_free(&env);
	rms_plan_free(&p);
}

static void refusals(void)
{
	rms_plan p;
	char err[RMS_ERRLEN];
	CHECK(!plan("tp=2,pp=2,dp=2", "megatron", "1(x2)", 2, &p, err));
	CHECK_HAS(err, "not 4 consecutive ones");
	CHECK_HAS(err, "--parallel-order=nest");
	rms_plan_free(&p);
	CHECK(plan("tp=2,pp=2,dp=2", "nest", "1(x2)", 2, &p, err));
	rms_plan_free(&p);
	/* one task per GPU: --gpus-per-task narrows what a task sees */
	CHECK(plan("tp=4,dp=2", NULL, "4(x2)", 8, &p, err));
	CHECK_INT(p.nproc, 0);
	rms_task_ids ids = { .jobid = 7, .visible = "1" };
	rms_envset env = { 0 };
	CHECK(!rms_task_env(&p, 0, 1, &ids, NULL, NULL, false, NULL, &env,
			    err, sizeof(err)));
	CHECK_HAS(err, "CUDA_VISIBLE_DEVICES=1 visible to local task 1 of 4");
	rms_envset_free(&env);
	ids.visible = "0,1,2,3";
	CHECK(rms_task_env(&p, 0, 1, &ids, NULL, NULL, false, NULL, &env, err,
			   sizeof(err)));
	rms_envset_free(&env);
	rms_plan_free(&p);
}

int main(void)
{
	RUN("spank", which_steps);
	RUN("spank", launcher_env);
	RUN("spank", refusals);
	TEST_EXIT();
}
