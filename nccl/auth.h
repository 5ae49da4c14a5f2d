/* SPDX-License-Identifier: Apache-2.0 */
/*
 * auth.h - how the two ends of the id exchange prove who they are
 * (auth.c), with libsodium's primitives underneath. Not installed.
 *
 * Both proofs bind the same fields: the mode, job and step ids, the map
 * digest, rank, world size, id length and a nonce from each side, so a
 * proof is good for one connection of one step only. With MUNGE the
 * fields travel inside a credential restricted to the job user's uid;
 * in secret mode ("hmac") they are keyed by keys derived from the step's
 * secret: crypto_auth (HMAC-SHA-512-256) for the hello, XChaCha20-Poly1305
 * (an AEAD) for the answer, which also keeps the id secret.
 */
#ifndef RANKMAP_NCCL_AUTH_H
#define RANKMAP_NCCL_AUTH_H

#include "nccl_internal.h"

#include <sys/types.h>

#define RMNI_MAC_LEN 32               /* crypto_auth_BYTES */
#define RMNI_NONCE_LEN 32
#define RMNI_DIGEST_LEN 64
/* An answer's proof in secret mode: the AEAD nonce, then its tag. */
#define RMNI_AEAD_NONCE_LEN 24        /* XChaCha20-Poly1305 */
#define RMNI_AEAD_TAG_LEN 16
#define RMNI_SEAL_LEN (RMNI_AEAD_NONCE_LEN + RMNI_AEAD_TAG_LEN)
/* Largest proof accepted on the wire: a MUNGE credential carrying a
 * 4 KiB blob in base64 fits with room to spare. */
#define RMNI_PROOF_MAX 12288

/* Equal, in time that does not depend on where they differ (libsodium's
 * sodium_memcmp). */
RMNI_HIDDEN bool rmni_ct_equal(const void *a, const void *b, size_t n);

/* What one exchange authenticates with, settled before any socket. */
typedef struct rmni_auth {
	rmn_auth mode;               /* MUNGE, HMAC or NONE, never AUTO */
	rmn_auth asked;              /* as configured (AUTO follows rank 0) */
	unsigned char key[RMN_SECRET_LEN];   /* the step's secret */
	bool have_key;
	/* Derived from key (crypto_kdf): one key per purpose. */
	unsigned char hello_key[32], answer_key[32];
	const char *munge_socket;
	uid_t uid;                   /* the job user: ours */
	uint32_t jobid, stepid;
} rmni_auth;

/* The fields a proof binds, for one connection. */
typedef struct rmni_bind {
	uint32_t mode, jobid, stepid, rank, nranks, len;
	unsigned char digest[RMNI_DIGEST_LEN];
	unsigned char root_nonce[RMNI_NONCE_LEN];
	unsigned char peer_nonce[RMNI_NONCE_LEN];
} rmni_bind;

RMNI_HIDDEN const char *rmni_auth_name(rmn_auth m);
/* Settle the mode (AUTO: MUNGE when munged answers, else HMAC with the
 * secret, else an error saying what is missing); initialises libsodium
 * and derives the secret mode's keys. */
RMNI_HIDDEN rmn_status rmni_auth_setup(const rmn_exchange_opts *o,
				      rmni_auth *a, rmn_error *err);
/* A peer in AUTO follows rank 0's announced mode when it can do it;
 * never down to NONE. false with the reason otherwise. */
RMNI_HIDDEN bool rmni_auth_follow(rmni_auth *a, uint32_t root_mode,
				 char *why, size_t cap);
/* libsodium ready and, when a->have_key, hello_key and answer_key
 * derived from a->key; false when libsodium cannot start. */
RMNI_HIDDEN bool rmni_auth_keys(rmni_auth *a);
/* A connection's nonce (randombytes_buf; libsodium started first). */
RMNI_HIDDEN bool rmni_nonce(unsigned char n[RMNI_NONCE_LEN]);

/* The hello's proof: *len bytes into out (RMNI_PROOF_MAX). */
RMNI_HIDDEN rmn_status rmni_prove_hello(const rmni_auth *a,
				       const rmni_bind *b, unsigned char *out,
				       size_t *len, rmn_error *err);
RMNI_HIDDEN bool rmni_check_hello(const rmni_auth *a, const rmni_bind *b,
				 const unsigned char *proof, size_t len,
				 char *why, size_t cap);
/*
 * An answer's body and proof for `content` (the id when status is 0,
 * else rank 0's message). Secret mode: body = content encrypted with
 * XChaCha20-Poly1305 under the bound fields as associated data, proof =
 * the random nonce and the tag (RMNI_SEAL_LEN); MUNGE: body empty, content
 * inside the credential; none: body = content, no proof. malloc'd.
 */
RMNI_HIDDEN rmn_status rmni_seal_answer(const rmni_auth *a, const rmni_bind *b,
				       uint32_t status, const void *content,
				       size_t clen, unsigned char **body,
				       size_t *blen, unsigned char **proof,
				       size_t *plen, rmn_error *err);
/* Check an answer and take its content out (at most cap bytes). */
RMNI_HIDDEN bool rmni_open_answer(const rmni_auth *a, const rmni_bind *b,
				 uint32_t status, const unsigned char *body,
				 size_t blen, const unsigned char *proof,
				 size_t plen, unsigned char *out, size_t cap,
				 size_t *outlen, char *why, size_t wcap);

#endif
