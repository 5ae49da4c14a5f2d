/* SPDX-License-Identifier: Apache-2.0 */
/* fixture.h - what the tests (and bench_optimal) set up again and again:
 * topology.conf text parsed into a fabric, rail-optimised units on one. */
#ifndef RM_TEST_FIXTURE_H
#define RM_TEST_FIXTURE_H
#include "rankmap.h"

#include <stdio.h>
#include <string.h>

/* The fabric of topology.conf `text`, named `source` in its messages; NULL,
 * the reason printed, when it does not parse. */
static inline rm_fabric *fixture_fabric(const char *text, const char *source)
{
	rm_fabric *f = NULL;
	rm_error e = { 0 };
	if (rm_fabric_new(&f, &e) == RM_OK &&
	    rm_fabric_parse_topology(f, text, strlen(text), source, &e) == RM_OK)
		return f;
	printf("  topology: %s\n", e.msg);
	rm_fabric_free(f);
	return NULL;
}

/* n rail-optimised units on f: unit i is name[i] over the hostlist
 * nodes[i], one rail per GPU of the gpn on each node. */
static inline rm_status fixture_units(rm_fabric *f, uint32_t gpn, char **name,
				      char **nodes, size_t n, rm_error *e)
{
	rm_site s;
	rmi_site_init(&s);
	s.gpus_per_node = gpn;
	s.unit_name = name;
	s.unit_nodes = nodes;
	s.nunits = n;
	s.rails = gpn;
	return rm_fabric_apply_site(f, &s, e);
}

/* Site NVLink groups on f: group i is the hostlist groups[i]. */
static inline rm_status fixture_groups(rm_fabric *f, uint32_t gpn,
				       char **groups, size_t n, rm_error *e)
{
	rm_site s;
	rmi_site_init(&s);
	s.gpus_per_node = gpn;
	s.nvl_kind = RM_NVL_GROUPS;
	s.nvl_groups = groups;
	s.n_nvl_groups = n;
	return rm_fabric_apply_site(f, &s, e);
}
#endif
