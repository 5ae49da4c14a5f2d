/* SPDX-License-Identifier: Apache-2.0 */
/*
 * comm_env.c - rmn_opts from the environment the SPANK plugin (or any
 * launcher) sets, for everything the caller left open.
 */
#include "nccl_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An unsigned integer from the environment; absent leaves *out alone. */
rmn_status rmni_env_u64(const char *name, uint64_t min, uint64_t max,
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
				name, rm_quote(v, 64, q, sizeof(q)),
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
				rm_quote(v, 64, q, sizeof(q)));
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

void rmn_opts_init(rmn_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->rank = -1;
	o->device = -1;
	o->jobid = -1;
	o->stepid = -1;
}

/* RANKMAP_NCCL_AUTH, when the caller left the mode to it. */
static rmn_status env_auth(rmn_auth *mode, rmn_error *err)
{
	static const char *const names[] = { "auto", "munge", "hmac", "none" };
	const char *v = getenv("RANKMAP_NCCL_AUTH");
	char q[96];
	if (*mode != RMN_AUTH_AUTO || !v || !*v)
		return RMN_OK;
	for (int i = 0; i < 4; i++)
		if (!strcmp(v, names[i])) {
			*mode = (rmn_auth)i;
			return RMN_OK;
		}
	return rmni_err(err, RMN_EINPUT,
			"RANKMAP_NCCL_AUTH=%s is not auto, munge, hmac or none",
			rm_quote(v, 64, q, sizeof(q)));
}

/* A job or step id (0 outside Slurm: still bound, just not distinct). */
static rmn_status env_id(const char *name, int64_t *out, rmn_error *err)
{
	uint64_t v = 0;
	bool found = false;
	rmn_status st = rmni_env_u64(name, 0, UINT32_MAX, &v, &found, err);
	*out = found ? (int64_t)v : 0;
	return st;
}

/* Fill in everything the caller left to the environment. */
rmn_status rmni_resolve_opts(const rmn_opts *in, rmn_opts *o,
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
		st = rmni_env_u64(name, 0, RM_MAX_WORLD - 1, &v, &found, err);
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
		st = rmni_env_u64("RANKMAP_NCCL_PORT", 1, 65535, &v, &found, err);
		if (st != RMN_OK)
			return st;
		if (!found) {
			/* torch's store takes MASTER_PORT itself. */
			st = rmni_env_u64("MASTER_PORT", 1, 65534, &v, &found, err);
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
	if (!o->bind)
		o->bind = getenv("RANKMAP_NCCL_BIND");
	if (!o->munge_socket)
		o->munge_socket = getenv("RANKMAP_NCCL_MUNGE_SOCKET");
	if (!o->secret)
		o->secret = getenv("RANKMAP_NCCL_SECRET");
	if (o->secret && *o->secret && !is_hex64(o->secret))
		return rmni_err(err, RMN_EINPUT,
				"RANKMAP_NCCL_SECRET is not 64 lowercase hex "
				"digits (the value is not shown)");
	st = env_auth(&o->auth, err);
	if (st == RMN_OK && o->jobid < 0)
		st = env_id("SLURM_JOB_ID", &o->jobid, err);
	if (st == RMN_OK && o->stepid < 0)
		st = env_id("SLURM_STEP_ID", &o->stepid, err);
	if (st != RMN_OK)
		return st;
	if (!o->digest)
		o->digest = getenv("RANKMAP_MAP_SHA256");
	if (o->digest && *o->digest && !is_hex64(o->digest)) {
		char q[96];
		return rmni_err(err, RMN_EINPUT,
				"RANKMAP_MAP_SHA256=%s is not a lowercase "
				"SHA-256 in hex",
				rm_quote(o->digest, 80, q, sizeof(q)));
	}
	return RMN_OK;
}


void rmni_exchange_opts_of(const rmn_opts *o, uint32_t rank, uint32_t world,
			   const char *digest,
			   unsigned char secret[RMN_SECRET_LEN],
			   rmn_exchange_opts *x)
{
	/* The secret was checked to be 64 lowercase hex digits. */
	bool have = o->secret && *o->secret;
	for (size_t i = 0; have && i < RMN_SECRET_LEN; i++) {
		unsigned v = 0;
		sscanf(o->secret + 2 * i, "%2x", &v);
		secret[i] = (unsigned char)v;
	}
	*x = (rmn_exchange_opts){ .host = o->master_addr,
				  .port = (uint16_t)o->port,
				  .rank = rank,
				  .nranks = world,
				  .digest = digest,
				  .timeout_ms = o->timeout_ms,
				  .bind = o->bind,
				  .auth = o->auth,
				  .secret = have ? secret : NULL,
				  .munge_socket = o->munge_socket,
				  .jobid = (uint32_t)o->jobid,
				  .stepid = (uint32_t)o->stepid,
				  .log = o->log,
				  .log_arg = o->log_arg };
}
