/*
 * comm.c - the world communicator and one per axis, from the map file.
 *
 * Every rank reads the same map, so every rank can work out its colors
 * and keys alone; the only thing that must travel is the world's
 * ncclUniqueId (exchange.c). The splits are collective over the world and
 * happen in the same axis order on every rank.
 */
#include "nccl_internal.h"

#include <cuda_runtime.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rmn_opts_init(rmn_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->rank = -1;
	o->device = -1;
}

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

/* An unsigned integer from the environment; absent leaves *out alone. */
static rmn_status env_u64(const char *name, uint64_t min, uint64_t max,
			  uint64_t *out, bool *found, rmn_error *err)
{
	const char *v = getenv(name);
	char q[96];
	if (found)
		*found = false;
	if (!v || !*v)
		return RMN_OK;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || errno || x < min || x > max)
		return rmni_err(err, RMN_EINPUT,
				"%s=%s is not a whole number in %llu..%llu",
				name, rmi_quote(v, 64, q, sizeof(q)),
				(unsigned long long)min,
				(unsigned long long)max);
	*out = x;
	if (found)
		*found = true;
	return RMN_OK;
}

static rmn_status env_timeout(uint32_t *ms, rmn_error *err)
{
	const char *v = getenv("RANKMAP_NCCL_TIMEOUT");
	char q[96];
	if (!v || !*v)
		return RMN_OK;
	char *end;
	errno = 0;
	double s = strtod(v, &end);
	if (*end || errno || !(s >= 0.1 && s <= 86400))
		return rmni_err(err, RMN_EINPUT,
				"RANKMAP_NCCL_TIMEOUT=%s is not a number of "
				"seconds in 0.1..86400",
				rmi_quote(v, 64, q, sizeof(q)));
	*ms = (uint32_t)llround(s * 1000);
	return RMN_OK;
}

static bool is_hex64(const char *s)
{
	if (strlen(s) != 64)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* Fill in everything the caller left to the environment. */
static rmn_status resolve_opts(const rmn_opts *in, rmn_opts *o,
			       rmn_error *err)
{
	rmn_status st;
	uint64_t v = 0;
	bool found = false;
	*o = *in;
	if (!o->map_path)
		o->map_path = getenv("RANKMAP_MAP");
	if (!o->map_path || !*o->map_path)
		return rmni_err(err, RMN_EINPUT,
				"RANKMAP_MAP is not set: run under srun "
				"--parallel-layout or point it at a map file");
	if (o->rank < 0) {
		const char *rk = getenv("RANK");
		const char *name = rk && *rk ? "RANK" : "SLURM_PROCID";
		st = env_u64(name, 0, RM_MAX_WORLD - 1, &v, &found, err);
		if (st != RMN_OK)
			return st;
		if (!found)
			return rmni_err(err, RMN_EINPUT,
					"neither RANK nor SLURM_PROCID is set");
		o->rank = (int64_t)v;
	}
	if (!o->master_addr)
		o->master_addr = getenv("MASTER_ADDR");
	if (!o->port) {
		st = env_u64("RANKMAP_NCCL_PORT", 1, 65535, &v, &found, err);
		if (st != RMN_OK)
			return st;
		if (!found) {
			/* torch's store takes MASTER_PORT itself. */
			st = env_u64("MASTER_PORT", 1, 65534, &v, &found, err);
			if (st != RMN_OK)
				return st;
			v = found ? v + 1 : 0;
		}
		o->port = (int)v;
	}
	if (!o->timeout_ms) {
		o->timeout_ms = RMN_DEFAULT_TIMEOUT_MS;
		st = env_timeout(&o->timeout_ms, err);
		if (st != RMN_OK)
			return st;
	}
	if (!o->digest)
		o->digest = getenv("RANKMAP_MAP_SHA256");
	if (o->digest && *o->digest && !is_hex64(o->digest)) {
		char q[96];
		return rmni_err(err, RMN_EINPUT,
				"RANKMAP_MAP_SHA256=%s is not a lowercase "
				"SHA-256 in hex",
				rmi_quote(o->digest, 80, q, sizeof(q)));
	}
	return RMN_OK;
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
	rmn_status st = env_u64("WORLD_SIZE", 1, RM_MAX_WORLD, &ws, &found,
				err);
	if (st != RMN_OK)
		return st;
	if (found && ws != c->map->world)
		return rmni_err(err, RMN_EINPUT,
				"WORLD_SIZE=%llu but the map %s has %u ranks",
				(unsigned long long)ws, o->map_path,
				c->map->world);
	if ((uint64_t)o->rank >= c->map->world)
		return rmni_err(err, RMN_EINPUT,
				"RANK %lld is outside the map's world of %u",
				(long long)o->rank, c->map->world);
	c->rank = (uint32_t)o->rank;
	c->world = c->map->world;
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
		uint32_t local = c->map->rank[c->rank].local_gpu;
		dev = count == 1 ? 0 : (int)local;
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

static rmn_status init_world(const rmn_opts *o, rmn_comms *c, rmn_error *err)
{
	ncclUniqueId id;
	ncclResult_t r;
	memset(&id, 0, sizeof(id));
	if (c->rank == 0 && (r = ncclGetUniqueId(&id)) != ncclSuccess)
		return nccl_err(err, r, NULL, "ncclGetUniqueId");
	if (c->world > 1 && !o->port)
		return rmni_err(err, RMN_EINPUT,
				"no port for the id exchange: set MASTER_PORT "
				"or RANKMAP_NCCL_PORT");
	rmn_exchange_opts x = { .host = o->master_addr,
				.port = (uint16_t)o->port,
				.rank = c->rank,
				.nranks = c->world,
				.digest = c->digest,
				.timeout_ms = o->timeout_ms };
	rmn_status st = rmn_exchange(&x, &id, sizeof(id), err);
	if (st != RMN_OK)
		return st;
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	cfg.blocking = 1;
	cfg.commName = "rankmap-world";
	r = ncclCommInitRankConfig(&c->comm, (int)c->world, id, (int)c->rank,
				   &cfg);
	if (r != ncclSuccess) {
		c->comm = NULL;
		return nccl_err(err, r, NULL, "ncclCommInitRankConfig (world)");
	}
	return RMN_OK;
}

static rmn_status split_axes(const rmn_opts *o, rmn_comms *c,
			     rmn_error *err)
{
	static const char *const names[RM_NAXES] = {
		[RM_AXIS_TP] = "rankmap-tp", [RM_AXIS_CP] = "rankmap-cp",
		[RM_AXIS_EP] = "rankmap-ep", [RM_AXIS_PP] = "rankmap-pp",
		[RM_AXIS_DP] = "rankmap-dp",
	};
	rmn_status st = rmn_splits(c->map, c->rank, c->split, err);
	if (st != RMN_OK || o->world_only)
		return st;
	/* Axis order is fixed, so every rank splits in the same order. */
	for (int a = 0; a < RM_NAXES; a++) {
		if (!c->split[a].present)
			continue;
		ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
		cfg.blocking = 1;
		cfg.commName = names[a];
		ncclResult_t r = ncclCommSplit(c->comm, c->split[a].color,
					       c->split[a].key, &c->axis[a],
					       &cfg);
		if (r != ncclSuccess) {
			char what[64];
			c->axis[a] = NULL;
			snprintf(what, sizeof(what), "ncclCommSplit (%s)",
				 rm_axis_name((rm_axis)a));
			return nccl_err(err, r, c->comm, what);
		}
	}
	return RMN_OK;
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
	rmn_status st = resolve_opts(in, &o, err);
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
		for (int a = 0; a < RM_NAXES; a++)
			if (c->axis[a])
				ncclCommAbort(c->axis[a]);
		if (c->comm)
			ncclCommAbort(c->comm);
		rm_map_free(c->map);
		free(c);
		return st;
	}
	*out = c;
	return RMN_OK;
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
	if (c->comm) {
		ncclCommFinalize(c->comm);
		ncclCommDestroy(c->comm);
	}
	rm_map_free(c->map);
	free(c);
}
