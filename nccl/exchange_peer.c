/*
 * exchange_peer.c - the other ranks' side of the id exchange: reach rank 0
 * (which may start later), say hello, wait for the verdict.
 */
#include "exchange.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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
			while (poll(&pfd, 1, rmni_wait_ms(until)) == 0 &&
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
	int rc = rmni_recv_all(fd, head, sizeof(head), deadline);
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
	uint32_t status = rmni_get32(head + MAGIC_LEN);
	uint32_t blen = rmni_get32(head + MAGIC_LEN + 4);
	if (status == RMN_OK) {
		if (blen != len || rmni_recv_all(fd, blob, len, deadline) != 1)
			return rmni_err(err, RMN_ENET,
					"rank %u: rank 0 at %s sent a %u-byte "
					"id, expected %zu",
					o->rank, where, blen, len);
		return RMN_OK;
	}
	char msg[ANSWER_MSG_MAX + 1], q[ANSWER_MSG_MAX + 64];
	if (blen > ANSWER_MSG_MAX ||
	    rmni_recv_all(fd, msg, blen, deadline) != 1)
		blen = 0;
	msg[blen] = '\0';
	if (status != RMN_ETIMEOUT && status != RMN_EREFUSED)
		status = RMN_EREFUSED;
	return rmni_err(err, (rmn_status)status,
			"rank %u: rank 0 at %s refused: %s", o->rank, where,
			rmi_quote(msg, blen, q, sizeof(q)));
}

rmn_status rmni_exchange_peer(const rmn_exchange_opts *o, void *blob,
			      size_t len, int64_t deadline, rmn_error *err)
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
			poll(NULL, 0, rmni_wait_ms(now + wait));
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
	rmni_put32(hello + MAGIC_LEN, o->rank);
	rmni_put32(hello + MAGIC_LEN + 4, o->nranks);
	rmni_put32(hello + MAGIC_LEN + 8, (uint32_t)len);
	rmni_digest_field(o->digest, hello + MAGIC_LEN + 12);
	/* Rank 0's own deadline may run a little after ours (it may have
	 * started later); wait a little longer for its verdict. */
	int64_t answer_by = deadline + 2000 + o->timeout_ms / 20;
	if (!rmni_send_all(fd, hello, sizeof(hello), answer_by))
		st = rmni_err(err, RMN_ENET,
			      "rank %u: sending to rank 0 at %s failed: %s",
			      o->rank, where, strerror(errno));
	else
		st = read_answer(fd, o, where, blob, len, answer_by, err);
	close(fd);
	return st;
}

