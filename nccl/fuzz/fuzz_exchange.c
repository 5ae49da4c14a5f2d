/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_exchange.c - the id exchange's parsers and checks of what a
 * stranger can send: rank 0's challenge (to a peer), a peer's hello with
 * its proof (to rank 0), rank 0's answer with its body and proof (to a
 * peer). The first byte picks the message, the rest is the message as it
 * arrives. Proofs are checked in secret mode under a fixed key (keys
 * derived, hello MAC, answer AEAD), as rank 0 and the peers do, and with
 * no authentication; MUNGE needs a munged and is left to
 * tests/nccl/test_nccl_auth.c. A fourth kind seals the input as an answer
 * and opens it again, flipped where the input says: only the untouched
 * seal may open, and then to exactly the input.
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
	if (!rmni_auth_keys(a))
		abort();
}

static void fixed_bind(rmni_bind *b)
{
	*b = (rmni_bind){ .mode = RMN_AUTH_HMAC, .jobid = 7, .rank = 1,
			  .nranks = 2, .len = 128 };
	memset(b->digest, '1', sizeof(b->digest));
	memset(b->root_nonce, 'r', sizeof(b->root_nonce));
	memset(b->peer_nonce, 'p', sizeof(b->peer_nonce));
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
		rmni_bind b;
		fixed_bind(&b);
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

/* d = flip position (2 bytes), then the content to seal. */
static void seal_open(const uint8_t *d, size_t n)
{
	if (n < 2 || n - 2 > RMN_BLOB_MAX)
		return;
	size_t flip = (size_t)d[0] << 8 | d[1];
	d += 2;
	n -= 2;
	rmni_auth a;
	rmni_bind b;
	setup(&a, RMN_AUTH_HMAC);
	fixed_bind(&b);
	unsigned char *body, *proof, out[RMN_BLOB_MAX];
	size_t blen, plen, outlen = 0;
	char why[256];
	if (rmni_seal_answer(&a, &b, 0, d, n, &body, &blen, &proof, &plen,
			     NULL) != RMN_OK)
		abort();
	bool flipped = flip < blen + plen;
	if (flipped)
		*(flip < blen ? body + flip : proof + (flip - blen)) ^= 0x01;
	bool ok = rmni_open_answer(&a, &b, 0, body, blen, proof, plen, out,
				   sizeof(out), &outlen, why, sizeof(why));
	if (ok == flipped || (ok && (outlen != n || memcmp(out, d, n))))
		abort();
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
	switch (data[0] % 4) {
	case 0:
		if (size - 1 >= CHALLENGE_LEN)
			rmni_challenge_parse(m, &mode, nonce);
		break;
	case 1:
		hello(m, size - 1);
		break;
	case 3:
		seal_open(m, size - 1);
		break;
	default:
		answer(m, size - 1);
		break;
	}
	free(m);
	return 0;
}
