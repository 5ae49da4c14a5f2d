/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_driver.c - runs a libFuzzer target without libFuzzer, so `make check`
 * exercises every parser's fuzz target under ASan+UBSan: each seed file in
 * the directory given, then a bounded number of deterministic mutations of
 * the seeds (bit flips, truncations, byte insertions, splices).
 * A crash or sanitizer report fails the suite; a clean run prints PASS.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit/xorshift.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
	return xorshift_next(&rng);
}

#define MAXSEEDS 256
#define MAXLEN (1 << 16)

int main(int argc, char **argv)
{
	static uint8_t *seed[MAXSEEDS];
	static size_t seedlen[MAXSEEDS];
	int nseed = 0;
	const char *dir = argc > 1 ? argv[1] : ".";
	long iters = argc > 2 ? atol(argv[2]) : 20000;
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)) && nseed < MAXSEEDS) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			FILE *f = fopen(path, "rb");
			if (!f)
				continue;
			uint8_t *buf = malloc(MAXLEN);
			size_t n = fread(buf, 1, MAXLEN, f);
			fclose(f);
			seed[nseed] = buf;
			seedlen[nseed++] = n;
			LLVMFuzzerTestOneInput(buf, n);
		}
		closedir(d);
	}
	if (nseed == 0) {
		seed[0] = (uint8_t *)strdup("x");
		seedlen[0] = 1;
		nseed = 1;
	}
	uint8_t *buf = malloc(2 * MAXLEN + 64);
	for (long i = 0; i < iters; i++) {
		int s = (int)(next() % (uint64_t)nseed);
		size_t n = seedlen[s];
		memcpy(buf, seed[s], n);
		int k = 1 + (int)(next() % 8);
		for (int j = 0; j < k; j++) {
			switch (next() % 6) {
			case 0: /* flip */
				if (n)
					buf[next() % n] ^= (uint8_t)(1u << (next() % 8));
				break;
			case 1: /* interesting byte */
				if (n) {
					static const uint8_t b[] = { 0, '[', ']', ',', '-', '=', ':', 'x', '\n', '#', '9', 0xff, '"', '{', '}', ' ' };
					buf[next() % n] = b[next() % sizeof(b)];
				}
				break;
			case 2: /* truncate */
				if (n)
					n = next() % n;
				break;
			case 3: /* insert */
				if (n < 2 * MAXLEN) {
					size_t at = n ? next() % n : 0;
					memmove(buf + at + 1, buf + at, n - at);
					buf[at] = (uint8_t)next();
					n++;
				}
				break;
			case 4: { /* splice from another seed */
				int t = (int)(next() % (uint64_t)nseed);
				if (seedlen[t] && n + 64 < 2 * MAXLEN) {
					size_t from = next() % seedlen[t];
					size_t len = seedlen[t] - from;
					if (len > 64)
						len = 64;
					size_t at = n ? next() % n : 0;
					memmove(buf + at + len, buf + at, n - at);
					memcpy(buf + at, seed[t] + from, len);
					n += len;
				}
				break;
			}
			default: /* repeat a digit run: overflow attempts */
				if (n < 2 * MAXLEN - 20) {
					size_t at = n ? next() % n : 0;
					memmove(buf + at + 20, buf + at, n - at);
					memset(buf + at, '9', 20);
					n += 20;
				}
			}
		}
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("PASS: fuzz/%s: %d seeds, %ld mutations\n", dir, nseed, iters);
	for (int i = 0; i < nseed; i++)
		free(seed[i]);
	free(buf);
	return 0;
}
