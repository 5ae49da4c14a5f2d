/* SPDX-License-Identifier: Apache-2.0 */
/*
 * siteconf.c - the site's rankmap configuration as the SPANK plugin gets
 * it, for the CLI (issue 37: `rankmap plan` on a login node or inside a
 * job planned on one flat switch while the job's map came from the site
 * file and topology.conf the plugin was given).
 *
 * slurm.conf is $SLURM_CONF, else /etc/slurm/slurm.conf; plugstack.conf
 * its PlugStackConfig=, else the file beside it. In plugstack.conf (and
 * the files its `include` lines name, as Slurm reads them) the first
 * `required` or `optional` line whose plugin is rankmap's gives the
 * arguments slurmd hands the plugin: site=, topology=, order=. The rest
 * (the topology slurmctld reads beside slurm.conf when no file is named)
 * is rm_slurm_topology_find, which the plugin calls too.
 *
 * A pyxis line after rankmap's is noted: pyxis's task_init imports the
 * container's environment, made from the node's first task, into every
 * task, so each task's RANKMAP_* would become the first task's.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"
/* include lines nest at most this deep and expand to at most this many
 * files in all: a loop or a glob of /etc is an admin's mistake, not a
 * configuration. */
#define MAX_DEPTH 4
#define MAX_FILES 64
#define MAX_WORDS 64

typedef struct walk {
	rm_site_config *out;
	unsigned files;
	rm_error *err;
} walk;

static char *dup_or_null(const char *s, bool *oom)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

/* The value of Key= on a slurm.conf line (any case), unquoted. */
static bool conf_value(const char *line, const char *key, char *out,
		       size_t cap)
{
	size_t k = strlen(key);
	while (*line == ' ' || *line == '\t')
		line++;
	if (strncasecmp(line, key, k) || line[k] != '=')
		return false;
	const char *v = line + k + 1;
	size_t n = strcspn(v, " \t#\r\n");
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		v++;
		n -= 2;
	}
	if (n == 0 || n >= cap)
		return false;
	memcpy(out, v, n);
	out[n] = 0;
	return true;
}

/* Splits one line into words (at most MAX_WORDS), '#' ending it. */
static size_t words(char *line, char **w)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	size_t n = 0;
	for (char *p = line; *p && n < MAX_WORDS;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		w[n++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p)
			*p++ = 0;
	}
	return n;
}

/* NVIDIA's pyxis (spank_pyxis.so). */
static bool is_pyxis(const char *plugin)
{
	const char *b = strrchr(plugin, '/');
	return strstr(b ? b + 1 : plugin, "pyxis") != NULL;
}

/* rankmap.so, rankmap-slurm24.11.so, a path ending in one of them; not
 * librankmap or rankmap-nccl. */
static bool is_rankmap(const char *plugin)
{
	const char *b = strrchr(plugin, '/');
	b = b ? b + 1 : plugin;
	size_t n = strlen(b);
	return !strncmp(b, "rankmap", 7) && n >= 10 &&
	       !strcmp(b + n - 3, ".so") && strncmp(b, "rankmap-nccl", 12);
}

static rm_status take_args(walk *w, const char *file, unsigned line,
			   char **a, size_t n)
{
	bool oom = false;
	rm_site_config *c = w->out;
	c->plugstack = dup_or_null(file, &oom);
	c->line = line;
	for (size_t i = 0; i < n; i++) {
		char **slot = !strncmp(a[i], "site=", 5)       ? &c->site
			      : !strncmp(a[i], "topology=", 9) ? &c->topology
			      : !strncmp(a[i], "order=", 6)    ? &c->order
							       : NULL;
		if (!slot)
			continue; /* the plugin checks the others */
		free(*slot);
		*slot = dup_or_null(strchr(a[i], '=') + 1, &oom);
	}
	return oom ? rmi_err(w->err, RM_ENOMEM, "out of memory") : RM_OK;
}

static rm_status read_stack(walk *w, const char *path, unsigned depth);

static rm_status pyxis_after(walk *w, const char *file, unsigned line)
{
	bool oom = false;
	w->out->pyxis_after = dup_or_null(file, &oom);
	w->out->pyxis_line = line;
	return oom ? rmi_err(w->err, RM_ENOMEM, "out of memory") : RM_OK;
}

static rm_status include(walk *w, const char *file, unsigned line,
			 const char *pattern, unsigned depth)
{
	char full[4096];
	if (pattern[0] == '/') {
		snprintf(full, sizeof(full), "%s", pattern);
	} else {
		/* relative to the including file's directory */
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", file);
		snprintf(full, sizeof(full), "%s/%s", dirname(dir), pattern);
	}
	if (depth >= MAX_DEPTH)
		return rmi_err(w->err, RM_EINPUT,
			       "%s:%u: include nested deeper than %d", file,
			       line, MAX_DEPTH);
	glob_t g;
	memset(&g, 0, sizeof(g));
	int rc = glob(full, 0, NULL, &g);
	rm_status st = RM_OK;
	for (size_t i = 0; rc == 0 && i < g.gl_pathc && !st &&
			   !w->out->pyxis_after;
	     i++)
		st = read_stack(w, g.gl_pathv[i], depth + 1);
	globfree(&g);
	return st;
}

static rm_status read_stack(walk *w, const char *path, unsigned depth)
{
	if (++w->files > MAX_FILES)
		return rmi_err(w->err, RM_EINPUT,
			       "%s: more than %d plugstack files included",
			       path, MAX_FILES);
	char *text = NULL;
	size_t len = 0;
	if (access(path, F_OK) != 0)
		return RM_OK; /* no plugstack.conf: no plugins */
	rm_status st = rm_file_read(path, &text, &len, w->err);
	if (st)
		return st;
	unsigned no = 0;
	for (char *p = text; p && *p && !st && !w->out->pyxis_after;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		no++;
		char *a[MAX_WORDS];
		size_t n = words(p, a);
		if (n >= 2 && !strcmp(a[0], "include"))
			st = include(w, path, no, a[1], depth);
		else if (n >= 2 && (!strcmp(a[0], "required") ||
				    !strcmp(a[0], "optional")) &&
			 is_rankmap(a[1]) && !w->out->plugstack)
			st = take_args(w, path, no, a + 2, n - 2);
		else if (n >= 2 && (!strcmp(a[0], "required") ||
				    !strcmp(a[0], "optional")) &&
			 is_pyxis(a[1]) && w->out->plugstack)
			st = pyxis_after(w, path, no);
		p = nl ? nl + 1 : NULL;
	}
	free(text);
	return st;
}

/* slurm.conf's PlugStackConfig=, or NULL. */
static char *plugstack_of(const char *slurm_conf, rm_error *err,
			  rm_status *st)
{
	char *text = NULL;
	size_t len = 0;
	*st = rm_file_read(slurm_conf, &text, &len, err);
	if (*st)
		return NULL;
	char value[4096];
	char *found = NULL;
	for (char *p = text; p && *p && !found;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (conf_value(p, "PlugStackConfig", value, sizeof(value)))
			found = strdup(value);
		p = nl ? nl + 1 : NULL;
	}
	free(text);
	return found;
}

rm_status rm_site_config_find(const char *slurm_conf, rm_site_config *out,
			      rm_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!slurm_conf || !*slurm_conf)
		slurm_conf = getenv("SLURM_CONF");
	if (!slurm_conf || !*slurm_conf)
		slurm_conf = DEFAULT_SLURM_CONF;
	if (access(slurm_conf, F_OK) != 0)
		return RM_OK; /* not a Slurm machine: nothing to find */
	bool oom = false;
	out->slurm_conf = dup_or_null(slurm_conf, &oom);
	rm_status st;
	char *stack = plugstack_of(slurm_conf, err, &st);
	if (st) {
		rm_site_config_clear(out);
		return st;
	}
	if (!stack) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", slurm_conf);
		size_t n = strlen(dirname(dir)) + sizeof("/plugstack.conf");
		stack = malloc(n);
		if (stack)
			snprintf(stack, n, "%s/plugstack.conf", dir);
	}
	if (!stack || oom) {
		free(stack);
		rm_site_config_clear(out);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	walk w = { .out = out, .err = err };
	st = read_stack(&w, stack, 0);
	free(stack);
	if (st)
		rm_site_config_clear(out);
	return st;
}

void rm_site_config_clear(rm_site_config *c)
{
	free(c->slurm_conf);
	free(c->plugstack);
	free(c->site);
	free(c->topology);
	free(c->order);
	free(c->pyxis_after);
	memset(c, 0, sizeof(*c));
}
