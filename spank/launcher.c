/* SPDX-License-Identifier: Apache-2.0 */
/*
 * launcher.c - the per-node contract: a layout step with one task per node
 * runs a launcher there (torchrun), which starts the node's GPU workers
 * itself and numbers them RANK = node_rank x nproc + LOCAL_RANK. The task
 * gets what makes that numbering the map's: the node's rank in torchrun's
 * sense, the node count, the workers per node, the rendezvous address and
 * a CUDA_VISIBLE_DEVICES in which cuda:LOCAL_RANK is the map's GPU.
 * Free of SPANK calls like env.c.
 */
#include "rms.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* "0,1,2,3" or "0-3,8": the ranks one node holds, for the message. */
static void rank_list(const rm_map *m, uint32_t h, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (uint32_t l = 0; l < rm_map_gpus_per_node(m) && used + 16 < len;
	     l++) {
		int64_t r = rm_map_rank_at(m, h, l);
		int k = r < 0 ? snprintf(buf + used, len - used, "%sidle",
					 l ? "," : "")
			      : snprintf(buf + used, len - used, "%s%" PRId64,
					 l ? "," : "", r);
		if (k < 0)
			return;
		used += (size_t)k;
	}
}

bool rms_per_node_check(const rm_map *m, uint32_t nproc, char *err,
			size_t errlen)
{
	for (uint32_t h = 0; h < rm_map_host_count(m); h++) {
		int64_t r0 = rm_map_rank_at(m, h, 0);
		int64_t base = r0 < 0 ? -1 : r0 - r0 % nproc;
		bool ok = r0 >= 0;
		for (uint32_t l = 0; ok && l < nproc; l++) {
			int64_t r = rm_map_rank_at(m, h, l);
			ok = r >= base && r < base + (int64_t)nproc;
		}
		if (ok)
			continue;
		char ranks[160];
		rank_list(m, h, ranks, sizeof(ranks));
		snprintf(err, errlen,
			 "one task per node (torchrun) numbers RANK = node_rank "
			 "x %" PRIu32 " + LOCAL_RANK, but the map puts ranks %s "
			 "on %s, not %" PRIu32 " consecutive ones: use an order "
			 "that numbers a node's GPUs together "
			 "(--parallel-order=nest), or start one task per GPU "
			 "(--ntasks-per-node=%" PRIu32 ") without torchrun",
			 nproc, ranks, rm_map_host(m, h), nproc, nproc);
		return false;
	}
	return true;
}

static bool add_u(rms_envset *e, const char *key, uint64_t v)
{
	char num[24];
	snprintf(num, sizeof(num), "%" PRIu64, v);
	return rms_envset_add(e, key, num, true);
}

/*
 * The i-th entry of Slurm's CUDA_VISIBLE_DEVICES (indices, UUIDs or MIG
 * names: copied as they are), or i itself where Slurm set none.
 */
static bool visible_entry(const char *vis, uint32_t i, char *out, size_t len)
{
	if (!vis || !*vis) {
		snprintf(out, len, "%" PRIu32, i);
		return true;
	}
	const char *p = vis;
	for (uint32_t k = 0; k < i; k++) {
		p = strchr(p, ',');
		if (!p)
			return false;
		p++;
	}
	size_t n = strcspn(p, ",");
	if (n == 0 || n >= len)
		return false;
	memcpy(out, p, n);
	out[n] = 0;
	return true;
}

size_t rms_visible_count(const char *vis)
{
	if (!vis || !*vis)
		return 0;
	size_t n = 1;
	for (const char *p = vis; *p; p++)
		n += *p == ',';
	return n;
}

bool rms_node_env(const rms_plan *p, uint32_t h, const rms_task_ids *ids,
		  rms_envset *out, char *err, size_t errlen)
{
	const rm_map *m = p->map;
	uint32_t nproc = p->nproc;
	size_t nvis = rms_visible_count(ids->visible);
	if (ids->visible && *ids->visible && nvis < nproc) {
		snprintf(err, errlen,
			 "Slurm made %zu GPU(s) visible to this node's launcher "
			 "(CUDA_VISIBLE_DEVICES=%.64s) but the map runs %" PRIu32
			 " ranks here: give the step the node's GPUs "
			 "(--gpus-per-node=%" PRIu32 " or --gres=gpu:%" PRIu32
			 ", no --gpus-per-task)", nvis, ids->visible, nproc,
			 nproc, nproc);
		return false;
	}
	/* Worker j is RANK base+j; it must see the map's GPU of that rank
	 * as cuda:j. */
	int64_t base = rm_map_rank_at(m, h, 0);
	base -= base % nproc;
	char cvd[256], one[64];
	size_t used = 0;
	for (uint32_t j = 0; j < nproc; j++) {
		rm_rank r;
		if (!rm_map_rank(m, (uint32_t)base + j, &r) ||
		    !visible_entry(ids->visible, r.local_gpu, one, sizeof(one)) ||
		    used + strlen(one) + 2 > sizeof(cvd)) {
			snprintf(err, errlen, "cannot order CUDA_VISIBLE_DEVICES"
				 "=%.64s for the map", ids->visible);
			return false;
		}
		used += (size_t)snprintf(cvd + used, sizeof(cvd) - used, "%s%s",
					 j ? "," : "", one);
	}
	uint64_t node_rank = (uint64_t)base / nproc;
	char port[16];
	snprintf(port, sizeof(port), "%" PRIu32,
		 rm_master_port_avoiding(ids->jobid, ids->stepid,
					 ids->resv_ports, ids->eph_lo,
					 ids->eph_hi, ids->mpi_lo, ids->mpi_hi));
	const char *addr = rms_master_addr(m);
	/* torchrun reads PET_<option> for every option not given on its
	 * command line (torch.distributed.argparse_util.env), so a plain
	 * `torchrun train.py` starts the map's numbering; the plain names are
	 * for scripts that spell the options out. */
	bool ok = add_u(out, "NODE_RANK", node_rank) &&
		  add_u(out, "GROUP_RANK", node_rank) &&
		  add_u(out, "RANKMAP_NODE_RANK", node_rank) &&
		  add_u(out, "RANKMAP_NNODES", rm_map_host_count(m)) &&
		  add_u(out, "RANKMAP_NPROC_PER_NODE", nproc) &&
		  add_u(out, "WORLD_SIZE", rm_map_world(m)) &&
		  add_u(out, "LOCAL_WORLD_SIZE", nproc) &&
		  rms_envset_add(out, "MASTER_ADDR", addr, true) &&
		  rms_envset_add(out, "MASTER_PORT", port, false) &&
		  add_u(out, "PET_NODE_RANK", node_rank) &&
		  add_u(out, "PET_NNODES", rm_map_host_count(m)) &&
		  add_u(out, "PET_NPROC_PER_NODE", nproc) &&
		  rms_envset_add(out, "PET_MASTER_ADDR", addr, true) &&
		  rms_envset_add(out, "PET_MASTER_PORT", port, false) &&
		  rms_envset_add(out, "PET_RDZV_BACKEND", "static", true) &&
		  rms_envset_add(out, "CUDA_VISIBLE_DEVICES", cvd, true) &&
		  add_u(out, "RANKMAP_NODE_INDEX", h);
	if (!ok)
		snprintf(err, errlen, "out of memory or an oversized variable "
			 "building the launcher's environment");
	return ok;
}
