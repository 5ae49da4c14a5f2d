/* The seeded generator of the randomised tests and benches: xorshift64, so
 * that a seed names the same fabrics on every machine and libc. */
#ifndef RM_TEST_XORSHIFT_H
#define RM_TEST_XORSHIFT_H
#include <stdint.h>

/* A number below n (0 when n is 0); advances *s. */
static inline uint32_t xorshift_below(uint64_t *s, uint32_t n)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return n ? (uint32_t)(*s % n) : 0;
}
#endif
