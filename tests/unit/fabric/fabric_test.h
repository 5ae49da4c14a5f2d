/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fabric_test.h - what the topology readers' tests (test_topology.c,
 * test_topology_yaml.c) share: the fabric under test F, the last error
 * E, and where a node sits in F. Include after internal.h and test.h.
 */
#ifndef RM_TEST_FABRIC_H
#define RM_TEST_FABRIC_H

#include <string.h>

static rm_fabric *F;
static rm_error E;

/* F a new, empty fabric and E cleared; RM_ENOMEM when none could be
 * made. */
static inline rm_status fabric_fresh(void)
{
	rm_fabric_free(F);
	F = NULL;
	memset(&E, 0, sizeof(E));
	return rm_fabric_new(&F, &E) != RM_OK ? RM_ENOMEM : RM_OK;
}

/* The name of node's leaf switch in F, "(none)" when it has none. */
static inline const char *leaf_of(const char *node)
{
	int64_t i = rmi_fabric_find(F, node);
	if (i < 0 || F->node[i].leaf < 0)
		return "(none)";
	return F->sw[F->node[i].leaf].name;
}

#endif
