/*
 * fake_gpu.c - just enough CUDA and NCCL, in host memory, for
 * test_nccl_run to drive rankmap-nccl-check's GPU side with one thread per
 * rank. Every call completes before it returns, so collectives rendezvous
 * at once: stricter than NCCL's streams (an ordering mistake that NCCL
 * might survive hangs here), never more lenient. A test can ask that what
 * one rank receives (all-reduce results, messages) comes back with one
 * wrong element.
 */
#include "fake_gpu.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct CUstream_st {
	int unused;
};
struct CUevent_st {
	double ms;
};

typedef struct fshared {
	int n;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned long gen;           /* completed rendezvous phases */
	int arrived;
	const void **post;           /* per comm rank */
	/* p2p mailboxes [from * n + to] */
	const void **box;
	size_t *box_count;
	unsigned long *box_seq, *box_ack;
} fshared;

struct ncclComm {
	fshared *sh;
	int rank;
	int corrupt;                 /* all-reduce results: one bad element */
};

/* Wait until all n ranks have arrived at this phase. */
static void phase(fshared *s)
{
	pthread_mutex_lock(&s->mu);
	unsigned long g = s->gen;
	if (++s->arrived == s->n) {
		s->arrived = 0;
		s->gen++;
		pthread_cond_broadcast(&s->cv);
	} else {
		while (s->gen == g)
			pthread_cond_wait(&s->cv, &s->mu);
	}
	pthread_mutex_unlock(&s->mu);
}

fake_comm *fake_comm_new(int n)
{
	fake_comm *c = calloc(1, sizeof(*c));
	c->n = n;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	c->post = calloc((size_t)n, sizeof(*c->post));
	c->box = calloc((size_t)n * n, sizeof(*c->box));
	c->box_count = calloc((size_t)n * n, sizeof(size_t));
	c->box_seq = calloc((size_t)n * n, sizeof(unsigned long));
	c->box_ack = calloc((size_t)n * n, sizeof(unsigned long));
	return c;
}

void fake_comm_free(fake_comm *c)
{
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	free(c->post);
	free(c->box);
	free(c->box_count);
	free(c->box_seq);
	free(c->box_ack);
	free(c);
}

ncclComm_t fake_handle(fake_comm *c, int rank, bool corrupt)
{
	ncclComm_t h = calloc(1, sizeof(*h));
	h->sh = c;
	h->rank = rank;
	h->corrupt = corrupt;
	return h;
}

void fake_handle_free(ncclComm_t h)
{
	free(h);
}

/* ------------------------------------------------------------- CUDA */

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
	(void)flags;
	*s = calloc(1, sizeof(**s));
	return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
	free(s);
	return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
	(void)s;
	return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
	*e = calloc(1, sizeof(**e));
	return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	free(e);
	return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
	struct timespec ts;
	(void)s;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->ms = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
	return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	/* Never zero: a real event pair always takes some time. */
	*ms = (float)(b->ms - a->ms) + 1e-3f;
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t n)
{
	*p = malloc(n ? n : 1);
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFree(void *p)
{
	free(p);
	return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int v, size_t n)
{
	memset(p, v, n);
	return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s)
{
	(void)s;
	memset(p, v, n);
	return cudaSuccess;
}

cudaError_t cudaMemcpy(void *d, const void *s, size_t n,
		       enum cudaMemcpyKind k)
{
	(void)k;
	memcpy(d, s, n);
	return cudaSuccess;
}

const char *cudaGetErrorString(cudaError_t e)
{
	return e == cudaSuccess ? "no error" : "fake cuda error";
}

/* ------------------------------------------------------------- NCCL */

const char *ncclGetErrorString(ncclResult_t r)
{
	return r == ncclSuccess ? "no error" : "fake nccl error";
}

const char *ncclGetLastError(ncclComm_t c)
{
	(void)c;
	return "";
}

static size_t type_size(ncclDataType_t t)
{
	return t == ncclFloat64 || t == ncclUint64 || t == ncclInt64 ? 8 : 4;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count,
			   ncclDataType_t t, ncclRedOp_t op, ncclComm_t c,
			   cudaStream_t s)
{
	fshared *sh = c->sh;
	(void)s;
	if (t != ncclUint32 || op != ncclSum)
		return ncclInvalidArgument;
	uint32_t *tmp = malloc(count * 4 + 4);
	sh->post[c->rank] = send;
	phase(sh);                   /* everyone's input is posted */
	for (size_t i = 0; i < count; i++) {
		uint32_t v = 0;
		for (int r = 0; r < sh->n; r++)
			v += ((const uint32_t *)sh->post[r])[i];
		tmp[i] = v;
	}
	phase(sh);                   /* nobody reads inputs any more */
	if (c->corrupt && count > 3)
		tmp[3] ^= 1;
	memcpy(recv, tmp, count * 4);
	free(tmp);
	return ncclSuccess;
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count,
			   ncclDataType_t t, ncclComm_t c, cudaStream_t s)
{
	fshared *sh = c->sh;
	size_t b = count * type_size(t);
	(void)s;
	sh->post[c->rank] = send;
	phase(sh);
	for (int r = 0; r < sh->n; r++)
		memcpy((char *)recv + (size_t)r * b, sh->post[r], b);
	phase(sh);
	return ncclSuccess;
}

/* One send and one receive per group, as rankmap-nccl-check uses them. */
static _Thread_local struct {
	int depth;
	const void *send;
	void *recv;
	size_t scount, rcount;
	int speer, rpeer;
	ncclComm_t comm;
} grp;

ncclResult_t ncclGroupStart(void)
{
	grp.depth++;
	return ncclSuccess;
}

ncclResult_t ncclSend(const void *buf, size_t count, ncclDataType_t t,
		      int peer, ncclComm_t c, cudaStream_t s)
{
	(void)s;
	if (!grp.depth || t != ncclUint32)
		return ncclInvalidUsage;
	grp.send = buf;
	grp.scount = count;
	grp.speer = peer;
	grp.comm = c;
	return ncclSuccess;
}

ncclResult_t ncclRecv(void *buf, size_t count, ncclDataType_t t, int peer,
		      ncclComm_t c, cudaStream_t s)
{
	(void)s;
	if (!grp.depth || t != ncclUint32 || (grp.comm && grp.comm != c))
		return ncclInvalidUsage;
	grp.recv = buf;
	grp.rcount = count;
	grp.rpeer = peer;
	grp.comm = c;
	return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
	if (--grp.depth > 0)
		return ncclSuccess;
	ncclComm_t c = grp.comm;
	if (!c || !grp.send || !grp.recv || grp.speer == c->rank ||
	    grp.speer < 0 || grp.speer >= c->sh->n || grp.rpeer < 0 ||
	    grp.rpeer >= c->sh->n)
		return ncclInvalidUsage;
	fshared *sh = c->sh;
	size_t out = (size_t)c->rank * sh->n + grp.speer;
	size_t in = (size_t)grp.rpeer * sh->n + c->rank;
	pthread_mutex_lock(&sh->mu);
	sh->box[out] = grp.send;
	sh->box_count[out] = grp.scount;
	unsigned long seq = ++sh->box_seq[out];
	pthread_cond_broadcast(&sh->cv);
	while (sh->box_seq[in] == sh->box_ack[in])
		pthread_cond_wait(&sh->cv, &sh->mu);
	ncclResult_t r = sh->box_count[in] == grp.rcount ? ncclSuccess
							: ncclInvalidUsage;
	if (r == ncclSuccess)
		memcpy(grp.recv, sh->box[in], grp.rcount * 4);
	if (r == ncclSuccess && c->corrupt && grp.rcount > 3)
		((uint32_t *)grp.recv)[3] ^= 1;
	sh->box_ack[in] = sh->box_seq[in];
	pthread_cond_broadcast(&sh->cv);
	while (sh->box_ack[out] != seq)  /* our buffer is read */
		pthread_cond_wait(&sh->cv, &sh->mu);
	pthread_mutex_unlock(&sh->mu);
	memset(&grp, 0, sizeof(grp));
	return r;
}
