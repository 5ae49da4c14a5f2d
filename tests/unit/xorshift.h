/* SPDX-License-Identifier: Apache-2.0 */
/* The seeded generator of the randomised tests, benches and the fuzz
 * driver: xorshift64, so that a seed names the same fabrics (and inputs) on
 * every machine and libc. */
#ifndef RM_TEST_XORSHIFT_H
#define RM_TEST_XORSHIFT_H
#include <stdint.h>

/* The next 64 bits; advances *s. */
static inline uint64_t xorshift_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A number below n (0 when n is 0); advances *s. */
static inline uint32_t xorshift_below(uint64_t *s, uint32_t n)
{
	uint64_t x = xorshift_next(s);
	return n ? (uint32_t)(x % n) : 0;
}
#endif
