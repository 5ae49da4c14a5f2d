/* SPDX-License-Identifier: Apache-2.0 */
/* rm_fabric_info_get and the per-node queries `rankmap site validate`
 * reports from: counts of a two-level tree, NVLink groups and rail units,
 * and the nodes a site file names that the topology does not place. */
#include "internal.h"
#include "test.h"

#include <stdlib.h>

static rm_fabric *load(const char *topo, const char *site_text, rm_site *s)
{
	rm_error e;
	rm_fabric *f = NULL;
	CHECK_INT(rm_fabric_new(&f, &e), RM_OK);
	CHECK_INT(rm_fabric_parse_topology(f, topo, strlen(topo), "t.conf", &e),
		  RM_OK);
	rmi_site_init(s);
	if (site_text) {
		CHECK_INT(rmi_site_parse(site_text, strlen(site_text), "s.yaml",
					s, &e), RM_OK);
		CHECK_INT(rm_fabric_apply_site(f, s, &e), RM_OK);
	}
	return f;
}

static const char TREE[] = "SwitchName=l1 Nodes=n[1-4]\n"
			   "SwitchName=l2 Nodes=n[5-6]\n"
			   "SwitchName=s Switches=l[1-2]\n";

static void tree_counts(void)
{
	rm_site s;
	rm_fabric *f = load(TREE, NULL, &s);
	rm_fabric_info fi;
	rm_fabric_info_get(f, &fi);
	CHECK_INT(fi.nodes, 6);
	CHECK_INT(fi.switches, 3);
	CHECK_INT(fi.leaves, 2);
	CHECK_INT(fi.levels, 2);
	CHECK_INT(fi.top_switches, 1);
	CHECK(fi.tree && !fi.blocks);
	CHECK_INT(fi.no_leaf, 0);
	CHECK_INT(fi.nvl_domains, 0);
	CHECK_INT(fi.units, 0);
	CHECK_STR(rm_fabric_node_name(f, 0), "n1");
	CHECK(rm_fabric_node_name(f, 6) == NULL);
	CHECK_INT(rm_fabric_node_where(f, 0), RM_FABRIC_NODE_LEAF);
	rm_fabric_free(f);
	rmi_site_clear(&s);
	rm_fabric_info_get(NULL, &fi); /* no fabric: all zero */
	CHECK_INT(fi.nodes, 0);
}

static void site_outside_topology(void)
{
	rm_site s;
	rm_fabric *f = load(TREE,
			    "schema: rankmap-site/1\n"
			    "gpus_per_node: 4\n"
			    "nvlink: {domain: groups, groups: [\"n[1-2]\", \"n[7-9]\"]}\n"
			    "units:\n  rails: 4\n  list:\n"
			    "    - {name: a, nodes: \"n[1-4]\"}\n",
			    &s);
	rm_fabric_info fi;
	rm_fabric_info_get(f, &fi);
	CHECK_INT(fi.nodes, 9);         /* n7..n9 added by the site */
	CHECK_INT(fi.no_leaf, 3);
	CHECK_INT(fi.nvl_domains, 2);
	CHECK_INT(fi.nvl_domain_nodes, 3);
	CHECK_INT(fi.no_domain, 4);     /* n3..n6 */
	CHECK_INT(fi.units, 1);
	CHECK_INT(fi.unit_nodes, 4);
	CHECK_INT(fi.rails, 4);
	CHECK_INT(fi.no_unit, 5);       /* n5..n9 */
	int where = -1;
	for (uint32_t i = 0; i < fi.nodes; i++)
		if (!strcmp(rm_fabric_node_name(f, i), "n8"))
			where = rm_fabric_node_where(f, i);
	CHECK_INT(where, RM_FABRIC_NODE_DOMAIN);
	rm_fabric_free(f);
	rmi_site_clear(&s);
}

int main(void)
{
	RUN("fabric_info", tree_counts);
	RUN("fabric_info", site_outside_topology);
	TEST_EXIT();
}
