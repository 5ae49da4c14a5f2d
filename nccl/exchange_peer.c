/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exchange_peer.c - the other ranks' side of the id exchange: reach rank 0
 * (which may start later), answer its challenge, wait for the verdict and
 * believe it only when it proves it comes from rank 0 of this step.
 * Anything else on the port (an impostor, a stranger, a rank 0 of another
 * step) is noted and the rank tries again until its deadline.
 */
#include "exchange.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sodium.h>
#include <stdlib.h>
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
					rm_quote(o->host, 256, q, sizeof(q)),
					gai_strerror(rc));
		poll(NULL, 0, 200);
	}
}

typedef struct attempt {
	const rmn_exchange_opts *o;
	rmni_auth *a;
	const char *where;
	void *blob;
	size_t len;
	int64_t answer_by;
	char why[ANSWER_MSG_MAX + 128];   /* why this try did not count */
	/* the last unauthenticated answer: the one failure worth naming
	 * when a later try only finds the impostor's socket closed */
	char forged[ANSWER_MSG_MAX + 128];
} attempt;

/* 1: done (RMN_OK or an authentic refusal in *st), 0: try again
 * (a->why says why), -1: time-out waiting for the verdict. */
static int read_answer(attempt *t, int fd, const rmni_bind *b,
		       rmn_status *st, rmn_error *err)
{
	unsigned char head[ANSWER_HEAD], *body = NULL, *proof = NULL;
	unsigned char content[RMN_BLOB_MAX + 1];
	rmni_answer an;
	int rc = rmni_recv_all(fd, head, sizeof(head), t->answer_by);
	if (rc == -2)
		return -1;
	if (rc != 1 || !rmni_answer_parse(head, &an)) {
		snprintf(t->why, sizeof(t->why), "no valid answer (%s)",
			 rc == 0 ? "connection closed" :
			 rc < 0	 ? strerror(errno) :
				   "wrong protocol");
		return 0;
	}
	body = malloc(an.bodylen ? an.bodylen : 1);
	proof = malloc(an.prooflen ? an.prooflen : 1);
	int res = 0;
	char why[256] = "";
	size_t clen = 0;
	if (!body || !proof ||
	    (an.bodylen &&
	     rmni_recv_all(fd, body, an.bodylen, t->answer_by) != 1) ||
	    (an.prooflen &&
	     rmni_recv_all(fd, proof, an.prooflen, t->answer_by) != 1)) {
		snprintf(t->why, sizeof(t->why), "answer cut short");
	} else if (!rmni_open_answer(t->a, b, an.status, body, an.bodylen,
				     proof, an.prooflen, content,
				     sizeof(content) - 1, &clen, why,
				     sizeof(why))) {
		char q[ANSWER_MSG_MAX + 64];
		/* Not from rank 0 of this step: its words are not trusted,
		 * only shown. */
		if (an.status && an.bodylen <= ANSWER_MSG_MAX)
			snprintf(t->why, sizeof(t->why),
				 "an unauthenticated answer (%s) saying %s", why,
				 rm_quote((const char *)body, an.bodylen, q,
					   sizeof(q)));
		else
			snprintf(t->why, sizeof(t->why),
				 "an unauthenticated answer (%s)", why);
		memcpy(t->forged, t->why, sizeof(t->forged));
		if (t->o->log) {
			char line[sizeof(t->why) + 400];
			snprintf(line, sizeof(line),
				 "rank %u: ignored %s from %s", t->o->rank,
				 t->why, t->where);
			t->o->log(t->o->log_arg, line);
		}
	} else if (an.status == RMN_OK) {
		if (clen != t->len) {
			snprintf(t->why, sizeof(t->why),
				 "rank 0 sent a %zu-byte id, expected %zu",
				 clen, t->len);
		} else {
			memcpy(t->blob, content, clen);
			*st = RMN_OK;
			res = 1;
		}
	} else {
		char q[ANSWER_MSG_MAX + 64];
		rmn_status code = an.status == RMN_ETIMEOUT ? RMN_ETIMEOUT
							    : RMN_EREFUSED;
		*st = rmni_err(err, code, "rank %u: rank 0 at %s refused: %s",
			       t->o->rank, t->where,
			       rm_quote((const char *)content, clen, q,
					 sizeof(q)));
		res = 1;
	}
	/* The id, and without authentication the body holding it too. */
	sodium_memzero(content, sizeof(content));
	if (body)
		sodium_memzero(body, an.bodylen);
	free(body);
	free(proof);
	return res;
}

/* One connection: challenge, hello, answer. Same returns as above. */
static int one_try(attempt *t, int fd, rmn_status *st, rmn_error *err)
{
	unsigned char ch[CHALLENGE_LEN], head[HELLO_HEAD];
	unsigned char proof[RMNI_PROOF_MAX];
	uint32_t mode = 0;
	rmni_bind b;
	rmni_hello h = { .rank = t->o->rank, .nranks = t->o->nranks,
			 .len = (uint32_t)t->len, .jobid = t->a->jobid,
			 .stepid = t->a->stepid };
	int rc = rmni_recv_all(fd, ch, sizeof(ch), t->answer_by);
	if (rc == -2)
		return -1;
	if (rc != 1 || !rmni_challenge_parse(ch, &mode, b.root_nonce)) {
		snprintf(t->why, sizeof(t->why),
			 "no rankmap-nccl rank 0 there (%s)",
			 rc == 1 ? "wrong protocol" : "connection closed");
		return 0;
	}
	char why[200];
	if (!rmni_auth_follow(t->a, mode, why, sizeof(why))) {
		snprintf(t->why, sizeof(t->why), "rank 0 there: %s", why);
		return 0;
	}
	h.mode = (uint32_t)t->a->mode;
	rmni_digest_field(t->o->digest, h.digest);
	if (!rmni_nonce(h.nonce)) {
		*st = rmni_err(err, RMN_ENET, "rank %u: no random numbers "
					      "for a nonce", t->o->rank);
		return 1;
	}
	unsigned char root_nonce[RMNI_NONCE_LEN];
	memcpy(root_nonce, b.root_nonce, RMNI_NONCE_LEN);
	rmni_hello_bind(&h, root_nonce, &b);
	size_t plen = 0;
	rmn_status ps = rmni_prove_hello(t->a, &b, proof, &plen, err);
	if (ps != RMN_OK) {
		*st = ps;
		return 1;
	}
	h.prooflen = (uint32_t)plen;
	rmni_hello_write(head, &h);
	if (!rmni_send_all(fd, head, sizeof(head), t->answer_by) ||
	    (plen && !rmni_send_all(fd, proof, plen, t->answer_by))) {
		snprintf(t->why, sizeof(t->why), "sending the hello failed: %s",
			 strerror(errno));
		return 0;
	}
	return read_answer(t, fd, &b, st, err);
}

rmn_status rmni_exchange_peer(const rmn_exchange_opts *o, rmni_auth *a,
			      void *blob, size_t len, int64_t deadline,
			      rmn_error *err)
{
	char where[300], q[280];
	snprintf(where, sizeof(where), "%s:%u",
		 rm_quote(o->host, 256, q, sizeof(q)), o->port);
	struct addrinfo *ai = NULL;
	rmn_status st = resolve(o, deadline, &ai, err);
	if (st != RMN_OK)
		return st;
	/* Rank 0's own deadline may run a little after ours (it may have
	 * started later); wait a little longer for its verdict. */
	attempt t = { .o = o, .a = a, .where = where, .blob = blob,
		      .len = len,
		      .answer_by = deadline + 2000 + o->timeout_ms / 20 };
	int eno = ECONNREFUSED;
	bool reached = false;
	/* Rank 0 may start later than us, and something else may answer
	 * first: retry, backing off to 1 s. */
	for (int wait = 20;; wait = wait < 500 ? wait * 2 : 1000) {
		int64_t now = rmni_now_ms();
		if (now >= deadline)
			break;
		int fd = try_connect(ai, now + 2000 < deadline ? now + 2000 :
							       deadline,
				     &eno);
		if (fd >= 0) {
			int one = 1;
			reached = true;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			int rc = one_try(&t, fd, &st, err);
			close(fd);
			if (rc == 1) {
				freeaddrinfo(ai);
				return st;
			}
			if (rc == -1) {
				snprintf(t.why, sizeof(t.why),
					 "rank 0 did not answer");
				break;
			}
		}
		poll(NULL, 0, rmni_wait_ms(rmni_now_ms() + wait));
	}
	freeaddrinfo(ai);
	if (!reached)
		return rmni_err(err, RMN_ETIMEOUT,
				"rank %u could not reach rank 0 at %s within "
				"%.1f s (last error: %s)",
				o->rank, where, o->timeout_ms / 1000.0,
				strerror(eno));
	if (!strcmp(t.why, "rank 0 did not answer"))
		return rmni_err(err, RMN_ETIMEOUT,
				"rank %u: rank 0 at %s did not answer within "
				"%.1f s (are all %u ranks running?)",
				o->rank, where, o->timeout_ms / 1000.0,
				o->nranks);
	return rmni_err(err, RMN_EAUTH,
			"rank %u: no authentic rank 0 at %s within %.1f s "
			"(authentication: %s); %s: %s",
			o->rank, where, o->timeout_ms / 1000.0,
			rmni_auth_name(a->mode), t.forged[0] ? "got" : "last",
			t.forged[0] ? t.forged : t.why);
}
