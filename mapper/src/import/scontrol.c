/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scontrol.c - `scontrol show topology` output, for a login node that
 * cannot read topology.conf. topology/tree prints one line per switch,
 *   SwitchName=s1 Level=1 LinkSpeed=1 Nodes=n[1-4] Switches=s[0-1]
 * where an upper switch's Nodes= are all the nodes below it (the tree is
 * rebuilt from Switches=, Nodes= kept for leaves only); topology/block
 * prints one line per block,
 *   BlockName=b1 BlockIndex=0 Nodes=n[1-4] BlockSize=4
 * Lines of neither kind, unknown keys, a switch named twice, a child no
 * line defines: errors with file:line:col. What comes out is checked by
 * reading it back as topology.conf.
 */
#include "import/import_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct sline {
	int64_t sw;                  /* tree switch */
	char *kids;                  /* Switches= value */
	unsigned long line, col;
} sline;

static rm_status at(rm_error *err, const char *file, unsigned long line,
		    size_t col, const char *fmt, ...) RMI_PRINTF(5, 6);
static rm_status at(rm_error *err, const char *file, unsigned long line,
		    size_t col, const char *fmt, ...)
{
	char m[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	return rmi_err_at(err, RM_EINPUT, file, line, col, "%s", m);
}

static int64_t find_sw(const rm_import *im, const char *name)
{
	for (size_t i = 0; i < im->nsw; i++)
		if (!strcmp(im->sw[i].name, name))
			return (int64_t)i;
	return -1;
}

/* One Key=Value line into the import; *sl gets its Switches=. */
static rm_status one(rm_import *im, const char *s, size_t n,
		     unsigned long ln, sline *sl, uint32_t *blocksize,
		     rm_error *err)
{
	const char *file = im->source;
	char key[32], *name = NULL, *nodes = NULL, *kids = NULL;
	unsigned long level = 0;
	bool block = false;
	size_t ncol = 0;
	rm_status st = RM_OK;
	for (size_t i = 0; i < n && !st;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= n)
			break;
		size_t b = i;
		while (i < n && s[i] != '=' && s[i] != ' ' && s[i] != '\t')
			i++;
		if (i >= n || s[i] != '=' || i - b >= sizeof(key)) {
			st = at(err, file, ln, b + 1, "expected Key=Value");
			break;
		}
		memcpy(key, s + b, i - b);
		key[i - b] = '\0';
		size_t vb = ++i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		char *v = strndup(s + vb, i - vb);
		if (!v)
			return rmi_err(err, RM_ENOMEM, "out of memory");
		for (size_t k = 0; v[k]; k++)
			if ((unsigned char)v[k] < 0x20 || v[k] == '"' ||
			    v[k] == '\'')
				st = at(err, file, ln, vb + k + 1, "%s: quote "
					"or control byte in a name", key);
		char **slot = NULL;
		if (!b && (!strcmp(key, "SwitchName") || !strcmp(key, "BlockName"))) {
			block = key[0] == 'B';
			slot = &name;
		} else if (!strcmp(key, "Nodes")) {
			slot = &nodes;
			ncol = vb + 1;
		} else if (!strcmp(key, "Switches") && !block) {
			slot = &kids;
		} else if (!strcmp(key, "Level") && !block) {
			char *e;
			level = strtoul(v, &e, 10);
			if (*e || !*v || level > 16)
				st = at(err, file, ln, vb + 1, "Level=%s: "
					"expected 0-16", v);
		} else if (!strcmp(key, "BlockSize") && block) {
			char *e;
			unsigned long bs = strtoul(v, &e, 10);
			if (*e || !*v || !bs || bs > RM_MAX_HOSTS)
				st = at(err, file, ln, vb + 1, "BlockSize=%s: "
					"expected a node count", v);
			else if (!*blocksize)
				*blocksize = (uint32_t)bs;
		} else if (!strcmp(key, "SwitchName") ||
			   !strcmp(key, "BlockName")) {
			st = at(err, file, ln, b + 1, "%s= must be the line's "
				"first key", key);
		} else if (strcmp(key, "LinkSpeed") && strcmp(key, "BlockIndex")) {
			st = at(err, file, ln, b + 1, "%s= is not a key of "
				"`scontrol show topology` (SwitchName, Level, "
				"LinkSpeed, Nodes, Switches; BlockName, "
				"BlockIndex, Nodes, BlockSize)", key);
		}
		if (slot && !st) {
			free(*slot);
			*slot = v;
		} else {
			free(v);
		}
	}
	if (!st && !name)
		st = at(err, file, ln, 1, "expected SwitchName= or BlockName= "
			"first");
	if (!st && find_sw(im, name) >= 0)
		st = at(err, file, ln, 1, "%s %s is printed twice",
			block ? "block" : "switch", name);
	int64_t t = -1;
	if (!st && (t = rmi_import_add_switch(im, name, (uint32_t)level)) < 0)
		st = rmi_err(err, RM_ENOMEM, "out of memory");
	if (!st)
		im->sw[t].block = block;
	if (!st && nodes && (block || level == 0)) {
		rm_hostlist hl;
		size_t col = 0;
		if (rmi_hostlist_parse_n(nodes, strlen(nodes), &hl, &col, err)) {
			char m[512];
			rmi_copy_out(err->msg, strnlen(err->msg, sizeof(m) - 1),
				     m, sizeof(m));
			st = at(err, file, ln, ncol + (col ? col - 1 : 0),
				"Nodes=: %s", m);
		} else {
			for (size_t i = 0; i < hl.n && !st; i++)
				if (!rmi_import_add_host(&im->sw[t], hl.host[i]))
					st = rmi_err(err, RM_ENOMEM, "out of memory");
			rm_hostlist_clear(&hl);
		}
	}
	*sl = (sline){ .sw = t, .kids = st ? NULL : kids, .line = ln };
	if (st)
		free(kids);
	free(name);
	free(nodes);
	return st;
}

static rm_status link_kids(rm_import *im, const sline *sl, rm_error *err)
{
	if (!sl->kids)
		return RM_OK;
	rm_hostlist hl;
	size_t col = 0;
	if (rmi_hostlist_parse_n(sl->kids, strlen(sl->kids), &hl, &col, err))
		return at(err, im->source, sl->line, 1, "Switches=%s: not a "
			  "hostlist", sl->kids);
	rm_status st = RM_OK;
	for (size_t i = 0; i < hl.n && !st; i++) {
		int64_t k = find_sw(im, hl.host[i]);
		if (k < 0)
			st = at(err, im->source, sl->line, 1, "Switches= names "
				"%s, which no SwitchName= line prints",
				hl.host[i]);
		else if (im->sw[k].parent >= 0 && im->sw[k].parent != sl->sw)
			st = at(err, im->source, sl->line, 1, "switch %s has "
				"two parents: %s and %s", hl.host[i],
				im->sw[im->sw[k].parent].name,
				im->sw[sl->sw].name);
		else
			im->sw[k].parent = (int32_t)sl->sw;
	}
	rm_hostlist_clear(&hl);
	return st;
}

rm_status rmi_scontrol_build(rm_import *im, const char *text, size_t len,
			     rm_error *err)
{
	sline *sl = NULL;
	size_t nsl = 0, cap = 0;
	uint32_t blocksize = 0;
	unsigned long ln = 0;
	rm_status st = RM_OK;
	if (len > RM_MAX_INPUT)
		return rmi_err(err, RM_EINPUT, "%s: more than %u bytes",
			       im->source, RM_MAX_INPUT);
	for (size_t p = 0; p < len && !st;) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t e = nl ? (size_t)(nl - text) : len, n = e - p;
		ln++;
		const char *s = text + p;
		p = e + 1;
		if (n && s[n - 1] == '\r')
			n--;
		if (memchr(s, '\0', n)) {
			st = at(err, im->source, ln, 1, "NUL byte");
			break;
		}
		if (n > 65536) {
			st = at(err, im->source, ln, 65536, "line longer than "
				"65536 bytes");
			break;
		}
		size_t b = 0;
		while (b < n && (s[b] == ' ' || s[b] == '\t'))
			b++;
		if (b == n || s[b] == '#')
			continue;
		if (!rmi_grow((void **)&sl, &cap, nsl + 1, sizeof(*sl))) {
			st = rmi_err(err, RM_ENOMEM, "out of memory");
			break;
		}
		st = one(im, s + b, n - b, ln, &sl[nsl], &blocksize, err);
		if (!st)
			nsl++;
	}
	for (size_t i = 0; i < nsl && !st; i++)
		st = link_kids(im, &sl[i], err);
	for (size_t i = 0; i < nsl; i++)
		free(sl[i].kids);
	free(sl);
	if (!st && !im->nsw)
		st = rmi_err(err, RM_EINPUT, "%s: no SwitchName= or BlockName= "
			     "line: not `scontrol show topology` output",
			     im->source);
	im->block_size = blocksize;
	return st;
}
