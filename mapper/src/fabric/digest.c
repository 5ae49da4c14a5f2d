/* SPDX-License-Identifier: Apache-2.0 */
/*
 * digest.c - rm_fabric_digest: SHA-256 over a canonical text of a fabric.
 * Every node of a job builds its fabric from its own copy of the inputs;
 * the digest lets them (and a later `rankmap check`) prove they saw the same
 * fabric. Canonical means: independent of line order, comments and the
 * order names were first seen in, but sensitive to anything that changes
 * placement (a node moved to another leaf, a different parent switch ...).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* v in decimal at out (20 bytes at most), no NUL; returns the length.
 * The digest hashes millions of these for a large fabric, where snprintf
 * cost as much as the hashing itself; the bytes are the same. */
static size_t dec(char *out, uint64_t v)
{
	char t[20];
	size_t n = 0, k = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		out[k++] = t[--n];
	return k;
}

/* Length-prefixed so that no name can fake a field boundary. */
static void field(rm_sha256_ctx *c, const char *s)
{
	char buf[256];
	if (!s)
		s = "";
	size_t n = strlen(s), k = dec(buf, n);
	buf[k++] = ':';
	if (k + n + 1 <= sizeof(buf)) {      /* one add for a short name */
		memcpy(buf + k, s, n);
		buf[k + n] = ' ';
		rm_sha256_add(c, buf, k + n + 1);
		return;
	}
	rm_sha256_add(c, buf, k);
	rm_sha256_add(c, s, n);
	rm_sha256_add(c, " ", 1);
}

static void number(rm_sha256_ctx *c, uint64_t v)
{
	char num[24];
	size_t k = dec(num, v);
	num[k++] = ' ';
	rm_sha256_add(c, num, k);
}

static const char *name_at(char **names, uint32_t n, int32_t i)
{
	return i >= 0 && (uint32_t)i < n ? names[i] : "-";
}

static int cmp_str(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	return strcmp(*x ? *x : "", *y ? *y : "");
}

static int cmp_switch(const void *a, const void *b)
{
	const rmi_switch *const *x = a, *const *y = b;
	return strcmp((*x)->name ? (*x)->name : "", (*y)->name ? (*y)->name : "");
}

static int cmp_node(const void *a, const void *b)
{
	const rmi_fnode *const *x = a, *const *y = b;
	return rm_host_cmp((*x)->name ? (*x)->name : "",
			   (*y)->name ? (*y)->name : "");
}

/* Hash a list of names in sorted order; false when out of memory. */
static bool sorted_names(rm_sha256_ctx *c, const char *tag, char **names,
			 uint32_t n)
{
	const char **tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if (!tmp)
		return false;
	for (uint32_t i = 0; i < n; i++)
		tmp[i] = names[i];
	qsort(tmp, n, sizeof(*tmp), cmp_str);
	field(c, tag);
	number(c, n);
	for (uint32_t i = 0; i < n; i++)
		field(c, tmp[i]);
	rm_sha256_add(c, "\n", 1);
	free(tmp);
	return true;
}

static bool hash_fabric(rm_sha256_ctx *c, const rm_fabric *f)
{
	rm_sha256_add(c, "rankmap-fabric/1\n", 17);
	const rmi_switch **sw = malloc((f->nsw ? f->nsw : 1) * sizeof(*sw));
	const rmi_fnode **nd = malloc((f->nnode ? f->nnode : 1) * sizeof(*nd));
	bool ok = sw && nd;
	if (ok) {
		for (uint32_t i = 0; i < f->nsw; i++)
			sw[i] = &f->sw[i];
		qsort(sw, f->nsw, sizeof(*sw), cmp_switch);
		for (uint32_t i = 0; i < f->nsw; i++) {
			int32_t p = sw[i]->parent;
			field(c, "switch");
			field(c, sw[i]->name);
			field(c, p >= 0 && (uint32_t)p < f->nsw ? f->sw[p].name
								: "-");
			rm_sha256_add(c, "\n", 1);
		}
		for (uint32_t i = 0; i < f->nnode; i++)
			nd[i] = &f->node[i];
		qsort(nd, f->nnode, sizeof(*nd), cmp_node);
		for (uint32_t i = 0; i < f->nnode; i++) {
			const rmi_fnode *n = nd[i];
			field(c, "node");
			field(c, n->name);
			field(c, n->leaf >= 0 && (uint32_t)n->leaf < f->nsw
					 ? f->sw[n->leaf].name
					 : "-");
			field(c, name_at(f->domain_name, f->ndomain, n->domain));
			field(c, name_at(f->unit_name, f->nunit, n->unit));
			rm_sha256_add(c, "\n", 1);
		}
	}
	free(sw);
	free(nd);
	if (!ok || !sorted_names(c, "domains", f->domain_name, f->ndomain) ||
	    !sorted_names(c, "units", f->unit_name, f->nunit))
		return false;
	field(c, "blocksizes");
	for (uint32_t i = 0; i < f->nblock_sizes; i++)
		number(c, f->block_sizes[i]);
	rm_sha256_add(c, "\n", 1);
	field(c, "rails");
	number(c, f->rails);
	field(c, "nvl_domain_gpus");
	number(c, f->nvl_domain_gpus);
	rm_sha256_add(c, "\n", 1);
	if (f->cross_policy != RM_CROSS_CHEAPEST) {
		/* only when set: digests of earlier fabrics stay the same */
		field(c, "cross_policy");
		number(c, (uint64_t)f->cross_policy);
		rm_sha256_add(c, "\n", 1);
	}
	for (size_t i = 0; i < f->ntiers && i < RM_MAX_TIERS; i++) {
		/* The bits of the doubles, not printf: the digest must not
		 * depend on the caller's locale. */
		uint64_t bw, os;
		memcpy(&bw, &f->tier[i].gbytes_per_s, sizeof(bw));
		memcpy(&os, &f->tier[i].oversubscription, sizeof(os));
		field(c, "tier");
		field(c, f->tier[i].name);
		number(c, bw);
		number(c, os);
		rm_sha256_add(c, "\n", 1);
	}
	return true;
}

void rm_fabric_digest(const rm_fabric *f, char hex[65])
{
	rm_sha256_ctx c;
	rm_sha256_init(&c);
	if (!f) {
		/* No topology: one flat switch, still a definite input. */
		rm_sha256_add(&c, "rankmap-fabric/1 flat\n", 22);
		rm_sha256_end_hex(&c, hex);
		return;
	}
	if (!hash_fabric(&c, f)) {
		/* Out of memory: an all-zero digest never equals a real one,
		 * so a comparison fails safe instead of matching by accident. */
		memset(hex, '0', 64);
		hex[64] = '\0';
		return;
	}
	rm_sha256_end_hex(&c, hex);
}
