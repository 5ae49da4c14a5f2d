/* SPDX-License-Identifier: Apache-2.0 */
/*
 * secret.c - srun's per-step secret for librankmap-nccl's id exchange,
 * which keys libsodium's crypto_auth and AEAD from it where MUNGE is not used
 * (docs/nccl.md). srun draws 32 bytes from the kernel and puts them in its
 * own environment as RANKMAP_NCCL_SECRET; srun copies that environment
 * into the step's launch request, so the secret reaches this step's tasks
 * and no other step. On the nodes it is in the tasks' environment, which
 * only the job user's own processes (/proc/PID/environ is owner-only) and
 * root can read. Every srun draws a new one, overwriting an outer one.
 */
#include "plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define SECRET_BYTES 32

int rms_local_secret(void)
{
	unsigned char b[SECRET_BYTES];
	char hex[2 * SECRET_BYTES + 1];
	size_t got = 0;
	int rc = 0;
	while (rc == 0 && got < sizeof(b)) {
		ssize_t k = getrandom(b + got, sizeof(b) - got, 0);
		if (k <= 0) {
			slurm_error(RMS_PREFIX "no random bytes for the step's "
				    "NCCL secret");
			rc = -1;
		} else {
			got += (size_t)k;
		}
	}
	for (size_t i = 0; rc == 0 && i < sizeof(b); i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	if (rc == 0 && setenv("RANKMAP_NCCL_SECRET", hex, 1) != 0) {
		slurm_error(RMS_PREFIX "cannot pass the step's NCCL secret: "
			    "out of memory");
		rc = -1;
	}
	/* Only the environment's copy may outlive this call. No libsodium
	 * in the plugin, and a memset here is a dead store the compiler
	 * drops (tests/secrets/t_wipe.sh). */
	explicit_bzero(b, sizeof(b));
	explicit_bzero(hex, sizeof(hex));
	return rc;
}
