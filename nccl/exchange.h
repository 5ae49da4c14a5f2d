/*
 * exchange.h - the id exchange's wire format and helpers, shared by its
 * entry point (exchange.c), rank 0 (exchange_root.c) and the other ranks
 * (exchange_peer.c). Not installed.
 */
#ifndef RANKMAP_NCCL_EXCHANGE_H
#define RANKMAP_NCCL_EXCHANGE_H

#include "nccl_internal.h"

#define MAGIC "RMNXCHG1"
#define MAGIC_LEN 8
#define DIGEST_LEN 64
#define HELLO_LEN (MAGIC_LEN + 12 + DIGEST_LEN)
#define ANSWER_HEAD (MAGIC_LEN + 8)
#define ANSWER_MSG_MAX 900

RMI_HIDDEN void rmni_put32(unsigned char *p, uint32_t v);
RMI_HIDDEN uint32_t rmni_get32(const unsigned char *p);
/* Milliseconds to the deadline, at most 1000 (poll in slices). */
RMI_HIDDEN int rmni_wait_ms(int64_t deadline);
/* Write all of buf before the deadline; false on error or time-out. */
RMI_HIDDEN bool rmni_send_all(int fd, const void *buf, size_t len,
			      int64_t deadline);
/* Read exactly len bytes before the deadline: 1 done, 0 closed early,
 * -1 error, -2 time-out. */
RMI_HIDDEN int rmni_recv_all(int fd, void *buf, size_t len,
			     int64_t deadline);
/* The digest as its fixed 64-byte field (zeros: not compared). */
RMI_HIDDEN void rmni_digest_field(const char *d, unsigned char *out);
/* Send an answer (status, body); false when it could not be sent. */
RMI_HIDDEN bool rmni_answer(int fd, uint32_t status, const void *body,
			    size_t len, int64_t deadline);

RMI_HIDDEN rmn_status rmni_exchange_root(const rmn_exchange_opts *o,
					 const void *blob, size_t len,
					 int64_t deadline, rmn_error *err);
RMI_HIDDEN rmn_status rmni_exchange_peer(const rmn_exchange_opts *o,
					 void *blob, size_t len,
					 int64_t deadline, rmn_error *err);

#endif
