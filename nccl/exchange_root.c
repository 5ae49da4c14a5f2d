/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exchange_root.c - rank 0's side of the id exchange: listen on the
 * job's address, challenge every connection, take in the hellos that
 * prove they belong to this step, then answer all of them at once.
 */
#include "exchange.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/* Connections that have not finished their hello yet, beyond one per
 * rank (up to 4096); more wait in the listen backlog. */
#define SPARE_CONNS 64
/* A full table makes room by dropping a connection that has been silent
 * this long: a rank sends its hello at once. */
#define SILENT_MS 2000
/* Rank 0 retries a busy port for at most this long: a previous step may
 * still be closing, but a port held for good should fail fast. */
#define BIND_RETRY_MS 10000

typedef struct conn {
	int fd;
	int64_t since;               /* accepted at, ms */
	size_t got;                  /* bytes of head + proof so far */
	unsigned char head[HELLO_HEAD];
	unsigned char *proof;        /* once the head is in */
	rmni_hello h;
	unsigned char nonce[RMNI_NONCE_LEN];   /* ours, sent in the challenge */
} conn;

typedef struct member {
	int fd;                      /* -1 = not arrived */
	unsigned char root_nonce[RMNI_NONCE_LEN];
	unsigned char peer_nonce[RMNI_NONCE_LEN];
} member;

typedef struct root_state {
	const rmn_exchange_opts *o;
	const rmni_auth *a;
	size_t len;
	unsigned char digest[DIGEST_LEN];
	int lfd;
	char where[300];             /* address:port we listen on */
	conn *pending;               /* hello not complete yet */
	size_t npending, cap;
	member *m;                   /* by rank */
	uint32_t arrived, refused;
	char last_refusal[ANSWER_MSG_MAX];
	char why[ANSWER_MSG_MAX];
} root_state;

static rmn_status fd_limit(uint32_t nranks, rmn_error *err)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)nranks + SPARE_CONNS + 32;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
		return RMN_OK;
	/* One socket per rank is the price of answering all at once. */
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) {
		rl.rlim_cur = need;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			return RMN_OK;
	}
	return rmni_err(err, RMN_EINPUT,
			"rank 0 must hold %u connections but the open-file "
			"limit is %llu (raise ulimit -n)",
			nranks - 1, (unsigned long long)rl.rlim_cur);
}

static int listen_on(const struct sockaddr *sa, socklen_t sl, int family,
		     int backlog, int *eno)
{
	int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1, zero = 0;
	if (fd < 0) {
		*eno = errno;
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6 && sa == NULL)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, sa, sl) == 0 && listen(fd, backlog) == 0)
		return fd;
	*eno = errno;
	close(fd);
	return -1;
}

/* Every address: only when the site asks for it by name ("*"). */
static int listen_any(uint16_t port, int backlog, int *eno)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	int one = 1, zero = 0;
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (bind(fd, (struct sockaddr *)&a6, sizeof(a6)) == 0 &&
		    listen(fd, backlog) == 0)
			return fd;
		*eno = errno;
		close(fd);
		if (*eno == EADDRINUSE || *eno == EACCES)
			return -1;
	}
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	return listen_on((struct sockaddr *)&a4, sizeof(a4), AF_INET, backlog,
			 eno);
}

/* The first address of `host` that takes a listener: the one the other
 * nodes resolve MASTER_ADDR to is one of ours. */
static int listen_host(const char *host, uint16_t port, int backlog,
		       int *eno, bool *resolved)
{
	char ps[8];
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV }, *ai = NULL;
	snprintf(ps, sizeof(ps), "%u", port);
	int rc = getaddrinfo(host, ps, &hints, &ai);
	*resolved = rc == 0;
	if (rc != 0) {
		*eno = rc;
		return -1;
	}
	int fd = -1;
	for (struct addrinfo *p = ai; p && fd < 0; p = p->ai_next)
		fd = listen_on(p->ai_addr, p->ai_addrlen, p->ai_family,
			       backlog, eno);
	freeaddrinfo(ai);
	return fd;
}

static rmn_status open_listener(root_state *s, int64_t deadline,
				rmn_error *err)
{
	/* The kernel caps this at somaxconn; ranks that do not fit in the
	 * pending table wait here rather than being turned away. */
	int backlog = 4096;
	const char *addr = s->o->bind && *s->o->bind ? s->o->bind : s->o->host;
	char q[300];
	if (!addr || !*addr)
		return rmni_err(err, RMN_EINPUT,
				"rank 0 does not know which address to listen "
				"on: set MASTER_ADDR (or RANKMAP_NCCL_BIND; "
				"'*' for every address)");
	bool any = strcmp(addr, "*") == 0;
	snprintf(s->where, sizeof(s->where), "%s:%u",
		 any ? "*" : rm_quote(addr, 256, q, sizeof(q)), s->o->port);
	int64_t give_up = rmni_now_ms() + BIND_RETRY_MS;
	if (give_up > deadline)
		give_up = deadline;
	for (int wait = 20;; wait = wait < 500 ? wait * 2 : 1000) {
		int eno = 0;
		bool resolved = true;
		s->lfd = any ? listen_any(s->o->port, backlog, &eno)
			     : listen_host(addr, s->o->port, backlog, &eno,
					   &resolved);
		if (s->lfd >= 0)
			return RMN_OK;
		if (!resolved)
			return rmni_err(err, RMN_ENET,
					"rank 0 cannot resolve its listen "
					"address %s: %s",
					rm_quote(addr, 256, q, sizeof(q)),
					gai_strerror(eno));
		if (eno != EADDRINUSE || rmni_now_ms() >= give_up)
			return rmni_err(err, RMN_ENET,
					"rank 0 cannot listen on %s: %s%s",
					s->where, strerror(eno),
					eno == EADDRNOTAVAIL
						? " (not an address of this "
						  "host: set RANKMAP_NCCL_BIND)"
						: " (set RANKMAP_NCCL_PORT to "
						  "a free port)");
		poll(NULL, 0, wait);
	}
}

static void drop_pending(root_state *s, size_t i)
{
	close(s->pending[i].fd);
	free(s->pending[i].proof);
	s->pending[i] = s->pending[--s->npending];
}

/* Say why a connection was turned away, to the caller's log. */
static void note(root_state *s, size_t i, const char *why)
{
	char who[96];
	rmni_peer_name(s->pending[i].fd, who, sizeof(who));
	snprintf(s->last_refusal, sizeof(s->last_refusal),
		 "refused %s: %s", who, why);
	s->refused++;
	if (s->o->log) {
		char line[sizeof(s->where) + ANSWER_MSG_MAX + 32];
		snprintf(line, sizeof(line), "rank 0 on %s %s", s->where,
			 s->last_refusal);
		s->o->log(s->o->log_arg, line);
	}
}

/* An authentic hello that does not fit: told why, with a proof. */
static void refuse(root_state *s, size_t i, const rmni_bind *b,
		   uint32_t status, const char *msg)
{
	note(s, i, msg);
	rmni_answer_send(s->pending[i].fd, s->a, b, status, msg, strlen(msg),
			 rmni_now_ms() + 1000);
	drop_pending(s, i);
}

/* A complete hello: take the rank in, or turn it away. */
static void welcome(root_state *s, size_t i)
{
	conn *c = &s->pending[i];
	const rmni_hello *h = &c->h;
	char msg[ANSWER_MSG_MAX], why[256];
	rmni_bind b;
	rmni_hello_bind(h, c->nonce, &b);

	if (!rmni_check_hello(s->a, &b, c->proof, h->prooflen, why,
			      sizeof(why))) {
		/* A stranger learns nothing but that it failed. */
		note(s, i, why);
		rmni_answer_send(c->fd, NULL, NULL, RMN_EAUTH,
				 "authentication failed", 21,
				 rmni_now_ms() + 1000);
		drop_pending(s, i);
		return;
	}
	if (h->jobid != s->a->jobid || h->stepid != s->a->stepid) {
		snprintf(msg, sizeof(msg),
			 "this is job %u step %u, the peer is job %u step %u "
			 "(another step on port %u?)",
			 s->a->jobid, s->a->stepid, h->jobid, h->stepid,
			 s->o->port);
		refuse(s, i, &b, RMN_EREFUSED, msg);
		return;
	}
	if (h->nranks != s->o->nranks || h->len != s->len) {
		snprintf(msg, sizeof(msg),
			 "rank 0 expects %u ranks and a %zu-byte id, this "
			 "peer says %u ranks and %u bytes (another job on "
			 "port %u, or a different WORLD_SIZE)",
			 s->o->nranks, s->len, h->nranks, h->len, s->o->port);
		refuse(s, i, &b, RMN_EREFUSED, msg);
		return;
	}
	if (h->rank == 0 || h->rank >= h->nranks) {
		snprintf(msg, sizeof(msg),
			 "rank %u is not a peer of rank 0 in a world of %u",
			 h->rank, h->nranks);
		refuse(s, i, &b, RMN_EREFUSED, msg);
		return;
	}
	if (!rmni_ct_equal(h->digest, s->digest, DIGEST_LEN)) {
		char theirs[DIGEST_LEN + 1], ours[DIGEST_LEN + 1], q[96];
		memcpy(theirs, h->digest, DIGEST_LEN);
		theirs[DIGEST_LEN] = '\0';
		memcpy(ours, s->digest, DIGEST_LEN);
		ours[DIGEST_LEN] = '\0';
		snprintf(msg, sizeof(msg),
			 "rank %u has map digest %s but rank 0 has %.16s...: "
			 "the ranks read different map files", h->rank,
			 rm_quote(theirs, 16, q, sizeof(q)), ours);
		refuse(s, i, &b, RMN_EREFUSED, msg);
		return;
	}
	if (s->m[h->rank].fd >= 0) {
		snprintf(msg, sizeof(msg),
			 "rank %u connected twice (two tasks with the same "
			 "RANK?)", h->rank);
		refuse(s, i, &b, RMN_EREFUSED, msg);
		return;
	}
	member *m = &s->m[h->rank];
	m->fd = c->fd;
	memcpy(m->root_nonce, c->nonce, RMNI_NONCE_LEN);
	memcpy(m->peer_nonce, h->nonce, RMNI_NONCE_LEN);
	s->arrived++;
	free(c->proof);
	s->pending[i] = s->pending[--s->npending];
}

static void accept_new(root_state *s)
{
	for (;;) {
		if (s->npending >= s->cap) {
			size_t old = 0;
			for (size_t i = 1; i < s->npending; i++)
				if (s->pending[i].since < s->pending[old].since)
					old = i;
			if (rmni_now_ms() - s->pending[old].since < SILENT_MS)
				return;          /* the rest wait in the backlog */
			drop_pending(s, old);
		}
		int fd = accept4(s->lfd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		conn c = { .fd = fd, .since = rmni_now_ms() };
		unsigned char ch[CHALLENGE_LEN];
		/* A fresh socket's buffer takes 44 bytes at once. */
		if (!rmni_nonce(c.nonce)) {
			close(fd);
			continue;
		}
		rmni_challenge_write(ch, (uint32_t)s->a->mode, c.nonce);
		if (send(fd, ch, sizeof(ch), MSG_NOSIGNAL) != (ssize_t)sizeof(ch)) {
			close(fd);
			continue;
		}
		s->pending[s->npending++] = c;
	}
}

/* More bytes of a hello: the head, then the proof it announces. */
static void read_one(root_state *s, size_t k)
{
	conn *c = &s->pending[k];
	size_t want = HELLO_HEAD + (c->proof ? c->h.prooflen : 0);
	unsigned char *dst = c->got < HELLO_HEAD ? c->head + c->got
						 : c->proof + (c->got - HELLO_HEAD);
	size_t room = c->got < HELLO_HEAD ? HELLO_HEAD - c->got
					  : want - c->got;
	ssize_t r = recv(c->fd, dst, room, 0);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		drop_pending(s, k);
		return;
	}
	if (r < 0)
		return;
	c->got += (size_t)r;
	if (c->got == HELLO_HEAD && !c->proof) {
		if (!rmni_hello_parse(c->head, &c->h)) {
			note(s, k, "not a rankmap-nccl hello");
			drop_pending(s, k);
			return;
		}
		c->proof = malloc(c->h.prooflen ? c->h.prooflen : 1);
		if (!c->proof) {
			drop_pending(s, k);
			return;
		}
	}
	if (c->proof && c->got == HELLO_HEAD + c->h.prooflen)
		welcome(s, k);
}

static void read_pending(root_state *s, const struct pollfd *pfd, size_t n)
{
	/* Walk backwards: drop_pending moves the last entry into slot i. */
	for (size_t k = n; k-- > 0;) {
		if (!pfd[k].revents || k >= s->npending ||
		    pfd[k].fd != s->pending[k].fd)
			continue;
		read_one(s, k);
	}
}

static void tell_all(root_state *s, uint32_t status, const void *body,
		     size_t len, int64_t deadline, uint32_t *failed)
{
	for (uint32_t r = 1; r < s->o->nranks; r++) {
		member *m = &s->m[r];
		if (m->fd < 0)
			continue;
		rmni_bind b = { .mode = (uint32_t)s->a->mode,
				.jobid = s->a->jobid,
				.stepid = s->a->stepid,
				.rank = r,
				.nranks = s->o->nranks,
				.len = (uint32_t)s->len };
		memcpy(b.digest, s->digest, DIGEST_LEN);
		memcpy(b.root_nonce, m->root_nonce, RMNI_NONCE_LEN);
		memcpy(b.peer_nonce, m->peer_nonce, RMNI_NONCE_LEN);
		if (!rmni_answer_send(m->fd, s->a, &b, status, body, len,
				      deadline) &&
		    failed && *failed == UINT32_MAX)
			*failed = r;
	}
}

static rmn_status missing_error(root_state *s, rmn_error *err)
{
	uint32_t nmiss = s->o->nranks - 1 - s->arrived;
	uint32_t *miss = malloc(sizeof(*miss) * nmiss);
	char list[600];
	if (!miss)
		return rmni_err(err, RMN_ENOMEM, "out of memory");
	size_t k = 0;
	for (uint32_t r = 1; r < s->o->nranks; r++)
		if (s->m[r].fd < 0)
			miss[k++] = r;
	rmni_ranges(miss, k, list, sizeof(list));
	free(miss);
	int n = snprintf(s->why, sizeof(s->why),
			 "rank%s %s (%u of %u) did not reach rank 0 on %s "
			 "within %.1f s",
			 nmiss > 1 ? "s" : "", list, nmiss, s->o->nranks,
			 s->where, s->o->timeout_ms / 1000.0);
	if (s->refused && n > 0 && (size_t)n < sizeof(s->why))
		snprintf(s->why + n, sizeof(s->why) - (size_t)n,
			 "; %u connection%s refused, last: %.300s", s->refused,
			 s->refused > 1 ? "s" : "", s->last_refusal);
	return rmni_err(err, RMN_ETIMEOUT, "%s", s->why);
}

static rmn_status run_root(root_state *s, const void *blob, int64_t deadline,
			   rmn_error *err)
{
	rmn_status st = open_listener(s, deadline, err);
	struct pollfd *pfd = NULL;
	if (st != RMN_OK)
		return st;
	pfd = malloc(sizeof(*pfd) * (s->cap + 1));
	if (!pfd)
		return rmni_err(err, RMN_ENOMEM, "out of memory");
	while (s->arrived + 1 < s->o->nranks && rmni_now_ms() < deadline) {
		for (size_t i = 0; i < s->npending; i++)
			pfd[i] = (struct pollfd){ .fd = s->pending[i].fd,
						  .events = POLLIN };
		size_t n = s->npending;
		bool full = n >= s->cap;
		/* A full table stops watching the door (no busy loop) and
		 * looks for silent connections to drop about once a second. */
		pfd[n] = (struct pollfd){ .fd = s->lfd,
					  .events = full ? 0 : POLLIN };
		if (poll(pfd, n + 1, rmni_wait_ms(deadline)) < 0)
			continue;
		read_pending(s, pfd, n);
		if (pfd[n].revents || full)
			accept_new(s);
	}
	free(pfd);
	close(s->lfd);
	s->lfd = -1;

	int64_t tell_by = rmni_now_ms() + 5000;
	if (s->arrived + 1 < s->o->nranks) {
		st = missing_error(s, err);
		if (st == RMN_ETIMEOUT)
			tell_all(s, RMN_ETIMEOUT, s->why, strlen(s->why),
				 tell_by, NULL);
		return st;
	}
	uint32_t failed = UINT32_MAX;
	tell_all(s, RMN_OK, blob, s->len, tell_by, &failed);
	if (failed != UINT32_MAX)
		return rmni_err(err, RMN_ENET,
				"rank %u hung up before it got the id from "
				"rank 0", failed);
	return RMN_OK;
}

rmn_status rmni_exchange_root(const rmn_exchange_opts *o, const rmni_auth *a,
			      const void *blob, size_t len, int64_t deadline,
			      rmn_error *err)
{
	root_state s = { .o = o, .a = a, .len = len, .lfd = -1 };
	rmn_status st = fd_limit(o->nranks, err);
	if (st != RMN_OK)
		return st;
	rmni_digest_field(o->digest, s.digest);
	s.cap = SPARE_CONNS + (o->nranks < 4096 ? o->nranks : 4096);
	s.pending = malloc(sizeof(*s.pending) * s.cap);
	s.m = malloc(sizeof(*s.m) * o->nranks);
	if (!s.pending || !s.m) {
		st = rmni_err(err, RMN_ENOMEM, "out of memory");
	} else {
		for (uint32_t r = 0; r < o->nranks; r++)
			s.m[r].fd = -1;
		st = run_root(&s, blob, deadline, err);
	}
	if (s.m)
		for (uint32_t r = 1; r < o->nranks; r++)
			if (s.m[r].fd >= 0)
				close(s.m[r].fd);
	for (size_t i = 0; s.pending && i < s.npending; i++) {
		close(s.pending[i].fd);
		free(s.pending[i].proof);
	}
	free(s.pending);
	free(s.m);
	return st;
}
