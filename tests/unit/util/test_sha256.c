/* SPDX-License-Identifier: Apache-2.0 */
/* test_sha256.c - SHA-256 against the FIPS 180-4 / NIST example vectors. */
#include "internal.h"
#include "test.h"

#include <stdlib.h>

static void vectors(void)
{
	char hex[65];
	rm_sha256_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223"
		       "b00361a396177a9cb410ff61f20015ad");
	rm_sha256_hex("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb924"
		       "27ae41e4649b934ca495991b7852b855");
	const char *m448 =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	rm_sha256_hex(m448, strlen(m448), hex);
	CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039"
		       "a33ce45964ff2167f6ecedd419db06c1");
	const char *m896 =
		"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		"hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	rm_sha256_hex(m896, strlen(m896), hex);
	CHECK_STR(hex, "cf5b16a778af8380036ce59e7b049237"
		       "0b249b11e8f07a51afac45037afee9d1");
}

static void million_a(void)
{
	char hex[65];
	char *a = malloc(1000000);
	CHECK(a != NULL);
	if (!a)
		return;
	memset(a, 'a', 1000000);
	rm_sha256_hex(a, 1000000, hex);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
		       "f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

/* Feeding the same bytes in odd-sized pieces must not change the digest:
 * the map writer hashes its inputs piece by piece. */
static void incremental(void)
{
	char one[65], parts[65];
	unsigned char data[1000];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 3);
	rm_sha256_hex(data, sizeof(data), one);
	static const size_t steps[] = { 1, 3, 55, 56, 63, 64, 65, 127, 200 };
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		rm_sha256_ctx c;
		rm_sha256_init(&c);
		for (size_t off = 0; off < sizeof(data); off += steps[s]) {
			size_t n = sizeof(data) - off;
			if (n > steps[s])
				n = steps[s];
			rm_sha256_add(&c, data + off, n);
		}
		rm_sha256_end_hex(&c, parts);
		CHECK_STR(parts, one);
	}
	/* Lengths around the padding boundary (55, 56, 64 bytes). */
	rm_sha256_hex(data, 55, one);
	CHECK(strcmp(one, parts) != 0);
	char h56[65], h64[65];
	rm_sha256_hex(data, 56, h56);
	rm_sha256_hex(data, 64, h64);
	CHECK(strcmp(one, h56) != 0 && strcmp(h56, h64) != 0);
}

/* From 1 MiB up rm_sha256_hex hashes through libcrypto: the same digest
 * as the portable code fed the same bytes, on both sides of the switch. */
static void large_buffers(void)
{
	static const size_t sizes[] = { (1u << 20) - 1, 1u << 20,
					(1u << 20) + 1, 3u << 20 };
	unsigned char *d = malloc(3u << 20);
	CHECK(d != NULL);
	if (!d)
		return;
	for (size_t i = 0; i < (3u << 20); i++)
		d[i] = (unsigned char)(i * 131 + (i >> 11));
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		char one[65], parts[65];
		rm_sha256_hex(d, sizes[s], one);
		rm_sha256_ctx c;
		rm_sha256_init(&c);
		rm_sha256_add(&c, d, sizes[s]);
		rm_sha256_end_hex(&c, parts);
		CHECK_STR(one, parts);
	}
	free(d);
}

int main(void)
{
	RUN("sha256", vectors);
	RUN("sha256", million_a);
	RUN("sha256", incremental);
	RUN("sha256", large_buffers);
	TEST_EXIT();
}
