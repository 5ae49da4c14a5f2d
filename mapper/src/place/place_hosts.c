/* SPDX-License-Identifier: Apache-2.0 */
/*
 * place_hosts.c - the allocation's hosts in natural order, the order
 * every plan starts from (so the input order never changes a result).
 */
#include "place/place.h"

#include <stdlib.h>
#include <string.h>

typedef struct numbered {
	uint64_t v;
	const char *name;
	size_t ix;
} numbered;

static int cmp_numbered(const void *a, const void *b)
{
	const numbered *x = a, *y = b;
	int c;
	if ((c = RMI_CMP(x->v, y->v)))
		return c;
	if ((c = strcmp(x->name, y->name)))
		return c < 0 ? -1 : 1;
	return RMI_CMP(x->ix, y->ix);
}

/*
 * Hosts in natural order (rmi_named_host_cmp). Names that are all one
 * letter prefix and a number ("gpu00042") sort by that number, ties by
 * the bytes, which is the same order at a fraction of the cost of
 * comparing digit runs at every step; other names take the general way.
 */
void rmi_sort_hosts(rmi_named *sh, size_t n)
{
	numbered *k = n > 1 ? malloc(n * sizeof(*k)) : NULL;
	size_t plen = 0;
	bool fast = k != NULL;
	if (fast)
		while (sh[0].name[plen] && !(sh[0].name[plen] >= '0' &&
					     sh[0].name[plen] <= '9'))
			plen++;
	for (size_t i = 0; fast && i < n; i++) {
		const char *s = sh[i].name;
		fast = strncmp(s, sh[0].name, plen) == 0;
		uint64_t v = 0;
		size_t d = 0;
		for (s += plen; fast && *s; s++, d++) {
			fast = *s >= '0' && *s <= '9' && d < 18;
			v = v * 10 + (uint64_t)(*s - '0');
		}
		fast = fast && d > 0;
		k[i] = (numbered){ v, sh[i].name, sh[i].ix };
	}
	if (!fast) {
		free(k);
		qsort(sh, n, sizeof(*sh), rmi_named_host_cmp);
		return;
	}
	qsort(k, n, sizeof(*k), cmp_numbered);
	for (size_t i = 0; i < n; i++)
		sh[i] = (rmi_named){ k[i].name, k[i].ix };
	free(k);
}
