/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_fabric.h - what every topology reader's fuzz target asserts of a
 * fabric that loaded: a forest with consistent links and name tables. */
#ifndef RANKMAP_FUZZ_FABRIC_H
#define RANKMAP_FUZZ_FABRIC_H

#include "internal.h"

#include <stdlib.h>

static inline void fuzz_check_fabric(const rm_fabric *f)
{
	for (uint32_t i = 0; i < f->nsw; i++) {
		const rmi_switch *w = &f->sw[i];
		if (w->parent >= (int32_t)f->nsw)
			abort();
		for (uint32_t k = 0; k < w->nchild; k++)
			if (f->sw[w->child[k]].parent != (int32_t)i ||
			    f->sw[w->child[k]].level >= w->level)
				abort();
	}
	for (uint32_t i = 0; i < f->nnode; i++)
		if (f->node[i].leaf >= (int32_t)f->nsw ||
		    f->node[i].domain >= (int32_t)f->ndomain ||
		    rmi_fabric_find(f, f->node[i].name) != i)
			abort();
}

#endif
