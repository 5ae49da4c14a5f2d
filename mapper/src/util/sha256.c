/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sha256.c - SHA-256 (FIPS 180-4). The map file carries a digest of its
 * inputs so that two nodes computing the same map independently can prove
 * they started from the same data, and every node hashes the map file it
 * writes (megabytes at scale) at every step.
 *
 * One-shot digests of large buffers (rm_sha256_hex of 1 MiB and more: the
 * map files of big steps) go through OpenSSL's libcrypto, which uses the
 * CPU's SHA instructions: 2 MB (a 16,384-GPU map) in about 1.4 ms here
 * against 7.3 ms for the portable code below, which was most of what the
 * plugin spent per node per step (issue 26). The incremental interface
 * (rm_sha256_init/add/end, small inputs fed piece by piece) stays the
 * portable code written from the standard, whose context is a public
 * struct; test_sha256 checks the two against each other and the NIST
 * vectors.
 */
#include "util/util.h"

#include <openssl/evp.h>
#include <string.h>

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64];
	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
		       (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^
			      (w[t - 15] >> 3);
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^
			      (w[t - 2] >> 10);
		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
	uint32_t e = h[4], f = h[5], g = h[6], k = h[7];
	for (int t = 0; t < 64; t++) {
		uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = k + S1 + ch + K[t] + w[t];
		uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
		uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = S0 + maj;
		k = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += k;
}

void rm_sha256_init(rm_sha256_ctx *c)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(c->h, h0, sizeof(h0));
	c->total = 0;
	c->fill = 0;
}

void rm_sha256_add(rm_sha256_ctx *c, const void *data, size_t len)
{
	const unsigned char *p = data;
	c->total += len;
	if (c->fill) {
		size_t take = 64 - c->fill;
		if (take > len)
			take = len;
		memcpy(c->block + c->fill, p, take);
		c->fill += take;
		p += take;
		len -= take;
		if (c->fill < 64)
			return;
		compress(c->h, c->block);
		c->fill = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		compress(c->h, p);
	if (len) {
		memcpy(c->block, p, len);
		c->fill = len;
	}
}

void rm_sha256_end(rm_sha256_ctx *c, unsigned char out[RM_SHA256_LEN])
{
	uint64_t bits = c->total * 8;
	unsigned char pad[72];
	/* A single 0x80 byte, zeros up to 56 mod 64, then the bit length. */
	size_t npad = (c->fill < 56 ? 56 : 120) - c->fill;
	memset(pad, 0, sizeof(pad));
	pad[0] = 0x80;
	for (int i = 0; i < 8; i++)
		pad[npad + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
	rm_sha256_add(c, pad, npad + 8);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = (unsigned char)(c->h[i] >> (24 - 8 * j));
}

void rm_sha256_end_hex(rm_sha256_ctx *c, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char d[RM_SHA256_LEN];
	rm_sha256_end(c, d);
	for (int i = 0; i < RM_SHA256_LEN; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[64] = '\0';
}

/* libcrypto's first digest in a process costs 1.3-2.5 ms here (its
 * default provider starts up); the portable code hashes about 0.3 MB in
 * that time. Below this size a slurmstepd that hashes a small map once
 * would only pay the start-up. */
#define LIBCRYPTO_FROM (1u << 20)

void rm_sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	if (len >= LIBCRYPTO_FROM &&
	    EVP_Digest(data, len, d, &n, EVP_sha256(), NULL) == 1 &&
	    n == RM_SHA256_LEN) {
		static const char digits[] = "0123456789abcdef";
		for (unsigned i = 0; i < RM_SHA256_LEN; i++) {
			hex[2 * i] = digits[d[i] >> 4];
			hex[2 * i + 1] = digits[d[i] & 15];
		}
		hex[64] = '\0';
		return;
	}
	/* libcrypto could not (out of memory, a FIPS provider without
	 * SHA-256): the same digest, slower */
	rm_sha256_ctx c;
	rm_sha256_init(&c);
	rm_sha256_add(&c, data, len);
	rm_sha256_end_hex(&c, hex);
}
