/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conf.c - the plugin's arguments from plugstack.conf.
 *
 * A typo here must not silently weaken the policy (enforse=strict read as
 * "no enforce given" turns strict into warn), so every unknown key or bad
 * value is an error that the plugin logs at slurmd start and that makes
 * every layout step refuse, naming the key. Steps without the option are
 * not affected.
 */
#include "rms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SLURM_DIR "/etc/slurm"

void rms_conf_init(rms_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->enforce = -1;
	c->export_slurm = -1;
}

void rms_conf_free(rms_conf *c)
{
	free(c->site);
	free(c->topology);
	free(c->slurm_conf);
	free(c->order);
	free(c->runtime_dir);
	free(c->hwcache);
	rms_conf_init(c);
}

/* Appends one complaint, quoting the untrusted word. */
static void add_err(char *errbuf, size_t errlen, const char *word,
		    const char *why)
{
	size_t used = strlen(errbuf);
	char q[96];
	if (used + 2 >= errlen)
		return;
	snprintf(errbuf + used, errlen - used, "%splugstack.conf: %s: %s",
		 used ? "; " : "", rm_quote(word, strlen(word), q, sizeof(q)),
		 why);
}

static bool set(char **slot, const char *val)
{
	char *d = strdup(val);
	if (!d)
		return false;
	free(*slot);
	*slot = d;
	return true;
}

static bool key_is(const char *a, size_t k, const char *name)
{
	return strlen(name) == k && !strncmp(a, name, k);
}

bool rms_conf_parse(rms_conf *c, int argc, char **argv, char *errbuf,
		    size_t errlen)
{
	if (errlen)
		errbuf[0] = 0;
	/* Every argument, in order, goes into the digest the nodes compare
	 * with srun's: a node with other arguments plans from other inputs. */
	size_t total = 1;
	for (int i = 0; i < argc; i++)
		total += strlen(argv[i]) + 1;
	char *all = malloc(total);
	if (!all)
		return false;
	all[0] = 0;
	size_t used = 0;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);
		memcpy(all + used, argv[i], n);
		used += n;
		all[used++] = '\n';
	}
	rm_sha256_hex(all, used, c->args_sha256);
	free(all);

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *eq = strchr(a, '=');
		size_t k = eq ? (size_t)(eq - a) : strlen(a);
		const char *v = eq ? eq + 1 : "";
		bool ok = true;
		bool path = key_is(a, k, "site") || key_is(a, k, "topology") ||
			    key_is(a, k, "runtime_dir");
		if (path && v[0] != '/') {
			add_err(errbuf, errlen, a, "needs an absolute path");
		} else if (key_is(a, k, "site")) {
			ok = set(&c->site, v);
		} else if (key_is(a, k, "topology")) {
			ok = set(&c->topology, v);
		} else if (key_is(a, k, "runtime_dir")) {
			ok = set(&c->runtime_dir, v);
		} else if (key_is(a, k, "hwcache")) {
			if (!strcmp(v, "off"))
				c->hwcache_off = true;
			else if (v[0] != '/' || strlen(v) > 200)
				add_err(errbuf, errlen, a,
					"hwcache is off or an absolute path");
			else
				ok = set(&c->hwcache, v);
		} else if (key_is(a, k, "order")) {
			if (!*v)
				add_err(errbuf, errlen, a, "needs a value");
			else
				ok = set(&c->order, v);
		} else if (key_is(a, k, "enforce")) {
			if (!strcmp(v, "off"))
				c->enforce = RM_ENFORCE_OFF;
			else if (!strcmp(v, "warn"))
				c->enforce = RM_ENFORCE_WARN;
			else if (!strcmp(v, "strict"))
				c->enforce = RM_ENFORCE_STRICT;
			else
				add_err(errbuf, errlen, a,
					"enforce is off, warn or strict");
		} else if (key_is(a, k, "export")) {
			if (!strcmp(v, "rank"))
				c->export_slurm = 0;
			else if (!strcmp(v, "slurm"))
				c->export_slurm = 1;
			else
				add_err(errbuf, errlen, a,
					"export is rank or slurm");
		} else {
			add_err(errbuf, errlen, a,
				"unknown argument (known: site=, topology=, "
				"order=, enforce=, export=, runtime_dir=, "
				"hwcache=)");
		}
		if (!ok)
			return false;
	}
	if (!c->runtime_dir && !set(&c->runtime_dir, RMS_RUNTIME_DIR))
		return false;
	return true;
}

bool rms_conf_default_topology(rms_conf *c, const char *slurm_conf)
{
	char path[4096];
	if (!c->slurm_conf) {
		if (slurm_conf && *slurm_conf)
			snprintf(path, sizeof(path), "%s", slurm_conf);
		else
			snprintf(path, sizeof(path), "%s/slurm.conf",
				 DEFAULT_SLURM_DIR);
		if (!set(&c->slurm_conf, path))
			return false;
	}
	if (c->topology)
		return true;
	const char *slash = slurm_conf ? strrchr(slurm_conf, '/') : NULL;
	if (slash && slash != slurm_conf)
		snprintf(path, sizeof(path), "%.*s/topology.conf",
			 (int)(slash - slurm_conf), slurm_conf);
	else
		snprintf(path, sizeof(path), "%s/topology.conf",
			 DEFAULT_SLURM_DIR);
	c->topology_default = true;
	return set(&c->topology, path);
}

void rms_conf_describe(const rms_conf *c, char *buf, size_t len)
{
	static const char *const enforce[] = { "off", "warn", "strict" };
	snprintf(buf, len,
		 "site=%s topology=%s order=%s enforce=%s export=%s "
		 "runtime_dir=%s hwcache=%s",
		 c->site ? c->site : "(none)",
		 c->topology ? c->topology : "(beside slurm.conf, or the site's)",
		 c->order ? c->order : "(the site's)",
		 c->enforce >= 0 && c->enforce <= 2 ? enforce[c->enforce]
						    : "(the site's, else warn)",
		 c->export_slurm == 1 ? "slurm" : "rank",
		 c->runtime_dir ? c->runtime_dir : RMS_RUNTIME_DIR,
		 c->hwcache_off ? "off"
				: c->hwcache ? c->hwcache : "(runtime_dir/.hwcache)");
}
