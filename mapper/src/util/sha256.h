/*
 * sha256.h - incremental SHA-256 (FIPS 180-4) for librankmap's own use:
 * the map's inputs digest hashes several inputs without concatenating them.
 */
#ifndef RANKMAP_SHA256_H
#define RANKMAP_SHA256_H

#include "internal.h"

typedef struct rmi_sha256 {
	uint32_t h[8];
	uint64_t total;              /* bytes hashed so far */
	unsigned char block[64];
	size_t fill;                 /* bytes waiting in block[] */
} rmi_sha256;

RMI_HIDDEN void rmi_sha256_init(rmi_sha256 *c);
RMI_HIDDEN void rmi_sha256_add(rmi_sha256 *c, const void *data, size_t len);
/* Finish and write 64 lowercase hex digits plus NUL; `c` is spent. */
RMI_HIDDEN void rmi_sha256_hex(rmi_sha256 *c, char hex[65]);

#endif
