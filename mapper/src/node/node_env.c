/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node_env.c - the environment a task gets: one NCCL environment for the
 * whole node (NCCL's maintainers warn against per-rank NCCL_IB_HCA) and the
 * few variables that differ per local rank.
 */
#include "node/node_int.h"

#include <stdlib.h>
#include <string.h>

char *rmi_cpuset_list(hwloc_const_bitmap_t set)
{
	char *s = NULL;
	if (hwloc_bitmap_list_asprintf(&s, set) < 0)
		return NULL;
	return s;
}

void rm_env_clear(rm_env *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++) {
		free(e->key[i]);
		free(e->val[i]);
	}
	free(e->key);
	free(e->val);
	memset(e, 0, sizeof(*e));
}

/* Set or replace; a later value for the same key wins. */
static rm_status env_set(rm_env *e, const char *k, const char *v, rm_error *err)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->key[i], k)) {
			char *nv = strdup(v);
			if (!nv)
				return rmi_err(err, RM_ENOMEM, "out of memory");
			free(e->val[i]);
			e->val[i] = nv;
			return RM_OK;
		}
	char **nk = realloc(e->key, (e->n + 1) * sizeof(*nk));
	if (!nk)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	e->key = nk;
	char **nv = realloc(e->val, (e->n + 1) * sizeof(*nv));
	if (!nv)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	e->val = nv;
	e->key[e->n] = strdup(k);
	e->val[e->n] = strdup(v);
	if (!e->key[e->n] || !e->val[e->n]) {
		free(e->key[e->n]);
		free(e->val[e->n]);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	e->n++;
	return RM_OK;
}

static void add_port_name(rm_buf *b, const rmi_port *p, bool comma)
{
	if (comma)
		rm_buf_add(b, ",", 1);
	rm_buf_printf(b, "%s:%u", p->name, p->port);
}

/* "=mlx5_0:1,mlx5_3:1,...": exact match (a bare mlx5_1 would also match
 * mlx5_10), compute ports in GPU order, then any compute port no GPU
 * picked. NULL when the node has none. */
static char *ib_hca(const rm_node_hw *hw)
{
	bool *seen = calloc(hw->nport ? hw->nport : 1, sizeof(*seen));
	if (!seen)
		return NULL;
	rm_buf b;
	rm_buf_init(&b);
	rm_buf_add(&b, "=", 1);
	size_t n = 0;
	for (size_t g = 0; g < hw->ngpu; g++)
		for (size_t j = 0; j < hw->gpu[g].nnic; j++) {
			uint32_t i = hw->gpu[g].nic[j];
			if (seen[i])
				continue;
			seen[i] = true;
			add_port_name(&b, &hw->port[i], n++ > 0);
		}
	for (size_t i = 0; i < hw->nport; i++)
		if (hw->port[i].compute && !seen[i])
			add_port_name(&b, &hw->port[i], n++ > 0);
	free(seen);
	if (n == 0 || b.oom) {
		rm_buf_clear(&b);
		return NULL;
	}
	return rm_buf_take(&b, NULL);
}

rm_status rm_node_nccl_env(const rm_node_hw *hw, const rm_site *site,
			   rm_env *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	rm_status s = RM_OK;
	if (hw->ngpu) {
		char *hca = ib_hca(hw);
		bool want = false;
		for (size_t i = 0; i < hw->nport; i++)
			want |= hw->port[i].compute;
		if (want && !hca)
			return rmi_err(err, RM_ENOMEM, "out of memory");
		if (hca)
			s = env_set(out, "NCCL_IB_HCA", hca, err);
		free(hca);
		if (!s)
			s = env_set(out, "CUDA_DEVICE_ORDER", "PCI_BUS_ID", err);
		if (!s && site && (site->rails > 0 || site->nunits > 0))
			s = env_set(out, "NCCL_CROSS_NIC", "0", err);
	}
	/* The site's own NCCL variables come last and win over ours. */
	for (size_t i = 0; !s && site && i < site->n_nccl; i++)
		if (site->nccl_key[i] && site->nccl_val[i])
			s = env_set(out, site->nccl_key[i], site->nccl_val[i], err);
	if (s)
		rm_env_clear(out);
	return s;
}

static rm_status check_rank(const rm_node_hw *hw, uint32_t r, uint32_t n,
			    rm_error *err)
{
	if (n == 0)
		return rmi_err(err, RM_EINPUT, "local rank count must be at least 1");
	if (r >= n)
		return rmi_err(err, RM_EINPUT,
			       "local rank %u out of range (%u local ranks)", r, n);
	if (n > hw->ngpu)
		return rmi_err(err, RM_EINPUT,
			       "%u local ranks but %s has %zu GPU%s: at most one rank per GPU",
			       n, hw->source, hw->ngpu, hw->ngpu == 1 ? "" : "s");
	return RM_OK;
}

/*
 * The GPU's local PUs shared out among the ranks whose GPUs have the same
 * locality, in whole cores so hyperthreads stay with their core. With more
 * ranks than cores, neighbours share a core.
 */
static rm_status rank_cpuset(const rm_node_hw *hw, uint32_t r, uint32_t n,
			     hwloc_bitmap_t out, rm_error *err)
{
	hwloc_const_bitmap_t mine = hw->gpu[r].cpuset;
	size_t k = 0, j = 0;
	for (uint32_t q = 0; q < n; q++)
		if (hwloc_bitmap_isequal(hw->gpu[q].cpuset, mine)) {
			if (q == r)
				j = k;
			k++;
		}
	hwloc_obj_type_t unit = HWLOC_OBJ_CORE;
	int cores = hwloc_get_nbobjs_inside_cpuset_by_type(hw->topo, mine, unit);
	if (cores <= 0) {
		unit = HWLOC_OBJ_PU;
		cores = hwloc_get_nbobjs_inside_cpuset_by_type(hw->topo, mine, unit);
	}
	hwloc_bitmap_zero(out);
	if (cores <= 0 || k <= 1) {
		hwloc_bitmap_copy(out, mine);
		return RM_OK;
	}
	size_t c = (size_t)cores, lo = j * c / k, hi = (j + 1) * c / k;
	if (hi <= lo)
		hi = lo + 1;
	for (size_t i = lo; i < hi && i < c; i++) {
		hwloc_obj_t o = hwloc_get_obj_inside_cpuset_by_type(hw->topo, mine,
								    unit, (unsigned)i);
		if (o && o->cpuset)
			hwloc_bitmap_or(out, out, o->cpuset);
	}
	hwloc_bitmap_and(out, out, mine);
	if (hwloc_bitmap_iszero(out))
		return rmi_err(err, RM_EINPUT, "GPU %u has no local CPUs", r);
	return RM_OK;
}

rm_status rm_node_rank_cpus(const rm_node_hw *hw, uint32_t local_rank,
			    uint32_t local_ranks, char **out, rm_error *err)
{
	*out = NULL;
	rm_status s = check_rank(hw, local_rank, local_ranks, err);
	if (s)
		return s;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (!set)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	s = rank_cpuset(hw, local_rank, local_ranks, set, err);
	if (!s && !(*out = rmi_cpuset_list(set)))
		s = rmi_err(err, RM_ENOMEM, "out of memory");
	hwloc_bitmap_free(set);
	return s;
}

rm_status rm_node_rank_env(const rm_node_hw *hw, uint32_t local_rank,
			   uint32_t local_ranks, rm_env *out, rm_error *err)
{
	memset(out, 0, sizeof(*out));
	/* A CPU-only node has nothing per rank to say; its jobs must run. */
	if (hw->ngpu == 0)
		return RM_OK;
	char *cpus = NULL;
	rm_status s = rm_node_rank_cpus(hw, local_rank, local_ranks, &cpus, err);
	if (s)
		return s;
	const rmi_gpu *g = &hw->gpu[local_rank];
	char num[24];
	snprintf(num, sizeof(num), "%u", local_rank);
	s = env_set(out, "RANKMAP_GPU", num, err);
	if (!s)
		s = env_set(out, "RANKMAP_GPU_BUSID", g->busid, err);
	if (!s && g->nnic) {
		rm_buf b;
		rm_buf_init(&b);
		for (size_t j = 0; j < g->nnic; j++)
			add_port_name(&b, &hw->port[g->nic[j]], j > 0);
		s = b.oom ? rmi_err(err, RM_ENOMEM, "out of memory")
			  : env_set(out, "RANKMAP_NIC", b.data, err);
		rm_buf_clear(&b);
	}
	if (!s)
		s = env_set(out, "RANKMAP_CPUS", cpus, err);
	if (!s && g->numa >= 0) {
		snprintf(num, sizeof(num), "%d", (int)g->numa);
		s = env_set(out, "RANKMAP_NUMA", num, err);
	}
	free(cpus);
	if (s)
		rm_env_clear(out);
	return s;
}
