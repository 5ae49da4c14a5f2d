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

/* A site of gpn GPUs a node on f: rail-optimised units where `name` is
 * given (unit i is name[i] over the hostlist nodes[i], one rail per GPU),
 * NVLink groups where `groups` is (group i is the hostlist groups[i]). */
static inline rm_status fixture_site(rm_fabric *f, uint32_t gpn, char **name,
				     char **nodes, size_t nunits, char **groups,
				     size_t ngroups, rm_error *e)
{
	rm_site s;
	rmi_site_init(&s);
	s.gpus_per_node = gpn;
	if (name) {
		s.unit_name = name;
		s.unit_nodes = nodes;
		s.nunits = nunits;
		s.rails = gpn;
	}
	if (groups) {
		s.nvl_kind = RM_NVL_GROUPS;
		s.nvl_groups = groups;
		s.n_nvl_groups = ngroups;
	}
	return rm_fabric_apply_site(f, &s, e);
}

/* n rail-optimised units on f: unit i is name[i] over the hostlist
 * nodes[i], one rail per GPU of the gpn on each node. */
static inline rm_status fixture_units(rm_fabric *f, uint32_t gpn, char **name,
				      char **nodes, size_t n, rm_error *e)
{
	return fixture_site(f, gpn, name, nodes, n, NULL, 0, e);
}

/* Site NVLink groups on f: group i is the hostlist groups[i]. */
static inline rm_status fixture_groups(rm_fabric *f, uint32_t gpn,
				       char **groups, size_t n, rm_error *e)
{
	return fixture_site(f, gpn, NULL, NULL, 0, groups, n, e);
}
#endif
