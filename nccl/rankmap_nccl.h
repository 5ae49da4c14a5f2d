/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rankmap_nccl.h - NCCL communicators from a rankmap map file.
 *
 * librankmap-nccl reads the map named by RANKMAP_MAP, creates the world
 * communicator (its ncclUniqueId travels over TCP from the host of rank 0)
 * and splits it into one communicator per axis of the layout: color = the
 * group, key = the position in the group, exactly the group lists of the
 * map file.
 *
 * Conventions as in librankmap: names start with rmn_, everything that can
 * fail returns rmn_status and fills an rmn_error (NCCL's and CUDA's own
 * messages included); the library never prints, never exits and keeps no
 * global mutable state.
 */
#ifndef RANKMAP_NCCL_H
#define RANKMAP_NCCL_H

#include <nccl.h>

#include "rankmap.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rmn_status {
	RMN_OK = 0,
	RMN_EINPUT,      /* environment, options or map file wrong */
	RMN_ENOMEM,
	RMN_ENET,        /* socket error talking to rank 0 */
	RMN_ETIMEOUT,    /* a peer (or rank 0) never arrived */
	RMN_EREFUSED,    /* a rank with another map, rank or world size */
	RMN_ENOCUDA,     /* no usable CUDA device */
	RMN_ENCCL,       /* NCCL returned an error (message has its text) */
	RMN_EAUTH        /* the other end did not prove it belongs to the
			  * step (no authentic rank 0, or our proof refused) */
} rmn_status;

typedef struct rmn_error {
	rmn_status code;
	int nccl;                    /* ncclResult_t when code == RMN_ENCCL */
	char msg[1024];
} rmn_error;

const char *rmn_status_name(rmn_status s);

/* ---- unique-id exchange over TCP (exchange.c); needs no GPU ---- */
#define RMN_BLOB_MAX 4096            /* bytes of payload (an id is 128) */
#define RMN_DEFAULT_TIMEOUT_MS 120000
#define RMN_SECRET_LEN 32            /* bytes of the step's secret */

/* How the two ends prove they belong to the same job step. */
typedef enum rmn_auth {
	RMN_AUTH_AUTO = 0,           /* MUNGE where munged answers, else
				      * libsodium keyed by the step's secret; peers follow
				      * rank 0 (never down to none) */
	RMN_AUTH_MUNGE,              /* credentials restricted to our uid */
	RMN_AUTH_HMAC,               /* the secret's mode (the name is kept):
				      * libsodium crypto_auth and an AEAD
				      * keyed from it by crypto_kdf */
	RMN_AUTH_NONE                /* only when asked for by name */
} rmn_auth;

/* One line about a refused connection, for the caller to log. */
typedef void (*rmn_log_fn)(void *arg, const char *line);

typedef struct rmn_exchange_opts {
	const char *host;            /* rank 0's host name or address */
	uint16_t port;               /* rank 0 listens here */
	uint32_t rank, nranks;
	const char *digest;          /* map digest (hex); NULL = not compared */
	uint32_t timeout_ms;         /* whole exchange; 0 = default */
	const char *bind;            /* rank 0 listens on this address; NULL:
				      * `host`; "*": every address */
	rmn_auth auth;
	const unsigned char *secret; /* RMN_SECRET_LEN bytes (secret mode) */
	const char *munge_socket;    /* NULL: libmunge's default */
	uint32_t jobid, stepid;      /* bound into every proof */
	rmn_log_fn log;              /* NULL: refusals are not reported */
	void *log_arg;
} rmn_exchange_opts;

/*
 * Rank 0 hands `blob` (len bytes) to ranks 1..nranks-1; on the others it
 * is filled in. Both directions are authenticated (see rmn_auth) and the
 * blob travels sealed (XChaCha20-Poly1305, secret mode) or inside a credential (MUNGE). Rank 0
 * answers once every rank has arrived. A connection that fails to
 * authenticate, or an authentic one with another map digest, world size
 * or blob length, or a RANK already connected, is refused alone (and
 * reported through o->log); after the time-out the error names the ranks
 * that never came. A peer ignores answers that are not authentic and
 * keeps trying until its deadline. Needs no GPU and no NCCL.
 */
rmn_status rmn_exchange(const rmn_exchange_opts *o, void *blob, size_t len,
			rmn_error *err);

/* ---- groups of a rank (groups.c); needs no GPU ---- */
typedef struct rmn_split {
	bool present;                /* tp, pp, dp; cp, ep when used */
	uint32_t size;               /* ranks in the group */
	int32_t color;               /* dense group id along the axis */
	int32_t key;                 /* position in the group */
} rmn_split;

/* Color and key of `rank` for every axis (indexed by rm_axis). */
rmn_status rmn_splits(const rm_map *map, uint32_t rank,
		      rmn_split out[RM_NAXES], rmn_error *err);

/*
 * Every group along `axis`: groups[g * size + i] is the rank at position i
 * of group g (color g); *ngroups = world / size. *groups is malloc'd.
 */
rmn_status rmn_axis_groups(const rm_map *map, rm_axis axis,
			   uint32_t **groups, uint32_t *ngroups,
			   uint32_t *size, rmn_error *err);

/*
 * ---- the other groups Megatron-Core builds (groups_combined.c); needs
 * no GPU ----
 * From librankmap's groups API (rm_map_groups): members in Megatron-Core's
 * order (ascending RANK, as torch's new_group numbers them), color = the
 * group, key = the place in it. The embedding group of a pipeline is its
 * first and last stage (the only stage when pp = 1); ranks of the stages
 * between are in none. Expert groups follow Megatron-Core's expert
 * generator (etp x ep x edp x pp over the same ranks); the expert-model-
 * parallel group is the ep axis (rmn_splits).
 */
typedef enum rmn_group {
	RMN_GROUP_MP = 0,            /* "mp": tp x pp (model parallel) */
	RMN_GROUP_TP_CP,             /* "tp-cp" */
	RMN_GROUP_DP_CP,             /* "dp-cp": the distributed optimizer's */
	RMN_GROUP_TP_DP_CP,          /* "tp-dp-cp" */
	RMN_GROUP_EMBEDDING,         /* "embedding": first and last stage */
	RMN_GROUP_ETP,               /* "etp": expert tensor parallel */
	RMN_GROUP_EDP,               /* "edp": expert data parallel */
	RMN_NGROUPS
} rmn_group;

const char *rmn_group_name(rmn_group g);
/* Group for a name of `len` bytes, or -1 when unknown. */
int rmn_group_from_name(const char *s, size_t len);
/* Color and key of `rank` for the group (key = RANK); present is false
 * where the rank is in no such group (embedding). */
rmn_status rmn_group_split(const rm_map *map, rmn_group g, uint32_t rank,
			   rmn_split *out, rmn_error *err);
/* Every group: groups[k * size + i] in member order; *groups malloc'd. */
rmn_status rmn_group_members(const rm_map *map, rmn_group g,
			     uint32_t **groups, uint32_t *ngroups,
			     uint32_t *size, rmn_error *err);

/* ---- communicators (comm.c) ---- */
typedef struct rmn_opts {
	const char *map_path;        /* NULL: $RANKMAP_MAP */
	int64_t rank;                /* -1: $RANK (or $SLURM_PROCID) */
	const char *master_addr;     /* NULL: $MASTER_ADDR */
	int port;                    /* 0: $RANKMAP_NCCL_PORT, else
				      * $MASTER_PORT + 1 */
	const char *digest;          /* NULL: $RANKMAP_MAP_SHA256, else the
				      * SHA-256 of the map file */
	uint32_t timeout_ms;         /* 0: $RANKMAP_NCCL_TIMEOUT (s) or 120 s */
	int device;                  /* -1: one visible GPU -> 0, else the
				      * map's local GPU of this rank */
	bool world_only;             /* skip the per-axis splits */
	const char *bind;            /* NULL: $RANKMAP_NCCL_BIND, else
				      * master_addr ("*": every address) */
	rmn_auth auth;               /* AUTO: $RANKMAP_NCCL_AUTH, else auto */
	const char *secret;          /* 64 hex digits; NULL:
				      * $RANKMAP_NCCL_SECRET */
	const char *munge_socket;    /* NULL: $RANKMAP_NCCL_MUNGE_SOCKET */
	int64_t jobid, stepid;       /* -1: $SLURM_JOB_ID, $SLURM_STEP_ID */
	rmn_log_fn log;              /* refused connections; NULL: none */
	void *log_arg;
} rmn_opts;

void rmn_opts_init(rmn_opts *o);

typedef struct rmn_comms {
	rm_map *map;                 /* the map the groups come from */
	uint32_t rank, world;
	int device;                  /* CUDA device used */
	char digest[65];
	ncclComm_t comm;             /* the world */
	ncclComm_t axis[RM_NAXES];   /* NULL where split[a].present is
				      * false (or world_only) */
	rmn_split split[RM_NAXES];
	ncclComm_t group[RMN_NGROUPS];   /* combined groups; NULL where
					  * gsplit[g].present is false */
	rmn_split gsplit[RMN_NGROUPS];
} rmn_comms;

/*
 * Build everything; *out is released with rmn_comms_free. Each step (the
 * exchange, the world's init, every split) ends within timeout_ms: the
 * communicators are non-blocking and polled. A rank that died makes the
 * others return RMN_ETIMEOUT naming the step and group; what was built is
 * aborted.
 */
rmn_status rmn_comms_init(const rmn_opts *o, rmn_comms **out,
			  rmn_error *err);
/* Finalize and destroy (all ranks healthy). */
void rmn_comms_free(rmn_comms *c);
/* ncclCommAbort everything and free: after an error or time-out, when a
 * finalize could wait for a dead peer. */
void rmn_comms_abort(rmn_comms *c);
/* Poll a non-blocking communicator until its last call has finished, at
 * most timeout_ms (0: the default); RMN_ETIMEOUT names `what`. */
rmn_status rmn_comm_wait(ncclComm_t comm, uint32_t timeout_ms,
			 const char *what, rmn_error *err);

/* ---- bus bandwidth, nccl-tests' convention (busbw.c); needs no GPU ---- */
typedef enum rmn_op {
	RMN_OP_ALLREDUCE = 0,        /* busBw = algBw * 2(n-1)/n */
	RMN_OP_ALLGATHER,            /* algBw * (n-1)/n */
	RMN_OP_REDUCESCATTER,        /* algBw * (n-1)/n */
	RMN_OP_BROADCAST,            /* algBw */
	RMN_OP_SENDRECV              /* algBw */
} rmn_op;

const char *rmn_op_name(rmn_op op);
/* Bytes per second over `seconds`, in GB/s (1e9). 0 when seconds <= 0. */
double rmn_algbw(uint64_t bytes, double seconds);
double rmn_busbw_factor(rmn_op op, uint32_t nranks);
double rmn_busbw(rmn_op op, uint32_t nranks, uint64_t bytes,
		 double seconds);

typedef struct rmn_stats {
	double min, median, max;     /* median of an even count: mean of the
				      * two middle values */
	size_t n;
} rmn_stats;

/* Statistics of v[0..n-1]; v is left untouched. */
rmn_status rmn_stats_of(const double *v, size_t n, rmn_stats *out,
			rmn_error *err);

/* The slowest link a group crosses, from the map's placement. */
typedef enum rmn_link {
	RMN_LINK_NVLINK = 0,         /* every member on one host */
	RMN_LINK_LEAF,               /* several hosts, one leaf switch/unit */
	RMN_LINK_SPINE               /* hosts under different leaves */
} rmn_link;

const char *rmn_link_name(rmn_link l);
rmn_link rmn_group_link(const rm_map *map, const uint32_t *members,
			size_t n);

/* Nominal bandwidth per link, GB/s per GPU per direction. */
typedef struct rmn_nominal {
	double gbps[3];              /* indexed by rmn_link */
	double slow_fraction;        /* slow when busBw < fraction * nominal */
} rmn_nominal;

/* H100 defaults: NVLink 450, NIC 50 (leaf and spine), fraction 0.5. */
void rmn_nominal_init(rmn_nominal *n);

#ifdef __cplusplus
}
#endif
#endif /* RANKMAP_NCCL_H */
