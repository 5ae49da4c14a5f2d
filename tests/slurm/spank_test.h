/* SPDX-License-Identifier: Apache-2.0 */
/* spank_test.h - what the unit tests of the SPANK-free core share. */
#ifndef RMS_SPANK_TEST_H
#define RMS_SPANK_TEST_H

#include "rms.h"

#include <string.h>

/* The value of `key` in the environment set e; NULL when it is not set. */
static inline const char *env_get(const rms_envset *e, const char *key)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->kv[i].key, key))
			return e->kv[i].val;
	return NULL;
}

#endif
