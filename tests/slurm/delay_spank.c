/* SPDX-License-Identifier: Apache-2.0 */
/*
 * delay_spank.c - a SPANK plugin for tests only (tests/slurm/t_abort.sh):
 * listed before rankmap in one node's plugstack.conf as
 * "required rankmap-test-delay.so MS", it holds that node's slurmstepd
 * MS milliseconds before rankmap's init_post_opt runs there. The other
 * nodes start their tasks meanwhile, so a refusal from the slow node
 * comes while healthy ranks already wait in their rendezvous: the case
 * where cancelling the whole step matters most.
 */
#include <slurm/spank.h>

#include <errno.h>
#include <stdlib.h>
#include <time.h>

SPANK_PLUGIN(rankmap_test_delay, 1);

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)sp;
	if (spank_context() != S_CTX_REMOTE || ac < 1)
		return 0;
	long ms = strtol(av[0], NULL, 10);
	if (ms <= 0 || ms > 60000)
		return 0;
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
	return 0;
}
