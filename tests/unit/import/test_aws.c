/* SPDX-License-Identifier: Apache-2.0 */
/* test_aws.c - `aws ec2 describe-instance-topology` JSON: NetworkNodes
 * top-down into a tree, CapacityBlockId into NVLink groups, bad input at
 * line:col. */
#include "import_test.h"

static const char doc[] =
	"{\"Instances\": [\n"
	" {\"InstanceId\": \"i-0001\", \"NetworkNodes\": [\"nn-1\", \"nn-2\", \"nn-3\"]},\n"
	" {\"InstanceId\": \"i-0002\", \"NetworkNodes\": [\"nn-1\", \"nn-2\", \"nn-3\"]},\n"
	" {\"InstanceId\": \"i-0003\", \"NetworkNodes\": [\"nn-1\", \"nn-2\", \"nn-4\"],\n"
	"  \"CapacityBlockId\": \"cb-1\"},\n"
	" {\"InstanceId\": \"i-0004\", \"NetworkNodes\": [\"nn-1\", \"nn-5\", \"nn-6\"],\n"
	"  \"CapacityBlockId\": \"cb-1\"},\n"
	" {\"InstanceId\": \"i-0005\"}\n"
	"]}\n";

static rm_status aws(const char *text)
{
	return import_as(rm_import_aws, text);
}

static void tree(void)
{
	static const t_switch sw[] = {
		{ "nn-3", "i-0001 i-0002", "nn-2", NULL },
		{ "nn-6", NULL, "nn-5", NULL },
		{ "nn-1", NULL, "(top)", NULL },
	};
	CHECK_INT(aws(doc), RM_OK);
	CHECK_TREE(6, 3, sw);
	CHECK_HAS(report_line("topology"), "4 nodes, 6 switches (3 leaves, 3 levels, 1 top-level)");
	CHECK_HAS(report_line("instances without NetworkNodes"), "1");
}

static void blocks(void)
{
	CHECK_INT(aws(doc), RM_OK);
	CHECK_INT(IM ? IM->nnvl : 0, 2);
	CHECK_HAS(report_line("CapacityBlockId"), "2 nodes, 1 NVLink domain of up to 2 nodes");
	CHECK_HAS(part(RM_IMPORT_SITE), "groups: [\"i-[0003-0004]\"]");
	const char *conf = part(RM_IMPORT_TOPOLOGY);
	CHECK_HAS(conf, "SwitchName=nn-3 Nodes=i-[0001-0002]\n");
	CHECK_HAS(conf, "SwitchName=nn-1 Switches=nn-[2,5]\n");
}

static void bad(void)
{
	static const t_say rows[] = {
		{ "{\"Instances\": [\n"
		  " {\"InstanceId\": \"i-1\", \"NetworkNodes\": [\"nn-1\", \"nn-2\"]},\n"
		  " {\"InstanceId\": \"i-2\", \"NetworkNodes\": [\"nn-1\", \"nn-2\", \"nn-3\"]}]}",
		  { "in.txt:3:", "nn-2", "levels" } },
		{ "{\"Instances\": [\n"
		  " {\"InstanceId\": \"i-1\", \"NetworkNodes\": [\"nn-1\", \"nn-2\", \"nn-3\"]},\n"
		  " {\"InstanceId\": \"i-2\", \"NetworkNodes\": [\"nn-1\", \"nn-9\", \"nn-3\"]}]}",
		  { "in.txt:3:", "nn-3", "nn-9" } },
		{ "{\"Instances\": [\n"
		  " {\"InstanceId\": \"i-1\", \"NetworkNodes\": [\"nn-1\", \"nn-2\"]},\n"
		  " {\"InstanceId\": \"i-1\", \"NetworkNodes\": [\"nn-1\", \"nn-3\"]}]}",
		  { "in.txt:3:", "i-1", "twice" } },
		/* a quote in a name would end up in topology.conf */
		{ "{\"Instances\": [{\"InstanceId\": \"i-\\\"1\", \"NetworkNodes\": [\"nn-1\"]}]}",
		  { "in.txt:1:31:", "InstanceId" } },
		/* oversized: deeper than any real network */
		{ "{\"Instances\": [{\"InstanceId\": \"i-1\", \"NetworkNodes\": "
		  "[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]}]}",
		  { "in.txt:1:", "9 layers", "8" } },
		{ "{\"Instances\": [{\"NetworkNodes\": [\"nn-1\"]}]}",
		  { "in.txt:1:16:", "InstanceId" } },
		/* wrong types */
		{ "{\"Instances\": [{\"InstanceId\": [\"i-1\"], \"NetworkNodes\": [\"nn-1\"]}]}",
		  { "in.txt:1:", "InstanceId" } },
		/* refused, though as if it had no NetworkNodes (no line:col) */
		{ "{\"Instances\": [{\"InstanceId\": \"i-1\", \"NetworkNodes\": \"nn-1\"}]}",
		  { "NetworkNodes" } },
		/* duplicate key */
		{ "{\"Instances\": [], \"Instances\": []}", { "in.txt:1:", "Instances" } },
		{ "{\"Reservations\": []}", { "Instances" } },
		{ "{\"Instances\": [{\"InstanceId\": \"i-1\"}]}", { "NetworkNodes" } },
	};
	CHECK_SAYS(aws, RM_EINPUT, E.msg, rows);
	CHECK(IM == NULL);
	CHECK_INT(aws("{\"Instances\": [ {"), RM_EINPUT);
	CHECK(at_line_col(E.msg));
}

int main(void)
{
	RUN("import/aws", tree);
	RUN("import/aws", blocks);
	RUN("import/aws", bad);
	rm_import_free(IM);
	TEST_EXIT();
}
