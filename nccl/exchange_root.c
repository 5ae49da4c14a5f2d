/*
 * exchange_root.c - rank 0's side of the id exchange: listen, collect a
 * hello from every rank, then answer all of them at once.
 */
#include "exchange.h"

#include <errno.h>
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
	rmni_answer(s->pending[i].fd, status, msg, strlen(msg),
	       rmni_now_ms() + 1000);
	drop_pending(s, i);
}

/* A complete hello: take the rank in, or turn it away. */
static void welcome(root_state *s, size_t i)
{
	const unsigned char *h = s->pending[i].hello;
	uint32_t rank = rmni_get32(h + MAGIC_LEN);
	uint32_t nranks = rmni_get32(h + MAGIC_LEN + 4);
	uint32_t len = rmni_get32(h + MAGIC_LEN + 8);
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
		if (!rmni_answer(s->fd_of[r], status, body, len, deadline) &&
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

rmn_status rmni_exchange_root(const rmn_exchange_opts *o, const void *blob,
			      size_t len, int64_t deadline, rmn_error *err)
{
	root_state s = { .o = o, .len = len, .lfd = -1 };
	rmn_status st = fd_limit(o->nranks, err);
	if (st != RMN_OK)
		return st;
	rmni_digest_field(o->digest, s.digest);
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

