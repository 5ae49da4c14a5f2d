/* SPDX-License-Identifier: Apache-2.0 */
/* env.c - the variables one task gets, built without SPANK calls. */
#include "rms.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rms_envset_free(rms_envset *e)
{
	free(e->kv);
	memset(e, 0, sizeof(*e));
}

bool rms_envset_add(rms_envset *e, const char *key, const char *val,
		    bool overwrite)
{
	if (strlen(key) >= sizeof(e->kv[0].key) ||
	    strlen(val) >= sizeof(e->kv[0].val))
		return false;
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 48;
		rms_kv *kv = realloc(e->kv, cap * sizeof(*kv));
		if (!kv)
			return false;
		e->kv = kv;
		e->cap = cap;
	}
	rms_kv *k = &e->kv[e->n++];
	strcpy(k->key, key);
	strcpy(k->val, val);
	k->overwrite = overwrite;
	return true;
}

static bool add_u(rms_envset *e, const char *key, uint64_t v)
{
	char num[24];
	snprintf(num, sizeof(num), "%" PRIu64, v);
	return rms_envset_add(e, key, num, true);
}

static bool add_list(rms_envset *e, const rm_env *list, bool overwrite)
{
	for (size_t i = 0; list && i < list->n; i++)
		if (!rms_envset_add(e, list->key[i], list->val[i], overwrite))
			return false;
	return true;
}

/* RANKMAP_<KIND>_RANK and _SIZE: the task's place in each of its
 * framework groups, the kinds `rankmap plan --format env` prints (with
 * experts DP is the framework's dense DP rank, not a placement factor). */
static bool add_groups(rms_envset *out, const rm_map *m, uint64_t rank)
{
	rm_rank_group g[RM_MAX_ENV_GROUPS];
	unsigned ng;
	rm_error e;
	if (rank > UINT32_MAX ||
	    rm_map_rank_groups(m, (uint32_t)rank, g, &ng, &e) != RM_OK)
		return false;
	for (unsigned i = 0; i < ng; i++) {
		char name[64], up[32];
		const char *kn = rm_group_kind_name(g[i].kind);
		size_t j = 0;
		for (; kn[j] && j + 1 < sizeof(up); j++)
			up[j] = (char)(kn[j] >= 'a' && kn[j] <= 'z'
					       ? kn[j] - 'a' + 'A'
					       : kn[j]);
		up[j] = 0;
		snprintf(name, sizeof(name), "RANKMAP_%s_RANK", up);
		if (!add_u(out, name, g[i].index))
			return false;
		snprintf(name, sizeof(name), "RANKMAP_%s_SIZE", up);
		if (!add_u(out, name, g[i].size))
			return false;
	}
	return true;
}

void rms_ephemeral_ports(const char *path, uint32_t *lo, uint32_t *hi)
{
	char line[64] = "";
	rm_error e;
	FILE *f = fopen(path, "re");
	bool got = f && fgets(line, sizeof(line), f);
	if (f)
		fclose(f);
	if (!got || rm_port_range_parse(line, lo, hi, &e) != RM_OK) {
		*lo = RM_EPHEMERAL_LO;
		*hi = RM_EPHEMERAL_HI;
	}
}

/* What every task of the step gets, a rank or a node's launcher. */
static bool add_step(rms_envset *out, const rms_plan *p, const char *map_path,
		     const rm_env *nccl, bool nccl_override)
{
	return rms_envset_add(out, "RANKMAP_LAYOUT", p->layout_text, true) &&
	       rms_envset_add(out, "RANKMAP_ORDER", p->order_text, true) &&
	       rms_envset_add(out, "RANKMAP_MAP", map_path ? map_path : "",
			      true) &&
	       rms_envset_add(out, "RANKMAP_MAP_SHA256", p->json_sha256, true) &&
	       add_list(out, nccl, nccl_override);
}

bool rms_task_visible_ok(const rms_plan *p, uint32_t local_rank,
			 const char *visible, char *err, size_t errlen)
{
	/* --gpus-per-task and --gpu-bind narrow CUDA_VISIBLE_DEVICES per
	 * task while LOCAL_RANK stays the local id: cuda:LOCAL_RANK would
	 * not exist, or not be the map's GPU. */
	size_t nvis = rms_visible_count(visible);
	if (nvis && nvis < p->tasks_per_node) {
		snprintf(err, errlen,
			 "Slurm made only CUDA_VISIBLE_DEVICES=%.64s visible to "
			 "local task %" PRIu32 " of %" PRIu32 " (--gpus-per-task "
			 "or --gpu-bind narrow it per task), so cuda:LOCAL_RANK "
			 "is not the map's GPU: with --parallel-layout give the "
			 "step its GPUs per node (--gpus-per-node=%" PRIu32
			 ") without --gpus-per-task or --gpu-bind",
			 visible, local_rank, p->tasks_per_node,
			 p->tasks_per_node);
		return false;
	}
	return true;
}

bool rms_task_env(const rms_plan *p, int64_t host_index, uint32_t local_rank,
		  const rms_task_ids *ids, const char *map_path, const rm_env *nccl,
		  bool nccl_override, const rm_env *rank_env, rms_envset *out,
		  char *err, size_t errlen)
{
	const rm_map *m = p->map;
	if (host_index < 0 || (uint64_t)host_index >= rm_map_host_count(m)) {
		snprintf(err, errlen, "this node is not in the map");
		return false;
	}
	if (p->nproc) {
		if (!rms_node_env(p, (uint32_t)host_index, ids, out, err,
				  errlen))
			return false;
		if (add_step(out, p, map_path, nccl, nccl_override))
			return true;
		snprintf(err, errlen, "out of memory or an oversized variable "
			 "building the launcher's environment");
		return false;
	}
	if (!rms_task_visible_ok(p, local_rank, ids->visible, err, errlen))
		return false;
	int64_t rank = rm_map_rank_at(m, (uint32_t)host_index, local_rank);
	if (rank < 0) {
		snprintf(err, errlen,
			 "local task %" PRIu32 " has no rank in the map "
			 "(%" PRIu32 " per node)", local_rank,
			 rm_map_gpus_per_node(m));
		return false;
	}
	bool ok = add_u(out, "RANK", (uint64_t)rank) &&
		  add_u(out, "WORLD_SIZE", rm_map_world(m)) &&
		  add_u(out, "LOCAL_RANK", local_rank) &&
		  add_u(out, "LOCAL_WORLD_SIZE", p->tasks_per_node) &&
		  rms_envset_add(out, "MASTER_ADDR", rms_master_addr(m),
				 true) &&
		  add_u(out, "RANKMAP_NODE_INDEX", (uint64_t)host_index);
	if (ok) {
		char port[16];
		snprintf(port, sizeof(port), "%" PRIu32,
			 rm_master_port_avoiding(ids->jobid, ids->stepid,
						 ids->resv_ports, ids->eph_lo,
						 ids->eph_hi, ids->mpi_lo,
						 ids->mpi_hi));
		ok = rms_envset_add(out, "MASTER_PORT", port, false);
	}
	/* --parallel-export=slurm: for frameworks that take the rank from
	 * Slurm's variables (Lightning, NeMo). SLURM_LOCALID is the task's
	 * local id already (LOCAL_RANK is that id); set for completeness.
	 * SLURM_NODEID becomes the node's place in the map, Lightning's
	 * node_rank, so that node_rank x tasks + local_rank is the rank where
	 * the order numbers a node's GPUs together.
	 * PMI_* and PMIX_* stay Slurm's: MPI must keep its own numbering. */
	if (ok && ids->export_slurm) {
		ok = add_u(out, "SLURM_PROCID", (uint64_t)rank) &&
		     add_u(out, "SLURM_LOCALID", local_rank) &&
		     add_u(out, "SLURM_NODEID", (uint64_t)host_index);
	}
	ok = ok && add_groups(out, m, (uint64_t)rank);
	ok = ok && add_step(out, p, map_path, nccl, nccl_override) &&
	     add_list(out, rank_env, false);
	if (!ok)
		snprintf(err, errlen, "out of memory or an oversized variable "
			 "building the task's environment");
	return ok;
}
