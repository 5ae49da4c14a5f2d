/* SPDX-License-Identifier: Apache-2.0 */
/*
 * auth.c - the proofs of the id exchange. A peer proves in its hello, and
 * rank 0 in its answer, that it holds the step's credentials, over the
 * fields of rmni_bind (both nonces included, so nothing can be replayed
 * on another connection or step).
 *
 * MUNGE: the cluster's own authentication. Each proof is a credential
 * whose payload is the bound fields (and, in an answer, its content),
 * restricted to our uid, so only the job user can decode it; the decoded
 * uid must be ours too. Secret mode (named "hmac"): libsodium, keys
 * derived from the step's secret with crypto_kdf, one per purpose; the
 * hello's proof is crypto_auth (HMAC-SHA-512-256) over the same bytes,
 * the answer is sealed with XChaCha20-Poly1305 (confidential and
 * authenticated, the bound fields as associated data, a random nonce per
 * answer).
 */
#include "auth.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef RMN_HAVE_MUNGE
#include <munge.h>
#endif

#define LABEL "rankmap-nccl-exchange/3"
/* crypto_kdf's context (8 bytes) and the subkeys' ids. */
#define KDF_CONTEXT "rmnxchg3"
#define KDF_HELLO 1
#define KDF_ANSWER 2

_Static_assert(RMN_SECRET_LEN == crypto_kdf_KEYBYTES, "secret = KDF key");
_Static_assert(RMNI_MAC_LEN == crypto_auth_BYTES, "hello proof size");
_Static_assert(RMNI_AEAD_NONCE_LEN ==
		       crypto_aead_xchacha20poly1305_ietf_NPUBBYTES,
	       "AEAD nonce size");
_Static_assert(RMNI_AEAD_TAG_LEN == crypto_aead_xchacha20poly1305_ietf_ABYTES,
	       "AEAD tag size");
_Static_assert(sizeof(KDF_CONTEXT) - 1 == crypto_kdf_CONTEXTBYTES,
	       "KDF context size");
/* LABEL, kind, 6 words, digest, two nonces, status, content length */
#define FIELDS_LEN (sizeof(LABEL) + 1 + 24 + RMNI_DIGEST_LEN + \
		    2 * RMNI_NONCE_LEN + 8)

const char *rmni_auth_name(rmn_auth m)
{
	switch (m) {
	case RMN_AUTH_AUTO: return "auto";
	case RMN_AUTH_MUNGE: return "munge";
	case RMN_AUTH_HMAC: return "hmac";
	case RMN_AUTH_NONE: return "none";
	}
	return "unknown";
}

bool rmni_ct_equal(const void *a, const void *b, size_t n)
{
	return sodium_memcmp(a, b, n) == 0;
}

bool rmni_auth_keys(rmni_auth *a)
{
	/* sodium_init is idempotent and thread-safe; 1 = already done. */
	if (sodium_init() < 0)
		return false;
	if (a->have_key) {
		crypto_kdf_derive_from_key(a->hello_key, sizeof(a->hello_key),
					   KDF_HELLO, KDF_CONTEXT, a->key);
		crypto_kdf_derive_from_key(a->answer_key, sizeof(a->answer_key),
					   KDF_ANSWER, KDF_CONTEXT, a->key);
	}
	return true;
}

bool rmni_nonce(unsigned char n[RMNI_NONCE_LEN])
{
	if (sodium_init() < 0)
		return false;
	randombytes_buf(n, RMNI_NONCE_LEN);
	return true;
}

/* The bound fields as bytes: kind 'H' (hello) or 'A' (answer). */
static void fields(const rmni_bind *b, char kind, uint32_t status,
		   uint32_t clen, unsigned char out[FIELDS_LEN])
{
	unsigned char *p = rmni_put_bytes(out, LABEL, sizeof(LABEL));
	*p++ = (unsigned char)kind;
	uint32_t w[6] = { b->mode, b->jobid, b->stepid, b->rank, b->nranks,
			  b->len };
	p = rmni_put32s(p, w, 6);
	p = rmni_put_bytes(p, b->digest, RMNI_DIGEST_LEN);
	p = rmni_put_bytes(p, b->root_nonce, RMNI_NONCE_LEN);
	p = rmni_put_bytes(p, b->peer_nonce, RMNI_NONCE_LEN);
	rmni_put32(p, status);
	rmni_put32(p + 4, clen);
}

static void hello_mac(const rmni_auth *a, const unsigned char *f,
		      unsigned char out[RMNI_MAC_LEN])
{
	crypto_auth(out, f, FIELDS_LEN, a->hello_key);
}

#ifdef RMN_HAVE_MUNGE
static munge_ctx_t munge_ctx(const rmni_auth *a)
{
	munge_ctx_t c = munge_ctx_create();
	if (c && a->munge_socket &&
	    munge_ctx_set(c, MUNGE_OPT_SOCKET, a->munge_socket) !=
		    EMUNGE_SUCCESS) {
		munge_ctx_destroy(c);
		return NULL;
	}
	if (c && munge_ctx_set(c, MUNGE_OPT_UID_RESTRICTION, a->uid) !=
			 EMUNGE_SUCCESS) {
		munge_ctx_destroy(c);
		return NULL;
	}
	return c;
}

/* A credential for payload; its text (NUL included) into *out. */
static rmn_status munge_seal(const rmni_auth *a, const void *payload,
			     size_t len, char **out, rmn_error *err)
{
	munge_ctx_t c = munge_ctx(a);
	if (!c)
		return rmni_err(err, RMN_ENOMEM, "munge: cannot set up a context");
	munge_err_t e = munge_encode(out, c, payload, (int)len);
	rmn_status st = RMN_OK;
	if (e != EMUNGE_SUCCESS)
		st = rmni_err(err, RMN_EAUTH, "munge_encode: %s",
			      munge_ctx_strerror(c) ? munge_ctx_strerror(c)
						    : munge_strerror(e));
	munge_ctx_destroy(c);
	return st;
}

/* Decode a credential from the wire: the payload (malloc'd) when it is
 * good, comes from our uid and was meant for it. */
static bool munge_open(const rmni_auth *a, const unsigned char *cred,
		       size_t len, void **payload, int *plen, char *why,
		       size_t cap)
{
	*payload = NULL;
	if (!len || cred[len - 1] != '\0' || strlen((const char *)cred) != len - 1) {
		snprintf(why, cap, "not a MUNGE credential");
		return false;
	}
	munge_ctx_t c = munge_ctx(a);
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	if (!c) {
		snprintf(why, cap, "munge: cannot set up a context");
		return false;
	}
	munge_err_t e = munge_decode((const char *)cred, c, payload, plen,
				     &uid, &gid);
	bool ok = e == EMUNGE_SUCCESS;
	if (!ok)
		snprintf(why, cap, "MUNGE credential refused: %s",
			 munge_ctx_strerror(c) ? munge_ctx_strerror(c)
					       : munge_strerror(e));
	else if (uid != a->uid) {
		snprintf(why, cap, "MUNGE credential of uid %ld, not of the "
				   "job user (uid %ld)",
			 (long)uid, (long)a->uid);
		ok = false;
	}
	munge_ctx_destroy(c);
	if (!ok) {
		/* A refused credential may still have been decoded (expired,
		 * another uid): its payload can be an id all the same. */
		if (*payload && *plen > 0)
			sodium_memzero(*payload, (size_t)*plen);
		free(*payload);
		*payload = NULL;
	}
	return ok;
}
#endif

rmn_status rmni_auth_setup(const rmn_exchange_opts *o, rmni_auth *a,
			   rmn_error *err)
{
	memset(a, 0, sizeof(*a));
	a->asked = o->auth;
	a->munge_socket = o->munge_socket;
	a->uid = getuid();
	a->jobid = o->jobid;
	a->stepid = o->stepid;
	if (o->secret) {
		memcpy(a->key, o->secret, RMN_SECRET_LEN);
		a->have_key = true;
	}
	if (!rmni_auth_keys(a))
		return rmni_err(err, RMN_EAUTH, "exchange: libsodium did not "
						"start (sodium_init)");
	switch (o->auth) {
	case RMN_AUTH_NONE:
		a->mode = RMN_AUTH_NONE;
		return RMN_OK;
	case RMN_AUTH_HMAC:
		if (!a->have_key)
			return rmni_err(err, RMN_EINPUT,
					"exchange: HMAC authentication needs "
					"the step's secret (RANKMAP_NCCL_SECRET, "
					"set by srun's rankmap plugin)");
		a->mode = RMN_AUTH_HMAC;
		return RMN_OK;
	case RMN_AUTH_MUNGE:
#ifndef RMN_HAVE_MUNGE
		return rmni_err(err, RMN_EINPUT,
				"exchange: this librankmap-nccl was built "
				"without MUNGE (libmunge-dev)");
#else
		a->mode = RMN_AUTH_MUNGE;
		return RMN_OK;
#endif
	case RMN_AUTH_AUTO:
		break;
	}
#ifdef RMN_HAVE_MUNGE
	/* One credential tells whether munged answers here. */
	char *cred = NULL;
	rmn_error probe = { 0 };
	if (munge_seal(a, "probe", 5, &cred, &probe) == RMN_OK) {
		free(cred);
		a->mode = RMN_AUTH_MUNGE;
		return RMN_OK;
	}
	free(cred);
#endif
	if (a->have_key) {
		a->mode = RMN_AUTH_HMAC;
		return RMN_OK;
	}
	return rmni_err(err, RMN_EINPUT,
			"exchange: no authentication available: MUNGE %s and "
			"no step secret (RANKMAP_NCCL_SECRET, set by srun's "
			"rankmap plugin); RANKMAP_NCCL_AUTH=none turns "
			"authentication off",
#ifdef RMN_HAVE_MUNGE
			"does not answer"
#else
			"is not built in"
#endif
	);
}

bool rmni_auth_follow(rmni_auth *a, uint32_t root_mode, char *why,
		      size_t cap)
{
	if (root_mode == (uint32_t)a->mode)
		return true;
	bool munge = false;
#ifdef RMN_HAVE_MUNGE
	munge = true;
#endif
	bool can = a->asked == RMN_AUTH_AUTO &&
		   ((root_mode == RMN_AUTH_HMAC && a->have_key) ||
		    (root_mode == RMN_AUTH_MUNGE && munge));
	if (!can) {
		snprintf(why, cap, "it authenticates with %s, this rank with "
				   "%s",
			 root_mode <= RMN_AUTH_NONE
				 ? rmni_auth_name((rmn_auth)root_mode)
				 : "an unknown method",
			 rmni_auth_name(a->mode));
		return false;
	}
	a->mode = (rmn_auth)root_mode;
	return true;
}

rmn_status rmni_prove_hello(const rmni_auth *a, const rmni_bind *b,
			    unsigned char *out, size_t *len, rmn_error *err)
{
	unsigned char f[FIELDS_LEN];
	fields(b, 'H', 0, 0, f);
	*len = 0;
	if (a->mode == RMN_AUTH_HMAC) {
		hello_mac(a, f, out);
		*len = RMNI_MAC_LEN;
	}
#ifdef RMN_HAVE_MUNGE
	if (a->mode == RMN_AUTH_MUNGE) {
		char *cred = NULL;
		rmn_status st = munge_seal(a, f, sizeof(f), &cred, err);
		size_t n = cred ? strlen(cred) + 1 : 0;
		if (st == RMN_OK && n > RMNI_PROOF_MAX)
			st = rmni_err(err, RMN_EAUTH, "munge: credential of "
						      "%zu bytes", n);
		if (st == RMN_OK) {
			memcpy(out, cred, n);
			*len = n;
		}
		free(cred);
		return st;
	}
#endif
	(void)err;
	return RMN_OK;
}

bool rmni_check_hello(const rmni_auth *a, const rmni_bind *b,
		      const unsigned char *proof, size_t len, char *why,
		      size_t cap)
{
	unsigned char f[FIELDS_LEN];
	fields(b, 'H', 0, 0, f);
	if (b->mode != (uint32_t)a->mode) {
		snprintf(why, cap, "it authenticates with %s, rank 0 with %s",
			 b->mode <= RMN_AUTH_NONE
				 ? rmni_auth_name((rmn_auth)b->mode)
				 : "an unknown method",
			 rmni_auth_name(a->mode));
		return false;
	}
	if (a->mode == RMN_AUTH_NONE)
		return true;
	if (a->mode == RMN_AUTH_HMAC) {
		if (len == RMNI_MAC_LEN &&
		    crypto_auth_verify(proof, f, FIELDS_LEN, a->hello_key) == 0)
			return true;
		snprintf(why, cap, "HMAC does not match (another job or step, "
				   "or not a task of this step)");
		return false;
	}
#ifdef RMN_HAVE_MUNGE
	void *payload = NULL;
	int plen = 0;
	if (!munge_open(a, proof, len, &payload, &plen, why, cap))
		return false;
	bool ok = plen == (int)sizeof(f) &&
		  rmni_ct_equal(payload, f, sizeof(f));
	free(payload);
	if (!ok)
		snprintf(why, cap, "MUNGE credential is for another job, step "
				   "or connection");
	return ok;
#else
	snprintf(why, cap, "no MUNGE in this build");
	return false;
#endif
}

rmn_status rmni_seal_answer(const rmni_auth *a, const rmni_bind *b,
			    uint32_t status, const void *content, size_t clen,
			    unsigned char **body, size_t *blen,
			    unsigned char **proof, size_t *plen,
			    rmn_error *err)
{
	unsigned char f[FIELDS_LEN];
	fields(b, 'A', status, (uint32_t)clen, f);
	*body = NULL;
	*proof = NULL;
	*blen = *plen = 0;
	if (a->mode == RMN_AUTH_MUNGE) {
#ifdef RMN_HAVE_MUNGE
		unsigned char *payload = malloc(sizeof(f) + clen);
		char *cred = NULL;
		if (!payload)
			return rmni_err(err, RMN_ENOMEM, "out of memory");
		memcpy(payload, f, sizeof(f));
		if (clen)
			memcpy(payload + sizeof(f), content, clen);
		rmn_status st = munge_seal(a, payload, sizeof(f) + clen, &cred,
					   err);
		/* The id in clear: sodium_memzero, as a memset before free
		 * is a dead store the compiler drops (tests/secrets). */
		sodium_memzero(payload, sizeof(f) + clen);
		free(payload);
		if (st != RMN_OK) {
			free(cred);
			return st;
		}
		*proof = (unsigned char *)cred;
		*plen = strlen(cred) + 1;
		return RMN_OK;
#endif
	}
	*body = malloc(clen ? clen : 1);
	if (!*body)
		return rmni_err(err, RMN_ENOMEM, "out of memory");
	*blen = clen;
	if (a->mode == RMN_AUTH_NONE) {
		if (clen)
			memcpy(*body, content, clen);
		return RMN_OK;
	}
	*proof = malloc(RMNI_SEAL_LEN);
	if (!*proof) {
		free(*body);
		*body = NULL;
		return rmni_err(err, RMN_ENOMEM, "out of memory");
	}
	/* A fresh random nonce per answer: 192 bits, so never one twice
	 * under a step's key however many ranks ask. */
	randombytes_buf(*proof, RMNI_AEAD_NONCE_LEN);
	crypto_aead_xchacha20poly1305_ietf_encrypt_detached(
		*body, *proof + RMNI_AEAD_NONCE_LEN, NULL, content, clen, f,
		FIELDS_LEN, NULL, *proof, a->answer_key);
	*plen = RMNI_SEAL_LEN;
	return RMN_OK;
}

bool rmni_open_answer(const rmni_auth *a, const rmni_bind *b,
		      uint32_t status, const unsigned char *body, size_t blen,
		      const unsigned char *proof, size_t plen,
		      unsigned char *out, size_t cap, size_t *outlen,
		      char *why, size_t wcap)
{
	*outlen = 0;
	if (a->mode == RMN_AUTH_MUNGE) {
#ifdef RMN_HAVE_MUNGE
		void *payload = NULL;
		int n = 0;
		if (blen) {
			snprintf(why, wcap, "a MUNGE answer with a body");
			return false;
		}
		if (!munge_open(a, proof, plen, &payload, &n, why, wcap))
			return false;
		unsigned char f[FIELDS_LEN];
		size_t clen = n >= (int)FIELDS_LEN ? (size_t)n - FIELDS_LEN : 0;
		fields(b, 'A', status, (uint32_t)clen, f);
		bool ok = n >= (int)FIELDS_LEN && clen <= cap &&
			  rmni_ct_equal(payload, f, FIELDS_LEN);
		if (ok) {
			memcpy(out, (unsigned char *)payload + FIELDS_LEN, clen);
			*outlen = clen;
		} else {
			snprintf(why, wcap, "MUNGE credential is for another "
					    "job, step or connection");
		}
		if (payload)
			sodium_memzero(payload, (size_t)n);
		free(payload);
		return ok;
#else
		snprintf(why, wcap, "no MUNGE in this build");
		return false;
#endif
	}
	if (blen > cap) {
		snprintf(why, wcap, "an answer of %zu bytes", blen);
		return false;
	}
	if (a->mode == RMN_AUTH_HMAC) {
		unsigned char f[FIELDS_LEN];
		fields(b, 'A', status, (uint32_t)blen, f);
		/* Decrypted only when the tag holds: nothing of a forged
		 * answer reaches out. */
		if (plen != RMNI_SEAL_LEN ||
		    crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
			    out, NULL, body, blen, proof + RMNI_AEAD_NONCE_LEN,
			    f, FIELDS_LEN, proof, a->answer_key) != 0) {
			snprintf(why, wcap, "it does not authenticate with the "
					    "step's secret (not rank 0 of this "
					    "step)");
			return false;
		}
	} else if (plen) {
		snprintf(why, wcap, "a proof where none was expected");
		return false;
	} else if (blen) {
		memcpy(out, body, blen);
	}
	*outlen = blen;
	return true;
}
