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
#include "exchange.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

void rmni_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

uint32_t rmni_get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

int rmni_wait_ms(int64_t deadline)
{
	int64_t left = deadline - rmni_now_ms();
	if (left < 0)
		return 0;
	return left > 1000 ? 1000 : (int)left;
}

/* Write all of buf before the deadline; false on error or time-out. */
bool rmni_send_all(int fd, const void *buf, size_t len, int64_t deadline)
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
		poll(&pfd, 1, rmni_wait_ms(deadline));
	}
	return true;
}

/* Read exactly len bytes before the deadline: 1 done, 0 closed early,
 * -1 error, -2 time-out. */
int rmni_recv_all(int fd, void *buf, size_t len, int64_t deadline)
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
		poll(&pfd, 1, rmni_wait_ms(deadline));
	}
	return 1;
}

void rmni_digest_field(const char *d, unsigned char *out)
{
	memset(out, 0, DIGEST_LEN);
	if (d) {
		size_t n = strnlen(d, DIGEST_LEN);
		memcpy(out, d, n);
	}
}

bool rmni_answer(int fd, uint32_t status, const void *body, size_t len,
		 int64_t deadline)
{
	unsigned char head[ANSWER_HEAD];
	memcpy(head, MAGIC, MAGIC_LEN);
	rmni_put32(head + MAGIC_LEN, status);
	rmni_put32(head + MAGIC_LEN + 4, (uint32_t)len);
	return rmni_send_all(fd, head, sizeof(head), deadline) &&
	       (!len || rmni_send_all(fd, body, len, deadline));
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
		return rmni_exchange_root(&eff, blob, len, deadline, err);
	return rmni_exchange_peer(&eff, blob, len, deadline, err);
}
