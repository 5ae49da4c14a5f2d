/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import_test.h - what the importers' unit tests share: one import at a
 * time (IM, with its error E), run on text written in the test, and
 * looked at from inside (import_int.h) and through what it writes.
 */
#ifndef RM_IMPORT_TEST_H
#define RM_IMPORT_TEST_H

#include "rankmap.h"
#include "test.h"
#include "import/import_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static rm_import *IM;
static rm_error E;

/* Every text importer but nvidia-smi's has rm_import_aws's signature. */
typedef __typeof__(rm_import_aws) *importer;

/* Imports `text` as the file "in.txt" with the default options. */
static inline rm_status import_as(importer fn, const char *text)
{
	rm_import_free(IM);
	IM = NULL;
	memset(&E, 0, sizeof(E));
	return fn(text, strlen(text), "in.txt", NULL, &IM, &E);
}

/* The message starts "in.txt:LINE:COL:": where, whatever the wording. */
static inline bool at_line_col(const char *msg)
{
	unsigned long line, col;
	char c = 0;
	return sscanf(msg, "in.txt:%lu:%lu%c", &line, &col, &c) == 3 &&
	       c == ':' && line > 0 && col > 0;
}

/* The switch (or block) called `name`, or NULL. */
static inline const rmi_tsw *sw_named(const char *name)
{
	for (size_t i = 0; IM && i < IM->nsw; i++)
		if (!strcmp(IM->sw[i].name, name))
			return &IM->sw[i];
	return NULL;
}

/* The hosts of switch `name` joined with spaces ("(no such switch)"). */
static inline const char *hosts_of(const char *name)
{
	static char buf[1024];
	const rmi_tsw *s = sw_named(name);
	if (!s)
		return "(no such switch)";
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < s->nhost && o < sizeof(buf) - 80; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s",
				      i ? " " : "", s->host[i]);
	return buf;
}

/* The name of switch `name`'s parent ("(top)", "(no such switch)"). */
static inline const char *parent_of(const char *name)
{
	const rmi_tsw *s = sw_named(name);
	if (!s)
		return "(no such switch)";
	return s->parent < 0 ? "(top)" : IM->sw[s->parent].name;
}

/* Switches at level 0 that are not blocks. */
static inline size_t leaves(void)
{
	size_t n = 0;
	for (size_t i = 0; IM && i < IM->nsw; i++)
		n += IM->sw[i].level == 0 && !IM->sw[i].block;
	return n;
}

/* One switch of the imported tree as a test expects it: its hosts joined
 * with spaces (hosts_of), its parent (parent_of) and the provider's id it
 * stands for; NULL: that one is not checked. */
typedef struct {
	const char *sw, *hosts, *parent, *id;
} t_switch;

static inline void t_tree(size_t nsw, size_t nleaves, const t_switch *rows,
			  size_t n)
{
	CHECK_INT(IM ? IM->nsw : 0, nsw);
	CHECK_INT(leaves(), nleaves);
	for (size_t i = 0; i < n; i++) {
		const t_switch *r = &rows[i];
		const rmi_tsw *s = sw_named(r->sw);
		int before = t_bad;
		if (r->hosts)
			CHECK_STR(hosts_of(r->sw), r->hosts);
		if (r->parent)
			CHECK_STR(parent_of(r->sw), r->parent);
		if (r->id)
			CHECK_STR(s ? s->stands_for : "", r->id);
		if (t_bad != before)
			printf("    (the switch \"%s\")\n", r->sw);
	}
}

/* IM has `nsw` switches, `nleaves` of them leaves, and each row's switch
 * is what the row says. */
#define CHECK_TREE(nsw, nleaves, rows) \
	t_tree(nsw, nleaves, rows, sizeof(rows) / sizeof((rows)[0]))

/* One written part of IM (static storage, "(failed: msg)" on error). */
static inline const char *part(rm_import_part p)
{
	static char *text;
	size_t len;
	rm_error e = { 0 };
	free(text);
	text = NULL;
	if (rm_import_write(IM, p, &text, &len, &e)) {
		static char m[1100];
		snprintf(m, sizeof(m), "(failed: %s)", e.msg);
		return m;
	}
	return text;
}

/* rm_import_against IM and a topology.conf holding `conf`: how many
 * differences (-1: refused, E says why); *listing is the text (static). */
static inline long against(const char *conf, const char **listing)
{
	static char *out;
	char path[] = "/tmp/rm-import-test-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, conf, strlen(conf)) != (ssize_t)strlen(conf)) {
		printf("  cannot write %s\n", path);
		return -2;
	}
	close(fd);
	free(out);
	out = NULL;
	size_t n = 0;
	memset(&E, 0, sizeof(E));
	rm_status st = rm_import_against(IM, path, &out, &n, &E);
	unlink(path);
	*listing = out ? out : "";
	return st ? -1 : (long)n;
}

/* The import's report line that starts with `label` (static). */
static inline const char *report_line(const char *label)
{
	static char line[512];
	const char *r = part(RM_IMPORT_REPORT);
	for (const char *p = r; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		const char *q = p;
		while (q < p + n && *q == ' ')
			q++;
		if (!strncmp(q, label, strlen(label))) {
			snprintf(line, sizeof(line), "%.*s", (int)n, p);
			return line;
		}
		p = e ? e + 1 : p + n;
	}
	return "(no such line)";
}

#endif
