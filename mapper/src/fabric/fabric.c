/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fabric.c - the rm_fabric object: nodes and switches by name. Real
 * topology files name tens of thousands of nodes and thousands of
 * switches, so both are found through open-addressing hash tables.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rm_status rm_fabric_new(rm_fabric **out, rm_error *err)
{
	if (!out)
		return rmi_err(err, RM_EINPUT, "fabric: no output given");
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	return RM_OK;
}

void rm_fabric_free(rm_fabric *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nsw; i++) {
		free(f->sw[i].name);
		free(f->sw[i].child);
	}
	free(f->sw);
	for (uint32_t i = 0; i < f->nnode; i++)
		free(f->node[i].name);
	free(f->node);
	free(f->hash);
	free(f->sw_hash);
	rmi_strv_free(f->domain_name, f->ndomain);
	free(f->block_sizes);
	free(f->warnings);
	rmi_strv_free(f->unit_name, f->nunit);
	free(f->source);
	free(f);
}

bool rm_fabric_is_flat(const rm_fabric *f)
{
	return !f || (!f->has_tree && !f->has_blocks);
}

/* FNV-1a: short names, few collisions, no state. */
static uint32_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* A table maps a name to index + 1 (0 = empty); `name_of` reads names. */
typedef const char *(*name_fn)(const rm_fabric *f, uint32_t i);

static const char *node_name(const rm_fabric *f, uint32_t i)
{
	return f->node[i].name;
}

static const char *sw_name(const rm_fabric *f, uint32_t i)
{
	return f->sw[i].name;
}

static int64_t table_find(const rm_fabric *f, const uint32_t *tab,
			  uint32_t cap, name_fn name_of, const char *name)
{
	if (!tab || !name)
		return -1;
	uint32_t m = cap - 1;
	for (uint32_t h = name_hash(name) & m;; h = (h + 1) & m) {
		uint32_t v = tab[h];
		if (!v)
			return -1;
		if (strcmp(name_of(f, v - 1), name) == 0)
			return (int64_t)v - 1;
	}
}

static void table_put(uint32_t *tab, uint32_t cap, const char *name,
		      uint32_t idx)
{
	uint32_t m = cap - 1;
	uint32_t h = name_hash(name) & m;
	while (tab[h])
		h = (h + 1) & m;
	tab[h] = idx + 1;
}

/* Keep the load at or below one half so probes stay short. */
static bool table_fit(const rm_fabric *f, uint32_t **tab, uint32_t *cap,
		      uint32_t count, name_fn name_of)
{
	if (*tab && (uint64_t)(count + 1) * 2 <= *cap)
		return true;
	uint64_t c = *cap ? *cap : 64;
	while ((uint64_t)(count + 1) * 2 > c)
		c *= 2;
	if (c > UINT32_MAX / 2 + 1)
		return false;
	uint32_t *t = calloc((size_t)c, sizeof(*t));
	if (!t)
		return false;
	for (uint32_t i = 0; i < count; i++)
		table_put(t, (uint32_t)c, name_of(f, i), i);
	free(*tab);
	*tab = t;
	*cap = (uint32_t)c;
	return true;
}

int64_t rmi_fabric_find(const rm_fabric *f, const char *name)
{
	if (!f)
		return -1;
	return table_find(f, f->hash, f->hash_cap, node_name, name);
}

int64_t rmi_fabric_find_switch(const rm_fabric *f, const char *name)
{
	if (!f)
		return -1;
	return table_find(f, f->sw_hash, f->sw_hash_cap, sw_name, name);
}

static bool grow(void **arr, uint32_t *cap, uint32_t n, size_t elsize)
{
	if (n < *cap)
		return true;
	uint64_t c = *cap ? (uint64_t)*cap * 2 : 16;
	if (c > INT32_MAX)
		return false;
	void *p = realloc(*arr, (size_t)c * elsize);
	if (!p)
		return false;
	*arr = p;
	*cap = (uint32_t)c;
	return true;
}

int64_t rmi_fabric_add_node(rm_fabric *f, const char *name)
{
	if (!f || !name)
		return -1;
	int64_t ix = rmi_fabric_find(f, name);
	if (ix >= 0)
		return ix;
	if (f->nnode >= INT32_MAX - 1 ||
	    !table_fit(f, &f->hash, &f->hash_cap, f->nnode, node_name) ||
	    !grow((void **)&f->node, &f->node_cap, f->nnode,
		  sizeof(*f->node)))
		return -1;
	char *dup = strdup(name);
	if (!dup)
		return -1;
	rmi_fnode *n = &f->node[f->nnode];
	n->name = dup;
	n->leaf = -1;
	n->domain = -1;
	n->unit = -1;
	table_put(f->hash, f->hash_cap, dup, f->nnode);
	return f->nnode++;
}

int64_t rmi_fabric_add_switch(rm_fabric *f, const char *name)
{
	if (!f || !name)
		return -1;
	if (f->nsw >= INT32_MAX - 1 ||
	    !table_fit(f, &f->sw_hash, &f->sw_hash_cap, f->nsw, sw_name) ||
	    !grow((void **)&f->sw, &f->sw_cap, f->nsw, sizeof(*f->sw)))
		return -1;
	char *dup = strdup(name);
	if (!dup)
		return -1;
	rmi_switch *s = &f->sw[f->nsw];
	memset(s, 0, sizeof(*s));
	s->name = dup;
	s->parent = -1;
	table_put(f->sw_hash, f->sw_hash_cap, dup, f->nsw);
	return f->nsw++;
}

void rmi_fabric_warn(rm_fabric *f, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	size_t old = f->warnings ? strlen(f->warnings) : 0;
	char *p = realloc(f->warnings, old + strlen(line) + 2);
	if (!p)
		return;
	f->warnings = p;
	snprintf(p + old, strlen(line) + 2, "%s\n", line);
}

const char *rm_fabric_warnings(const rm_fabric *f)
{
	return f ? f->warnings : NULL;
}
