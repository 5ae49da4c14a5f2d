/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_nccl_auth.c - what the id exchange authenticates with: HMAC-SHA256
 * against RFC 4231's vectors, the constant-time comparison and the
 * keystream; then the MUNGE path for real, against a private munged with
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

static void hex(const unsigned char *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static void rfc4231_vectors(void)
{
	unsigned char k1[20], k3[20], k4[25], k6[131], d3[50], d4[50];
	unsigned char mac[RMNI_MAC_LEN];
	char h[65];
	memset(k1, 0x0b, sizeof(k1));
	memset(k3, 0xaa, sizeof(k3));
	memset(d3, 0xdd, sizeof(d3));
	for (int i = 0; i < 25; i++)
		k4[i] = (unsigned char)(i + 1);
	memset(d4, 0xcd, sizeof(d4));
	memset(k6, 0xaa, sizeof(k6));
	struct {
		const unsigned char *key;
		size_t klen;
		const void *data;
		size_t dlen;
		const char *want;
	} tc[] = {
		{ k1, 20, "Hi There", 8,
		  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
		{ (const unsigned char *)"Jefe", 4,
		  "what do ya want for nothing?", 28,
		  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
		{ k3, 20, d3, 50,
		  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
		{ k4, 25, d4, 50,
		  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
		{ k6, 131, "Test Using Larger Than Block-Size Key - Hash Key First",
		  54,
		  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
		{ k6, 131,
		  "This is a test using a larger than block-size key and a "
		  "larger than block-size data. The key needs to be hashed "
		  "before being used by the HMAC algorithm.",
		  152,
		  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
	};
	for (size_t i = 0; i < sizeof(tc) / sizeof(tc[0]); i++) {
		rmni_hmac_once(tc[i].key, tc[i].klen, tc[i].data, tc[i].dlen,
			       mac);
		hex(mac, sizeof(mac), h);
		CHECK_STR(h, tc[i].want);
	}
	/* Fed in pieces, the same MAC. */
	rmni_hmac st;
	rmni_hmac_init(&st, k6, 131);
	rmni_hmac_add(&st, "This is a test using a larger than block-size key", 49);
	rmni_hmac_add(&st, " and a larger than block-size data. The key needs to "
			   "be hashed before being used by the HMAC algorithm.",
		      103);
	rmni_hmac_end(&st, mac);
	hex(mac, sizeof(mac), h);
	CHECK_STR(h, tc[5].want);
}

static void equal_and_keystream(void)
{
	unsigned char a[40], b[40], buf[100], orig[100];
	memset(a, 7, sizeof(a));
	memcpy(b, a, sizeof(b));
	CHECK(rmni_ct_equal(a, b, sizeof(a)));
	b[39] ^= 0x80;
	CHECK(!rmni_ct_equal(a, b, sizeof(a)));
	b[39] ^= 0x80;
	b[0] ^= 1;
	CHECK(!rmni_ct_equal(a, b, sizeof(a)));
	for (int i = 0; i < 100; i++)
		orig[i] = buf[i] = (unsigned char)i;
	rmni_hmac_xor(a, 32, "label", 5, buf, sizeof(buf));
	CHECK(memcmp(buf, orig, sizeof(buf)) != 0);
	/* Blocks differ from each other (the counter is in). */
	CHECK(memcmp(buf, buf + 32, 32) != 0);
	rmni_hmac_xor(a, 32, "label", 5, buf, sizeof(buf));
	CHECK(memcmp(buf, orig, sizeof(buf)) == 0);
}

static void bound(rmni_auth *a, rmni_bind *b)
{
	memset(a, 0, sizeof(*a));
	a->mode = a->asked = RMN_AUTH_HMAC;
	memset(a->key, 'k', sizeof(a->key));
	a->have_key = true;
	a->jobid = 7;
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

	/* The answer: the id comes back, encrypted on the wire. */
	unsigned char id[128], out[RMN_BLOB_MAX], *body, *pr;
	size_t blen, plen, olen;
	for (int i = 0; i < 128; i++)
		id[i] = (unsigned char)i;
	CHECK_INT(rmni_seal_answer(&a, &b, 0, id, sizeof(id), &body, &blen,
				   &pr, &plen, NULL), RMN_OK);
	CHECK_INT(blen, 128);
	CHECK(memcmp(body, id, 128) != 0);
	CHECK(rmni_open_answer(&a, &b, 0, body, blen, pr, plen, out,
			       sizeof(out), &olen, why, sizeof(why)));
	CHECK_INT(olen, 128);
	CHECK(memcmp(out, id, 128) == 0);
	/* Another connection (nonce), a flipped bit, another status: no. */
	x = b;
	x.peer_nonce[0] ^= 1;
	CHECK(!rmni_open_answer(&a, &x, 0, body, blen, pr, plen, out,
				sizeof(out), &olen, why, sizeof(why)));
	CHECK(!rmni_open_answer(&a, &b, 5, body, blen, pr, plen, out,
				sizeof(out), &olen, why, sizeof(why)));
	body[0] ^= 1;
	CHECK(!rmni_open_answer(&a, &b, 0, body, blen, pr, plen, out,
				sizeof(out), &olen, why, sizeof(why)));
	CHECK_HAS(why, "its HMAC does not match");
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
	RUN("nccl_auth", rfc4231_vectors);
	RUN("nccl_auth", equal_and_keystream);
	RUN("nccl_auth", proofs_bind_every_field);
	RUN("nccl_auth", munge_same_user_gets_id_other_user_nothing);
	TEST_EXIT();
}
