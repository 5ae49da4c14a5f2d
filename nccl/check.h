/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check.h - the pieces of rankmap-nccl-check. Options, plan and report
 * (check_args.c, check_plan.c, check_report.c) need no GPU and are unit
 * tested; check_run.c drives NCCL and CUDA; check_main.c ties them up.
 */
#ifndef RANKMAP_NCCL_CHECK_H
#define RANKMAP_NCCL_CHECK_H

#include "rankmap_nccl.h"

#define NCK_MAX_SIZES 48
#define NCK_MAX_BYTES (8ull << 30)

/* Exit statuses. */
enum {
	NCK_EXIT_OK = 0,
	NCK_EXIT_BAD = 1,            /* wrong results, or slow with --fail-slow */
	NCK_EXIT_USAGE = 2,          /* options, environment or map wrong */
	NCK_EXIT_RUN = 3             /* no GPU, NCCL or network failure */
};

typedef struct nck_opts {
	uint64_t minbytes, maxbytes;
	uint64_t factor;             /* size multiplier between steps */
	unsigned iters, warmup;
	bool json, fail_slow, help;
	bool want[RM_NAXES];         /* axes to measure */
	bool want_group[RMN_NGROUPS];    /* combined groups to measure */
	rmn_nominal nominal;
	const char *map_path;        /* NULL: $RANKMAP_MAP */
	double timeout_s;            /* every wait; 0: library default */
	bool version;
} nck_opts;

/* 0, or NCK_EXIT_USAGE with a one-line reason in msg. */
int nck_parse_args(int argc, char **argv, nck_opts *o, char *msg,
		   size_t cap);
extern const char nck_usage[];
/* Message sizes from min to max, times factor, max always last. */
size_t nck_sizes(const nck_opts *o, uint64_t *sizes, size_t cap);
/* "256 MiB", "8 B" ... */
void nck_fmt_bytes(uint64_t b, char *out, size_t cap);

/*
 * What is measured along one axis: all-reduce over each group, or
 * send/recv between each pair of consecutive pipeline stages. A "unit" is
 * one group or one pair.
 */
typedef struct nck_axis {
	rm_axis axis;                /* an axis, or RM_NAXES for a group */
	int kind;                    /* rmn_group, or -1 for an axis */
	const char *name;            /* "tp", "dp-cp", ... */
	rmn_op op;
	uint32_t nunits, unit_size;
	uint32_t group_size;         /* ranks in the axis's groups */
	uint32_t *members;           /* nunits * unit_size ranks */
	uint32_t *group;             /* per unit: the map's group id */
	rmn_link *link;              /* per unit */
	size_t slot;                 /* first value in a rank's record */
} nck_axis;

/*
 * Every rank writes one record of doubles: per axis two slots of
 * (nsizes seconds per operation, wrong elements); slot 0 for its group or
 * the pair with the next stage, slot 1 for the pair with the previous one.
 * Rank 0 gathers all records and reduces them per unit.
 */
typedef struct nck_plan {
	const rm_map *map;
	uint64_t sizes[NCK_MAX_SIZES];
	size_t nsizes;
	nck_axis ax[RM_NAXES + RMN_NGROUPS];
	size_t nax;
	size_t record;               /* doubles per rank */
} nck_plan;

rmn_status nck_plan_build(const rm_map *map, const nck_opts *o,
			  nck_plan *p, rmn_error *err);
void nck_plan_free(nck_plan *p);
/* Index in a rank's record of (axis, slot, size s); s == nsizes is the
 * wrong-element count. */
size_t nck_rec_index(const nck_plan *p, size_t ax, int slot, size_t s);

typedef struct nck_unit_result {
	double *seconds;             /* nsizes: slowest member's time */
	double *busbw;               /* nsizes */
	double peak;                 /* best busBw over the sizes */
	uint64_t wrong;
	bool slow;
} nck_unit_result;

typedef struct nck_axis_result {
	nck_unit_result *unit;       /* nunits */
	rmn_stats *size_stats;       /* busBw over units, per size */
	rmn_stats peak_stats;
	uint64_t wrong, slow;
	bool measured;               /* false: groups of one rank */
} nck_axis_result;

typedef struct nck_result {
	nck_axis_result ax[RM_NAXES + RMN_NGROUPS];
	uint64_t wrong, slow;
} nck_result;

/* Reduce the gathered records (world * p->record doubles). */
rmn_status nck_analyse(const nck_plan *p, const rmn_nominal *nom,
		       const double *records, nck_result *r, rmn_error *err);
void nck_result_free(const nck_plan *p, nck_result *r);

/* Measure every axis of the plan on the GPU and gather every rank's
 * record on every rank (*all: world * p->record doubles, malloc'd).
 * Every wait ends by o->timeout_s (non-blocking communicators polled
 * with ncclCommGetAsyncError). 0, or NCK_EXIT_RUN after one line on
 * stderr naming the axis, the group and its members; the caller must
 * then abort the communicators (rmn_comms_abort), not free them. */
int nck_run(const nck_plan *p, const nck_opts *o, rmn_comms *c,
	    double **all);

typedef struct nck_meta {
	const char *nccl_version;
	unsigned iters, warmup;
} nck_meta;

/* The unit of axis x that holds `rank`, or UINT32_MAX. */
uint32_t nck_unit_of(const nck_axis *x, uint32_t rank, uint32_t from);
/* The communicator an axis of the plan runs on. */
ncclComm_t nck_comm(const nck_axis *x, const rmn_comms *c);

/* The report for people or for programs; malloc'd text. */
char *nck_report_text(const nck_plan *p, const rmn_nominal *nom,
		      const nck_result *r, const nck_meta *m);
char *nck_report_json(const nck_plan *p, const rmn_nominal *nom,
		      const nck_result *r, const nck_meta *m);

#endif
