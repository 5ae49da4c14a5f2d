/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe_exchange.c - one task's side of the id exchange exactly as
 * rmn_comms_init does it (options from the job's environment, the step's
 * secret or MUNGE), without NCCL or a GPU, for tests/slurm/t_slurm.sh to
 * run in a real Slurm step. Rank 0 hands out 128 random bytes; every task
 * prints one line: "EXCHANGE rank=R ok <first 16 hex of the bytes>" or
 * "EXCHANGE rank=R <status>: <message>".
 */
#include "nccl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

int main(void)
{
	rmn_opts in, o;
	rmn_error e = { 0 };
	unsigned char secret[RMN_SECRET_LEN], blob[128];
	rmn_exchange_opts x;
	rmn_opts_init(&in);
	if (rmni_resolve_opts(&in, &o, &e) != RMN_OK) {
		printf("EXCHANGE rank=? %s: %s\n", rmn_status_name(e.code),
		       e.msg);
		return 2;
	}
	const char *ws = getenv("WORLD_SIZE");
	uint32_t world = ws ? (uint32_t)strtoul(ws, NULL, 10) : 1;
	memset(blob, 0, sizeof(blob));
	if (o.rank == 0 && getrandom(blob, sizeof(blob), 0) != sizeof(blob))
		return 2;
	rmni_exchange_opts_of(&o, (uint32_t)o.rank, world, o.digest, secret,
			      &x);
	rmn_status st = rmn_exchange(&x, blob, sizeof(blob), &e);
	memset(secret, 0, sizeof(secret));
	if (st != RMN_OK) {
		printf("EXCHANGE rank=%lld %s: %s\n", (long long)o.rank,
		       rmn_status_name(st), e.msg);
		return 1;
	}
	printf("EXCHANGE rank=%lld ok ", (long long)o.rank);
	for (int i = 0; i < 8; i++)
		printf("%02x", blob[i]);
	printf("\n");
	return 0;
}
