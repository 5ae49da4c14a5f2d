/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_nccl_comm.c - rmn_comms_init up to the point where a GPU is
 * needed: the job's environment, the map file and its digest. Each bad
 * setting must come back as an error value that names it.
 */
#include "test.h"
#include "nccl_fixture.h"

#include <stdio.h>

static fx_map fx;
static char digest[65];

static void clean_env(void)
{
	static const char *const vars[] = {
		"RANKMAP_MAP", "RANK", "SLURM_PROCID", "WORLD_SIZE",
		"MASTER_ADDR", "MASTER_PORT", "RANKMAP_NCCL_PORT",
		"RANKMAP_MAP_SHA256", "RANKMAP_NCCL_TIMEOUT", NULL
	};
	for (int i = 0; vars[i]; i++)
		unsetenv(vars[i]);
	setenv("RANKMAP_MAP", fx.path, 1);
	setenv("RANK", "1", 1);
	setenv("WORLD_SIZE", "8", 1);
	setenv("MASTER_ADDR", "127.0.0.1", 1);
	setenv("MASTER_PORT", "29500", 1);
	setenv("RANKMAP_MAP_SHA256", digest, 1);
}

/* Init must fail with `code` and a message holding `needle`. */
static void fails(rmn_status code, const char *needle)
{
	rmn_comms *c = (rmn_comms *)&c;
	rmn_error e = { 0 };
	CHECK_INT(rmn_comms_init(NULL, &c, &e), code);
	CHECK(c == NULL);
	CHECK_HAS(e.msg, needle);
}

static void environment_is_checked(void)
{
	/* Each step changes one variable (value NULL: unsets it), from a
	 * clean environment or on top of the step before. */
	static const struct {
		bool clean;
		const char *var, *value, *says;
	} steps[] = {
		{ true, "RANKMAP_MAP", NULL, "RANKMAP_MAP is not set" },
		{ true, "RANK", NULL, "neither RANK nor SLURM_PROCID is set" },
		/* srun's own rank serves too */
		{ false, "SLURM_PROCID", "99",
		  "RANK 99 is outside the map's world of 8" },
		{ true, "RANK", "1x", "RANK='1x' is not a whole number" },
		{ false, "RANK", "-1", "RANK='-1'" },
		{ true, "WORLD_SIZE", "4", "WORLD_SIZE=4 but the map" },
		{ true, "MASTER_PORT", "70000", "MASTER_PORT='70000'" },
		{ false, "RANKMAP_NCCL_PORT", "0", "RANKMAP_NCCL_PORT='0'" },
		{ true, "RANKMAP_NCCL_TIMEOUT", "0", "RANKMAP_NCCL_TIMEOUT='0'" },
		{ false, "RANKMAP_NCCL_TIMEOUT", "5s", "RANKMAP_NCCL_TIMEOUT='5s'" },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (steps[i].clean)
			clean_env();
		if (steps[i].value)
			setenv(steps[i].var, steps[i].value, 1);
		else
			unsetenv(steps[i].var);
		fails(RMN_EINPUT, steps[i].says);
	}
}

static void map_file_is_checked(void)
{
	clean_env();
	setenv("RANKMAP_MAP_SHA256", "not-a-digest\x1b", 1);
	fails(RMN_EINPUT, "RANKMAP_MAP_SHA256='not-a-digest\\x1b'");

	/* Same file name, other content: the job's digest no longer fits. */
	clean_env();
	char other[65];
	memcpy(other, digest, sizeof(other));
	other[0] = other[0] == '0' ? '1' : '0';
	setenv("RANKMAP_MAP_SHA256", other, 1);
	fails(RMN_EREFUSED, "changed after the job started");

	clean_env();
	setenv("RANKMAP_MAP", "/nonexistent/map.json", 1);
	fails(RMN_EINPUT, "/nonexistent/map.json");

	char bad[] = "/tmp/rmn-bad." "XX" "XX" "XX";
	int fd = mkstemp(bad);
	CHECK(fd >= 0 && write(fd, "{\"schema\": [", 12) == 12);
	if (fd >= 0)
		close(fd);
	clean_env();
	unsetenv("RANKMAP_MAP_SHA256");
	setenv("RANKMAP_MAP", bad, 1);
	fails(RMN_EINPUT, bad);
	unlink(bad);
}

static void stops_only_for_the_gpu(void)
{
	/* Everything right: without a GPU the error says so; with one, a
	 * world of one builds all its communicators. */
	fx_map one;
	if (!fx_ready(&one, "tp=1,pp=1,dp=1", NULL, "n0", 1, NULL))
		return;
	char d1[65];
	rm_sha256_hex(one.json, one.len, d1);
	clean_env();
	setenv("RANKMAP_MAP", one.path, 1);
	setenv("RANK", "0", 1);
	setenv("WORLD_SIZE", "1", 1);
	setenv("RANKMAP_MAP_SHA256", d1, 1);
	rmn_comms *c = NULL;
	rmn_error e = { 0 };
	rmn_status st = rmn_comms_init(NULL, &c, &e);
	if (st == RMN_OK) {
		CHECK(c->comm != NULL);
		CHECK(c->axis[RM_AXIS_TP] && c->axis[RM_AXIS_PP] &&
		      c->axis[RM_AXIS_DP]);
		CHECK(c->axis[RM_AXIS_CP] == NULL);
		CHECK_STR(c->digest, d1);
		rmn_comms_free(c);
	} else {
		CHECK_INT(st, RMN_ENOCUDA);
		CHECK_HAS(e.msg, "no CUDA device (");
		CHECK(c == NULL);
	}
	fx_free(&one);
}

int main(void)
{
	if (!fx_make(&fx, "tp=2,pp=2,dp=2", "megatron", "n[0-1]", 4, NULL))
		return 1;
	rm_sha256_hex(fx.json, fx.len, digest);
	RUN("nccl_comm", environment_is_checked);
	RUN("nccl_comm", map_file_is_checked);
	RUN("nccl_comm", stops_only_for_the_gpu);
	fx_free(&fx);
	TEST_EXIT();
}
