/*
 * exchange.c - hand rank 0's ncclUniqueId to every rank over TCP.
 *
 * srun steps need not share a filesystem, so rank 0 listens on a port next
 * to MASTER_PORT and the others connect. Rank 0 answers only when every
 * rank has said hello: then all ranks get the id, or all that are
 * connected get the same error. Every wait has a deadline (poll and
 * non-blocking connect), and a stranger on the port (a scanner, another
 * job) is dropped without disturbing the exchange.
 *
 * Wire format, integers big-endian:
 *   hello  "RMNXCHG1" rank:u32 nranks:u32 len:u32 digest:64
 *   answer "RMNXCHG1" status:u32 len:u32 body[len]
 * status 0 = ok (body = the blob), otherwise an rmn_status and the body is
 * rank 0's message.
 */
#include "nccl_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAGIC "RMNXCHG1"
#define MAGIC_LEN 8
#define DIGEST_LEN 64
#define HELLO_LEN (MAGIC_LEN + 12 + DIGEST_LEN)
#define ANSWER_HEAD (MAGIC_LEN + 8)
#define ANSWER_MSG_MAX 900
/* Connections that have not finished their hello yet, beyond one per
 * rank (up to 4096); more wait in the listen backlog. */
#define SPARE_CONNS 64
/* A full table makes room by dropping a connection that has been silent
 * this long: a rank sends its hello at once. */
#define SILENT_MS 2000
/* Rank 0 retries a busy port for at most this long: a previous step may
 * still be closing, but a port held for good should fail fast. */
#define BIND_RETRY_MS 10000

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int remaining(int64_t deadline)
{
	int64_t left = deadline - rmni_now_ms();
	if (left < 0)
		return 0;
	return left > 1000 ? 1000 : (int)left;
}

/* Write all of buf before the deadline; false on error or time-out. */
static bool send_all(int fd, const void *buf, size_t len, int64_t deadline)
{
	const unsigned char *p = buf;
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR)
			return false;
		if (rmni_now_ms() >= deadline)
			return false;
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		poll(&pfd, 1, remaining(deadline));
	}
	return true;
}

/* Read exactly len bytes before the deadline: 1 done, 0 closed early,
 * -1 error, -2 time-out. */
static int recv_all(int fd, void *buf, size_t len, int64_t deadline)
{
	unsigned char *p = buf;
	while (len) {
		ssize_t n = recv(fd, p, len, 0);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		if (rmni_now_ms() >= deadline)
			return -2;
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		poll(&pfd, 1, remaining(deadline));
	}
	return 1;
}

static void digest_field(const char *d, unsigned char out[DIGEST_LEN])
{
	memset(out, 0, DIGEST_LEN);
	if (d) {
		size_t n = strnlen(d, DIGEST_LEN);
		memcpy(out, d, n);
	}
}

static void answer(int fd, uint32_t status, const void *body, size_t len,
		   int64_t deadline)
{
	unsigned char head[ANSWER_HEAD];
	memcpy(head, MAGIC, MAGIC_LEN);
	put32(head + MAGIC_LEN, status);
	put32(head + MAGIC_LEN + 4, (uint32_t)len);
	if (send_all(fd, head, sizeof(head), deadline) && len)
		send_all(fd, body, len, deadline);
}

/* ------------------------------------------------------------ rank 0 */

typedef struct conn {
	int fd;
	int64_t since;               /* accepted at, ms */
	size_t got;
	unsigned char hello[HELLO_LEN];
} conn;

typedef struct root_state {
	const rmn_exchange_opts *o;
	size_t len;
	unsigned char digest[DIGEST_LEN];
	int lfd;
	conn *pending;               /* hello not complete yet */
	size_t npending, cap;
	int *fd_of;                  /* by rank; -1 = not arrived */
	uint32_t arrived;
	bool fatal;                  /* a peer with another map: stop */
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

static int listen_once(uint16_t port, int backlog, int *eno)
{
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	int one = 1, zero = 0;
	if (fd >= 0) {
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
					   .sin6_port = htons(port),
					   .sin6_addr = IN6ADDR_ANY_INIT };
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
	/* No IPv6 on this host: plain IPv4. */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*eno = errno;
		return -1;
	}
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a4, sizeof(a4)) == 0 &&
	    listen(fd, backlog) == 0)
		return fd;
	*eno = errno;
	close(fd);
	return -1;
}

static rmn_status open_listener(root_state *s, int64_t deadline,
				rmn_error *err)
{
	/* The kernel caps this at somaxconn; ranks that do not fit in the
	 * pending table wait here rather than being turned away. */
	int backlog = 4096;
	int64_t give_up = rmni_now_ms() + BIND_RETRY_MS;
	if (give_up > deadline)
		give_up = deadline;
	for (int wait = 20;; wait = wait < 500 ? wait * 2 : 1000) {
		int eno = 0;
		s->lfd = listen_once(s->o->port, backlog, &eno);
		if (s->lfd >= 0)
			return RMN_OK;
		if (eno != EADDRINUSE || rmni_now_ms() >= give_up)
			return rmni_err(err, RMN_ENET,
					"rank 0 cannot listen on port %u: %s "
					"(set RANKMAP_NCCL_PORT to a free port)",
					s->o->port, strerror(eno));
		poll(NULL, 0, wait);
	}
}

static void drop_pending(root_state *s, size_t i)
{
	close(s->pending[i].fd);
	s->pending[i] = s->pending[--s->npending];
}

static void refuse(root_state *s, size_t i, uint32_t status,
		   const char *msg)
{
	answer(s->pending[i].fd, status, msg, strlen(msg),
	       rmni_now_ms() + 1000);
	drop_pending(s, i);
}

/* A complete hello: take the rank in, or turn it away. */
static void welcome(root_state *s, size_t i)
{
	const unsigned char *h = s->pending[i].hello;
	uint32_t rank = get32(h + MAGIC_LEN);
	uint32_t nranks = get32(h + MAGIC_LEN + 4);
	uint32_t len = get32(h + MAGIC_LEN + 8);
	const unsigned char *dig = h + MAGIC_LEN + 12;
	char msg[ANSWER_MSG_MAX];

	if (memcmp(h, MAGIC, MAGIC_LEN) != 0) {
		drop_pending(s, i);       /* not one of ours */
		return;
	}
	if (nranks != s->o->nranks || len != s->len) {
		snprintf(msg, sizeof(msg),
			 "rank 0 expects %u ranks and a %zu-byte id, this "
			 "peer says %u ranks and %u bytes (another job on "
			 "port %u, or a different WORLD_SIZE)",
			 s->o->nranks, s->len, nranks, len, s->o->port);
		refuse(s, i, RMN_EREFUSED, msg);
		return;
	}
	if (rank == 0 || rank >= nranks) {
		snprintf(msg, sizeof(msg),
			 "rank %u is not a peer of rank 0 in a world of %u",
			 rank, nranks);
		refuse(s, i, RMN_EREFUSED, msg);
		return;
	}
	if (s->fd_of[rank] >= 0) {
		snprintf(msg, sizeof(msg),
			 "rank %u connected twice (two tasks with the same "
			 "RANK?)", rank);
		refuse(s, i, RMN_EREFUSED, msg);
		return;
	}
	if (s->digest[0] && dig[0] &&
	    memcmp(dig, s->digest, DIGEST_LEN) != 0) {
		char theirs[DIGEST_LEN + 1], ours[DIGEST_LEN + 1], q[96];
		memcpy(theirs, dig, DIGEST_LEN);
		theirs[DIGEST_LEN] = '\0';
		memcpy(ours, s->digest, DIGEST_LEN);
		ours[DIGEST_LEN] = '\0';
		snprintf(s->why, sizeof(s->why),
			 "rank %u has map digest %s but rank 0 has %.16s...: "
			 "the ranks read different map files", rank,
			 rmi_quote(theirs, 16, q, sizeof(q)), ours);
		refuse(s, i, RMN_EREFUSED, s->why);
		s->fatal = true;
		return;
	}
	s->fd_of[rank] = s->pending[i].fd;
	s->arrived++;
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
		s->pending[s->npending++] =
			(conn){ .fd = fd, .since = rmni_now_ms() };
	}
}

static void read_pending(root_state *s, const struct pollfd *pfd, size_t n)
{
	/* Walk backwards: drop_pending moves the last entry into slot i. */
	for (size_t k = n; k-- > 0;) {
		if (!pfd[k].revents || k >= s->npending ||
		    pfd[k].fd != s->pending[k].fd)
			continue;
		conn *c = &s->pending[k];
		ssize_t r = recv(c->fd, c->hello + c->got, HELLO_LEN - c->got,
				 0);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
			drop_pending(s, k);
			continue;
		}
		if (r > 0 && (c->got += (size_t)r) == HELLO_LEN)
			welcome(s, k);
	}
}

static void tell_all(root_state *s, uint32_t status, const void *body,
		     size_t len, int64_t deadline, uint32_t *failed)
{
	for (uint32_t r = 1; r < s->o->nranks; r++) {
		if (s->fd_of[r] < 0)
			continue;
		unsigned char head[ANSWER_HEAD];
		memcpy(head, MAGIC, MAGIC_LEN);
		put32(head + MAGIC_LEN, status);
		put32(head + MAGIC_LEN + 4, (uint32_t)len);
		if ((!send_all(s->fd_of[r], head, sizeof(head), deadline) ||
		     !send_all(s->fd_of[r], body, len, deadline)) &&
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
		if (s->fd_of[r] < 0)
			miss[k++] = r;
	rmni_ranges(miss, k, list, sizeof(list));
	free(miss);
	snprintf(s->why, sizeof(s->why),
		 "rank%s %s (%u of %u) did not reach rank 0 on port %u "
		 "within %.1f s",
		 nmiss > 1 ? "s" : "", list, nmiss, s->o->nranks, s->o->port,
		 s->o->timeout_ms / 1000.0);
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
	while (s->arrived + 1 < s->o->nranks && !s->fatal &&
	       rmni_now_ms() < deadline) {
		for (size_t i = 0; i < s->npending; i++)
			pfd[i] = (struct pollfd){ .fd = s->pending[i].fd,
						  .events = POLLIN };
		size_t n = s->npending;
		bool full = n >= s->cap;
		/* A full table stops watching the door (no busy loop) and
		 * looks for silent connections to drop about once a second. */
		pfd[n] = (struct pollfd){ .fd = s->lfd,
					  .events = full ? 0 : POLLIN };
		if (poll(pfd, n + 1, remaining(deadline)) < 0)
			continue;
		read_pending(s, pfd, n);
		if (pfd[n].revents || full)
			accept_new(s);
	}
	free(pfd);
	close(s->lfd);
	s->lfd = -1;

	int64_t tell_by = rmni_now_ms() + 5000;
	if (s->fatal) {
		tell_all(s, RMN_EREFUSED, s->why, strlen(s->why), tell_by,
			 NULL);
		return rmni_err(err, RMN_EREFUSED, "%s", s->why);
	}
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

static rmn_status root(const rmn_exchange_opts *o, const void *blob,
		       size_t len, int64_t deadline, rmn_error *err)
{
	root_state s = { .o = o, .len = len, .lfd = -1 };
	rmn_status st = fd_limit(o->nranks, err);
	if (st != RMN_OK)
		return st;
	digest_field(o->digest, s.digest);
	s.cap = SPARE_CONNS + (o->nranks < 4096 ? o->nranks : 4096);
	s.pending = malloc(sizeof(*s.pending) * s.cap);
	s.fd_of = malloc(sizeof(*s.fd_of) * o->nranks);
	if (!s.pending || !s.fd_of) {
		st = rmni_err(err, RMN_ENOMEM, "out of memory");
	} else {
		for (uint32_t r = 0; r < o->nranks; r++)
			s.fd_of[r] = -1;
		st = run_root(&s, blob, deadline, err);
	}
	if (s.fd_of)
		for (uint32_t r = 1; r < o->nranks; r++)
			if (s.fd_of[r] >= 0)
				close(s.fd_of[r]);
	for (size_t i = 0; s.pending && i < s.npending; i++)
		close(s.pending[i].fd);
	free(s.pending);
	free(s.fd_of);
	return st;
}

/* ------------------------------------------------------- other ranks */

/* Connect to any address of host:port before `until`; -1 on failure with
 * the last errno in *eno. */
static int try_connect(const struct addrinfo *ai, int64_t until, int *eno)
{
	for (; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family,
				SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			*eno = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			return fd;
		if (errno == EINPROGRESS) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			int soerr = ETIMEDOUT;
			socklen_t sl = sizeof(soerr);
			while (poll(&pfd, 1, remaining(until)) == 0 &&
			       rmni_now_ms() < until) {
			}
			if (pfd.revents &&
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) ==
				    0 &&
			    soerr == 0)
				return fd;
			*eno = soerr;
		} else {
			*eno = errno;
		}
		close(fd);
	}
	return -1;
}

static rmn_status resolve(const rmn_exchange_opts *o, int64_t deadline,
			  struct addrinfo **ai, rmn_error *err)
{
	char port[8], q[300];
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	snprintf(port, sizeof(port), "%u", o->port);
	for (;;) {
		int rc = getaddrinfo(o->host, port, &hints, ai);
		if (rc == 0)
			return RMN_OK;
		if (rc != EAI_AGAIN || rmni_now_ms() >= deadline)
			return rmni_err(err, RMN_ENET,
					"cannot resolve rank 0's host %s: %s",
					rmi_quote(o->host, 256, q, sizeof(q)),
					gai_strerror(rc));
		poll(NULL, 0, 200);
	}
}

static rmn_status read_answer(int fd, const rmn_exchange_opts *o,
			      const char *where, void *blob, size_t len,
			      int64_t deadline, rmn_error *err)
{
	unsigned char head[ANSWER_HEAD];
	int rc = recv_all(fd, head, sizeof(head), deadline);
	if (rc == -2)
		return rmni_err(err, RMN_ETIMEOUT,
				"rank %u: rank 0 at %s did not answer within "
				"%.1f s (are all %u ranks running?)",
				o->rank, where, o->timeout_ms / 1000.0,
				o->nranks);
	if (rc != 1 || memcmp(head, MAGIC, MAGIC_LEN) != 0)
		return rmni_err(err, RMN_ENET,
				"rank %u: no valid answer from %s (%s; is "
				"another service using this port?)",
				o->rank, where,
				rc == 0 ? "connection closed" :
				rc < 0	? strerror(errno) :
					  "wrong protocol");
	uint32_t status = get32(head + MAGIC_LEN);
	uint32_t blen = get32(head + MAGIC_LEN + 4);
	if (status == RMN_OK) {
		if (blen != len || recv_all(fd, blob, len, deadline) != 1)
			return rmni_err(err, RMN_ENET,
					"rank %u: rank 0 at %s sent a %u-byte "
					"id, expected %zu",
					o->rank, where, blen, len);
		return RMN_OK;
	}
	char msg[ANSWER_MSG_MAX + 1], q[ANSWER_MSG_MAX + 64];
	if (blen > ANSWER_MSG_MAX ||
	    recv_all(fd, msg, blen, deadline) != 1)
		blen = 0;
	msg[blen] = '\0';
	if (status != RMN_ETIMEOUT && status != RMN_EREFUSED)
		status = RMN_EREFUSED;
	return rmni_err(err, (rmn_status)status,
			"rank %u: rank 0 at %s refused: %s", o->rank, where,
			rmi_quote(msg, blen, q, sizeof(q)));
}

static rmn_status peer(const rmn_exchange_opts *o, void *blob, size_t len,
		       int64_t deadline, rmn_error *err)
{
	char where[300], q[280];
	snprintf(where, sizeof(where), "%s:%u",
		 rmi_quote(o->host, 256, q, sizeof(q)), o->port);
	struct addrinfo *ai = NULL;
	rmn_status st = resolve(o, deadline, &ai, err);
	if (st != RMN_OK)
		return st;
	int fd = -1, eno = ECONNREFUSED;
	/* Rank 0 may start later than us: retry, backing off to 1 s. */
	for (int wait = 20; fd < 0; wait = wait < 500 ? wait * 2 : 1000) {
		int64_t now = rmni_now_ms();
		if (now >= deadline)
			break;
		fd = try_connect(ai, now + 2000 < deadline ? now + 2000 :
							     deadline,
				 &eno);
		if (fd < 0)
			poll(NULL, 0, remaining(now + wait));
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return rmni_err(err, RMN_ETIMEOUT,
				"rank %u could not reach rank 0 at %s within "
				"%.1f s (last error: %s)",
				o->rank, where, o->timeout_ms / 1000.0,
				strerror(eno));
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	unsigned char hello[HELLO_LEN];
	memcpy(hello, MAGIC, MAGIC_LEN);
	put32(hello + MAGIC_LEN, o->rank);
	put32(hello + MAGIC_LEN + 4, o->nranks);
	put32(hello + MAGIC_LEN + 8, (uint32_t)len);
	digest_field(o->digest, hello + MAGIC_LEN + 12);
	/* Rank 0's own deadline may run a little after ours (it may have
	 * started later); wait a little longer for its verdict. */
	int64_t answer_by = deadline + 2000 + o->timeout_ms / 20;
	if (!send_all(fd, hello, sizeof(hello), answer_by))
		st = rmni_err(err, RMN_ENET,
			      "rank %u: sending to rank 0 at %s failed: %s",
			      o->rank, where, strerror(errno));
	else
		st = read_answer(fd, o, where, blob, len, answer_by, err);
	close(fd);
	return st;
}

rmn_status rmn_exchange(const rmn_exchange_opts *o, void *blob, size_t len,
			rmn_error *err)
{
	if (!o || !blob || !len || len > RMN_BLOB_MAX)
		return rmni_err(err, RMN_EINPUT,
				"exchange: blob of %zu bytes (1..%d allowed)",
				len, RMN_BLOB_MAX);
	if (o->nranks == 0 || o->nranks > RM_MAX_WORLD ||
	    o->rank >= o->nranks)
		return rmni_err(err, RMN_EINPUT,
				"exchange: rank %u of a world of %u", o->rank,
				o->nranks);
	if (o->nranks == 1)
		return RMN_OK;
	if (!o->port)
		return rmni_err(err, RMN_EINPUT, "exchange: no port");
	if (o->rank != 0 && (!o->host || !*o->host))
		return rmni_err(err, RMN_EINPUT,
				"exchange: rank 0's host is not known "
				"(MASTER_ADDR)");
	rmn_exchange_opts eff = *o;
	if (!eff.timeout_ms)
		eff.timeout_ms = RMN_DEFAULT_TIMEOUT_MS;
	int64_t deadline = rmni_now_ms() + eff.timeout_ms;
	if (o->rank == 0)
		return root(&eff, blob, len, deadline, err);
	return peer(&eff, blob, len, deadline, err);
}
