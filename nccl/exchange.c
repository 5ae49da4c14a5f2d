/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exchange.c - hand rank 0's ncclUniqueId to every rank over TCP.
 *
 * srun steps need not share a filesystem, so rank 0 listens on a port next
 * to MASTER_PORT, on the address the other nodes reach it by, and the
 * others connect. Each connection is a challenge, a hello and an answer
 * (exchange.h), authenticated both ways (auth.c). Rank 0 answers only
 * when every rank has said hello: then all ranks get the id, or all that
 * are connected get the same error. Every wait has a deadline (poll and
 * non-blocking connect), and a stranger on the port (a scanner, another
 * job, another user) is refused without disturbing the exchange.
 */
#include "exchange.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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

bool rmni_answer_send(int fd, const rmni_auth *a, const rmni_bind *b,
		      uint32_t status, const void *content, size_t len,
		      int64_t deadline)
{
	unsigned char head[ANSWER_HEAD];
	unsigned char *body = NULL, *proof = NULL;
	size_t blen = len, plen = 0;
	if (a && rmni_seal_answer(a, b, status, content, len, &body, &blen,
				  &proof, &plen, NULL) != RMN_OK)
		return false;
	memcpy(head, MAGIC, MAGIC_LEN);
	rmni_put32(head + MAGIC_LEN, status);
	rmni_put32(head + MAGIC_LEN + 4, (uint32_t)blen);
	rmni_put32(head + MAGIC_LEN + 8, (uint32_t)plen);
	const void *bp = a ? body : content;
	bool ok = rmni_send_all(fd, head, sizeof(head), deadline) &&
		  (!blen || rmni_send_all(fd, bp, blen, deadline)) &&
		  (!plen || rmni_send_all(fd, proof, plen, deadline));
	/* Without authentication the body is the id in clear. */
	if (body)
		sodium_memzero(body, blen);
	free(body);
	free(proof);
	return ok;
}

void rmni_peer_name(int fd, char *out, size_t cap)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char addr[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
			inet_ntop(AF_INET, &a4->sin_addr, addr, sizeof(addr));
			port = ntohs(a4->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
			inet_ntop(AF_INET6, &a6->sin6_addr, addr, sizeof(addr));
			port = ntohs(a6->sin6_port);
		}
	}
	snprintf(out, cap, "%s:%u", addr, port);
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
	rmni_auth a;
	rmn_status st = rmni_auth_setup(&eff, &a, err);
	if (st == RMN_OK) {
		int64_t deadline = rmni_now_ms() + eff.timeout_ms;
		if (o->rank == 0)
			st = rmni_exchange_root(&eff, &a, blob, len, deadline,
						err);
		else
			st = rmni_exchange_peer(&eff, &a, blob, len, deadline,
						err);
	}
	/* The secret and its derived keys, also when the set-up refused
	 * after copying them; a memset here would be a dead store. */
	sodium_memzero(&a, sizeof(a));
	return st;
}
