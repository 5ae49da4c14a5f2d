/* SPDX-License-Identifier: Apache-2.0 */
/*
 * slurm_topo.c - which topology file and which topology slurmctld uses
 * for a partition: topology.yaml beside slurm.conf when it exists (then
 * topology.conf is ignored, as slurmctld ignores it), the partition's
 * Topology= from slurm.conf, and TopologyPlugin= so that topology/ring
 * and topology/torus3d are refused rather than read as flat.
 *
 * rm_slurm_mpi_ports reads MpiParams=ports=LOW-HIGH from the same file:
 * the ports Slurm reserves for steps, which a derived MASTER_PORT avoids.
 *
 * slurm.conf is read only for PartitionName=, TopologyPlugin= and
 * MpiParams= lines:
 * Key=Value words, '#' comments, '\' continuations, keys in any case,
 * PartitionName=DEFAULT setting later partitions' Topology=. Include
 * lines are not followed; a partition defined in an included file falls
 * back to the cluster default, and the CLI says which topology it used.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define SC_MAX_WORD 1024

typedef struct scan {
	const char *partition;
	char plugin[SC_MAX_WORD];
	char def_topo[SC_MAX_WORD];  /* PartitionName=DEFAULT Topology= */
	char topo[SC_MAX_WORD];
	char mpi[SC_MAX_WORD];       /* MpiParams= */
	char proctrack[SC_MAX_WORD]; /* ProctrackType= */
	bool found;
} scan;

/* The value of `key` among one logical line's words, or false. */
static bool word(const char *line, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key);
	const char *p = line;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *w = p;
		bool q = false;
		while (*p && (q || (*p != ' ' && *p != '\t'))) {
			if (*p == '"')
				q = !q;
			p++;
		}
		if ((size_t)(p - w) > klen && w[klen] == '=' &&
		    !strncasecmp(w, key, klen)) {
			const char *v = w + klen + 1;
			size_t n = (size_t)(p - v);
			if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
				v++;
				n -= 2;
			}
			if (n >= cap)
				n = cap - 1;
			memcpy(out, v, n);
			out[n] = 0;
			return true;
		}
	}
	return false;
}

static void one_line(scan *s, const char *line)
{
	char name[SC_MAX_WORD], topo[SC_MAX_WORD];
	word(line, "TopologyPlugin", s->plugin, sizeof(s->plugin));
	word(line, "MpiParams", s->mpi, sizeof(s->mpi));
	word(line, "ProctrackType", s->proctrack, sizeof(s->proctrack));
	if (!word(line, "PartitionName", name, sizeof(name)))
		return;
	bool has = word(line, "Topology", topo, sizeof(topo));
	if (!strcasecmp(name, "DEFAULT")) {
		if (has)
			memcpy(s->def_topo, topo, sizeof(topo));
		return;
	}
	if (!s->partition || strcmp(name, s->partition) || s->found)
		return;
	s->found = true;
	memcpy(s->topo, has ? topo : s->def_topo, sizeof(topo));
}

static void read_conf(scan *s, const char *text, size_t len)
{
	char *line = malloc(len + 1);
	if (!line)
		return;
	size_t n = 0;
	for (size_t i = 0; i <= len; i++) {
		char ch = i < len ? text[i] : '\n';
		if (ch != '\n') {
			line[n++] = ch;
			continue;
		}
		line[n] = 0;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		n = strlen(line);
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' ||
			     line[n - 1] == '\r'))
			line[--n] = 0;
		if (n && line[n - 1] == '\\') {
			line[n - 1] = ' ';
			continue; /* the next physical line goes on this one */
		}
		for (size_t k = 0; k < n; k++)
			if ((unsigned char)line[k] < 0x20)
				line[k] = ' ';
		one_line(s, line);
		n = 0;
	}
	free(line);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

bool rm_topology_is_yaml(const char *path)
{
	return path && (has_suffix(path, ".yaml") || has_suffix(path, ".yml"));
}

void rm_slurm_topology_clear(rm_slurm_topology *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->name);
	free(t->plugin);
	memset(t, 0, sizeof(*t));
}

static char *beside(const char *file, const char *base)
{
	const char *slash = strrchr(file, '/');
	size_t d = slash ? (size_t)(slash - file) + 1 : 0;
	char *p = malloc(d + strlen(base) + 1);
	if (p) {
		memcpy(p, file, d);
		strcpy(p + d, base);
	}
	return p;
}

rm_status rm_slurm_topology_find(const char *slurm_conf, const char *partition,
				 const char *topology, rm_slurm_topology *out,
				 rm_error *err)
{
	memset(out, 0, sizeof(*out));
	scan s;
	memset(&s, 0, sizeof(s));
	s.partition = partition && *partition ? partition : NULL;
	char *text = NULL;
	size_t len = 0;
	if (slurm_conf && access(slurm_conf, F_OK) == 0) {
		rm_status st = rm_file_read(slurm_conf, &text, &len, err);
		if (st)
			return st;
		read_conf(&s, text, len);
		free(text);
	}
	bool oom = false;
	out->plugin = s.plugin[0] ? rmi_dup_or_null(s.plugin, &oom) : NULL;
	out->partition_found = s.found;
	if (topology) {
		out->path = rmi_dup_or_null(topology, &oom);
	} else if (slurm_conf) {
		char *y = beside(slurm_conf, "topology.yaml");
		char *c = beside(slurm_conf, "topology.conf");
		oom |= !y || !c;
		if (y && access(y, F_OK) == 0) {
			out->path = y;
			y = NULL;
		} else if (c && access(c, F_OK) == 0) {
			out->path = c;
			c = NULL;
		}
		free(y);
		free(c);
	}
	out->yaml = rm_topology_is_yaml(out->path);
	if (out->yaml && s.topo[0])
		out->name = rmi_dup_or_null(s.topo, &oom);
	if (oom) {
		rm_slurm_topology_clear(out);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	/* With topology.yaml slurmctld ignores TopologyPlugin=. */
	const char *pl = out->plugin;
	if (!out->yaml && pl &&
	    (!strcmp(pl, "topology/ring") || !strcmp(pl, "topology/torus3d"))) {
		rm_status st = rmi_err(
			err, RM_EINPUT,
			"%s: TopologyPlugin=%.64s: rankmap cannot place on %.64s; it supports topology/tree, topology/block and topology/flat",
			slurm_conf, pl, pl);
		rm_slurm_topology_clear(out);
		return st;
	}
	return RM_OK;
}

/* MpiParams is a comma-separated list ("ports=12000-12999" is the one
 * slurmctld knows); only ports= matters here. */
static rm_status mpi_ports(const char *conf, const char *v, uint32_t *lo,
			   uint32_t *hi, rm_error *err)
{
	char q[96];
	for (const char *p = v; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n > 6 && !strncasecmp(p, "ports=", 6)) {
			char *e1, *e2;
			const char *a = p + 6;
			unsigned long l = strtoul(a, &e1, 10);
			unsigned long h = *e1 == '-' ? strtoul(e1 + 1, &e2, 10) : 0;
			if (e1 == a || *e1 != '-' || e2 != p + n || !isdigit((unsigned char)e1[1]) ||
			    l == 0 || h > 65535 || l > h)
				return rmi_err(err, RM_EINPUT,
					       "%s: MpiParams=%s: ports= expects "
					       "LOW-HIGH, two ports 1-65535",
					       conf, rm_quote(v, strlen(v), q,
							      sizeof(q)));
			*lo = (uint32_t)l;
			*hi = (uint32_t)h;
			return RM_OK;
		}
		p += n + (end != NULL);
	}
	return RM_OK;
}

/* slurm.conf's keys into s; a file that is not there leaves s empty
 * (Slurm's defaults), one that cannot be read is an error. */
static rm_status scan_file(const char *slurm_conf, scan *s, rm_error *err)
{
	memset(s, 0, sizeof(*s));
	if (!slurm_conf || access(slurm_conf, F_OK) != 0)
		return RM_OK;
	char *text = NULL;
	size_t len = 0;
	rm_status st = rm_file_read(slurm_conf, &text, &len, err);
	if (st)
		return st;
	read_conf(s, text, len);
	free(text);
	return RM_OK;
}

rm_status rm_slurm_mpi_ports(const char *slurm_conf, uint32_t *lo,
			     uint32_t *hi, rm_error *err)
{
	*lo = *hi = 0;
	scan s;
	rm_status st = scan_file(slurm_conf, &s, err);
	return st ? st : mpi_ports(slurm_conf, s.mpi, lo, hi, err);
}

bool rm_slurm_proctrack(const char *slurm_conf, char *out, size_t n)
{
	scan s;
	rm_error e;
	if (!n || !slurm_conf || access(slurm_conf, F_OK) != 0 ||
	    scan_file(slurm_conf, &s, &e) != RM_OK) {
		if (n)
			out[0] = 0;
		return false;
	}
	snprintf(out, n, "%s", s.proctrack);
	return true;
}

rm_status rm_fabric_load_slurm_topology(rm_fabric *f,
					const rm_slurm_topology *t,
					rm_error *err)
{
	if (!t || !t->path)
		return RM_OK;
	if (t->yaml)
		return rm_fabric_load_topology_yaml(f, t->path, t->name, err);
	return rm_fabric_load_topology(f, t->path, err);
}
