/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fit.c - does a --parallel-layout fit a step of N nodes x T tasks? The
 * checks the SPANK plugin makes before it plans, shared with `rankmap
 * fit`, which a cli_filter runs at submission: a request that cannot fit
 * is refused before the queue with the plugin's own words, not a second
 * implementation's.
 */
#include "rankmap_priv.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

uint32_t rm_step_nproc(const rm_layout *l, const rm_site *site,
		       uint32_t tasks_per_node, size_t nnodes)
{
	if (tasks_per_node != 1 || nnodes == 0)
		return 0;
	uint64_t w = rm_layout_world(l);
	/* A fixed world equal to the task count is the per-task step it
	 * always was (one rank per node). */
	if (w == nnodes)
		return 0;
	if (w && w % nnodes == 0 && w / nnodes <= RM_STEP_MAX_NPROC)
		return (uint32_t)(w / nnodes);
	/* dp=auto: the nodes' GPUs as the site file counts them. */
	if (!w && site && rm_site_gpus_per_node(site) > 1)
		return rm_site_gpus_per_node(site);
	return 0;
}

bool rm_step_fit(const char *layout_text, const rm_layout *l,
		 const rm_site *site, size_t nnodes, uint32_t tasks_per_node,
		 uint32_t *nproc, rm_layout *resolved, char *err,
		 size_t errlen)
{
	uint32_t gpn_site = site ? rm_site_gpus_per_node(site) : 0;
	/* --overcommit can put more tasks on a node than it has GPUs; the
	 * map would then give two ranks one GPU (and a TP group the size of
	 * the task count). */
	if (gpn_site && tasks_per_node > gpn_site) {
		snprintf(err, errlen, "%" PRIu32 " tasks per node, but the nodes "
			 "have %" PRIu32 " GPUs (site file): one task per GPU "
			 "(no --overcommit with --parallel-layout)",
			 tasks_per_node, gpn_site);
		return false;
	}
	uint32_t np = rm_step_nproc(l, site, tasks_per_node, nnodes);
	/* One launcher task per node (torchrun) takes the layout's ranks
	 * per node; more than the node's GPUs would give the launcher
	 * LOCAL_WORLD_SIZE=16 on 8 GPUs, or advice it cannot follow. */
	if (np && gpn_site && np > gpn_site) {
		uint64_t w = (uint64_t)np * nnodes;
		uint64_t need = (w + gpn_site - 1) / gpn_site;
		snprintf(err, errlen,
			 "--parallel-layout=%.128s with one task per node "
			 "(a launcher) puts %" PRIu32 " ranks on each of the "
			 "step's %zu node(s), but the nodes have %" PRIu32
			 " GPUs (site file): give the step %" PRIu64
			 " nodes (-N%" PRIu64 " --ntasks-per-node=1)%s",
			 layout_text, np, nnodes, gpn_site, need, need,
			 w % gpn_site ? ", or a layout whose size is a "
					"multiple of the GPUs per node" : "");
		return false;
	}
	uint32_t gpn = np ? np : tasks_per_node;
	uint64_t world = (uint64_t)gpn * nnodes;
	rm_layout r = *l;
	rm_error e;
	if (rm_layout_resolve(&r, world, true, &e) != RM_OK) {
		snprintf(err, errlen,
			 "--parallel-layout=%.128s does not fit the step's %"
			 PRIu64 " %s (%zu nodes x %" PRIu32 "): %.400s",
			 layout_text, world, np ? "GPUs" : "tasks", nnodes, gpn,
			 e.msg);
		return false;
	}
	if (nproc)
		*nproc = np;
	if (resolved)
		*resolved = r;
	return true;
}
