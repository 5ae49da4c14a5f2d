/* SPDX-License-Identifier: Apache-2.0 */
/*
 * comm.c - the world communicator, one per axis and one per combined
 * group, from the map file.
 *
 * Every rank reads the same map, so every rank can work out its colors
 * and keys alone; the only thing that must travel is the world's
 * ncclUniqueId (exchange.c). The splits are collective over the world and
 * happen in the same order on every rank. Communicators are non-blocking
 * (config.blocking = 0): each call is polled with ncclCommGetAsyncError
 * until a deadline, so a rank that died after the exchange makes the
 * others fail with RMN_ETIMEOUT instead of hanging in NCCL.
 */
#include "nccl_internal.h"

#include <cuda_runtime.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rmn_status nccl_err(rmn_error *err, ncclResult_t r, ncclComm_t comm,
			   const char *what)
{
	const char *last = ncclGetLastError(comm);
	rmni_err(err, RMN_ENCCL, "%s: %s%s%s", what, ncclGetErrorString(r),
		 last && *last ? ": " : "", last ? last : "");
	if (err)
		err->nccl = (int)r;
	return RMN_ENCCL;
}

rmn_status rmn_comm_wait(ncclComm_t comm, uint32_t timeout_ms,
			const char *what, rmn_error *err)
{
	int64_t deadline = rmni_now_ms() + (timeout_ms ? timeout_ms :
					    RMN_DEFAULT_TIMEOUT_MS);
	for (unsigned spin = 0;; spin++) {
		ncclResult_t st = ncclInProgress;
		ncclResult_t r = ncclCommGetAsyncError(comm, &st);
		if (r != ncclSuccess)
			return nccl_err(err, r, comm, what);
		if (st == ncclSuccess)
			return RMN_OK;
		if (st != ncclInProgress)
			return nccl_err(err, st, comm, what);
		if (rmni_now_ms() >= deadline)
			return rmni_err(err, RMN_ETIMEOUT,
					"%s did not finish within %.1f s: a "
					"rank died or stalled after the id "
					"exchange",
					what, (timeout_ms ? timeout_ms :
					       RMN_DEFAULT_TIMEOUT_MS) / 1000.0);
		poll(NULL, 0, spin < 50 ? 1 : 10);
	}
}

/* Read the map and check it is the one the job announced. */
static rmn_status load_map(const rmn_opts *o, rmn_comms *c, rmn_error *err)
{
	rm_error e = { 0 };
	/* one read gives both the digest and the map (any size) */
	if (rm_map_read_digest(o->map_path, &c->map, c->digest, &e) != RM_OK)
		return rmni_from_rm(err, &e);
	if (o->digest && *o->digest && strcmp(o->digest, c->digest) != 0)
		return rmni_err(err, RMN_EREFUSED,
				"map file %s has SHA-256 %.16s... but "
				"RANKMAP_MAP_SHA256 says %.16s...: the file "
				"changed after the job started",
				o->map_path, c->digest, o->digest);
	uint64_t ws = 0;
	bool found = false;
	rmn_status st = rmni_env_u64("WORLD_SIZE", 1, RM_MAX_WORLD, &ws, &found,
				err);
	if (st != RMN_OK)
		return st;
	if (found && ws != rm_map_world(c->map))
		return rmni_err(err, RMN_EINPUT,
				"WORLD_SIZE=%llu but the map %s has %u ranks",
				(unsigned long long)ws, o->map_path,
				rm_map_world(c->map));
	if ((uint64_t)o->rank >= rm_map_world(c->map))
		return rmni_err(err, RMN_EINPUT,
				"RANK %lld is outside the map's world of %u",
				(long long)o->rank, rm_map_world(c->map));
	c->rank = (uint32_t)o->rank;
	c->world = rm_map_world(c->map);
	return RMN_OK;
}

static rmn_status pick_device(const rmn_opts *o, rmn_comms *c,
			      rmn_error *err)
{
	int count = 0;
	cudaError_t ce = cudaGetDeviceCount(&count);
	if (ce != cudaSuccess)
		return rmni_err(err, RMN_ENOCUDA, "no CUDA device (%s)",
				cudaGetErrorString(ce));
	if (count <= 0)
		return rmni_err(err, RMN_ENOCUDA,
				"no CUDA device (none visible)");
	int dev = o->device;
	if (dev < 0) {
		/* One visible GPU: the launcher already bound us to it. */
		rm_rank r = { 0 };
		rm_map_rank(c->map, c->rank, &r);
		dev = count == 1 ? 0 : (int)r.local_gpu;
	}
	if (dev >= count)
		return rmni_err(err, RMN_ENOCUDA,
				"rank %u wants GPU %d but only %d are visible",
				c->rank, dev, count);
	ce = cudaSetDevice(dev);
	if (ce != cudaSuccess)
		return rmni_err(err, RMN_ENOCUDA, "cudaSetDevice(%d): %s", dev,
				cudaGetErrorString(ce));
	c->device = dev;
	return RMN_OK;
}

/* Rank 0's id into every rank's *id (rmn_exchange). */
static rmn_status share_id(const rmn_opts *o, const rmn_comms *c,
			   ncclUniqueId *id, rmn_error *err)
{
	ncclResult_t r;
	if (c->rank == 0 && (r = ncclGetUniqueId(id)) != ncclSuccess)
		return nccl_err(err, r, NULL, "ncclGetUniqueId");
	if (c->world > 1 && !o->port)
		return rmni_err(err, RMN_EINPUT,
				"no port for the id exchange: set MASTER_PORT "
				"or RANKMAP_NCCL_PORT");
	unsigned char secret[RMN_SECRET_LEN];
	rmn_exchange_opts x;
	rmni_exchange_opts_of(o, c->rank, c->world, c->digest, secret, &x);
	rmn_status st = rmn_exchange(&x, id, sizeof(*id), err);
	/* A memset of a buffer that dies is a dead store (tests/secrets). */
	sodium_memzero(secret, sizeof(secret));
	return st;
}

static rmn_status init_world(const rmn_opts *o, rmn_comms *c, rmn_error *err)
{
	ncclUniqueId id = { { 0 } };
	rmn_status st = share_id(o, c, &id, err);
	ncclResult_t r = ncclSuccess;
	if (st == RMN_OK) {
		ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
		cfg.blocking = 0;
		cfg.commName = "rankmap-world";
		r = ncclCommInitRankConfig(&c->comm, (int)c->world, id,
					   (int)c->rank, &cfg);
	}
	/* Whoever holds the id can join the world: NCCL has its copy. */
	sodium_memzero(&id, sizeof(id));
	if (st != RMN_OK)
		return st;
	if (r != ncclSuccess && r != ncclInProgress) {
		if (c->comm)
			ncclCommAbort(c->comm);
		c->comm = NULL;
		return nccl_err(err, r, NULL, "ncclCommInitRankConfig (world)");
	}
	char what[96];
	snprintf(what, sizeof(what),
		 "rank %u: ncclCommInitRankConfig (world of %u)", c->rank,
		 c->world);
	return rmn_comm_wait(c->comm, o->timeout_ms, what, err);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* "tp group 3 (ranks 6-7)": what a split waits for, for its message. */
static void describe(const rmn_comms *c, int axis, int group, char *out,
		     size_t cap)
{
	uint32_t *all = NULL, ng = 0, size = 0;
	char list[160] = "?";
	const rmn_split *sp = axis >= 0 ? &c->split[axis] : &c->gsplit[group];
	rmn_status st =
		axis >= 0 ? rmn_axis_groups(c->map, (rm_axis)axis, &all, &ng,
					    &size, NULL)
			  : rmn_group_members(c->map, (rmn_group)group, &all,
					      &ng, &size, NULL);
	if (st == RMN_OK && (uint32_t)sp->color < ng) {
		uint32_t *m = all + (size_t)sp->color * size;
		qsort(m, size, sizeof(*m), cmp_u32);
		rmni_ranges(m, size, list, sizeof(list));
	}
	free(all);
	snprintf(out, cap, "%s group %d (ranks %s)",
		 axis >= 0 ? rm_axis_name((rm_axis)axis)
			   : rmn_group_name((rmn_group)group),
		 sp->color, list);
}

/* One collective split of the world, waited for with a deadline. */
static rmn_status split_one(const rmn_opts *o, rmn_comms *c,
			    const rmn_split *sp, const char *name,
			    ncclComm_t *out, int axis, int group,
			    rmn_error *err)
{
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	char what[300], desc[240];
	cfg.blocking = 0;
	cfg.commName = name;
	ncclResult_t r = ncclCommSplit(c->comm,
				       sp->present ? sp->color
						   : NCCL_SPLIT_NOCOLOR,
				       sp->key, out, &cfg);
	if (sp->present)
		describe(c, axis, group, desc, sizeof(desc));
	else
		snprintf(desc, sizeof(desc), "%s, not a member", name);
	snprintf(what, sizeof(what), "rank %u: ncclCommSplit (%s)", c->rank,
		 desc);
	if (r != ncclSuccess && r != ncclInProgress) {
		if (*out)
			ncclCommAbort(*out);
		*out = NULL;
		return nccl_err(err, r, c->comm, what);
	}
	rmn_status st = rmn_comm_wait(c->comm, o->timeout_ms, what, err);
	if (st == RMN_OK && *out)
		st = rmn_comm_wait(*out, o->timeout_ms, what, err);
	return st;
}

static rmn_status split_axes(const rmn_opts *o, rmn_comms *c,
			     rmn_error *err)
{
	static const char *const names[RM_NAXES] = {
		[RM_AXIS_TP] = "rankmap-tp", [RM_AXIS_CP] = "rankmap-cp",
		[RM_AXIS_EP] = "rankmap-ep", [RM_AXIS_PP] = "rankmap-pp",
		[RM_AXIS_DP] = "rankmap-dp",
	};
	static const char *const gnames[RMN_NGROUPS] = {
		[RMN_GROUP_MP] = "rankmap-mp",
		[RMN_GROUP_TP_CP] = "rankmap-tp-cp",
		[RMN_GROUP_DP_CP] = "rankmap-dp-cp",
		[RMN_GROUP_TP_DP_CP] = "rankmap-tp-dp-cp",
		[RMN_GROUP_EMBEDDING] = "rankmap-embedding",
		[RMN_GROUP_ETP] = "rankmap-etp",
		[RMN_GROUP_EDP] = "rankmap-edp",
	};
	rmn_status st = rmn_splits(c->map, c->rank, c->split, err);
	for (int g = 0; g < RMN_NGROUPS && st == RMN_OK; g++)
		st = rmn_group_split(c->map, (rmn_group)g, c->rank,
				     &c->gsplit[g], err);
	if (st != RMN_OK || o->world_only)
		return st;
	/* A fixed order, so every rank splits in the same order; a rank in
	 * no embedding group still takes part (NCCL_SPLIT_NOCOLOR). */
	for (int a = 0; a < RM_NAXES && st == RMN_OK; a++)
		if (c->split[a].present)
			st = split_one(o, c, &c->split[a], names[a],
				       &c->axis[a], a, -1, err);
	for (int g = 0; g < RMN_NGROUPS && st == RMN_OK; g++)
		st = split_one(o, c, &c->gsplit[g], gnames[g], &c->group[g],
			       -1, g, err);
	return st;
}

rmn_status rmn_comms_init(const rmn_opts *in, rmn_comms **out,
			  rmn_error *err)
{
	rmn_opts def, o;
	*out = NULL;
	if (!in) {
		rmn_opts_init(&def);
		in = &def;
	}
	rmn_comms *c = calloc(1, sizeof(*c));
	if (!c)
		return rmni_err(err, RMN_ENOMEM, "out of memory");
	c->device = -1;
	rmn_status st = rmni_resolve_opts(in, &o, err);
	if (st == RMN_OK)
		st = load_map(&o, c, err);
	if (st == RMN_OK)
		st = pick_device(&o, c, err);
	if (st == RMN_OK)
		st = init_world(&o, c, err);
	if (st == RMN_OK)
		st = split_axes(&o, c, err);
	if (st != RMN_OK) {
		/* A half-built set must not wait on peers that gave up. */
		rmn_comms_abort(c);
		return st;
	}
	*out = c;
	return RMN_OK;
}

void rmn_comms_abort(rmn_comms *c)
{
	if (!c)
		return;
	for (int a = 0; a < RM_NAXES; a++)
		if (c->axis[a])
			ncclCommAbort(c->axis[a]);
	for (int g = 0; g < RMN_NGROUPS; g++)
		if (c->group[g])
			ncclCommAbort(c->group[g]);
	if (c->comm)
		ncclCommAbort(c->comm);
	rm_map_free(c->map);
	free(c);
}

void rmn_comms_free(rmn_comms *c)
{
	if (!c)
		return;
	for (int a = 0; a < RM_NAXES; a++)
		if (c->axis[a]) {
			ncclCommFinalize(c->axis[a]);
			ncclCommDestroy(c->axis[a]);
		}
	for (int g = 0; g < RMN_NGROUPS; g++)
		if (c->group[g]) {
			ncclCommFinalize(c->group[g]);
			ncclCommDestroy(c->group[g]);
		}
	if (c->comm) {
		ncclCommFinalize(c->comm);
		ncclCommDestroy(c->comm);
	}
	rm_map_free(c->map);
	free(c);
}
