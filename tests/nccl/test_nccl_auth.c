/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_nccl_auth.c - what the id exchange authenticates with: the keys
 * libsodium derives from the step's secret, the hello's proof and the
 * answer's AEAD seal bound to every field (libsodium's primitives have
 * their own known-answer tests; nothing here computes crypto of its own);
 * then the MUNGE path for real, against a private munged with
 * its own key and socket (skipped, saying so, where munged is missing):
 * ranks of the job user get the id, a hello from another user gets
 * nothing and the real rank still succeeds.
 */
#include "test.h"
#include "nccl_fixture.h"
#include "auth.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

static void equal(void)
{
	unsigned char a[40], b[40];
	memset(a, 7, sizeof(a));
	memcpy(b, a, sizeof(b));
	CHECK(rmni_ct_equal(a, b, sizeof(a)));
	b[39] ^= 0x80;
	CHECK(!rmni_ct_equal(a, b, sizeof(a)));
	b[39] ^= 0x80;
	b[0] ^= 1;
	CHECK(!rmni_ct_equal(a, b, sizeof(a)));
}

/* One key per purpose, derived from the step's secret: the same secret
 * gives the same keys on every rank, another secret other keys, and
 * neither key is the secret itself. */
static void keys_per_purpose(void)
{
	rmni_auth a, b;
	memset(&a, 0, sizeof(a));
	memset(a.key, 's', sizeof(a.key));
	a.have_key = true;
	b = a;
	CHECK(rmni_auth_keys(&a));
	CHECK(rmni_auth_keys(&b));
	CHECK(memcmp(a.hello_key, b.hello_key, 32) == 0);
	CHECK(memcmp(a.answer_key, b.answer_key, 32) == 0);
	CHECK(memcmp(a.hello_key, a.answer_key, 32) != 0);
	CHECK(memcmp(a.hello_key, a.key, 32) != 0);
	CHECK(memcmp(a.answer_key, a.key, 32) != 0);
	b.key[31] ^= 1;
	CHECK(rmni_auth_keys(&b));
	CHECK(memcmp(a.hello_key, b.hello_key, 32) != 0);
	CHECK(memcmp(a.answer_key, b.answer_key, 32) != 0);
	/* Connection nonces: random, not repeated. */
	unsigned char n1[RMNI_NONCE_LEN], n2[RMNI_NONCE_LEN];
	CHECK(rmni_nonce(n1));
	CHECK(rmni_nonce(n2));
	CHECK(memcmp(n1, n2, sizeof(n1)) != 0);
}

static void bound(rmni_auth *a, rmni_bind *b)
{
	memset(a, 0, sizeof(*a));
	a->mode = a->asked = RMN_AUTH_HMAC;
	memset(a->key, 'k', sizeof(a->key));
	a->have_key = true;
	a->jobid = 7;
	CHECK(rmni_auth_keys(a));
	*b = (rmni_bind){ .mode = RMN_AUTH_HMAC, .jobid = 7, .rank = 1,
			  .nranks = 2, .len = 128 };
	memset(b->digest, '1', sizeof(b->digest));
	memset(b->root_nonce, 'r', sizeof(b->root_nonce));
	memset(b->peer_nonce, 'p', sizeof(b->peer_nonce));
}

/* Every bound field matters: change any one and the proof fails. */
static void proofs_bind_every_field(void)
{
	rmni_auth a;
	rmni_bind b, x;
	unsigned char proof[RMNI_PROOF_MAX];
	size_t n = 0;
	char why[256];
	bound(&a, &b);
	CHECK_INT(rmni_prove_hello(&a, &b, proof, &n, NULL), RMN_OK);
	CHECK_INT(n, RMNI_MAC_LEN);
	CHECK(rmni_check_hello(&a, &b, proof, n, why, sizeof(why)));
	for (size_t off = 0; off < sizeof(b); off += 4) {
		x = b;
		((unsigned char *)&x)[off] ^= 1;
		CHECK(!rmni_check_hello(&a, &x, proof, n, why, sizeof(why)));
	}
	proof[5] ^= 1;
	CHECK(!rmni_check_hello(&a, &b, proof, n, why, sizeof(why)));
	CHECK_HAS(why, "HMAC does not match");
	CHECK(!rmni_check_hello(&a, &b, proof, n - 1, why, sizeof(why)));

	/* The answer: the id comes back, encrypted on the wire (AEAD): the
	 * body as long as the id, the proof its nonce and tag. */
	unsigned char id[128], out[RMN_BLOB_MAX], *body, *pr, *body2, *pr2;
	size_t blen, plen, olen, blen2, plen2;
	for (int i = 0; i < 128; i++)
		id[i] = (unsigned char)i;
	CHECK_INT(rmni_seal_answer(&a, &b, 0, id, sizeof(id), &body, &blen,
				   &pr, &plen, NULL), RMN_OK);
	CHECK_INT(blen, 128);
	CHECK_INT(plen, RMNI_SEAL_LEN);
	CHECK(memcmp(body, id, 128) != 0);
	CHECK(rmni_open_answer(&a, &b, 0, body, blen, pr, plen, out,
			       sizeof(out), &olen, why, sizeof(why)));
	CHECK_INT(olen, 128);
	CHECK(memcmp(out, id, 128) == 0);
	/* Sealing the same id again: another nonce, another ciphertext. */
	CHECK_INT(rmni_seal_answer(&a, &b, 0, id, sizeof(id), &body2, &blen2,
				   &pr2, &plen2, NULL), RMN_OK);
	CHECK(memcmp(pr, pr2, RMNI_AEAD_NONCE_LEN) != 0);
	CHECK(memcmp(body, body2, 128) != 0);
	free(body2);
	free(pr2);
	/* Another connection (nonce), another status, another secret: no. */
	x = b;
	x.peer_nonce[0] ^= 1;
	CHECK(!rmni_open_answer(&a, &x, 0, body, blen, pr, plen, out,
				sizeof(out), &olen, why, sizeof(why)));
	CHECK(!rmni_open_answer(&a, &b, 5, body, blen, pr, plen, out,
				sizeof(out), &olen, why, sizeof(why)));
	rmni_auth other = a;
	other.key[0] ^= 1;
	CHECK(rmni_auth_keys(&other));
	CHECK(!rmni_open_answer(&other, &b, 0, body, blen, pr, plen, out,
				sizeof(out), &olen, why, sizeof(why)));
	/* Any bit flipped in the body, the nonce or the tag: refused, and
	 * nothing comes out. */
	for (size_t i = 0; i < blen + plen; i++) {
		unsigned char *at = i < blen ? body + i : pr + (i - blen);
		*at ^= 0x10;
		memset(out, 0, sizeof(out));
		olen = 99;
		CHECK(!rmni_open_answer(&a, &b, 0, body, blen, pr, plen, out,
					sizeof(out), &olen, why, sizeof(why)));
		CHECK_INT(olen, 0);
		*at ^= 0x10;
	}
	CHECK_HAS(why, "does not authenticate with the step's secret");
	CHECK(!rmni_open_answer(&a, &b, 0, body, blen, pr, plen - 1, out,
				sizeof(out), &olen, why, sizeof(why)));
	CHECK(!rmni_open_answer(&a, &b, 0, body, blen - 1, pr, plen, out,
				sizeof(out), &olen, why, sizeof(why)));
	free(body);
	free(pr);
	/* rank 0's refusal (status != 0) travels sealed the same way. */
	CHECK_INT(rmni_seal_answer(&a, &b, 3, "no", 2, &body, &blen, &pr,
				   &plen, NULL), RMN_OK);
	CHECK(rmni_open_answer(&a, &b, 3, body, blen, pr, plen, out,
			       sizeof(out), &olen, why, sizeof(why)));
	CHECK_INT(olen, 2);
	CHECK(memcmp(out, "no", 2) == 0);
	free(body);
	free(pr);
}

/* ------------------------------------------------------------- MUNGE */

static char mdir[64];

static bool start_munged(char *why, size_t cap)
{
	char cmd[1024];
	if (system("command -v munged >/dev/null && command -v mungekey >/dev/null") != 0) {
		snprintf(why, cap, "munged or mungekey not installed");
		return false;
	}
	snprintf(mdir, sizeof(mdir), "/tmp/rmn-munge.XXXXXX");
	if (!mkdtemp(mdir)) {
		snprintf(why, cap, "mkdtemp failed");
		return false;
	}
	snprintf(cmd, sizeof(cmd),
		 "chmod 755 %s && mungekey -c -k %s/key -b 1024 >/dev/null 2>&1 && "
		 "chmod 600 %s/key && munged -f --key-file=%s/key "
		 "--socket=%s/sock --pid-file=%s/pid --log-file=%s/log "
		 "--seed-file=%s/seed",
		 mdir, mdir, mdir, mdir, mdir, mdir, mdir, mdir);
	if (system(cmd) != 0) {
		snprintf(why, cap, "munged did not start (see %s/log)", mdir);
		return false;
	}
	return true;
}

static void stop_munged(void)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd),
		 "[ -f %s/pid ] && kill $(cat %s/pid); sleep 0.2; rm -rf %s",
		 mdir, mdir, mdir);
	if (system(cmd) != 0)
		printf("  could not stop munged in %s\n", mdir);
}

typedef struct mres {
	int code;
	unsigned char id[128];
	char msg[1024];
} mres;

/* A rank in a child process; uid != 0: become that user first. */
static pid_t mrank(uint32_t rank, uint16_t port, uid_t uid, int delay_ms,
		   int *rfd)
{
	int wfd = -1;
	pid_t pid = fork_piped(rfd, &wfd);
	if (pid == 0) {
		mres r;
		char sock[96];
		memset(&r, 0, sizeof(r));
		if (uid && (setgid(uid) != 0 || setuid(uid) != 0))
			_exit(3);
		poll(NULL, 0, delay_ms);
		if (rank == 0)
			memset(r.id, 0x42, sizeof(r.id));
		snprintf(sock, sizeof(sock), "%s/sock", mdir);
		rmn_exchange_opts o = { .host = "127.0.0.1", .port = port,
					.rank = rank, .nranks = 2,
					.timeout_ms = 3000,
					.auth = RMN_AUTH_MUNGE,
					.munge_socket = sock, .jobid = 11 };
		rmn_error e = { 0 };
		r.code = rmn_exchange(&o, r.id, sizeof(r.id), &e);
		memcpy(r.msg, e.msg, sizeof(r.msg));
		_exit(write(wfd, &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 2);
	}
	return pid;
}

static void mwait(pid_t pid, int fd, mres *r)
{
	int st;
	memset(r, 0, sizeof(*r));
	r->code = -1;
	if (read(fd, r, sizeof(*r)) != (ssize_t)sizeof(*r))
		r->code = -1;
	close(fd);
	waitpid(pid, &st, 0);
}

static void munge_same_user_gets_id_other_user_nothing(void)
{
	char why[256];
	rmn_exchange_opts probe = { .auth = RMN_AUTH_MUNGE };
	rmni_auth a;
	if (rmni_auth_setup(&probe, &a, NULL) != RMN_OK) {
		printf("SKIP: nccl_auth/munge (built without libmunge-dev)\n");
		return;
	}
	if (getuid() != 0 || !start_munged(why, sizeof(why))) {
		printf("SKIP: nccl_auth/munge (%s)\n",
		       getuid() ? "needs root to act as a second user" : why);
		return;
	}
	uint16_t port = free_port();
	int f0, f1, fx;
	mres r0, r1, rx;
	unsigned char want[128];
	memset(want, 0x42, sizeof(want));
	pid_t p0 = mrank(0, port, 0, 0, &f0);
	/* "nobody" says it is rank 1: a real MUNGE credential, wrong user. */
	pid_t px = mrank(1, port, 65534, 100, &fx);
	pid_t p1 = mrank(1, port, 0, 600, &f1);
	mwait(p0, f0, &r0);
	mwait(p1, f1, &r1);
	mwait(px, fx, &rx);
	CHECK_INT(r0.code, RMN_OK);
	CHECK_INT(r1.code, RMN_OK);
	CHECK(memcmp(r1.id, want, sizeof(want)) == 0);
	CHECK_INT(rx.code, RMN_EAUTH);
	CHECK(memcmp(rx.id, want, sizeof(want)) != 0);
	CHECK_HAS(rx.msg, "authentication failed");
	CHECK_HAS(rx.msg, "(authentication: munge)");
	if (r0.code || r1.code || getenv("RMN_VERBOSE"))
		printf("  rank 0: %s\n  rank 1: %s\n  nobody: %s\n", r0.msg, r1.msg, rx.msg);
	stop_munged();
}

int main(void)
{
	RUN("nccl_auth", equal);
	RUN("nccl_auth", keys_per_purpose);
	RUN("nccl_auth", proofs_bind_every_field);
	RUN("nccl_auth", munge_same_user_gets_id_other_user_nothing);
	TEST_EXIT();
}
