/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nccl_internal.h - shared between librankmap-nccl's own files.
 * Internal names start with rmni_ and stay out of the shared library.
 */
#ifndef RANKMAP_NCCL_INTERNAL_H
#define RANKMAP_NCCL_INTERNAL_H

#include "rankmap_nccl.h"
#include "rankmap_priv.h"

#include <stdarg.h>
#include <stdio.h>

/* librankmap's public API only: its internal headers stay inside
 * mapper/src (tests/layers checks it). */
#if defined(__GNUC__)
#define RMNI_HIDDEN __attribute__((visibility("hidden")))
#else
#define RMNI_HIDDEN
#endif

/* Fill `err` (may be NULL) and return `code`. */
RMNI_HIDDEN rmn_status rmni_err(rmn_error *err, rmn_status code,
			       const char *fmt, ...) RM_PRINTF(3, 4);
/* Carry a librankmap error over, keeping its message. */
RMNI_HIDDEN rmn_status rmni_from_rm(rmn_error *err, const rm_error *e);
/* Big-endian words on the wire. */
RMNI_HIDDEN void rmni_put32(unsigned char *p, uint32_t v);
RMNI_HIDDEN uint32_t rmni_get32(const unsigned char *p);
/* n words, then n raw bytes, at p; each returns the byte after them, so
 * a message is written field after field. */
RMNI_HIDDEN unsigned char *rmni_put32s(unsigned char *p, const uint32_t *w,
				       size_t n);
RMNI_HIDDEN unsigned char *rmni_put_bytes(unsigned char *p, const void *src,
					  size_t n);
/* Milliseconds on the monotonic clock. */
RMNI_HIDDEN int64_t rmni_now_ms(void);
/* "3, 5-7, 9" for a sorted list of ranks; at most `cap` bytes written,
 * ending in "... (N more)" when it does not fit. */
RMNI_HIDDEN void rmni_ranges(const uint32_t *v, size_t n, char *out,
			    size_t cap);

/* A rank's color, key and group size in librankmap's groups (present is
 * false where it is in none). */
RMNI_HIDDEN rmn_split rmni_split_of(const rm_groups *g, uint32_t rank);
/* An unsigned integer from the environment; absent leaves *out alone. */
RMNI_HIDDEN rmn_status rmni_env_u64(const char *name, uint64_t min,
				   uint64_t max, uint64_t *out, bool *found,
				   rmn_error *err);
/* Fill in everything the caller of rmn_comms_init left to the
 * environment (comm_env.c). */
RMNI_HIDDEN rmn_status rmni_resolve_opts(const rmn_opts *in, rmn_opts *o,
					rmn_error *err);
/* The exchange's options for a resolved rmn_opts; `secret` holds the
 * decoded key while *x is in use (the caller wipes it). */
RMNI_HIDDEN void rmni_exchange_opts_of(const rmn_opts *o, uint32_t rank,
				      uint32_t world, const char *digest,
				      unsigned char secret[RMN_SECRET_LEN],
				      rmn_exchange_opts *x);

#endif
