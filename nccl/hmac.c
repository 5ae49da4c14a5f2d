/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hmac.c - HMAC-SHA256 (RFC 2104) over librankmap's SHA-256, a
 * constant-time comparison, and a keystream from HMAC in counter mode.
 * The id exchange authenticates with these where MUNGE is not used; they
 * are small enough to check against RFC 4231's vectors in a unit test.
 */
#include "auth.h"

#include <string.h>

void rmni_hmac_init(rmni_hmac *h, const unsigned char *key, size_t klen)
{
	unsigned char k[64], pad[64];
	memset(k, 0, sizeof(k));
	if (klen > sizeof(k)) {
		/* Keys longer than a block are hashed first (RFC 2104). */
		rm_sha256_ctx c;
		rm_sha256_init(&c);
		rm_sha256_add(&c, key, klen);
		rm_sha256_end(&c, k);
	} else if (klen) {
		memcpy(k, key, klen);
	}
	for (size_t i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	rm_sha256_init(&h->inner);
	rm_sha256_add(&h->inner, pad, 64);
	for (size_t i = 0; i < 64; i++)
		h->opad[i] = k[i] ^ 0x5c;
	memset(k, 0, sizeof(k));
	memset(pad, 0, sizeof(pad));
}

void rmni_hmac_add(rmni_hmac *h, const void *data, size_t len)
{
	if (len)
		rm_sha256_add(&h->inner, data, len);
}

void rmni_hmac_end(rmni_hmac *h, unsigned char mac[RMNI_MAC_LEN])
{
	unsigned char in[RMNI_MAC_LEN];
	rm_sha256_ctx outer;
	rm_sha256_end(&h->inner, in);
	rm_sha256_init(&outer);
	rm_sha256_add(&outer, h->opad, 64);
	rm_sha256_add(&outer, in, sizeof(in));
	rm_sha256_end(&outer, mac);
	memset(h, 0, sizeof(*h));
}

void rmni_hmac_once(const unsigned char *key, size_t klen, const void *data,
	       size_t len, unsigned char mac[RMNI_MAC_LEN])
{
	rmni_hmac h;
	rmni_hmac_init(&h, key, klen);
	rmni_hmac_add(&h, data, len);
	rmni_hmac_end(&h, mac);
}

bool rmni_ct_equal(const void *a, const void *b, size_t n)
{
	/* Every byte is looked at whatever the first difference: the time
	 * taken says nothing about where a forged MAC went wrong. */
	const volatile unsigned char *x = a, *y = b;
	unsigned char d = 0;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(x[i] ^ y[i]);
	return d == 0;
}

void rmni_hmac_xor(const unsigned char *key, size_t klen, const void *label,
		   size_t llen, unsigned char *buf, size_t len)
{
	unsigned char block[RMNI_MAC_LEN], ctr[4];
	for (uint32_t i = 0; (size_t)i * RMNI_MAC_LEN < len; i++) {
		rmni_hmac h;
		ctr[0] = (unsigned char)(i >> 24);
		ctr[1] = (unsigned char)(i >> 16);
		ctr[2] = (unsigned char)(i >> 8);
		ctr[3] = (unsigned char)i;
		rmni_hmac_init(&h, key, klen);
		rmni_hmac_add(&h, label, llen);
		rmni_hmac_add(&h, ctr, sizeof(ctr));
		rmni_hmac_end(&h, block);
		size_t off = (size_t)i * RMNI_MAC_LEN;
		for (size_t k = 0; k < RMNI_MAC_LEN && off + k < len; k++)
			buf[off + k] ^= block[k];
	}
	memset(block, 0, sizeof(block));
}
