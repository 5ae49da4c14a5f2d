/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hostname.h - small helpers shared by the hostlist parser and formatter.
 */
#ifndef RANKMAP_HOSTNAME_H
#define RANKMAP_HOSTNAME_H

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* More digits than this cannot be a node index; u64 arithmetic stays safe. */
#define RMI_HOST_MAX_DIGITS 18

/* Characters Slurm and DNS accept in a node name. */
static inline bool rmi_host_char(unsigned char c)
{
	return isalnum(c) || c == '.' || c == '_' || c == '-';
}

static inline unsigned rmi_ndigits(uint64_t v)
{
	unsigned n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Decimal `v` zero-padded to `width`; returns the bytes written (<= 20 or
 * width). */
static inline size_t rmi_put_num(char *dst, uint64_t v, unsigned width)
{
	char tmp[24];
	unsigned n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	size_t o = 0;
	while (width > n) {
		dst[o++] = '0';
		width--;
	}
	while (n)
		dst[o++] = tmp[--n];
	return o;
}

#endif
