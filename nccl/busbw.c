/* SPDX-License-Identifier: Apache-2.0 */
/*
 * busbw.c - bandwidth arithmetic in nccl-tests' convention.
 *
 * algBw is bytes over time. busBw scales it by how much each rank really
 * moves for the operation, so that one number can be held against the
 * link's speed whatever the group size: a ring all-reduce sends and
 * receives 2(n-1)/n of the buffer per rank, all-gather and reduce-scatter
 * (n-1)/n, broadcast and send/recv the buffer itself.
 */
#include "nccl_internal.h"

#include <stdlib.h>
#include <string.h>

const char *rmn_op_name(rmn_op op)
{
	switch (op) {
	case RMN_OP_ALLREDUCE: return "allreduce";
	case RMN_OP_ALLGATHER: return "allgather";
	case RMN_OP_REDUCESCATTER: return "reducescatter";
	case RMN_OP_BROADCAST: return "broadcast";
	case RMN_OP_SENDRECV: return "sendrecv";
	}
	return "unknown";
}

double rmn_algbw(uint64_t bytes, double seconds)
{
	if (!(seconds > 0))
		return 0;
	return (double)bytes / seconds / 1e9;
}

double rmn_busbw_factor(rmn_op op, uint32_t nranks)
{
	if (nranks == 0)
		return 0;
	double n = nranks;
	switch (op) {
	case RMN_OP_ALLREDUCE: return 2.0 * (n - 1) / n;
	case RMN_OP_ALLGATHER:
	case RMN_OP_REDUCESCATTER: return (n - 1) / n;
	case RMN_OP_BROADCAST:
	case RMN_OP_SENDRECV: return 1.0;
	}
	return 0;
}

double rmn_busbw(rmn_op op, uint32_t nranks, uint64_t bytes, double seconds)
{
	return rmn_algbw(bytes, seconds) * rmn_busbw_factor(op, nranks);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

rmn_status rmn_stats_of(const double *v, size_t n, rmn_stats *out,
			rmn_error *err)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return RMN_OK;
	double *s = malloc(sizeof(*s) * n);
	if (!s)
		return rmni_err(err, RMN_ENOMEM, "out of memory");
	memcpy(s, v, sizeof(*s) * n);
	qsort(s, n, sizeof(*s), cmp_double);
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return RMN_OK;
}

const char *rmn_link_name(rmn_link l)
{
	switch (l) {
	case RMN_LINK_NVLINK: return "nvlink";
	case RMN_LINK_LEAF: return "leaf";
	case RMN_LINK_SPINE: return "spine";
	}
	return "unknown";
}

static const char *leaf_of(const rm_map *map, uint32_t node)
{
	/* The map already names the rail unit as the leaf where the
	 * fabric is rail-optimised. */
	const char *leaf = rm_map_host_leaf(map, node);
	if (leaf)
		return leaf;
	const char *unit = rm_map_host_unit(map, node);
	return unit ? unit : "";
}

rmn_link rmn_group_link(const rm_map *map, const uint32_t *members,
			size_t n)
{
	rmn_link worst = RMN_LINK_NVLINK;
	rm_rank r0, r;
	if (n == 0 || !map || !rm_map_rank(map, members[0], &r0))
		return worst;
	uint32_t node0 = r0.node;
	const char *leaf0 = leaf_of(map, node0);
	for (size_t i = 1; i < n; i++) {
		if (!rm_map_rank(map, members[i], &r))
			continue;
		uint32_t node = r.node;
		if (node == node0)
			continue;
		if (strcmp(leaf_of(map, node), leaf0) != 0)
			return RMN_LINK_SPINE;
		worst = RMN_LINK_LEAF;
	}
	return worst;
}

void rmn_nominal_init(rmn_nominal *n)
{
	/* H100 SXM: NVLink 4 at 450 GB/s each way; one 400 Gb/s NIC per
	 * GPU. Oversubscription above the leaf is site knowledge, so the
	 * spine starts at the NIC's speed. */
	n->gbps[RMN_LINK_NVLINK] = 450;
	n->gbps[RMN_LINK_LEAF] = 50;
	n->gbps[RMN_LINK_SPINE] = 50;
	n->slow_fraction = 0.5;
}
