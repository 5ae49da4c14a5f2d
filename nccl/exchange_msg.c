/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exchange_msg.c - the id exchange's messages as bytes: what rank 0 and
 * the peers write, and the parsers of what a stranger may send them
 * (fuzzed by mapper/fuzz/fuzz_exchange.c). Format: exchange.h.
 */
#include "exchange.h"

#include <string.h>

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

unsigned char *rmni_put32s(unsigned char *p, const uint32_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++, p += 4)
		rmni_put32(p, w[i]);
	return p;
}

unsigned char *rmni_put_bytes(unsigned char *p, const void *src, size_t n)
{
	memcpy(p, src, n);
	return p + n;
}

void rmni_challenge_write(unsigned char c[CHALLENGE_LEN], uint32_t mode,
			  const unsigned char nonce[RMNI_NONCE_LEN])
{
	memcpy(c, MAGIC, MAGIC_LEN);
	rmni_put32(c + MAGIC_LEN, mode);
	memcpy(c + MAGIC_LEN + 4, nonce, RMNI_NONCE_LEN);
}

bool rmni_challenge_parse(const unsigned char c[CHALLENGE_LEN],
			  uint32_t *mode, unsigned char nonce[RMNI_NONCE_LEN])
{
	if (memcmp(c, MAGIC, MAGIC_LEN) != 0)
		return false;
	*mode = rmni_get32(c + MAGIC_LEN);
	memcpy(nonce, c + MAGIC_LEN + 4, RMNI_NONCE_LEN);
	return *mode >= RMN_AUTH_MUNGE && *mode <= RMN_AUTH_NONE;
}

void rmni_hello_write(unsigned char h[HELLO_HEAD], const rmni_hello *in)
{
	unsigned char *p = h + MAGIC_LEN;
	uint32_t w[6] = { in->rank, in->nranks, in->len, in->mode, in->jobid,
			  in->stepid };
	memcpy(h, MAGIC, MAGIC_LEN);
	p = rmni_put32s(p, w, 6);
	p = rmni_put_bytes(p, in->digest, DIGEST_LEN);
	p = rmni_put_bytes(p, in->nonce, RMNI_NONCE_LEN);
	rmni_put32(p, in->prooflen);
}

bool rmni_hello_parse(const unsigned char h[HELLO_HEAD], rmni_hello *out)
{
	const unsigned char *p = h + MAGIC_LEN;
	if (memcmp(h, MAGIC, MAGIC_LEN) != 0)
		return false;
	uint32_t *w[6] = { &out->rank, &out->nranks, &out->len, &out->mode,
			   &out->jobid, &out->stepid };
	for (int i = 0; i < 6; i++, p += 4)
		*w[i] = rmni_get32(p);
	memcpy(out->digest, p, DIGEST_LEN);
	p += DIGEST_LEN;
	memcpy(out->nonce, p, RMNI_NONCE_LEN);
	p += RMNI_NONCE_LEN;
	out->prooflen = rmni_get32(p);
	return out->prooflen <= HELLO_PROOF_MAX;
}

bool rmni_answer_parse(const unsigned char h[ANSWER_HEAD], rmni_answer *out)
{
	if (memcmp(h, MAGIC, MAGIC_LEN) != 0)
		return false;
	out->status = rmni_get32(h + MAGIC_LEN);
	out->bodylen = rmni_get32(h + MAGIC_LEN + 4);
	out->prooflen = rmni_get32(h + MAGIC_LEN + 8);
	size_t maxbody = out->status == 0 ? RMN_BLOB_MAX : ANSWER_MSG_MAX;
	return out->bodylen <= maxbody && out->prooflen <= RMNI_PROOF_MAX;
}

void rmni_hello_bind(const rmni_hello *h,
		     const unsigned char root_nonce[RMNI_NONCE_LEN],
		     rmni_bind *b)
{
	memset(b, 0, sizeof(*b));
	b->mode = h->mode;
	b->jobid = h->jobid;
	b->stepid = h->stepid;
	b->rank = h->rank;
	b->nranks = h->nranks;
	b->len = h->len;
	memcpy(b->digest, h->digest, DIGEST_LEN);
	memcpy(b->root_nonce, root_nonce, RMNI_NONCE_LEN);
	memcpy(b->peer_nonce, h->nonce, RMNI_NONCE_LEN);
}
