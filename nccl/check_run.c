/*
 * check_run.c - the GPU side of rankmap-nccl-check: run every axis's
 * operation over the sizes, time it with CUDA events, check every element
 * of every result, and gather all ranks' records on every rank.
 *
 * Values are 32-bit unsigned integers: their sums wrap modulo 2^32, which
 * is exact and predictable, so a result is checked element by element
 * however large the group.
 */
#include "check.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
} dev;

static uint32_t value(uint32_t rank, size_t i)
{
	return rank * K_RANK + (uint32_t)i * K_ELEM + 1u;
}

static int cuda_fail(const dev *d, cudaError_t e, const char *what)
{
	fprintf(stderr, "rankmap-nccl-check: rank %u: %s: %s\n", d->rank,
		what, cudaGetErrorString(e));
	return NCK_EXIT_RUN;
}

static int nccl_fail(const dev *d, ncclResult_t r, ncclComm_t comm,
		     const char *what, rm_axis a)
{
	const char *last = ncclGetLastError(comm);
	fprintf(stderr, "rankmap-nccl-check: rank %u: %s (%s): %s%s%s\n",
		d->rank, what, rm_axis_name(a), ncclGetErrorString(r),
		last && *last ? ": " : "", last ? last : "");
	return NCK_EXIT_RUN;
}

#define CUDA(call, what)                                                   \
	do {                                                               \
		cudaError_t e_ = (call);                                   \
		if (e_ != cudaSuccess)                                     \
			return cuda_fail(d, e_, what);                     \
	} while (0)

#define NCCL(call, what)                                                   \
	do {                                                               \
		ncclResult_t r_ = (call);                                  \
		if (r_ != ncclSuccess)                                     \
			return nccl_fail(d, r_, comm, what, axis);         \
	} while (0)

static int barrier(dev *d, ncclComm_t comm, rm_axis axis)
{
	NCCL(ncclAllReduce(d->bar, d->bar, 1, ncclUint32, ncclSum, comm,
			   d->stream),
	     "barrier");
	return 0;
}

static int elapsed(dev *d, unsigned iters, double *seconds)
{
	float ms = 0;
	CUDA(cudaStreamSynchronize(d->stream), "cudaStreamSynchronize");
	CUDA(cudaEventElapsedTime(&ms, d->e0, d->e1), "cudaEventElapsedTime");
	*seconds = ms / 1000.0 / iters;
	return 0;
}

/* Count elements of the result that are not what `want` says. */
static int verify(dev *d, size_t count, rm_axis axis, const char *what,
		  uint64_t bytes, uint32_t base, uint32_t mult, double *wrong)
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
				d->rank, rm_axis_name(axis), what, sz, i,
				d->host[i], want);
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
	rm_axis axis = x->axis;
	uint32_t *mem = malloc(sizeof(*mem) * x->group_size);
	uint32_t gid = 0, base = 0;
	if (!mem || rm_map_group(p->map, axis, d->rank, mem, &gid, NULL)) {
		free(mem);
		fprintf(stderr, "rankmap-nccl-check: rank %u: no %s group\n",
			d->rank, rm_axis_name(axis));
		return NCK_EXIT_RUN;
	}
	for (uint32_t i = 0; i < x->group_size; i++)
		base += mem[i] * K_RANK;
	free(mem);
	for (size_t s = 0; s < p->nsizes; s++) {
		size_t count = p->sizes[s] / 4;
		CUDA(cudaMemsetAsync(d->recv, 0xa5, count * 4, d->stream),
		     "cudaMemsetAsync");
		for (unsigned i = 0; i < o->warmup; i++)
			NCCL(ncclAllReduce(d->send, d->recv, count, ncclUint32,
					   ncclSum, comm, d->stream),
			     "ncclAllReduce");
		if (barrier(d, comm, axis))
			return NCK_EXIT_RUN;
		CUDA(cudaEventRecord(d->e0, d->stream), "cudaEventRecord");
		for (unsigned i = 0; i < o->iters; i++)
			NCCL(ncclAllReduce(d->send, d->recv, count, ncclUint32,
					   ncclSum, comm, d->stream),
			     "ncclAllReduce");
		CUDA(cudaEventRecord(d->e1, d->stream), "cudaEventRecord");
		if (elapsed(d, o->iters, &rec[nck_rec_index(p, ax, 0, s)]) ||
		    verify(d, count, x->axis, "allreduce", p->sizes[s], base,
			   x->group_size,
			   &rec[nck_rec_index(p, ax, 0, p->nsizes)]))
			return NCK_EXIT_RUN;
	}
	return 0;
}

static int exchange_once(dev *d, size_t count, int peer, ncclComm_t comm,
			 rm_axis axis)
{
	NCCL(ncclGroupStart(), "ncclGroupStart");
	NCCL(ncclSend(d->send, count, ncclUint32, peer, comm, d->stream),
	     "ncclSend");
	NCCL(ncclRecv(d->recv, count, ncclUint32, peer, comm, d->stream),
	     "ncclRecv");
	NCCL(ncclGroupEnd(), "ncclGroupEnd");
	return 0;
}

/* Phase k of size s: stages k and k+1 swap messages, fenced on both sides
 * by barriers over the whole pipeline. */
static int pair_phase(dev *d, const nck_plan *p, const nck_opts *o,
		      size_t ax, ncclComm_t comm, double *rec,
		      const uint32_t *mem, uint32_t k, size_t s)
{
	rm_axis axis = p->ax[ax].axis;
	uint32_t pos = p->map->rank[d->rank].coord[axis];
	bool in = pos == k || pos == k + 1;
	int slot = pos == k ? 0 : 1;
	uint32_t peer = pos == k ? k + 1 : k;
	size_t count = p->sizes[s] / 4;
	int rc = barrier(d, comm, axis);
	if (!rc && in) {
		CUDA(cudaMemsetAsync(d->recv, 0xa5, count * 4, d->stream),
		     "cudaMemsetAsync");
		for (unsigned i = 0; i < o->warmup && !rc; i++)
			rc = exchange_once(d, count, (int)peer, comm, axis);
	}
	if (rc || (rc = barrier(d, comm, axis)) || !in)
		return rc;
	CUDA(cudaEventRecord(d->e0, d->stream), "cudaEventRecord");
	for (unsigned i = 0; i < o->iters && !rc; i++)
		rc = exchange_once(d, count, (int)peer, comm, axis);
	CUDA(cudaEventRecord(d->e1, d->stream), "cudaEventRecord");
	if (!rc)
		rc = elapsed(d, o->iters, &rec[nck_rec_index(p, ax, slot, s)]);
	if (!rc)
		rc = verify(d, count, axis, "sendrecv", p->sizes[s],
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
			d->rank, rm_axis_name(x->axis));
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
	rm_axis axis = RM_AXIS_DP;
	double *drec = NULL, *dall = NULL;
	size_t n = p->record ? p->record : 1;
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
	ncclResult_t r = ncclSuccess;
	if (!rc)
		r = ncclAllGather(drec, dall, n, ncclFloat64, comm, d->stream);
	if (!rc && r != ncclSuccess)
		rc = nccl_fail(d, r, comm, "ncclAllGather", axis);
	if (!rc && (cudaStreamSynchronize(d->stream) != cudaSuccess ||
		    cudaMemcpy(*all, dall, c->world * n * sizeof(double),
			       cudaMemcpyDeviceToHost) != cudaSuccess)) {
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
	dev d = { .rank = c->rank };
	double *rec = calloc(p->record ? p->record : 1, sizeof(double));
	*all = NULL;
	int rc = rec ? setup(&d, p) : NCK_EXIT_RUN;
	for (size_t i = 0; i < p->nax && !rc; i++) {
		ncclComm_t comm = c->axis[p->ax[i].axis];
		if (p->ax[i].op == RMN_OP_SENDRECV)
			rc = run_sendrecv(&d, p, o, i, comm, rec);
		else
			rc = run_allreduce(&d, p, o, i, comm, rec);
	}
	if (!rc)
		rc = gather(&d, p, c, rec, all);
	teardown(&d);
	free(rec);
	return rc;
}
