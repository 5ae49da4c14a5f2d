/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_gpu.c - just enough CUDA and NCCL, in host memory, to drive
 * librankmap-nccl's communicator set-up and rankmap-nccl-check's GPU side
 * with one thread per rank, as non-blocking NCCL behaves: calls return at
 * once (ncclInProgress for set-up), an operation completes when the last
 * member has posted it, and completion shows only through
 * ncclCommGetAsyncError and cudaStreamQuery. A rank that never posts
 * leaves the others' streams unfinished for ever - what a dead peer does -
 * so only the caller's own deadlines end the wait. A test can ask that
 * what one rank receives comes back with one wrong element.
 */
#include "fake_gpu.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int fake_die_at_init = -1;
bool fake_duplicate_gpu;
int fake_die_at_split = -1;

/* One collective (all-reduce, all-gather) or one message of a channel. */
typedef struct fop {
	int kind;                    /* 0 all-reduce, 1 all-gather, 2 p2p */
	size_t count, esize;
	const void **send;           /* per rank (p2p: [0]) */
	void **recv;
	bool *corrupt;
	int posted;
	bool done;
} fop;

typedef struct fsplit {
	int arrived;
	int *color, *key;
	struct fshared **child;      /* per parent rank, once all arrived */
	int *child_rank;
	bool built;
} fsplit;

typedef struct fshared {
	int n;
	pthread_mutex_t mu;
	fop **ops;                   /* collectives by sequence number */
	size_t nops, capops;
	fop ***chan;                 /* [from * n + to] messages by sequence */
	size_t *nchan, *capchan;
	fsplit **splits;
	size_t nsplits;
	int init_arrived;            /* ncclCommInitRankConfig */
	unsigned char id[128];
	struct fshared *next_made;   /* made by init/split: freed by reset */
} fshared;

struct ncclComm {
	fshared *sh;
	int rank;
	int corrupt;
	unsigned long seq;           /* collectives posted */
	unsigned long *sseq, *rseq;  /* messages per peer */
	size_t split_no;             /* splits made from this handle */
	fshared *split_parent;       /* pending split result */
	size_t split_at;
	bool init_pending;
};

static pthread_mutex_t reg = PTHREAD_MUTEX_INITIALIZER;
static fshared *made;

fake_comm *fake_comm_new(int n)
{
	fshared *c = calloc(1, sizeof(*c));
	c->n = n;
	pthread_mutex_init(&c->mu, NULL);
	c->chan = calloc((size_t)n * n, sizeof(*c->chan));
	c->nchan = calloc((size_t)n * n, sizeof(size_t));
	c->capchan = calloc((size_t)n * n, sizeof(size_t));
	return c;
}

static void op_free(fop *o)
{
	if (!o)
		return;
	free(o->send);
	free(o->recv);
	free(o->corrupt);
	free(o);
}

void fake_comm_free(fake_comm *c)
{
	pthread_mutex_destroy(&c->mu);
	for (size_t i = 0; i < c->nops; i++)
		op_free(c->ops[i]);
	free(c->ops);
	for (size_t i = 0; i < (size_t)c->n * c->n; i++) {
		for (size_t k = 0; k < c->nchan[i]; k++)
			op_free(c->chan[i][k]);
		free(c->chan[i]);
	}
	free(c->chan);
	free(c->nchan);
	free(c->capchan);
	for (size_t i = 0; i < c->nsplits; i++) {
		fsplit *s = c->splits[i];
		free(s->color);
		free(s->key);
		free(s->child);
		free(s->child_rank);
		free(s);
	}
	free(c->splits);
	free(c);
}

ncclComm_t fake_handle(fake_comm *c, int rank, bool corrupt)
{
	ncclComm_t h = calloc(1, sizeof(*h));
	h->sh = c;
	h->rank = rank;
	h->corrupt = corrupt;
	if (c) {
		h->sseq = calloc((size_t)c->n, sizeof(unsigned long));
		h->rseq = calloc((size_t)c->n, sizeof(unsigned long));
	}
	return h;
}

void fake_handle_free(ncclComm_t h)
{
	if (!h)
		return;
	free(h->sseq);
	free(h->rseq);
	free(h);
}

int fake_comm_size(ncclComm_t h)
{
	return h && h->sh ? h->sh->n : -1;
}

int fake_comm_rank(ncclComm_t h)
{
	return h && h->sh ? h->rank : -1;
}

void fake_reset(void)
{
	pthread_mutex_lock(&reg);
	while (made) {
		fshared *n = made->next_made;
		fake_comm_free(made);
		made = n;
	}
	pthread_mutex_unlock(&reg);
	fake_die_at_init = fake_die_at_split = -1;
	fake_duplicate_gpu = false;
}

static fshared *made_new(int n)
{
	fshared *c = fake_comm_new(n);
	c->next_made = made;
	made = c;
	return c;
}

/* ------------------------------------------------------------- streams */

typedef struct pending {
	fshared *sh;
	fop *op;
} pending;

struct CUstream_st {
	pending *p;
	size_t n, cap;
};
struct CUevent_st {
	double ms;
};

static void stream_add(cudaStream_t s, fshared *sh, fop *op)
{
	if (!s)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->p = realloc(s->p, s->cap * sizeof(*s->p));
	}
	s->p[s->n++] = (pending){ sh, op };
}

cudaError_t cudaStreamQuery(cudaStream_t s)
{
	size_t keep = 0;
	for (size_t i = 0; i < s->n; i++) {
		pthread_mutex_lock(&s->p[i].sh->mu);
		bool done = s->p[i].op->done;
		pthread_mutex_unlock(&s->p[i].sh->mu);
		if (!done)
			s->p[keep++] = s->p[i];
	}
	s->n = keep;
	return keep ? cudaErrorNotReady : cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
	/* Unbounded, as CUDA's is: the code under test must not call it. */
	while (cudaStreamQuery(s) == cudaErrorNotReady) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
	(void)flags;
	*s = calloc(1, sizeof(**s));
	return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
	free(s->p);
	free(s);
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

cudaError_t cudaGetDeviceCount(int *n)
{
	*n = 1;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int d)
{
	return d == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

/* ------------------------------------------------------- set-up calls */

/* NCCL 2.28's own strings (test_nccl_init compares them with the real
 * library's), so messages read as they do on a GPU. */
const char *ncclGetErrorString(ncclResult_t r)
{
	static const char *const says[] = {
		[ncclSuccess] = "no error",
		[ncclUnhandledCudaError] = "unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
		[ncclSystemError] = "unhandled system error (run with NCCL_DEBUG=INFO for details)",
		[ncclInternalError] = "internal error - please report this issue to the NCCL developers",
		[ncclInvalidArgument] = "invalid argument (run with NCCL_DEBUG=WARN for details)",
		[ncclInvalidUsage] = "invalid usage (run with NCCL_DEBUG=WARN for details)",
		[ncclRemoteError] = "remote process exited or there was a network error",
		[ncclInProgress] = "NCCL operation in progress",
	};
	if ((unsigned)r < sizeof(says) / sizeof(says[0]) && says[r])
		return says[r];
	return "unknown result code";
}

/* What a real H200 run showed for two ranks on one GPU
 * (docs/nccl.md, "A real GPU"): NCCL's last error names both ranks. */
const char *ncclGetLastError(ncclComm_t c)
{
	(void)c;
	return fake_duplicate_gpu ?
		"Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 0" :
		"";
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
	static unsigned long counter;
	pthread_mutex_lock(&reg);
	unsigned long v = ++counter;
	pthread_mutex_unlock(&reg);
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, &v, sizeof(v));
	return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int n, ncclUniqueId id,
				    int rank, ncclConfig_t *cfg)
{
	(void)cfg;
	*comm = NULL;
	if (rank == fake_die_at_init)
		return ncclSystemError;
	pthread_mutex_lock(&reg);
	fshared *sh = made;
	while (sh && (sh->n != n || memcmp(sh->id, id.internal, 128) != 0))
		sh = sh->next_made;
	if (!sh) {
		sh = made_new(n);
		memcpy(sh->id, id.internal, 128);
	}
	sh->init_arrived++;
	pthread_mutex_unlock(&reg);
	*comm = fake_handle(sh, rank, false);
	(*comm)->init_pending = true;
	return ncclInProgress;
}

static int by_key(const void *a, const void *b)
{
	const int *x = a, *y = b;  /* {key, rank} */
	return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0])
			    : (x[1] > y[1]) - (x[1] < y[1]);
}

/* All have arrived at split k of sh: make the children (under reg). */
static void build_split(fshared *sh, fsplit *sp)
{
	int n = sh->n;
	int (*kr)[2] = malloc(sizeof(*kr) * (size_t)n);
	for (int r = 0; r < n; r++) {
		if (sp->color[r] == NCCL_SPLIT_NOCOLOR || sp->child[r])
			continue;
		int m = 0;
		for (int q = 0; q < n; q++)
			if (sp->color[q] == sp->color[r]) {
				kr[m][0] = sp->key[q];
				kr[m][1] = q;
				m++;
			}
		qsort(kr, (size_t)m, sizeof(*kr), by_key);
		fshared *child = made_new(m);
		for (int i = 0; i < m; i++) {
			sp->child[kr[i][1]] = child;
			sp->child_rank[kr[i][1]] = i;
		}
	}
	free(kr);
	sp->built = true;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
			   ncclComm_t *newcomm, ncclConfig_t *cfg)
{
	(void)cfg;
	*newcomm = NULL;
	if (comm->rank == fake_die_at_split && comm->split_no == 0)
		return ncclSystemError;
	fshared *sh = comm->sh;
	pthread_mutex_lock(&reg);
	size_t k = comm->split_no++;
	while (sh->nsplits <= k) {
		sh->splits = realloc(sh->splits,
				     (sh->nsplits + 1) * sizeof(*sh->splits));
		fsplit *sp = calloc(1, sizeof(*sp));
		sp->color = calloc((size_t)sh->n, sizeof(int));
		sp->key = calloc((size_t)sh->n, sizeof(int));
		sp->child = calloc((size_t)sh->n, sizeof(*sp->child));
		sp->child_rank = calloc((size_t)sh->n, sizeof(int));
		sh->splits[sh->nsplits++] = sp;
	}
	fsplit *sp = sh->splits[k];
	sp->color[comm->rank] = color;
	sp->key[comm->rank] = key;
	sp->arrived++;
	pthread_mutex_unlock(&reg);
	if (color != NCCL_SPLIT_NOCOLOR) {
		*newcomm = fake_handle(NULL, -1, false);
		(*newcomm)->split_parent = sh;
		(*newcomm)->split_at = k;
		(*newcomm)->rank = comm->rank;   /* parent rank until built */
	}
	return ncclInProgress;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *state)
{
	*state = ncclSuccess;
	pthread_mutex_lock(&reg);
	if (c->init_pending) {
		if (c->sh->init_arrived < c->sh->n)
			*state = ncclInProgress;
		else if (fake_duplicate_gpu)
			*state = ncclInvalidUsage;   /* every member, at once */
		else
			c->init_pending = false;
	} else if (c->split_parent) {
		fsplit *sp = c->split_parent->splits[c->split_at];
		if (sp->arrived < c->split_parent->n) {
			*state = ncclInProgress;
		} else {
			if (!sp->built)
				build_split(c->split_parent, sp);
			int pr = c->rank;
			c->sh = sp->child[pr];
			c->rank = sp->child_rank[pr];
			c->split_parent = NULL;
			c->sseq = calloc((size_t)c->sh->n, sizeof(unsigned long));
			c->rseq = calloc((size_t)c->sh->n, sizeof(unsigned long));
		}
	}
	pthread_mutex_unlock(&reg);
	return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t c)
{
	fake_handle_free(c);
	return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t c)
{
	(void)c;
	return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t c)
{
	fake_handle_free(c);
	return ncclSuccess;
}

/* --------------------------------------------------------- operations */

static size_t type_size(ncclDataType_t t)
{
	return t == ncclFloat64 || t == ncclUint64 || t == ncclInt64 ? 8 : 4;
}

static fop *op_new(int n)
{
	fop *o = calloc(1, sizeof(*o));
	o->send = calloc((size_t)n, sizeof(*o->send));
	o->recv = calloc((size_t)n, sizeof(*o->recv));
	o->corrupt = calloc((size_t)n, sizeof(bool));
	return o;
}

/* The last member to post does the work for everyone (under sh->mu, so
 * operations of one communicator complete in order). */
static void complete(fshared *sh, fop *o)
{
	int n = sh->n;
	if (o->kind == 0) {
		uint32_t *tmp = malloc(o->count * 4 + 4);
		for (size_t i = 0; i < o->count; i++) {
			uint32_t v = 0;
			for (int r = 0; r < n; r++)
				v += ((const uint32_t *)o->send[r])[i];
			tmp[i] = v;
		}
		for (int r = 0; r < n; r++) {
			memcpy(o->recv[r], tmp, o->count * 4);
			if (o->corrupt[r] && o->count > 3)
				((uint32_t *)o->recv[r])[3] ^= 1;
		}
		free(tmp);
	} else {
		size_t b = o->count * o->esize;
		char *tmp = malloc(b * (size_t)n + 1);
		for (int r = 0; r < n; r++)
			memcpy(tmp + (size_t)r * b, o->send[r], b);
		for (int r = 0; r < n; r++)
			memcpy(o->recv[r], tmp, b * (size_t)n);
		free(tmp);
	}
	o->done = true;
}

static ncclResult_t post(const void *send, void *recv, size_t count,
			 ncclDataType_t t, int kind, ncclComm_t c,
			 cudaStream_t s)
{
	fshared *sh = c->sh;
	pthread_mutex_lock(&sh->mu);
	size_t k = c->seq++;
	while (sh->nops <= k) {
		if (sh->nops == sh->capops) {
			sh->capops = sh->capops ? 2 * sh->capops : 64;
			sh->ops = realloc(sh->ops,
					  sh->capops * sizeof(*sh->ops));
		}
		sh->ops[sh->nops++] = op_new(sh->n);
	}
	fop *o = sh->ops[k];
	o->kind = kind;
	o->count = count;
	o->esize = type_size(t);
	o->send[c->rank] = send;
	o->recv[c->rank] = recv;
	o->corrupt[c->rank] = c->corrupt;
	if (++o->posted == sh->n)
		complete(sh, o);
	pthread_mutex_unlock(&sh->mu);
	stream_add(s, sh, o);
	return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count,
			   ncclDataType_t t, ncclRedOp_t op, ncclComm_t c,
			   cudaStream_t s)
{
	if (t != ncclUint32 || op != ncclSum)
		return ncclInvalidArgument;
	return post(send, recv, count, t, 0, c, s);
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count,
			   ncclDataType_t t, ncclComm_t c, cudaStream_t s)
{
	return post(send, recv, count, t, 1, c, s);
}

/* One send and one receive per group, as rankmap-nccl-check uses them. */
static _Thread_local struct {
	int depth;
	const void *send;
	void *recv;
	size_t scount, rcount;
	int speer, rpeer;
	ncclComm_t comm;
	cudaStream_t stream;
} grp;

ncclResult_t ncclGroupStart(void)
{
	grp.depth++;
	return ncclSuccess;
}

/* Either half of the group's pair: its count and peer, and the
 * communicator and stream the two share. */
static ncclResult_t grp_half(size_t *count_to, int *peer_to, size_t count,
			     int peer, ncclComm_t c, cudaStream_t s)
{
	*count_to = count;
	*peer_to = peer;
	grp.comm = c;
	grp.stream = s;
	return ncclSuccess;
}

ncclResult_t ncclSend(const void *buf, size_t count, ncclDataType_t t,
		      int peer, ncclComm_t c, cudaStream_t s)
{
	if (!grp.depth || t != ncclUint32)
		return ncclInvalidUsage;
	grp.send = buf;
	return grp_half(&grp.scount, &grp.speer, count, peer, c, s);
}

ncclResult_t ncclRecv(void *buf, size_t count, ncclDataType_t t, int peer,
		      ncclComm_t c, cudaStream_t s)
{
	if (!grp.depth || t != ncclUint32 || (grp.comm && grp.comm != c))
		return ncclInvalidUsage;
	grp.recv = buf;
	return grp_half(&grp.rcount, &grp.rpeer, count, peer, c, s);
}

/* Message number `seq` of channel from -> to; created by whoever comes
 * first. */
static fop *message(fshared *sh, int from, int to, unsigned long seq)
{
	size_t ch = (size_t)from * sh->n + to;
	while (sh->nchan[ch] <= seq) {
		if (sh->nchan[ch] == sh->capchan[ch]) {
			sh->capchan[ch] = sh->capchan[ch] ? 2 * sh->capchan[ch]
							  : 16;
			sh->chan[ch] = realloc(sh->chan[ch], sh->capchan[ch] *
							     sizeof(fop *));
		}
		fop *o = op_new(1);
		o->kind = 2;
		sh->chan[ch][sh->nchan[ch]++] = o;
	}
	return sh->chan[ch][seq];
}

static void message_done(fop *o)
{
	if (o->posted < 2 || o->done)
		return;
	memcpy(o->recv[0], o->send[0], o->count * 4);
	if (o->corrupt[0] && o->count > 3)
		((uint32_t *)o->recv[0])[3] ^= 1;
	o->done = true;
}

ncclResult_t ncclGroupEnd(void)
{
	if (--grp.depth > 0)
		return ncclSuccess;
	ncclComm_t c = grp.comm;
	if (!c || !grp.send || !grp.recv || grp.speer == c->rank ||
	    grp.speer < 0 || grp.speer >= c->sh->n || grp.rpeer < 0 ||
	    grp.rpeer >= c->sh->n || grp.scount != grp.rcount)
		return ncclInvalidUsage;
	fshared *sh = c->sh;
	pthread_mutex_lock(&sh->mu);
	fop *out = message(sh, c->rank, grp.speer, c->sseq[grp.speer]++);
	fop *in = message(sh, grp.rpeer, c->rank, c->rseq[grp.rpeer]++);
	out->send[0] = grp.send;
	out->count = grp.scount;
	out->posted++;
	in->recv[0] = grp.recv;
	in->corrupt[0] = c->corrupt; /* the receiver spoils what it gets */
	in->posted++;
	message_done(out);
	message_done(in);
	pthread_mutex_unlock(&sh->mu);
	stream_add(grp.stream, sh, out);
	stream_add(grp.stream, sh, in);
	memset(&grp, 0, sizeof(grp));
	return ncclSuccess;
}
