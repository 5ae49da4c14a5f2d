/* SPDX-License-Identifier: Apache-2.0 */
/*
 * notice.c - a node's refusal, told to srun so that srun says it last.
 *
 * When a node cancels the step, srun goes on to print a line per node
 * ("srun: error: node2: tasks 8-15: Killed"), so the node's own reason
 * scrolls away above them, or never shows when the cancel kills the
 * refusing node's tasks before they print it. So srun listens on a TCP
 * port of its own for the step (the nodes reach srun's host already: it is
 * SLURM_SRUN_COMM_HOST in the step's environment) and hands the port and a
 * random token to the nodes with the stamp (SLURM_* variables pass even
 * with --export=NONE). A refusing node connects, sends "TOKEN reason" and
 * closes; the kernel queues it however busy srun is, and srun's exit
 * callback, which runs after the last task's exit line, reads what is
 * queued and prints it. Nothing is read that does not carry the token;
 * nothing is waited for on a step that went well.
 */
#include "plugin.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NOTICE_ENV "SLURM_RANKMAP_NOTICE"
#define TOKEN_BYTES 16
#define MAX_SHOWN 4
/* A node gives up on srun after this; only a refusal ever waits on it. */
#define CONNECT_MS 1000
/* A node's notice is sent and closed before srun's exit callback runs, so
 * its bytes wait in the kernel: a connection silent this long is not one. */
#define READ_MS 50
/* srun's exit reads for no longer than this in all, whatever connects and
 * however slowly it sends (issue 38: one byte every 150 ms from another
 * user once held srun's exit for 160 s); refusals were queued long
 * before. */
#define MAX_CONNS 64
#define TOTAL_MS 1000

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int listen_on(int family)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_storage a;
	memset(&a, 0, sizeof(a));
	socklen_t len;
	if (family == AF_INET6) {
		int off = 0;
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off,
				 sizeof(off));
		((struct sockaddr_in6 *)&a)->sin6_family = AF_INET6;
		len = sizeof(struct sockaddr_in6);
	} else {
		((struct sockaddr_in *)&a)->sin_family = AF_INET;
		len = sizeof(struct sockaddr_in);
	}
	if (bind(fd, (struct sockaddr *)&a, len) != 0 || listen(fd, 64) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

bool rms_notice_listen(void)
{
	unsigned char b[TOKEN_BYTES];
	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return false;
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(rms_g.notice_token + 2 * i, 3, "%02x", b[i]);
	int fd = listen_on(AF_INET6);
	if (fd < 0)
		fd = listen_on(AF_INET);
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	if (fd < 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	unsigned port = ntohs(a.ss_family == AF_INET6
				      ? ((struct sockaddr_in6 *)&a)->sin6_port
				      : ((struct sockaddr_in *)&a)->sin_port);
	char val[64];
	snprintf(val, sizeof(val), "%u %s", port, rms_g.notice_token);
	if (setenv(NOTICE_ENV, val, 1) != 0) {
		close(fd);
		return false;
	}
	rms_g.notice_fd = fd;
	return true;
}

/*
 * One queued notice: the reason, if it carries our token. The token is the
 * step's secret (only the step's own tasks see it in their environment),
 * so a connection whose first bytes differ from it is dropped at once, and
 * none is read past `deadline`.
 */
static bool read_one(int fd, int64_t deadline, char *out, size_t outlen)
{
	char buf[RMS_ERRLEN + 64];
	size_t got = 0, t = strlen(rms_g.notice_token);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	for (;;) {
		int64_t left = deadline - now_ms();
		if (got >= sizeof(buf) - 1 || left <= 0 ||
		    poll(&p, 1, left < READ_MS ? (int)left : READ_MS) <= 0)
			break;
		ssize_t k = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (k <= 0)
			break;
		size_t cmp = got + (size_t)k < t ? got + (size_t)k : t;
		got += (size_t)k;
		if (strncmp(buf, rms_g.notice_token, cmp) != 0)
			return false;             /* a stranger: not one more byte */
		if (memchr(buf, '\n', got))
			break;
	}
	buf[got] = '\0';
	if (got <= t + 1 || strncmp(buf, rms_g.notice_token, t) ||
	    buf[t] != ' ')
		return false;
	size_t n = 0;
	for (const char *s = buf + t + 1; *s && *s != '\n' && n + 1 < outlen;
	     s++)
		out[n++] = (*s >= ' ' && *s != 0x7f) ? *s : '?';
	out[n] = '\0';
	return n > 0;
}

/* Returns how many refusals were read: a step with one was cancelled. */
size_t rms_notice_print(void)
{
	if (rms_g.notice_fd < 0)
		return 0;
	char shown[MAX_SHOWN][RMS_ERRLEN];
	size_t nshown = 0, more = 0;
	int64_t deadline = now_ms() + TOTAL_MS;
	for (int c, n = 0; n < MAX_CONNS && now_ms() < deadline &&
			   (c = accept4(rms_g.notice_fd, NULL, NULL,
					SOCK_CLOEXEC)) >= 0;
	     n++) {
		char msg[RMS_ERRLEN];
		bool ok = read_one(c, deadline, msg, sizeof(msg));
		close(c);
		if (!ok)
			continue;
		bool seen = false;
		for (size_t i = 0; i < nshown && !seen; i++)
			seen = !strcmp(shown[i], msg);
		if (seen)
			continue;
		if (nshown == MAX_SHOWN) {
			more++;
			continue;
		}
		snprintf(shown[nshown++], RMS_ERRLEN, "%s", msg);
	}
	close(rms_g.notice_fd);
	rms_g.notice_fd = -1;
	if (more)
		slurm_error(RMS_PREFIX "%zu more node(s) refused the step too",
			    more);
	/* The first refusal last: it is the one that cancelled the step. */
	for (size_t i = nshown; i-- > 0;)
		slurm_error(RMS_PREFIX "%s", shown[i]);
	return nshown + more;
}

bool rms_notice_send(spank_t sp, const char *msg)
{
	char val[64], host[256];
	unsigned port = 0;
	char token[2 * TOKEN_BYTES + 1];
	if (spank_getenv(sp, NOTICE_ENV, val, sizeof(val)) != ESPANK_SUCCESS ||
	    spank_getenv(sp, "SLURM_SRUN_COMM_HOST", host, sizeof(host)) !=
		    ESPANK_SUCCESS ||
	    sscanf(val, "%5u %32[0-9a-f]", &port, token) != 2 || !port ||
	    port > 65535 || strlen(token) != 2 * TOKEN_BYTES)
		return false;
	char service[8];
	snprintf(service, sizeof(service), "%u", port);
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	if (getaddrinfo(host, service, &hints, &ai) != 0 || !ai)
		return false;
	bool sent = false;
	int fd = socket(ai->ai_family,
			SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int err = 0;
		socklen_t len = sizeof(err);
		if ((connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ||
		     (errno == EINPROGRESS && poll(&p, 1, CONNECT_MS) == 1 &&
		      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
		      err == 0))) {
			char line[RMS_ERRLEN + 64];
			int n = snprintf(line, sizeof(line), "%s %s\n", token,
					 msg);
			if (n > 0 && (size_t)n < sizeof(line))
				sent = send(fd, line, (size_t)n,
					    MSG_NOSIGNAL) == n;
		}
		close(fd);
	}
	freeaddrinfo(ai);
	return sent;
}

void rms_notice_unset(spank_t sp)
{
	(void)spank_unsetenv(sp, NOTICE_ENV);
}
