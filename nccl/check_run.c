/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check_run.c - the GPU side of rankmap-nccl-check: run every axis's
 * operation over the sizes, time it with CUDA events, check every element
 * of every result, and gather all ranks' records on every rank.
 *
 * Values are 32-bit unsigned integers: their sums wrap modulo 2^32, which
 * is exact and predictable, so a result is checked element by element
 * however large the group.
 *
 * No wait is unbounded: the communicators are non-blocking, so a call may
 * answer ncclInProgress and is then polled with ncclCommGetAsyncError, and
 * the stream is polled with cudaStreamQuery, both until the deadline. A
 * peer that died leaves its group unfinished; this rank then says which
 * group, with which members, and gives up.
 */
#include "check.h"
#include "nccl_internal.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define K_RANK 2654435761u
#define K_ELEM 40503u

typedef struct dev {
	uint32_t *send, *recv, *bar;  /* device */
	uint32_t *host;               /* results copied back */
	size_t maxcount;
	cudaStream_t stream;
	cudaEvent_t e0, e1;
	uint32_t rank;
	bool told;                    /* first wrong element already shown */
	uint32_t timeout_ms;
	const nck_axis *x;            /* what runs now, for messages */
	uint32_t unit;
	const char *what;
} dev;

static uint32_t value(uint32_t rank, size_t i)
{
	return rank * K_RANK + (uint32_t)i * K_ELEM + 1u;
}

/* "tp group 3 (ranks 6,7)": what this rank was running with whom. */
static void where(const dev *d, char *out, size_t cap)
{
	const nck_axis *x = d->x;
	if (!x || d->unit == UINT32_MAX) {
		snprintf(out, cap, "the world");
		return;
	}
	const uint32_t *m = x->members + (size_t)d->unit * x->unit_size;
	uint32_t *sorted = malloc(sizeof(*sorted) * x->unit_size);
	char list[200] = "?";
	if (sorted) {
		/* Insertion sort: units are small or listed once. */
		for (uint32_t i = 0; i < x->unit_size; i++) {
			uint32_t v = m[i], j = i;
			for (; j > 0 && sorted[j - 1] > v; j--)
				sorted[j] = sorted[j - 1];
			sorted[j] = v;
		}
		rmni_ranges(sorted, x->unit_size, list, sizeof(list));
		free(sorted);
	}
	snprintf(out, cap, "%s group %u (ranks %s)", x->name, x->group[d->unit],
		 list);
}

static int cuda_fail(const dev *d, cudaError_t e, const char *what)
{
	fprintf(stderr, "rankmap-nccl-check: rank %u: %s: %s\n", d->rank,
		what, cudaGetErrorString(e));
	return NCK_EXIT_RUN;
}

static int nccl_fail(const dev *d, ncclResult_t r, ncclComm_t comm,
		     const char *what)
{
	const char *last = ncclGetLastError(comm);
	char w[300];
	where(d, w, sizeof(w));
	fprintf(stderr, "rankmap-nccl-check: rank %u: %s (%s): %s%s%s\n",
		d->rank, what, w, ncclGetErrorString(r),
		last && *last ? ": " : "", last ? last : "");
	return NCK_EXIT_RUN;
}

static int timed_out(const dev *d, const char *what)
{
	char w[300];
	where(d, w, sizeof(w));
	fprintf(stderr, "rankmap-nccl-check: rank %u: %s in %s did not finish "
			"within %.1f s: another member died or stalled; "
			"giving up\n",
		d->rank, what, w, d->timeout_ms / 1000.0);
	return NCK_EXIT_RUN;
}

static void nap(unsigned spin)
{
	struct timespec ts = { 0, spin < 100 ? 100000 : 2000000 };
	nanosleep(&ts, NULL);
}

/* A non-blocking call answered ncclInProgress: poll until it is done. */
static ncclResult_t settle(const dev *d, ncclComm_t comm, ncclResult_t r,
			   int *late)
{
	int64_t deadline = rmni_now_ms() + d->timeout_ms;
	for (unsigned spin = 0; r == ncclInProgress; spin++) {
		ncclResult_t st = ncclInProgress;
		ncclResult_t q = ncclCommGetAsyncError(comm, &st);
		r = q != ncclSuccess ? q : st;
		if (r == ncclInProgress && rmni_now_ms() >= deadline) {
			*late = 1;
			return r;
		}
		if (r == ncclInProgress)
			nap(spin);
	}
	return r;
}

#define CUDA(call, what)                                                   \
	do {                                                               \
		cudaError_t e_ = (call);                                   \
		if (e_ != cudaSuccess)                                     \
			return cuda_fail(d, e_, what);                     \
	} while (0)

#define NCCL(call, what)                                                   \
	do {                                                               \
		int late_ = 0;                                             \
		ncclResult_t r_ = settle(d, comm, (call), &late_);         \
		if (late_)                                                 \
			return timed_out(d, what);                         \
		if (r_ != ncclSuccess)                                     \
			return nccl_fail(d, r_, comm, what);               \
	} while (0)

/* Wait for the stream, and watch the communicator while doing so. */
static int wait_stream(dev *d, ncclComm_t comm, const char *what)
{
	int64_t deadline = rmni_now_ms() + d->timeout_ms;
	for (unsigned spin = 0;; spin++) {
		cudaError_t q = cudaStreamQuery(d->stream);
		if (q == cudaSuccess)
			return 0;
		if (q != cudaErrorNotReady)
			return cuda_fail(d, q, "cudaStreamQuery");
		ncclResult_t st = ncclSuccess;
		ncclResult_t r = ncclCommGetAsyncError(comm, &st);
		if (r != ncclSuccess || (st != ncclSuccess &&
					 st != ncclInProgress))
			return nccl_fail(d, r != ncclSuccess ? r : st, comm,
					 what);
		if (rmni_now_ms() >= deadline)
			return timed_out(d, what);
		nap(spin);
	}
}

static int barrier(dev *d, ncclComm_t comm)
{
	NCCL(ncclAllReduce(d->bar, d->bar, 1, ncclUint32, ncclSum, comm,
			   d->stream),
	     "barrier");
	return 0;
}

static int elapsed(dev *d, ncclComm_t comm, unsigned iters,
		   double *seconds)
{
	float ms = 0;
	int rc = wait_stream(d, comm, d->what);
	if (rc)
		return rc;
	CUDA(cudaEventElapsedTime(&ms, d->e0, d->e1), "cudaEventElapsedTime");
	*seconds = ms / 1000.0 / iters;
	return 0;
}

/* Count elements of the result that are not what `want` says. */
static int verify(dev *d, size_t count, const char *what, uint64_t bytes,
		  uint32_t base, uint32_t mult, double *wrong)
{
	CUDA(cudaMemcpy(d->host, d->recv, count * 4, cudaMemcpyDeviceToHost),
	     "cudaMemcpy");
	uint64_t bad = 0;
	for (size_t i = 0; i < count; i++) {
		/* mult ranks' i-terms plus the ranks' own terms in base */
		uint32_t want = base + mult * ((uint32_t)i * K_ELEM + 1u);
		if (d->host[i] != want && bad++ == 0 && !d->told) {
			char sz[32];
			nck_fmt_bytes(bytes, sz, sizeof(sz));
			fprintf(stderr, "rankmap-nccl-check: rank %u: %s %s "
					"%s: element %zu is %u, expected %u\n",
				d->rank, d->x->name, what, sz, i, d->host[i],
				want);
			d->told = true;
		}
	}
	*wrong += (double)bad;
	return 0;
}

static int run_allreduce(dev *d, const nck_plan *p, const nck_opts *o,
			 size_t ax, ncclComm_t comm, double *rec)
{
	const nck_axis *x = &p->ax[ax];
	uint32_t base = 0;
	const uint32_t *mem = x->members + (size_t)d->unit * x->unit_size;
	for (uint32_t i = 0; i < x->unit_size; i++)
		base += mem[i] * K_RANK;
	d->what = "allreduce";
	for (size_t s = 0; s < p->nsizes; s++) {
		size_t count = p->sizes[s] / 4;
		CUDA(cudaMemsetAsync(d->recv, 0xa5, count * 4, d->stream),
		     "cudaMemsetAsync");
		for (unsigned i = 0; i < o->warmup; i++)
			NCCL(ncclAllReduce(d->send, d->recv, count, ncclUint32,
					   ncclSum, comm, d->stream),
			     "allreduce");
		if (barrier(d, comm))
			return NCK_EXIT_RUN;
		CUDA(cudaEventRecord(d->e0, d->stream), "cudaEventRecord");
		for (unsigned i = 0; i < o->iters; i++)
			NCCL(ncclAllReduce(d->send, d->recv, count, ncclUint32,
					   ncclSum, comm, d->stream),
			     "allreduce");
		CUDA(cudaEventRecord(d->e1, d->stream), "cudaEventRecord");
		if (elapsed(d, comm, o->iters,
			    &rec[nck_rec_index(p, ax, 0, s)]) ||
		    verify(d, count, "allreduce", p->sizes[s], base,
			   x->unit_size,
			   &rec[nck_rec_index(p, ax, 0, p->nsizes)]))
			return NCK_EXIT_RUN;
	}
	return 0;
}

static int exchange_once(dev *d, size_t count, int peer, ncclComm_t comm)
{
	NCCL(ncclGroupStart(), "ncclGroupStart");
	NCCL(ncclSend(d->send, count, ncclUint32, peer, comm, d->stream),
	     "ncclSend");
	NCCL(ncclRecv(d->recv, count, ncclUint32, peer, comm, d->stream),
	     "ncclRecv");
	NCCL(ncclGroupEnd(), "sendrecv");
	return 0;
}

/* Phase k of size s: stages k and k+1 swap messages, fenced on both sides
 * by barriers over the whole pipeline. */
static int pair_phase(dev *d, const nck_plan *p, const nck_opts *o,
		      size_t ax, ncclComm_t comm, double *rec,
		      const uint32_t *mem, uint32_t k, size_t s)
{
	rm_axis axis = p->ax[ax].axis;
	rm_rank r = { 0 };
	rm_map_rank(p->map, d->rank, &r);
	uint32_t pos = r.coord[axis];
	bool in = pos == k || pos == k + 1;
	int slot = pos == k ? 0 : 1;
	uint32_t peer = pos == k ? k + 1 : k;
	size_t count = p->sizes[s] / 4;
	d->what = "barrier";
	int rc = barrier(d, comm);
	if (!rc && in) {
		/* Name the pair in messages: it is what hangs if one dies. */
		uint32_t per = p->ax[ax].group_size - 1;
		uint32_t u0 = nck_unit_of(&p->ax[ax], d->rank, 0);
		d->unit = u0 == UINT32_MAX ? u0 : u0 - u0 % per + k;
		d->what = "sendrecv";
		CUDA(cudaMemsetAsync(d->recv, 0xa5, count * 4, d->stream),
		     "cudaMemsetAsync");
		for (unsigned i = 0; i < o->warmup && !rc; i++)
			rc = exchange_once(d, count, (int)peer, comm);
	}
	if (rc || (rc = barrier(d, comm)) || !in)
		return rc;
	CUDA(cudaEventRecord(d->e0, d->stream), "cudaEventRecord");
	for (unsigned i = 0; i < o->iters && !rc; i++)
		rc = exchange_once(d, count, (int)peer, comm);
	CUDA(cudaEventRecord(d->e1, d->stream), "cudaEventRecord");
	if (!rc)
		rc = elapsed(d, comm, o->iters,
			     &rec[nck_rec_index(p, ax, slot, s)]);
	if (!rc)
		rc = verify(d, count, "sendrecv", p->sizes[s],
			    mem[peer] * K_RANK, 1,
			    &rec[nck_rec_index(p, ax, slot, p->nsizes)]);
	return rc;
}

/*
 * Pairs of consecutive stages take turns (k = 0, 1, ...), fenced by
 * barriers over the whole pipeline, so each pair's time is its own and a
 * stage that waits for its other neighbour is not counted as slow.
 */
static int run_sendrecv(dev *d, const nck_plan *p, const nck_opts *o,
			size_t ax, ncclComm_t comm, double *rec)
{
	const nck_axis *x = &p->ax[ax];
	uint32_t *mem = malloc(sizeof(*mem) * x->group_size);
	uint32_t gid = 0;
	if (!mem || rm_map_group(p->map, x->axis, d->rank, mem, &gid, NULL)) {
		free(mem);
		fprintf(stderr, "rankmap-nccl-check: rank %u: no %s group\n",
			d->rank, x->name);
		return NCK_EXIT_RUN;
	}
	int rc = 0;
	for (size_t s = 0; s < p->nsizes && !rc; s++)
		for (uint32_t k = 0; k + 1 < x->group_size && !rc; k++)
			rc = pair_phase(d, p, o, ax, comm, rec, mem, k, s);
	free(mem);
	return rc;
}

static int setup(dev *d, const nck_plan *p)
{
	d->maxcount = p->sizes[p->nsizes - 1] / 4;
	CUDA(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking),
	     "cudaStreamCreate");
	CUDA(cudaEventCreate(&d->e0), "cudaEventCreate");
	CUDA(cudaEventCreate(&d->e1), "cudaEventCreate");
	CUDA(cudaMalloc((void **)&d->send, d->maxcount * 4), "cudaMalloc");
	CUDA(cudaMalloc((void **)&d->recv, d->maxcount * 4), "cudaMalloc");
	CUDA(cudaMalloc((void **)&d->bar, 4), "cudaMalloc");
	CUDA(cudaMemset(d->bar, 0, 4), "cudaMemset");
	d->host = malloc(d->maxcount * 4);
	if (!d->host) {
		fprintf(stderr, "rankmap-nccl-check: out of memory\n");
		return NCK_EXIT_RUN;
	}
	for (size_t i = 0; i < d->maxcount; i++)
		d->host[i] = value(d->rank, i);
	CUDA(cudaMemcpy(d->send, d->host, d->maxcount * 4,
			cudaMemcpyHostToDevice),
	     "cudaMemcpy");
	return 0;
}

static void teardown(dev *d)
{
	cudaFree(d->send);
	cudaFree(d->recv);
	cudaFree(d->bar);
	if (d->e0)
		cudaEventDestroy(d->e0);
	if (d->e1)
		cudaEventDestroy(d->e1);
	if (d->stream)
		cudaStreamDestroy(d->stream);
	free(d->host);
}

/* Every rank's record on every rank: world * p->record doubles. */
static int gather(dev *d, const nck_plan *p, rmn_comms *c,
		  const double *rec, double **all)
{
	ncclComm_t comm = c->comm;
	double *drec = NULL, *dall = NULL;
	size_t n = p->record ? p->record : 1;
	d->x = NULL;
	*all = calloc((size_t)c->world * n, sizeof(double));
	if (!*all)
		return NCK_EXIT_RUN;
	int rc = 0;
	if (cudaMalloc((void **)&drec, n * sizeof(double)) != cudaSuccess ||
	    cudaMalloc((void **)&dall, c->world * n * sizeof(double)) !=
		    cudaSuccess ||
	    cudaMemcpy(drec, rec, p->record * sizeof(double),
		       cudaMemcpyHostToDevice) != cudaSuccess) {
		fprintf(stderr, "rankmap-nccl-check: rank %u: cannot stage the "
				"results on the GPU\n", d->rank);
		rc = NCK_EXIT_RUN;
	}
	int late = 0;
	ncclResult_t r = ncclSuccess;
	if (!rc)
		r = settle(d, comm, ncclAllGather(drec, dall, n, ncclFloat64,
						  comm, d->stream),
			   &late);
	if (!rc && late)
		rc = timed_out(d, "gathering the results");
	else if (!rc && r != ncclSuccess)
		rc = nccl_fail(d, r, comm, "ncclAllGather");
	if (!rc)
		rc = wait_stream(d, comm, "gathering the results");
	if (!rc && cudaMemcpy(*all, dall, c->world * n * sizeof(double),
			      cudaMemcpyDeviceToHost) != cudaSuccess) {
		fprintf(stderr, "rankmap-nccl-check: rank %u: gathering the "
				"results failed\n", d->rank);
		rc = NCK_EXIT_RUN;
	}
	cudaFree(drec);
	cudaFree(dall);
	return rc;
}

int nck_run(const nck_plan *p, const nck_opts *o, rmn_comms *c, double **all)
{
	dev d = { .rank = c->rank, .unit = UINT32_MAX };
	double *rec = calloc(p->record ? p->record : 1, sizeof(double));
	d.timeout_ms = o->timeout_s > 0 ? (uint32_t)(o->timeout_s * 1000)
					: RMN_DEFAULT_TIMEOUT_MS;
	*all = NULL;
	int rc = rec ? setup(&d, p) : NCK_EXIT_RUN;
	for (size_t i = 0; i < p->nax && !rc; i++) {
		const nck_axis *x = &p->ax[i];
		ncclComm_t comm = nck_comm(x, c);
		d.x = x;
		d.unit = nck_unit_of(x, c->rank, 0);
		if (!comm || d.unit == UINT32_MAX)
			continue;    /* in no group of this kind (embedding) */
		if (x->op == RMN_OP_SENDRECV)
			rc = run_sendrecv(&d, p, o, i, comm, rec);
		else
			rc = run_allreduce(&d, p, o, i, comm, rec);
	}
	if (!rc)
		rc = gather(&d, p, c, rec, all);
	teardown(&d);
	free(rec);
	if (rc) {
		free(*all);
		*all = NULL;
	}
	return rc;
}
