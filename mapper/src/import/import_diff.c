/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import_diff.c - `site import ... --against topology.conf`: where a
 * hand-written topology.conf and the imported fabric disagree. Switch
 * names differ between the two (an admin's "leaf07" is the import's "su3"),
 * so leaves are matched by the hosts they hold: each hand-written leaf
 * stands for the imported leaf most of its hosts are under, and a host
 * under another one is "under the wrong leaf".
 */
#include "import/import_int.h"
#include "fabric/fabric_int.h"

#include <stdlib.h>
#include <string.h>

#define SHOWN 20

static void line(rm_buf *b, size_t *n, const char *fmt, ...) RMI_PRINTF(3, 4);
static void line(rm_buf *b, size_t *n, const char *fmt, ...)
{
	if ((*n)++ >= SHOWN)
		return;
	char m[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	rm_buf_printf(b, "  %s\n", m);
}

static uint32_t levels(const rm_fabric *f)
{
	uint32_t l = 0;
	for (uint32_t i = 0; i < f->nsw; i++)
		l = f->sw[i].level + 1 > l ? f->sw[i].level + 1 : l;
	return l;
}

/* Where node i is: its leaf switch, or for topology/block its block
 * (numbered after the switches); -1 none. */
static int32_t grp(const rm_fabric *f, uint32_t i)
{
	if (f->node[i].leaf >= 0)
		return f->node[i].leaf;
	return f->has_blocks && f->node[i].domain >= 0
		       ? (int32_t)f->nsw + f->node[i].domain : -1;
}

static const char *gname(const rm_fabric *f, int32_t g)
{
	return (uint32_t)g < f->nsw ? f->sw[g].name
				    : f->domain_name[(uint32_t)g - f->nsw];
}

/* Imported place of hand node j's name, -1 when the import lacks it. */
static int32_t imp_leaf(const rm_fabric *imp, const rm_fabric *hand,
			uint32_t j)
{
	int64_t k = rmi_fabric_find(imp, hand->node[j].name);
	return k < 0 ? -1 : grp(imp, (uint32_t)k);
}

static rm_status compare(const rm_fabric *imp, const rm_fabric *hand,
			 const char *path, rm_buf *b, size_t *ndiff)
{
	size_t n = 0;
	uint32_t li = levels(imp), lh = levels(hand);
	if (li != lh)
		line(b, &n, "levels: %s has %u switch level%s, the fabric %u",
		     path, lh, lh == 1 ? "" : "s", li);
	for (uint32_t i = 0; i < imp->nnode; i++) {
		int64_t j = rmi_fabric_find(hand, imp->node[i].name);
		if (grp(imp, i) >= 0 && (j < 0 || grp(hand, (uint32_t)j) < 0))
			line(b, &n, "%s: in the fabric (under %s), missing from "
			     "%s", imp->node[i].name,
			     gname(imp, grp(imp, i)), path);
	}
	for (uint32_t j = 0; j < hand->nnode; j++)
		if (grp(hand, j) >= 0 && imp_leaf(imp, hand, j) < 0)
			line(b, &n, "%s: under %s in %s, not in the capture "
			     "(or left out by --hosts)", hand->node[j].name,
			     gname(hand, grp(hand, j)), path);
	/* each hand leaf -> the imported leaf most of its hosts are under */
	uint32_t ni = imp->nsw + imp->ndomain, nh = hand->nsw + hand->ndomain;
	uint32_t *votes = calloc(ni + 1, sizeof(uint32_t));
	int32_t *major = malloc((nh + 1) * sizeof(int32_t));
	if (!votes || !major) {
		free(votes);
		free(major);
		return RM_ENOMEM;
	}
	for (uint32_t s = 0; s < nh; s++) {
		major[s] = -1;
		if (s < hand->nsw && hand->sw[s].level)
			continue;
		memset(votes, 0, (ni + 1) * sizeof(uint32_t));
		for (uint32_t j = 0; j < hand->nnode; j++) {
			int32_t x = grp(hand, j) == (int32_t)s
					    ? imp_leaf(imp, hand, j) : -1;
			if (x >= 0 && ++votes[x] > (major[s] < 0 ? 0
								  : votes[major[s]]))
				major[s] = x;
		}
	}
	for (uint32_t j = 0; j < hand->nnode; j++) {
		int32_t s = grp(hand, j), x = imp_leaf(imp, hand, j);
		if (s < 0 || x < 0 || major[s] < 0 || x == major[s])
			continue;
		line(b, &n, "%s: under %s in %s, with hosts the fabric puts "
		     "under %s; the fabric puts it under %s",
		     hand->node[j].name, gname(hand, s), path,
		     gname(imp, major[s]), gname(imp, x));
	}
	/* one imported leaf split over several hand leaves */
	for (uint32_t x = 0; x < ni; x++) {
		uint32_t k = 0;
		const char *a = NULL, *c = NULL;
		for (uint32_t s = 0; s < nh; s++)
			if (major[s] == (int32_t)x && !k++)
				a = gname(hand, (int32_t)s);
			else if (major[s] == (int32_t)x && k == 2)
				c = gname(hand, (int32_t)s);
		if (k > 1)
			line(b, &n, "%s and %s%s in %s are one leaf of the "
			     "fabric (%s)", a, c, k > 2 ? " and more" : "",
			     path, gname(imp, (int32_t)x));
	}
	free(votes);
	free(major);
	if (n > SHOWN)
		rm_buf_printf(b, "  ... %zu more\n", n - SHOWN);
	*ndiff = n;
	return RM_OK;
}

rm_status rm_import_against(const rm_import *im, const char *path,
			    char **out, size_t *ndiff, rm_error *err)
{
	rm_fabric *hand = NULL, *imp = NULL;
	char *topo = NULL;
	size_t len = 0;
	rm_status st = rm_fabric_new(&hand, err);
	if (!st)
		st = rm_fabric_load_topology(hand, path, err);
	if (!st)
		st = rm_import_write(im, RM_IMPORT_TOPOLOGY, &topo, &len, err);
	if (!st)
		st = rm_fabric_new(&imp, err);
	if (!st)
		st = rm_fabric_parse_topology(imp, topo, len, "imported", err);
	rm_buf b;
	rm_buf_init(&b);
	if (!st) {
		rm_buf_printf(&b, "against %s\n", path);
		if ((st = compare(imp, hand, path, &b, ndiff)))
			rmi_err(err, st, "out of memory");
		else if (!*ndiff)
			rm_buf_puts(&b, "  no difference: every host under the "
				    "leaf the fabric puts it under\n");
	}
	if (!st && !(*out = rm_buf_take(&b, NULL)))
		st = rmi_err(err, RM_ENOMEM, "out of memory");
	rm_buf_clear(&b);
	free(topo);
	rm_fabric_free(hand);
	rm_fabric_free(imp);
	return st;
}
