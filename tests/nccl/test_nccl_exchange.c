/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_nccl_exchange.c - the ncclUniqueId exchange between real processes
 * over TCP on 127.0.0.1: every rank is a fork'ed child that reports what
 * rmn_exchange gave it through a pipe. Ranks authenticate with HMAC and
 * the step's secret K1 unless a test says otherwise; an attacker is a
 * process without it (or with another step's secret, or a raw socket).
 */
#include "test.h"
#include "nccl_fixture.h"
#include "rankmap_nccl.h"
#include "auth.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ID_LEN 128
#define MAXP 40

typedef struct result {
	int code;
	unsigned char blob[ID_LEN];
	char msg[1024];
} result;

typedef struct task {
	uint32_t rank, nranks;
	const char *digest;
	int delay_ms;                /* start late */
	uint32_t timeout_ms;
	const unsigned char *secret; /* NULL: K1 */
	uint32_t jobid;              /* 0: job 7 */
	const unsigned char *blob;   /* rank 0's; NULL: root_blob() */
} task;

static const unsigned char K1[RMN_SECRET_LEN] = "step secret of job 7, step 0...";
static const unsigned char K2[RMN_SECRET_LEN] = "an attacker's own secret.......";

static const char *D1 =
	"1111111111111111111111111111111111111111111111111111111111111111";
static const char *D2 =
	"2222222222222222222222222222222222222222222222222222222222222222";

static void root_blob(unsigned char *b)
{
	for (int i = 0; i < ID_LEN; i++)
		b[i] = (unsigned char)(i * 7 + 3);
}

static pid_t spawn(const task *t, uint16_t port, int *rfd)
{
	int wfd = -1;
	pid_t pid = fork_piped(rfd, &wfd);
	if (pid == 0) {
		if (t->delay_ms)
			poll(NULL, 0, t->delay_ms);
		result r;
		memset(&r, 0, sizeof(r));
		if (t->rank == 0 && t->blob)
			memcpy(r.blob, t->blob, ID_LEN);
		else if (t->rank == 0)
			root_blob(r.blob);
		rmn_exchange_opts o = { .host = "127.0.0.1",
					.port = port,
					.rank = t->rank,
					.nranks = t->nranks,
					.digest = t->digest,
					.timeout_ms = t->timeout_ms,
					.auth = RMN_AUTH_HMAC,
					.secret = t->secret ? t->secret : K1,
					.jobid = t->jobid ? t->jobid : 7 };
		rmn_error e = { 0 };
		r.code = rmn_exchange(&o, r.blob, ID_LEN, &e);
		memcpy(r.msg, e.msg, sizeof(r.msg));
		if (write(wfd, &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(2);
		_exit(0);
	}
	return pid;
}

static void collect(int n, const pid_t *pid, const int *rfd, result *res)
{
	for (int i = 0; i < n; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		res[i].code = -1;
		size_t got = 0;
		while (got < sizeof(res[i])) {
			ssize_t k = read(rfd[i], (char *)&res[i] + got,
					 sizeof(res[i]) - got);
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		if (got != sizeof(res[i]))
			res[i].code = -1;
		close(rfd[i]);
		int status;
		waitpid(pid[i], &status, 0);
	}
}

static void run_tasks(int n, const task *t, uint16_t port, result *res)
{
	pid_t pid[MAXP];
	int rfd[MAXP];
	for (int i = 0; i < n; i++)
		pid[i] = spawn(&t[i], port, &rfd[i]);
	collect(n, pid, rfd, res);
}

static void all_ranks_get_the_id(void)
{
	task t[6];
	result r[6];
	unsigned char want[ID_LEN];
	root_blob(want);
	for (int i = 0; i < 6; i++)
		/* Rank 0 comes last: the others must keep retrying. */
		t[i] = (task){ .rank = (uint32_t)(5 - i), .nranks = 6,
			       .digest = D1, .timeout_ms = 10000,
			       .delay_ms = i == 5 ? 300 : 0 };
	run_tasks(6, t, free_port(), r);
	for (int i = 0; i < 6; i++) {
		CHECK_INT(r[i].code, RMN_OK);
		CHECK(memcmp(r[i].blob, want, ID_LEN) == 0);
		if (r[i].code != RMN_OK)
			printf("  rank %u: %s\n", t[i].rank, r[i].msg);
	}
}

static void many_ranks_at_once(void)
{
	task t[32];
	result r[32];
	unsigned char want[ID_LEN];
	root_blob(want);
	for (int i = 0; i < 32; i++)
		t[i] = (task){ .rank = (uint32_t)i, .nranks = 32,
			       .digest = D1, .timeout_ms = 20000 };
	run_tasks(32, t, free_port(), r);
	int ok = 0;
	for (int i = 0; i < 32; i++)
		ok += r[i].code == RMN_OK &&
		      memcmp(r[i].blob, want, ID_LEN) == 0;
	CHECK_INT(ok, 32);
}

static void a_missing_peer_times_out_by_name(void)
{
	task t[3] = {
		{ .rank = 0, .nranks = 4, .digest = D1, .timeout_ms = 1000 },
		{ .rank = 1, .nranks = 4, .digest = D1, .timeout_ms = 1000 },
		{ .rank = 3, .nranks = 4, .digest = D1, .timeout_ms = 1000 },
	};
	result r[3];
	time_t t0 = time(NULL);
	run_tasks(3, t, free_port(), r);
	CHECK(time(NULL) - t0 < 15);
	CHECK_INT(r[0].code, RMN_ETIMEOUT);
	CHECK_HAS(r[0].msg, "rank 2 (1 of 4) did not reach rank 0");
	/* The ranks that came are told why, by rank 0. */
	for (int i = 1; i < 3; i++) {
		CHECK_INT(r[i].code, RMN_ETIMEOUT);
		CHECK_HAS(r[i].msg, "rank 2 (1 of 4)");
	}
}

static void several_missing_are_listed_as_ranges(void)
{
	task t[2] = {
		{ .rank = 0, .nranks = 8, .timeout_ms = 500 },
		{ .rank = 4, .nranks = 8, .timeout_ms = 500 },
	};
	result r[2];
	run_tasks(2, t, free_port(), r);
	CHECK_INT(r[0].code, RMN_ETIMEOUT);
	CHECK_HAS(r[0].msg, "ranks 1-3, 5-7 (6 of 8)");
}

static void no_rank_zero_times_out(void)
{
	task t = { .rank = 1, .nranks = 2, .timeout_ms = 600 };
	result r;
	uint16_t port = free_port();
	run_tasks(1, &t, port, &r);
	CHECK_INT(r.code, RMN_ETIMEOUT);
	CHECK_HAS(r.msg, "could not reach rank 0 at '127.0.0.1':");
}

static void a_different_map_is_refused_alone(void)
{
	task t[3] = {
		{ .rank = 0, .nranks = 3, .digest = D1, .timeout_ms = 1200 },
		{ .rank = 1, .nranks = 3, .digest = D1, .timeout_ms = 1200 },
		{ .rank = 2, .nranks = 3, .digest = D2, .timeout_ms = 1200,
		  .delay_ms = 250 },
	};
	result r[3];
	run_tasks(3, t, free_port(), r);
	/* The rank with the other map hears why at once... */
	CHECK_INT(r[2].code, RMN_EREFUSED);
	CHECK_HAS(r[2].msg, "rank 2 has map digest \\x272222222222222222");
	CHECK_HAS(r[2].msg, "different map files");
	/* ...and does not stop the others: they wait for a right rank 2
	 * and time out naming it and the refusal. */
	CHECK_INT(r[0].code, RMN_ETIMEOUT);
	CHECK_HAS(r[0].msg, "rank 2 (1 of 3) did not reach rank 0");
	CHECK_HAS(r[0].msg, "1 connection refused, last: refused 127.0.0.1:");
	CHECK_INT(r[1].code, RMN_ETIMEOUT);
	CHECK_HAS(r[1].msg, "rank 2 (1 of 3)");
}

/* The map is right but the peer belongs to another job of this user
 * (same secret would be MUNGE's case): refused alone, named. */
static void another_job_does_not_abort(void)
{
	task t[4] = {
		{ .rank = 0, .nranks = 3, .digest = D1, .timeout_ms = 2500 },
		{ .rank = 2, .nranks = 3, .digest = D2, .timeout_ms = 2500,
		  .jobid = 8 },
		{ .rank = 2, .nranks = 3, .digest = D1, .timeout_ms = 2500,
		  .secret = K2, .jobid = 9 },
		{ .rank = 1, .nranks = 3, .digest = D1, .timeout_ms = 2500,
		  .delay_ms = 300 },
	};
	task real2 = { .rank = 2, .nranks = 3, .digest = D1,
		       .timeout_ms = 2500, .delay_ms = 600 };
	task all[5] = { t[0], t[1], t[2], t[3], real2 };
	result r[5];
	unsigned char want[ID_LEN];
	root_blob(want);
	run_tasks(5, all, free_port(), r);
	CHECK_INT(r[1].code, RMN_EREFUSED);
	CHECK_HAS(r[1].msg, "this is job 7 step 0, the peer is job 8 step 0");
	/* Another step's secret: no authentic rank 0 for it, ever. */
	CHECK_INT(r[2].code, RMN_EAUTH);
	CHECK_HAS(r[2].msg, "no authentic rank 0");
	CHECK(memcmp(r[2].blob, want, ID_LEN) != 0);
	for (int i = 0; i < 5; i += i == 0 ? 3 : 1) {
		CHECK_INT(r[i].code, RMN_OK);
		CHECK(memcmp(r[i].blob, want, ID_LEN) == 0);
		if (r[i].code)
			printf("  task %d: %s\n", i, r[i].msg);
	}
}

static void twice_the_same_rank_is_refused(void)
{
	task t[4] = {
		{ .rank = 0, .nranks = 3, .timeout_ms = 5000, .delay_ms = 200 },
		{ .rank = 1, .nranks = 3, .timeout_ms = 5000 },
		{ .rank = 1, .nranks = 3, .timeout_ms = 5000 },
		{ .rank = 2, .nranks = 3, .timeout_ms = 5000, .delay_ms = 500 },
	};
	result r[4];
	run_tasks(4, t, free_port(), r);
	CHECK_INT(r[0].code, RMN_OK);
	CHECK_INT(r[3].code, RMN_OK);
	CHECK_INT((r[1].code == RMN_OK) + (r[2].code == RMN_OK), 1);
	CHECK_HAS(r[1].code ? r[1].msg : r[2].msg, "rank 1 connected twice");
}

static void another_world_size_is_refused(void)
{
	task t[3] = {
		{ .rank = 0, .nranks = 2, .timeout_ms = 4000, .delay_ms = 100 },
		{ .rank = 1, .nranks = 5, .timeout_ms = 4000 },
		{ .rank = 1, .nranks = 2, .timeout_ms = 4000, .delay_ms = 400 },
	};
	result r[3];
	run_tasks(3, t, free_port(), r);
	CHECK_INT(r[1].code, RMN_EREFUSED);
	CHECK_HAS(r[1].msg, "rank 0 expects 2 ranks");
	CHECK_INT(r[0].code, RMN_OK);
	CHECK_INT(r[2].code, RMN_OK);
}

static int connect_to(uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	for (int i = 0; i < 100; i++) {
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
		poll(NULL, 0, 20);
	}
	close(fd);
	return -1;
}

/* The sockets a test opened to rank 0's port, closed when the ranks are
 * done (-1: none). */
typedef struct sockets {
	int fd[80];
	int n;
} sockets;

/*
 * Rank 0 of three, then `disturb` done to its port, then ranks 1 and 2
 * (delay_ms later, all with timeout_ms): every rank must still get the id.
 */
static void three_ranks_past(uint32_t timeout_ms, int delay_ms,
			     void (*disturb)(uint16_t port, sockets *s))
{
	task t[3];
	for (uint32_t i = 0; i < 3; i++)
		t[i] = (task){ .rank = i, .nranks = 3, .timeout_ms = timeout_ms,
			       .delay_ms = i ? delay_ms : 0 };
	uint16_t port = free_port();
	pid_t pid[3];
	int rfd[3];
	result r[3];
	sockets s = { .n = 0 };
	pid[0] = spawn(&t[0], port, &rfd[0]);
	disturb(port, &s);
	for (int i = 1; i < 3; i++)
		pid[i] = spawn(&t[i], port, &rfd[i]);
	collect(3, pid, rfd, r);
	for (int i = 0; i < 3; i++) {
		CHECK_INT(r[i].code, RMN_OK);
		if (r[i].code)
			printf("  rank %d: %s\n", i, r[i].msg);
	}
	for (int i = 0; i < s.n; i++)
		if (s.fd[i] >= 0)
			close(s.fd[i]);
}

/* A scanner that says garbage, one that says nothing, and one that hangs
 * up halfway through a hello. */
static void strangers(uint16_t port, sockets *s)
{
	int noisy = connect_to(port), silent = connect_to(port);
	int half = connect_to(port);
	char junk[200];
	memset(junk, 'A', sizeof(junk));
	CHECK(noisy >= 0 && silent >= 0 && half >= 0);
	if (noisy >= 0)
		CHECK(send(noisy, junk, sizeof(junk), MSG_NOSIGNAL) > 0);
	if (half >= 0) {
		CHECK(send(half, "RMNXCHG1\0\0", 10, MSG_NOSIGNAL) == 10);
		close(half);
	}
	s->fd[s->n++] = noisy;
	s->fd[s->n++] = silent;
}

static void strangers_do_not_disturb(void)
{
	three_ranks_past(5000, 300, strangers);
}

/* More silent sockets than rank 0 keeps pending (64 spare + one per rank):
 * the ranks wait in the backlog until the silent ones are dropped. */
static void silent_flood(uint16_t port, sockets *s)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	s->fd[0] = connect_to(port);     /* rank 0 is listening now */
	for (int i = 1; i < 80; i++) {
		/* Do not wait for rank 0 to take them in. */
		s->fd[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		connect(s->fd[i], (struct sockaddr *)&a, sizeof(a));
	}
	s->n = 80;
}

static void a_flood_of_silent_connections_is_survived(void)
{
	three_ranks_past(8000, 500, silent_flood);
}

/* A listener on a free port; *port set. */
static int listener(uint16_t *port)
{
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	bind(lfd, (struct sockaddr *)&a, sizeof(a));
	listen(lfd, 16);
	getsockname(lfd, (struct sockaddr *)&a, &l);
	*port = ntohs(a.sin_port);
	return lfd;
}

static void read_some(int fd, size_t n)
{
	char buf[4096];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	while (n && poll(&p, 1, 500) > 0) {
		ssize_t k = recv(fd, buf, n < sizeof(buf) ? n : sizeof(buf), 0);
		if (k <= 0)
			return;
		n -= (size_t)k;
	}
}

/*
 * A fake rank 0 in a child process: for `ms` it accepts every connection,
 * sends `challenge` (if any), reads what comes (up to a hello of 132 + 32
 * bytes) and sends `reply`.
 */
static pid_t fake_root(const void *challenge, size_t clen, const void *reply,
		       size_t len, int ms, uint16_t *port)
{
	int lfd = listener(port);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			long left = ms - ((t1.tv_sec - t0.tv_sec) * 1000 +
					  (t1.tv_nsec - t0.tv_nsec) / 1000000);
			struct pollfd p = { .fd = lfd, .events = POLLIN };
			if (left <= 0)
				_exit(0);
			if (poll(&p, 1, (int)left) <= 0)
				continue;
			int fd = accept(lfd, NULL, NULL);
			if (fd < 0)
				continue;
			if (clen)
				send(fd, challenge, clen, MSG_NOSIGNAL);
			read_some(fd, clen ? 132 + 32 : 0);
			send(fd, reply, len, MSG_NOSIGNAL);
			close(fd);
		}
	}
	close(lfd);
	return pid;
}

static void peer_of(uint16_t port, uint32_t timeout_ms, result *r)
{
	task t = { .rank = 1, .nranks = 2, .timeout_ms = timeout_ms };
	int rfd;
	pid_t pid = spawn(&t, port, &rfd);
	collect(1, &pid, &rfd, r);
}

static const unsigned char CHALLENGE[44] =
	"RMNXCHG3\0\0\0\2" "0123456789abcdef0123456789abcdef";

static void hostile_answers_are_rejected(void)
{
	result r;
	uint16_t port;
	int st;
	pid_t f = fake_root(NULL, 0, "HTTP/1.1 400 Bad Request\r\n\r\n", 28,
			    900, &port);
	peer_of(port, 700, &r);
	waitpid(f, &st, 0);
	CHECK_INT(r.code, RMN_EAUTH);
	CHECK_HAS(r.msg, "no authentic rank 0 at '127.0.0.1':");
	CHECK_HAS(r.msg, "no rankmap-nccl rank 0 there");

	/* Right magic, "ok", but a 4 GB id. */
	unsigned char big[20] = "RMNXCHG3\0\0\0\0\xff\xff\xff\xff\0\0\0\x20";
	f = fake_root(CHALLENGE, sizeof(CHALLENGE), big, sizeof(big), 900,
		      &port);
	peer_of(port, 700, &r);
	waitpid(f, &st, 0);
	CHECK_INT(r.code, RMN_EAUTH);
	CHECK_HAS(r.msg, "no valid answer");

	/* A refusal whose text is long and full of control bytes: not
	 * believed (no proof), shown quoted. */
	unsigned char bad[20 + 40] = "RMNXCHG3\0\0\0\x06\0\0\0\x28\0\0\0\0";
	for (int i = 20; i < 60; i++)
		bad[i] = (unsigned char)(i % 2 ? 0x1b : 'x');
	f = fake_root(CHALLENGE, sizeof(CHALLENGE), bad, sizeof(bad), 900,
		      &port);
	peer_of(port, 700, &r);
	waitpid(f, &st, 0);
	CHECK_INT(r.code, RMN_EAUTH);
	CHECK(strchr(r.msg, 0x1b) == NULL);
	CHECK_HAS(r.msg, "\\x1b");
}

/* The attack of the issue: say "rank 1 of 2" with a zero proof and take
 * the id. Rank 0 gives nothing and the real rank 1 still gets it. */
static void an_unauthenticated_hello_gets_nothing(void)
{
	task t[2] = {
		{ .rank = 0, .nranks = 2, .digest = D1, .timeout_ms = 6000 },
		{ .rank = 1, .nranks = 2, .digest = D1, .timeout_ms = 6000,
		  .delay_ms = 400 },
	};
	uint16_t port = free_port();
	pid_t pid[2];
	int rfd[2];
	result r[2];
	unsigned char want[ID_LEN];
	root_blob(want);
	pid[0] = spawn(&t[0], port, &rfd[0]);
	for (int mode = 1; mode <= 3; mode++) {
		int fd = connect_to(port);
		unsigned char ch[44], hello[132 + 32], got[4096];
		CHECK(fd >= 0);
		if (fd < 0)
			continue;
		read_some(fd, 0);
		CHECK(recv(fd, ch, sizeof(ch), MSG_WAITALL) == 44);
		memset(hello, 0, sizeof(hello));
		memcpy(hello, "RMNXCHG3\0\0\0\1\0\0\0\2\0\0\0\x80", 20);
		hello[23] = (unsigned char)mode;   /* munge, hmac, none */
		hello[27] = 7;                     /* job 7 */
		memcpy(hello + 32, D1, 64);
		hello[131] = mode == 3 ? 0 : 32;   /* a zero "proof" */
		send(fd, hello, mode == 3 ? 132 : sizeof(hello), MSG_NOSIGNAL);
		ssize_t n = recv(fd, got, sizeof(got), MSG_WAITALL);
		/* At most a bare refusal: head + "authentication failed". */
		CHECK(n >= 0 && n <= 20 + 21);
		if (n >= 12)
			CHECK_INT(got[11], RMN_EAUTH);
		for (ssize_t i = 0; i + ID_LEN <= n; i++)
			CHECK(memcmp(got + i, want, ID_LEN) != 0);
		close(fd);
	}
	pid[1] = spawn(&t[1], port, &rfd[1]);
	collect(2, pid, rfd, r);
	CHECK_INT(r[0].code, RMN_OK);
	CHECK_INT(r[1].code, RMN_OK);
	CHECK(memcmp(r[1].blob, want, ID_LEN) == 0);
}

/* An impostor on rank 0's port: one with its own secret, one that says
 * "ok" with an id and a made-up MAC. No peer takes either id. */
static void a_fake_rank_zero_is_rejected_by_every_peer(void)
{
	unsigned char evil[ID_LEN];
	memset(evil, 0xee, sizeof(evil));
	task t[4] = {
		{ .rank = 0, .nranks = 4, .timeout_ms = 800, .secret = K2,
		  .blob = evil },
		{ .rank = 1, .nranks = 4, .timeout_ms = 800 },
		{ .rank = 2, .nranks = 4, .timeout_ms = 800 },
		{ .rank = 3, .nranks = 4, .timeout_ms = 800 },
	};
	result r[4];
	run_tasks(4, t, free_port(), r);
	CHECK_INT(r[0].code, RMN_ETIMEOUT);
	CHECK_HAS(r[0].msg, "HMAC does not match");
	for (int i = 1; i < 4; i++) {
		CHECK_INT(r[i].code, RMN_EAUTH);
		CHECK(memcmp(r[i].blob, evil, ID_LEN) != 0);
		CHECK_HAS(r[i].msg, "unauthenticated answer");
	}

	/* A body and a proof of the right sizes (a nonce and a tag), made
	 * up: the tag does not hold. */
	unsigned char forged[20 + ID_LEN + RMNI_SEAL_LEN];
	memcpy(forged, "RMNXCHG3\0\0\0\0\0\0\0\x80\0\0\0\x28", 20);
	memset(forged + 20, 0xee, ID_LEN + RMNI_SEAL_LEN);
	uint16_t port;
	pid_t f = fake_root(CHALLENGE, sizeof(CHALLENGE), forged,
			    sizeof(forged), 1000, &port);
	pid_t pid[3];
	int rfd[3], st;
	for (int i = 0; i < 3; i++)
		pid[i] = spawn(&t[i + 1], port, &rfd[i]);
	collect(3, pid, rfd, r);
	waitpid(f, &st, 0);
	for (int i = 0; i < 3; i++) {
		CHECK_INT(r[i].code, RMN_EAUTH);
		CHECK(memcmp(r[i].blob, evil, ID_LEN) != 0);
		CHECK_HAS(r[i].msg, "does not authenticate with the step's secret");
	}
}

/* Can something connect to addr:port right now? */
static bool reachable(const char *addr, uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	inet_pton(AF_INET, addr, &a.sin_addr);
	bool ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* Rank 0 listens on the address MASTER_ADDR names, not on every address
 * (127.0.0.2 is this host too, but not the address asked for), unless
 * the site says "*". */
static void rank_zero_binds_where_the_job_lives(void)
{
	for (int any = 0; any < 2; any++) {
		uint16_t port = free_port();
		int wfd = -1, rfd = -1;
		pid_t pid = fork_piped(&rfd, &wfd);
		if (pid == 0) {
			unsigned char id[ID_LEN];
			root_blob(id);
			rmn_exchange_opts o = { .host = "127.0.0.1", .port = port,
						.rank = 0, .nranks = 2,
						.timeout_ms = 1500,
						.bind = any ? "*" : NULL,
						.auth = RMN_AUTH_HMAC,
						.secret = K1, .jobid = 7 };
			rmn_error e = { 0 };
			_exit(rmn_exchange(&o, id, sizeof(id), &e) ==
				      RMN_ETIMEOUT ? 0 : 1);
		}
		bool up = false;
		for (int i = 0; i < 100 && !up; i++) {
			up = reachable("127.0.0.1", port);
			if (!up)
				poll(NULL, 0, 20);
		}
		CHECK(up);
		CHECK(reachable("127.0.0.2", port) == (any == 1));
		int st = 0;
		close(rfd);
		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	/* Nothing to bind to: said at once, not a wildcard. */
	unsigned char id[ID_LEN];
	rmn_error e = { 0 };
	rmn_exchange_opts o = { .port = free_port(), .rank = 0, .nranks = 2,
				.timeout_ms = 500, .auth = RMN_AUTH_HMAC,
				.secret = K1 };
	CHECK_INT(rmn_exchange(&o, id, sizeof(id), &e), RMN_EINPUT);
	CHECK_HAS(e.msg, "rank 0 does not know which address to listen on");
}

static void bad_arguments(void)
{
	unsigned char id[ID_LEN];
	rmn_error e = { 0 };
	rmn_exchange_opts o = { .host = "127.0.0.1", .port = 1, .rank = 3,
				.nranks = 3, .auth = RMN_AUTH_HMAC };
	CHECK_INT(rmn_exchange(&o, id, sizeof(id), &e), RMN_EINPUT);
	CHECK_HAS(e.msg, "rank 3 of a world of 3");
	o.rank = 0;
	CHECK_INT(rmn_exchange(&o, id, 0, &e), RMN_EINPUT);
	CHECK_INT(rmn_exchange(&o, id, RMN_BLOB_MAX + 1, &e), RMN_EINPUT);
	o.rank = 1;
	o.host = "";
	CHECK_INT(rmn_exchange(&o, id, sizeof(id), &e), RMN_EINPUT);
	CHECK_HAS(e.msg, "MASTER_ADDR");
	o.host = "127.0.0.1";
	o.port = 0;
	CHECK_INT(rmn_exchange(&o, id, sizeof(id), &e), RMN_EINPUT);
	/* A world of one needs no network at all. */
	o.rank = 0;
	o.nranks = 1;
	CHECK_INT(rmn_exchange(&o, id, sizeof(id), &e), RMN_OK);
	o.rank = 1;
	o.nranks = 2;
	o.port = 9;
	o.host = "no-such-host.invalid";
	o.timeout_ms = 500;
	/* HMAC without the step's secret: said before any socket. */
	CHECK_INT(rmn_exchange(&o, id, sizeof(id), &e), RMN_EINPUT);
	CHECK_HAS(e.msg, "HMAC authentication needs the step's secret");
	o.secret = K1;
	CHECK_INT(rmn_exchange(&o, id, sizeof(id), &e), RMN_ENET);
	CHECK_HAS(e.msg, "cannot resolve rank 0's host 'no-such-host.invalid'");
}

int main(void)
{
	RUN("nccl_exchange", all_ranks_get_the_id);
	RUN("nccl_exchange", many_ranks_at_once);
	RUN("nccl_exchange", a_missing_peer_times_out_by_name);
	RUN("nccl_exchange", several_missing_are_listed_as_ranges);
	RUN("nccl_exchange", no_rank_zero_times_out);
	RUN("nccl_exchange", a_different_map_is_refused_alone);
	RUN("nccl_exchange", another_job_does_not_abort);
	RUN("nccl_exchange", an_unauthenticated_hello_gets_nothing);
	RUN("nccl_exchange", a_fake_rank_zero_is_rejected_by_every_peer);
	RUN("nccl_exchange", twice_the_same_rank_is_refused);
	RUN("nccl_exchange", another_world_size_is_refused);
	RUN("nccl_exchange", strangers_do_not_disturb);
	RUN("nccl_exchange", a_flood_of_silent_connections_is_survived);
	RUN("nccl_exchange", hostile_answers_are_rejected);
	RUN("nccl_exchange", rank_zero_binds_where_the_job_lives);
	RUN("nccl_exchange", bad_arguments);
	TEST_EXIT();
}
