/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_exchange.c - the id exchange's parsers and checks of what a
 * stranger can send: rank 0's challenge (to a peer), a peer's hello with
 * its proof (to rank 0), rank 0's answer with its body and proof (to a
 * peer). The first byte picks the message, the rest is the message as it
 * arrives. Proofs are checked with HMAC under a fixed key, as rank 0 and
 * the peers do, and with no authentication; MUNGE needs a munged and is
 * left to tests/nccl/test_nccl_auth.c.
 */
#include "../../mapper/fuzz/fuzz.h"
#include "exchange.h"

static void setup(rmni_auth *a, rmn_auth mode)
{
	memset(a, 0, sizeof(*a));
	a->mode = a->asked = mode;
	memset(a->key, 'k', sizeof(a->key));
	a->have_key = true;
	a->jobid = 7;
}

static void hello(const uint8_t *d, size_t n)
{
	rmni_hello h;
	unsigned char root_nonce[RMNI_NONCE_LEN];
	char why[256];
	if (n < HELLO_HEAD || !rmni_hello_parse(d, &h))
		return;
	if (n - HELLO_HEAD < h.prooflen)
		return;
	/* The proof in its own buffer, as rank 0 holds it. */
	unsigned char *proof = malloc(h.prooflen ? h.prooflen : 1);
	if (!proof)
		return;
	memcpy(proof, d + HELLO_HEAD, h.prooflen);
	memset(root_nonce, 'r', sizeof(root_nonce));
	rmni_bind b;
	rmni_hello_bind(&h, root_nonce, &b);
	for (int m = RMN_AUTH_HMAC; m <= RMN_AUTH_NONE; m++) {
		rmni_auth a;
		setup(&a, (rmn_auth)m);
		rmni_check_hello(&a, &b, proof, h.prooflen, why, sizeof(why));
	}
	free(proof);
}

static void answer(const uint8_t *d, size_t n)
{
	rmni_answer an;
	if (n < ANSWER_HEAD || !rmni_answer_parse(d, &an))
		return;
	n -= ANSWER_HEAD;
	d += ANSWER_HEAD;
	if (n < (size_t)an.bodylen + an.prooflen)
		return;
	unsigned char *body = malloc(an.bodylen ? an.bodylen : 1);
	unsigned char *proof = malloc(an.prooflen ? an.prooflen : 1);
	unsigned char out[RMN_BLOB_MAX];
	char why[256];
	size_t outlen = 0;
	if (body && proof) {
		memcpy(body, d, an.bodylen);
		memcpy(proof, d + an.bodylen, an.prooflen);
		rmni_bind b = { .mode = RMN_AUTH_HMAC, .jobid = 7, .rank = 1,
				.nranks = 2, .len = 128 };
		memset(b.digest, '1', sizeof(b.digest));
		memset(b.root_nonce, 'r', sizeof(b.root_nonce));
		memset(b.peer_nonce, 'p', sizeof(b.peer_nonce));
		for (int m = RMN_AUTH_HMAC; m <= RMN_AUTH_NONE; m++) {
			rmni_auth a;
			setup(&a, (rmn_auth)m);
			b.mode = (uint32_t)m;
			rmni_open_answer(&a, &b, an.status, body, an.bodylen,
					 proof, an.prooflen, out, sizeof(out),
					 &outlen, why, sizeof(why));
		}
	}
	free(body);
	free(proof);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 20000)
		return 0;
	/* A copy of exactly the message, so ASan sees any read past it. */
	uint8_t *m = malloc(size - 1 ? size - 1 : 1);
	if (!m)
		return 0;
	memcpy(m, data + 1, size - 1);
	uint32_t mode;
	unsigned char nonce[RMNI_NONCE_LEN];
	switch (data[0] % 3) {
	case 0:
		if (size - 1 >= CHALLENGE_LEN)
			rmni_challenge_parse(m, &mode, nonce);
		break;
	case 1:
		hello(m, size - 1);
		break;
	default:
		answer(m, size - 1);
		break;
	}
	free(m);
	return 0;
}
