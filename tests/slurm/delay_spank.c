/* SPDX-License-Identifier: Apache-2.0 */
/*
 * delay_spank.c - a SPANK plugin for tests only (tests/slurm/t_abort.sh):
 * listed before rankmap in one node's plugstack.conf as
 * "required rankmap-test-delay.so MS [wait=PREFIX:N] [max=MS]", it holds
 * that node's slurmstepd at least MS milliseconds before rankmap's
 * init_post_opt runs there. The other nodes start their tasks meanwhile,
 * so a refusal from the slow node comes while healthy ranks already wait
 * in their rendezvous: the case where cancelling the whole step matters
 * most.
 *
 * A fixed hold alone is a race on a loaded machine (three suites at a
 * time in CI: 21 of 24 ranks had started after 2 s). With wait=PREFIX:N
 * and the job variable RM_TEST_RDV_DIR, the hold lasts until that folder
 * holds N files whose names start with PREFIX (the rendezvous stand-in's
 * heartbeats), max milliseconds at most (default 30000).
 */
#include <slurm/spank.h>

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

SPANK_PLUGIN(rankmap_test_delay, 1);

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static long count_prefixed(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	long n = 0;
	size_t len = strlen(prefix);
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, prefix, len) == 0)
			n++;
	closedir(d);
	return n;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	if (spank_context() != S_CTX_REMOTE || ac < 1)
		return 0;
	long ms = strtol(av[0], NULL, 10), max = 30000, want = 0;
	char prefix[64] = "";
	for (int i = 1; i < ac; i++) {
		if (strncmp(av[i], "max=", 4) == 0) {
			max = strtol(av[i] + 4, NULL, 10);
		} else if (strncmp(av[i], "wait=", 5) == 0) {
			const char *colon = strchr(av[i] + 5, ':');
			size_t len = colon ? (size_t)(colon - (av[i] + 5)) : 0;
			if (colon && len > 0 && len < sizeof prefix) {
				memcpy(prefix, av[i] + 5, len);
				prefix[len] = '\0';
				want = strtol(colon + 1, NULL, 10);
			}
		}
	}
	if (ms <= 0 || ms > 60000 || max <= 0 || max > 120000)
		return 0;
	long t0 = now_ms();
	sleep_ms(ms);
	char dir[4096];
	if (want <= 0 || spank_getenv(sp, "RM_TEST_RDV_DIR", dir, sizeof dir) != ESPANK_SUCCESS)
		return 0;
	while (count_prefixed(dir, prefix) < want && now_ms() - t0 < max)
		sleep_ms(50);
	return 0;
}
