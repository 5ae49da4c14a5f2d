/* conf.c - the plugin's arguments from plugstack.conf. */
#include "rms.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SLURM_DIR "/etc/slurm"

void rms_conf_init(rms_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->enforce = -1;
}

void rms_conf_free(rms_conf *c)
{
	free(c->site);
	free(c->topology);
	free(c->order);
	free(c->dir);
	rms_conf_init(c);
}

/* Appends one complaint, quoting the untrusted word. */
static void add_warn(char *warn, size_t warnlen, const char *word,
		     const char *why)
{
	size_t used = strlen(warn);
	char q[96];
	if (used + 2 >= warnlen)
		return;
	snprintf(warn + used, warnlen - used, "%splugstack.conf: %s: %s",
		 used ? "; " : "", rmi_quote(word, strlen(word), q, sizeof(q)),
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

bool rms_conf_parse(rms_conf *c, int argc, char **argv, char *warn,
		    size_t warnlen)
{
	if (warnlen)
		warn[0] = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *eq = strchr(a, '=');
		size_t k = eq ? (size_t)(eq - a) : strlen(a);
		const char *v = eq ? eq + 1 : "";
		bool ok = true;
		if (k == 4 && !strncmp(a, "site", 4) && *v)
			ok = set(&c->site, v);
		else if (k == 8 && !strncmp(a, "topology", 8) && *v)
			ok = set(&c->topology, v);
		else if (k == 5 && !strncmp(a, "order", 5) && *v)
			ok = set(&c->order, v);
		else if (k == 3 && !strncmp(a, "dir", 3) && *v == '/')
			ok = set(&c->dir, v);
		else if (k == 7 && !strncmp(a, "enforce", 7)) {
			if (!strcmp(v, "off"))
				c->enforce = RM_ENFORCE_OFF;
			else if (!strcmp(v, "warn"))
				c->enforce = RM_ENFORCE_WARN;
			else if (!strcmp(v, "strict"))
				c->enforce = RM_ENFORCE_STRICT;
			else
				add_warn(warn, warnlen, a,
					 "enforce is off, warn or strict");
		} else if ((k == 4 && !strncmp(a, "site", 4)) ||
			   (k == 8 && !strncmp(a, "topology", 8)) ||
			   (k == 5 && !strncmp(a, "order", 5)) ||
			   (k == 3 && !strncmp(a, "dir", 3)))
			add_warn(warn, warnlen, a,
				 "needs a value (dir= an absolute path)");
		else
			add_warn(warn, warnlen, a,
				 "unknown argument (known: site=, topology=, "
				 "order=, enforce=, dir=)");
		if (!ok)
			return false;
	}
	if (!c->dir && !set(&c->dir, "/tmp"))
		return false;
	return true;
}

bool rms_conf_default_topology(rms_conf *c, const char *slurm_conf)
{
	if (c->topology)
		return true;
	char path[4096];
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
