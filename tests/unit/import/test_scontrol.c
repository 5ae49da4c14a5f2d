/* SPDX-License-Identifier: Apache-2.0 */
/* test_scontrol.c - `scontrol show topology` (tree and block) into an
 * import, what it writes, --against, and bad lines at line:col. */
#include "import_test.h"

/* Upper switches list every node below them: only leaves keep Nodes=. */
static const char tree[] =
	"SwitchName=s0 Level=0 LinkSpeed=1 Nodes=node[1-4]\n"
	"SwitchName=s1 Level=0 LinkSpeed=1 Nodes=node[5-6]\n"
	"SwitchName=s2 Level=0 LinkSpeed=1 Nodes=node[7-8]\n"
	"SwitchName=p1 Level=1 LinkSpeed=1 Nodes=node[1-6] Switches=s[0-1]\n"
	"SwitchName=top Level=2 LinkSpeed=1 Nodes=node[1-8] Switches=p1,s2\n";

static void tree_found(void)
{
	static const t_switch sw[] = {
		{ "s0", "node1 node2 node3 node4", "p1", NULL },
		{ "p1", "", NULL, NULL },
		{ "s2", NULL, "top", NULL },
		{ "top", NULL, "(top)", NULL },
	};
	CHECK_INT(import_as(rm_import_scontrol, tree), RM_OK);
	CHECK_TREE(5, 3, sw);
	CHECK(rm_import_has_topology(IM));
	CHECK_HAS(report_line("topology"), "8 nodes, 5 switches (3 leaves, 3 levels, 1 top-level)");
}

static void tree_written(void)
{
	CHECK_INT(import_as(rm_import_scontrol, tree), RM_OK);
	const char *conf = part(RM_IMPORT_TOPOLOGY);
	CHECK_HAS(conf, "SwitchName=s0 Nodes=node[1-4]\n");
	CHECK_HAS(conf, "SwitchName=p1 Switches=s[0-1]\n");
	CHECK_HAS(conf, "SwitchName=top Switches=p1,s2\n");
	CHECK(!strstr(conf, "SwitchName=p1 Nodes="));
	const char *site = part(RM_IMPORT_SITE);
	CHECK_HAS(site, "rankmap-site/1");
	CHECK_HAS(site, "topology: \"topology.conf\"");
	CHECK_HAS(part(RM_IMPORT_TOPOLOGY_YAML), "nodes: \"node[1-4]\"");
}

static void tree_against(void)
{
	const char *l;
	CHECK_INT(import_as(rm_import_scontrol, tree), RM_OK);
	CHECK_INT(against("SwitchName=s0 Nodes=node[1-4]\n"
			  "SwitchName=s1 Nodes=node[5-6]\n"
			  "SwitchName=s2 Nodes=node[7-8]\n"
			  "SwitchName=p1 Switches=s[0-1]\n"
			  "SwitchName=top Switches=p1,s2\n", &l), 0);
	/* node5 moved to s0, node8 missing, ghost extra, one level only */
	long n = against("SwitchName=a Nodes=node[1-5]\n"
			 "SwitchName=b Nodes=node6\n"
			 "SwitchName=c Nodes=node7,ghost\n", &l);
	CHECK_INT(n, 4);
	CHECK_HAS(l, "node5: under a in ");
	CHECK_HAS(l, "the fabric puts it under s1");
	CHECK_HAS(l, "node8: in the fabric (under s2), missing from ");
	CHECK_HAS(l, "ghost: under c in ");
	CHECK_HAS(l, "has 1 switch level, the fabric 3");
	/* the admin's file is read with its own file:line:col */
	CHECK_INT(against("SwitchName=a Nodes=n[1-2]\nSwitchName=b Switches=zz\n", &l), -1);
	CHECK_HAS(E.msg, ":2:");
	CHECK_HAS(E.msg, "zz");
}

static void block(void)
{
	CHECK_INT(import_as(rm_import_scontrol,
			    "BlockName=b1 BlockIndex=0 Nodes=n[01-18] BlockSize=18\n"
			    "BlockName=b2 BlockIndex=1 Nodes=n[19-36] BlockSize=18\n"),
		  RM_OK);
	CHECK_INT(IM ? IM->nsw : 0, 2);
	CHECK(sw_named("b2") && sw_named("b2")->block);
	CHECK_INT(sw_named("b1") ? sw_named("b1")->nhost : 0, 18);
	CHECK_INT(IM ? IM->block_size : 0, 18);
	const char *conf = part(RM_IMPORT_TOPOLOGY);
	CHECK_HAS(conf, "BlockName=b2 Nodes=n[19-36]\n");
	CHECK_HAS(conf, "BlockSizes=18\n");
	const char *l;
	CHECK_INT(against("BlockName=x1 Nodes=n[01-17]\nBlockName=x2 Nodes=n[18-36]\n"
			  "BlockSizes=17\n", &l), 1);
	CHECK_HAS(l, "n18: under x2 in ");
}

static rm_status scontrol(const char *text)
{
	return import_as(rm_import_scontrol, text);
}

static void bad(void)
{
	static const t_say rows[] = {
		{ "SwitchName=s0 Nodes=n[1-2] Colour=red\n",
		  { "in.txt:1:28:", "Colour" } },
		{ "Level=0 SwitchName=s0\n", { "in.txt:1:9:", "SwitchName" } },
		{ "SwitchName=s0 Nodes=n1\nhello\n", { "in.txt:2:1:", "Key=Value" } },
		{ "SwitchName=s0 Level=0 Nodes=n1\n"
		  "SwitchName=t Level=1 Switches=s[0,9]\n",
		  { "in.txt:2:", "s9" } },
		/* a switch named twice, a truncated hostlist */
		{ "SwitchName=s0 Nodes=n1\nSwitchName=s0 Nodes=n2\n",
		  { "in.txt:2:", "s0" } },
		{ "SwitchName=s0 Nodes=n[1-\n", { "in.txt:1:22:", "[1-" } },
	};
	CHECK_SAYS(scontrol, RM_EINPUT, E.msg, rows);
}

int main(void)
{
	RUN("import/scontrol", tree_found);
	RUN("import/scontrol", tree_written);
	RUN("import/scontrol", tree_against);
	RUN("import/scontrol", block);
	RUN("import/scontrol", bad);
	rm_import_free(IM);
	TEST_EXIT();
}
