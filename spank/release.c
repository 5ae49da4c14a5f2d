/* SPDX-License-Identifier: Apache-2.0 */
/*
 * release.c - a rankmap.so runs only in the Slurm release it was built for.
 *
 * Slurm's loader already refuses a plugin whose plugin_version is another
 * major.minor, but its line names neither the plugin's purpose nor the
 * fix. The constructor runs inside dlopen(), before that check, so the
 * admin reads first which release this file was built for and which one
 * is loading it. Should a loader ever let it through, slurm_spank_init
 * refuses (rms_release_ok).
 *
 * RMS_SLURM_API is the libslurm API number of the build's Slurm (the soname
 * of libslurm.so, passed by spank/module.mk); slurm_api_version() of the
 * loading process gives the running one. SLURM_VERSION_NUMBER names the
 * release for people.
 */
#include "plugin.h"

#include <dlfcn.h>
#include <stdio.h>

#ifndef RMS_SLURM_API
#error "RMS_SLURM_API (libslurm's API number) must be set by the build"
#endif

#define RMS_BUILT_MAJOR SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER)
#define RMS_BUILT_MINOR SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER)

/* Written once by the constructor, before any other code of the plugin. */
static long release_running_api = -1;

/* Slurm releases by libslurm API number, for the message only. */
static const char *release_of_api(long api)
{
	static const struct { long api; const char *name; } known[] = {
		{ 38, "22.05" }, { 39, "23.02" }, { 40, "23.11" },
		{ 41, "24.05" }, { 42, "24.11" }, { 43, "25.05" },
		{ 44, "25.11" }, { 45, "26.05" },
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].api == api)
			return known[i].name;
	return NULL;
}

static void release_message(char *buf, size_t len)
{
	const char *running = release_of_api(release_running_api);
	char other[32];
	if (!running) {
		snprintf(other, sizeof(other), "of libslurm API %ld",
			 release_running_api);
		running = other;
	}
	snprintf(buf, len,
		 RMS_PREFIX "this rankmap.so was built for Slurm %d.%02d "
		 "(libslurm API %d) but is loaded by Slurm %s: install "
		 "rankmap-slurm%s.so, the build for the running release",
		 RMS_BUILT_MAJOR, RMS_BUILT_MINOR, RMS_SLURM_API, running,
		 release_of_api(release_running_api) ?
		 running : "MAJOR.MINOR");
}

__attribute__((constructor)) static void release_check(void)
{
	long (*api)(void);
	void *sym = dlsym(RTLD_DEFAULT, "slurm_api_version");
	if (!sym)
		return;
	/* POSIX allows the object-to-function pointer conversion. */
	*(void **)&api = sym;
	release_running_api = SLURM_VERSION_MAJOR(api());
	if (release_running_api != RMS_SLURM_API) {
		char msg[RMS_ERRLEN];
		release_message(msg, sizeof(msg));
		slurm_error("%s", msg);
	}
}

bool rms_release_ok(void)
{
	return release_running_api < 0 || release_running_api == RMS_SLURM_API;
}
