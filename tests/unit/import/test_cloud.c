/* SPDX-License-Identifier: Apache-2.0 */
/* test_cloud.c - Google Cloud's instance list and Oracle Cloud's
 * rdmaTopologyData mapping into a tree (switches renamed, the provider's
 * ids kept as comments), OCI's GPU memory fabrics as NVLink groups, bad
 * input at line:col. */
#include "import_test.h"

static rm_status gcp(const char *text)
{
	return import_as(rm_import_gcp, text);
}

static rm_status oci(const char *text)
{
	return import_as(rm_import_oci, text);
}

#define GCP_HOST(name, c, b, s) \
	"{\"name\": \"" name "\", \"resourceStatus\": {\"physicalHostTopology\": " \
	"{\"cluster\": \"" c "\", \"block\": \"" b "\", \"subblock\": \"" s "\"}}}"

static void gcp_tree(void)
{
	static const t_switch sw[] = {
		{ "subblock0", "a3-1 a3-2", NULL, NULL },
		{ "subblock1", "a3-3 a3-4", "block1", NULL },
		{ "block0", NULL, "cluster0", NULL },
		{ "block1", NULL, NULL, "77" },
	};
	CHECK_INT(gcp("[" GCP_HOST("a3-1", "cl7", "9f", "4a") ",\n"
		      GCP_HOST("a3-2", "cl7", "9f", "4a") ",\n"
		      GCP_HOST("a3-3", "cl7", "77", "5c") ",\n"
		      "{\"name\": \"a3-4\", \"resourceStatus\": {\"physicalHost\": \"/cl7/77/5c/h9\"}},\n"
		      "{\"name\": \"login\", \"resourceStatus\": {}}]\n"),
		  RM_OK);
	CHECK_TREE(5, 2, sw);
	CHECK_HAS(report_line("instances without a physical topology"), "1");
	const char *conf = part(RM_IMPORT_TOPOLOGY);
	CHECK_HAS(conf, "SwitchName=subblock1 Nodes=a3-[3-4]\n");
	CHECK_HAS(conf, "SwitchName=cluster0 Switches=block[0-1]\n");
	CHECK_HAS(conf, "# block1: 77\n");
}

static void gcp_bad(void)
{
	static const t_say rows[] = {
		{ "[" GCP_HOST("n1", "c", "b1", "s1") ",\n" GCP_HOST("n2", "c", "b2", "s1") "]",
		  { "in.txt:2:", "s1", "b1", "b2" } },
		{ "[" GCP_HOST("n1", "c", "b1", "s1") ",\n" GCP_HOST("n1", "c", "b1", "s2") "]",
		  { "in.txt:2:", "n1", "twice" } },
		{ "[{\"name\": \"n\\\"1;rm\", \"resourceStatus\": {}}]", { "in.txt:1:11:", "name" } },
		/* a newline in an id would be a line of its own in topology.conf */
		{ "[{\"name\": \"n1\", \"resourceStatus\": {\"physicalHostTopology\": "
		  "{\"cluster\": \"c\", \"block\": \"b\\nSwitchName=x\"}}}]",
		  { "in.txt:1:", "block" } },
		{ "[{\"name\": \"n1\", \"resourceStatus\": {\"physicalHost\": \"c1-b1-h1\"}}]",
		  { "in.txt:1:", "physicalHost", "c1-b1-h1" } },
		{ "[{\"name\": \"n1\", \"resourceStatus\": {\"physicalHostTopology\": "
		  "{\"cluster\": \"c\", \"block\": [\"b\"]}}}]",
		  { "in.txt:1:", "block" } },
		{ "{\"items\": []}", { "gcloud compute instances list" } },
		{ "[{\"name\": \"n1\"}]", { "physicalHostTopology" } },
	};
	CHECK_SAYS(gcp, RM_EINPUT, E.msg, rows);
	CHECK_INT(gcp("[{\"name\": \"n1\", \"resourceStatus\": {"), RM_EINPUT);
	CHECK(at_line_col(E.msg));
}

#define OCI(island, nb, lb) \
	"{\"customerHPCIslandId\": \"" island "\", \"customerNetworkBlock\": \"" nb \
	"\", \"customerLocalBlock\": \"" lb "\""

static void oci_tree(void)
{
	static const t_switch sw[] = {
		{ "localblock0", "gpu-1 gpu-2", NULL, "lb1" },
		{ "localblock1", "gpu-3", NULL, NULL },
		{ "netblock1", NULL, "island0", NULL },
	};
	CHECK_INT(oci("gpu-1: " OCI("isl", "nb1", "lb1") ", \"customerGpuMemoryFabric\": \"f1\"}\n"
		      "gpu-2: " OCI("isl", "nb1", "lb1") ", \"customerGpuMemoryFabric\": \"f1\"}\n"
		      "gpu-3: {\"rackId\": \"r\", \"rdmaTopologyData\": " OCI("isl", "nb2", "lb3") "}}\n"
		      "gpu-4: {}\n"),
		  RM_OK);
	CHECK_TREE(5, 2, sw);
	CHECK_HAS(report_line("nodes without RDMA topology data"), "1");
	CHECK_HAS(report_line("customerGpuMemoryFabric"), "2 nodes, 1 NVLink domain of up to 2 nodes");
	CHECK_HAS(part(RM_IMPORT_SITE), "groups: [\"gpu-[1-2]\"]");
	CHECK_HAS(part(RM_IMPORT_TOPOLOGY), "SwitchName=island0 Switches=netblock[0-1]\n");
}

static void oci_bad(void)
{
	static const t_say rows[] = {
		{ "n1: {\"customerHPCIslandId\": \"i\", \"customerNetworkBlock\": \"nb\"}",
		  { "in.txt:1:", "n1", "customerLocalBlock" } },
		{ "n1: " OCI("i", "nb", "lb") "}\nn2: " OCI("i", "nb2", "lb") "}\n",
		  { "in.txt:2:", "nb", "nb2" } },
		{ "n1: " OCI("i", "nb", "lb") "}\nn1: " OCI("i", "nb", "lb") "}\n",
		  { "in.txt:2:", "n1" } },
		{ "n1: &a " OCI("i", "nb", "lb") "}\nn2: *a\n", { "in.txt:", "alias" } },
		{ "- n1", { "not a mapping of node name" } },
		{ "n1: {\"rackId\": \"r\"}", { "customerLocalBlock" } },
	};
	CHECK_SAYS(oci, RM_EINPUT, E.msg, rows);
}

int main(void)
{
	RUN("import/cloud", gcp_tree);
	RUN("import/cloud", gcp_bad);
	RUN("import/cloud", oci_tree);
	RUN("import/cloud", oci_bad);
	rm_import_free(IM);
	TEST_EXIT();
}
