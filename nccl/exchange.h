/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exchange.h - the id exchange's wire format and helpers, shared by its
 * entry point and message parsers (exchange.c, exchange_msg.c), rank 0
 * (exchange_root.c) and the other ranks (exchange_peer.c). Not installed.
 *
 * Three messages per connection, integers big-endian:
 *   challenge  rank 0 -> peer  "RMNXCHG3" mode:u32 nonce:32
 *   hello      peer -> rank 0  "RMNXCHG3" rank nranks len mode jobid
 *                              stepid (u32 each) digest:64 nonce:32
 *                              prooflen:u32 proof[prooflen]
 *   answer     rank 0 -> peer  "RMNXCHG3" status:u32 bodylen:u32
 *                              prooflen:u32 body[bodylen] proof[prooflen]
 * status 0 = ok (the id), otherwise an rmn_status and rank 0's message.
 * Proofs: auth.h.
 */
#ifndef RANKMAP_NCCL_EXCHANGE_H
#define RANKMAP_NCCL_EXCHANGE_H

#include "auth.h"

#define MAGIC "RMNXCHG3"
#define MAGIC_LEN 8
#define DIGEST_LEN RMNI_DIGEST_LEN
#define CHALLENGE_LEN (MAGIC_LEN + 4 + RMNI_NONCE_LEN)
#define HELLO_HEAD (MAGIC_LEN + 24 + DIGEST_LEN + RMNI_NONCE_LEN + 4)
#define ANSWER_HEAD (MAGIC_LEN + 12)
#define ANSWER_MSG_MAX 900
/* A hello's proof is a MAC or a credential of a few hundred bytes. */
#define HELLO_PROOF_MAX 4096

typedef struct rmni_hello {
	uint32_t rank, nranks, len, mode, jobid, stepid, prooflen;
	unsigned char digest[DIGEST_LEN];
	unsigned char nonce[RMNI_NONCE_LEN];
} rmni_hello;

typedef struct rmni_answer {
	uint32_t status, bodylen, prooflen;
} rmni_answer;

/* Parsers of what arrives from a stranger: false when it is not a
 * well-formed message of ours (bad magic, lengths out of bounds). */
RMNI_HIDDEN bool rmni_challenge_parse(const unsigned char c[CHALLENGE_LEN],
				     uint32_t *mode,
				     unsigned char nonce[RMNI_NONCE_LEN]);
RMNI_HIDDEN void rmni_challenge_write(unsigned char c[CHALLENGE_LEN],
				     uint32_t mode,
				     const unsigned char nonce[RMNI_NONCE_LEN]);
RMNI_HIDDEN bool rmni_hello_parse(const unsigned char h[HELLO_HEAD],
				 rmni_hello *out);
RMNI_HIDDEN void rmni_hello_write(unsigned char h[HELLO_HEAD],
				 const rmni_hello *in);
RMNI_HIDDEN bool rmni_answer_parse(const unsigned char h[ANSWER_HEAD],
				  rmni_answer *out);
/* The fields a hello's proof binds, with rank 0's nonce. */
RMNI_HIDDEN void rmni_hello_bind(const rmni_hello *h,
				const unsigned char root_nonce[RMNI_NONCE_LEN],
				rmni_bind *b);

/* Milliseconds to the deadline, at most 1000 (poll in slices). */
RMNI_HIDDEN int rmni_wait_ms(int64_t deadline);
/* Write all of buf before the deadline; false on error or time-out. */
RMNI_HIDDEN bool rmni_send_all(int fd, const void *buf, size_t len,
			      int64_t deadline);
/* Read exactly len bytes before the deadline: 1 done, 0 closed early,
 * -1 error, -2 time-out. */
RMNI_HIDDEN int rmni_recv_all(int fd, void *buf, size_t len,
			     int64_t deadline);
/* The digest as its fixed 64-byte field (zeros: not compared). */
RMNI_HIDDEN void rmni_digest_field(const char *d, unsigned char *out);
/* Seal and send an answer for the connection bound by b (a NULL auth:
 * an unauthenticated refusal to a stranger). */
RMNI_HIDDEN bool rmni_answer_send(int fd, const rmni_auth *a,
				 const rmni_bind *b, uint32_t status,
				 const void *content, size_t len,
				 int64_t deadline);
/* "10.1.2.3:41234" of the other end, for log lines. */
RMNI_HIDDEN void rmni_peer_name(int fd, char *out, size_t cap);

RMNI_HIDDEN rmn_status rmni_exchange_root(const rmn_exchange_opts *o,
					 const rmni_auth *a, const void *blob,
					 size_t len, int64_t deadline,
					 rmn_error *err);
RMNI_HIDDEN rmn_status rmni_exchange_peer(const rmn_exchange_opts *o,
					 rmni_auth *a, void *blob, size_t len,
					 int64_t deadline, rmn_error *err);

#endif
