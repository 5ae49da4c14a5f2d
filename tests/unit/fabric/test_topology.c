/* SPDX-License-Identifier: Apache-2.0 */
/* test_topology.c - Slurm topology.conf into a fabric, and the fabric's
 * name tables. */
#include "internal.h"
#include "test.h"
#include "fabric_test.h"

#include <stdlib.h>
#include <unistd.h>

static rm_status parse(const char *text)
{
	if (fabric_fresh() != RM_OK)
		return RM_ENOMEM;
	return rm_fabric_parse_topology(F, text, strlen(text), "topo.conf",
					&E);
}

static const rmi_switch *sw(const char *name)
{
	int64_t i = rmi_fabric_find_switch(F, name);
	return i >= 0 ? &F->sw[i] : NULL;
}

static const char *parent_of(const char *s)
{
	const rmi_switch *x = sw(s);
	if (!x)
		return "(unknown)";
	return x->parent >= 0 ? F->sw[x->parent].name : "(top)";
}

/* What the fabric holds: a switch tree, blocks, both, or neither (flat). */
static void holds(bool tree, bool blocks)
{
	CHECK_INT(F->has_tree, tree);
	CHECK_INT(F->has_blocks, blocks);
	CHECK_INT(rm_fabric_is_flat(F), !tree && !blocks);
}

static void tree(void)
{
	CHECK_INT(parse("# a two-level tree\n"
			"SwitchName=leaf1 Nodes=n[1-4] LinkSpeed=100  # rack 1\n"
			"switchname=leaf2 NODES=n[5-8]\n"
			"\n"
			"   SwitchName=spine Switches=leaf[1-2]\n"
			"SwitchName=lone Nodes=m[1-2]\n"),
		  RM_OK);
	holds(true, false);
	CHECK_STR(F->source, "topo.conf");
	CHECK_INT(F->nsw, 4);
	CHECK_INT(F->nnode, 10);
	CHECK_STR(leaf_of("n1"), "leaf1");
	CHECK_STR(leaf_of("n8"), "leaf2");
	CHECK_STR(leaf_of("m2"), "lone");
	CHECK_STR(parent_of("leaf1"), "spine");
	CHECK_STR(parent_of("leaf2"), "spine");
	CHECK_STR(parent_of("spine"), "(top)");
	CHECK_STR(parent_of("lone"), "(top)");
	CHECK_INT(sw("leaf1")->level, 0);
	CHECK_INT(sw("spine")->level, 1);
	CHECK_INT(sw("spine")->nchild, 2);
	CHECK_INT(sw("spine")->line, 5);
	CHECK_INT(F->node[rmi_fabric_find(F, "n3")].domain, -1);
	CHECK_INT(F->node[rmi_fabric_find(F, "n3")].unit, -1);
	CHECK(rmi_fabric_find(F, "n9") < 0);
}

static void levels(void)
{
	/* Defined top-down (children after parents), uneven depth, CRLF and
	 * a continued line. */
	CHECK_INT(parse("SwitchName=core Switches=spine1,leaf3\r\n"
			"SwitchName=spine1 \\\n"
			"   Switches=leaf[1-2]\r\n"
			"SwitchName=leaf1 Nodes=a[1-2]\n"
			"SwitchName=leaf2 Nodes=a[3-4]\n"
			"SwitchName=leaf3 Nodes=a[5-6]\n"
			"SwitchName=empty\n"),
		  RM_OK);
	CHECK_INT(sw("core")->level, 2);
	CHECK_INT(sw("spine1")->level, 1);
	CHECK_INT(sw("leaf3")->level, 0);
	CHECK_INT(sw("empty")->level, 0);
	CHECK_STR(parent_of("empty"), "(top)");
	CHECK_STR(parent_of("leaf3"), "core");
	CHECK_STR(parent_of("leaf2"), "spine1");
	CHECK_INT(sw("spine1")->line, 2);
}

static void blocks(void)
{
	CHECK_INT(parse("BlockName=nvl1 Nodes=g[01-18]\n"
			"BlockName=nvl2 Nodes=g[19-36]\n"
			"BlockSizes=18,36\n"),
		  RM_OK);
	holds(false, true);
	CHECK_INT(F->ndomain, 2);
	CHECK_STR(F->domain_name[1], "nvl2");
	CHECK_INT(F->node[rmi_fabric_find(F, "g18")].domain, 0);
	CHECK_INT(F->node[rmi_fabric_find(F, "g19")].domain, 1);
	CHECK_INT(F->node[rmi_fabric_find(F, "g19")].leaf, -1);
	CHECK_INT(F->nblock_sizes, 2);
	if (F->nblock_sizes == 2) {
		CHECK_INT(F->block_sizes[0], 18);
		CHECK_INT(F->block_sizes[1], 36);
	}
	/* tree and blocks side by side: leaf and domain per node */
	CHECK_INT(parse("BlockName=b1 Nodes=x[1-4]\n"
			"SwitchName=s1 Nodes=x[1-2]\n"
			"SwitchName=s2 Nodes=x[3-4]\n"),
		  RM_OK);
	CHECK(F->has_tree && F->has_blocks);
	CHECK_STR(leaf_of("x3"), "s2");
	CHECK_INT(F->node[rmi_fabric_find(F, "x3")].domain, 0);
}

/* What slurmctld 24.11's topology/block refuses (seen on the real daemon,
 * tests/slurm24/t_block.sh), rankmap refuses too, naming the same rule. */
static void block_rules(void)
{
	CHECK_INT(parse("BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\n"
			"BlockSizes=2,4,8\n"),
		  RM_OK);
	CHECK_INT(parse("BlockName=b1 Nodes=n[1-4]\nBlockSizes=1,32768\n"), RM_OK);
	CHECK_INT(parse("BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-8]\n"),
		  RM_OK);
	static const t_say refused[] = {
		{ "BlockName=b1 Nodes=n[1-4]\nBlockSizes=2,3\n",
		  { "topo.conf:2:14:",
		    "'3' is not the base block size 2 times a power of two" } },
		{ "BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,12\n",
		  { "'12'" } },
		{ "BlockName=b1 Nodes=n[1-4]\nBlockSizes=1,65536\n",
		  { "'65536'" } },
		/* the base block: BlockSizes' first value, else the first block */
		{ "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\n"
		  "BlockSizes=8\n",
		  { "topo.conf:1:1: block 'b1' has 4 nodes, fewer than the base block size of 8" } },
		{ "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-7]\n",
		  { "topo.conf:2:1: block 'b2' has 3 nodes, fewer than the base block size of 4 (the first block's" } },
		{ "BlockName=b1\nBlockName=b2 Nodes=n[5-8]\n",
		  { "topo.conf:1:1: block 'b1' has no Nodes=" } },
	};
	CHECK_SAYS(parse, RM_EINPUT, E.msg, refused);
}

static void flat(void)
{
	/* slurmctld stops on a topology.conf without switches or blocks
	 * ("No switches configured"): flat means no file at all. */
	CHECK_INT(parse(""), RM_EINPUT);
	CHECK_HAS(E.msg, "no SwitchName= or BlockName= line");
	CHECK_INT(parse("# nothing here\n\n   \n"), RM_EINPUT);
	CHECK_INT(parse("BlockSizes=4\n"), RM_EINPUT);
	CHECK(rm_fabric_is_flat(NULL));
	CHECK_INT(fabric_fresh(), RM_OK);
	CHECK(rm_fabric_is_flat(F));
}

/* What slurmctld accepts with a warning is planned as slurmctld sees it
 * (switch_record.c: the last parent listed is kept) and said once. */
static void slurm_warns(void)
{
	/* Slurm's own fat-tree example (doc/html/topology.shtml): four
	 * leaves under each of four spines. */
	CHECK_INT(parse("SwitchName=s0 Nodes=tux[0-3]\n"
			"SwitchName=s1 Nodes=tux[4-7]\n"
			"SwitchName=s2 Nodes=tux[8-11]\n"
			"SwitchName=s3 Nodes=tux[12-15]\n"
			"SwitchName=s4 Switches=s[0-3]\n"
			"SwitchName=s5 Switches=s[0-3]\n"
			"SwitchName=s6 Switches=s[0-3]\n"
			"SwitchName=s7 Switches=s[0-3]\n"), RM_OK);
	for (int i = 0; i < 4; i++) {
		char nm[4] = { 's', (char)('0' + i), 0, 0 };
		CHECK(sw(nm) && sw(nm)->parent == rmi_fabric_find_switch(F, "s7"));
	}
	CHECK_INT(sw("s4")->nchild, 0);
	CHECK_INT(sw("s7")->nchild, 4);
	CHECK_INT(sw("s7")->level, 1);
	const char *w = rm_fabric_warnings(F);
	CHECK(w != NULL);
	CHECK_HAS(w ? w : "", "topo.conf:6: switch 's0' is listed under 's4' (line 5) and again under 's5'");
	CHECK_HAS(w ? w : "", "12 listing(s)");
	CHECK(w && !strchr(strchr(w, '\n') + 1, '\n'));
	/* a node under two leaves: kept under the first */
	CHECK_INT(parse("SwitchName=l1 Nodes=n[1-4]\nSwitchName=l2 Nodes=n[4-6]\n"),
		  RM_OK);
	CHECK_INT(F->node[rmi_fabric_find(F, "n4")].leaf,
		  rmi_fabric_find_switch(F, "l1"));
	CHECK_HAS(rm_fabric_warnings(F) ? rm_fabric_warnings(F) : "",
		  "topo.conf:2: node 'n4' is under two leaf switches, 'l1' (line 1) and 'l2'");
	/* a clean file warns of nothing */
	CHECK_INT(parse("SwitchName=l1 Nodes=n[1-4]\n"), RM_OK);
	CHECK(rm_fabric_warnings(F) == NULL);
}

static void bad_syntax(void)
{
	static const t_say refused[] = {
		{ "SwitchName=s1 Nodes=n1 Speed=5\n",
		  { "topo.conf:1:24:", "unknown key 'Speed'" } },
		{ "\nSwitchName=s1 Nodes=\n",
		  { "topo.conf:2:15:", "missing value for 'Nodes'" } },
		{ "SwitchName=s1 Nodes\n",
		  { "expected Key=Value, found 'Nodes'" } },
		{ "Nodes=n1 SwitchName=s1\n",
		  { "topo.conf:1:1:", "must start with SwitchName=" } },
		{ "SwitchName=s1 Nodes=a Nodes=b\n",
		  { "given twice" } },
		{ "BlockName=b1 Switches=s1\n",
		  { "'Switches' does not belong on a BlockName line" } },
		{ "SwitchName=s/1 Nodes=a\n",
		  { "topo.conf:1:13:", "'/'" } },
		/* hostlist errors point into the value */
		{ "SwitchName=s1 Nodes=n[5-1]\n",
		  { "topo.conf:1:23:", "reversed range '5-1'" } },
		{ "SwitchName=s1 Nodes=n[1-3\n",
		  { "topo.conf:1:22:", "unbalanced" } },
		{ "BlockSizes=4,x,16\n",
		  { "topo.conf:1:14:", "'x'" } },
		{ "BlockSizes=4,0\n",
		  { "'0'" } },
		{ "BlockSizes=4,\n",
		  { NULL } },
		{ "BlockSizes=4\nBlockSizes=8\n",
		  { "topo.conf:2:1:" } },
		{ "SwitchName=s1 Nodes=a\x01\n",
		  { "control character" } },
	};
	CHECK_SAYS(parse, RM_EINPUT, E.msg, refused);

	char nul[] = "SwitchName=s1 Nodes=a\n#x\0y\n";
	rm_fabric_free(F);
	rm_fabric_new(&F, &E);
	CHECK_INT(rm_fabric_parse_topology(F, nul, sizeof(nul) - 1, "t", &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "t:2:3:");
	CHECK_HAS(E.msg, "NUL");

	size_t n = 70000;
	char *big = malloc(n + 64);
	strcpy(big, "SwitchName=s1 Nodes=a\nSwitchName=s2 Nodes=");
	size_t o = strlen(big);
	memset(big + o, 'b', n);
	big[o + n] = '\0';
	CHECK_INT(parse(big), RM_EINPUT);
	CHECK_HAS(E.msg, "topo.conf:2:");
	CHECK_HAS(E.msg, "longer than 65536");
	free(big);
}

static void bad_tree(void)
{
	static const t_say refused[] = {
		{ "SwitchName=s1 Nodes=a\nSwitchName=s1 Nodes=b\n",
		  { "topo.conf:2:12:", "'s1' defined twice (first on line 1)" } },
		{ "SwitchName=top Switches=s[1-3]\n"
		  "SwitchName=s1 Nodes=a\nSwitchName=s2 Nodes=b\n",
		  { "topo.conf:1:25:", "'s3'", "no SwitchName= line defines" } },
		{ "SwitchName=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa Nodes=n1\n",
		  { "topo.conf:1:12:", "has 65 characters", "longer than 64" } },
		{ "SwitchName=a Switches=b\nSwitchName=b Switches=c\n"
		  "SwitchName=c Switches=a\nSwitchName=d Nodes=x\n",
		  { "cycle", "'a'", "'b'", "'c'" } },
		{ "SwitchName=a Switches=a\n",
		  { "lists itself" } },
		{ "SwitchName=a Switches=b,b\nSwitchName=b\n",
		  { "listed twice" } },
		{ "SwitchName=b Nodes=x\nSwitchName=a Nodes=n1 Switches=b\n",
		  { "topo.conf:2:23:", "both Nodes= and Switches=" } },
		{ "SwitchName=l1 Nodes=n[1-2],n1\n",
		  { "'n1' is listed twice" } },
		{ "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[3-6]\n",
		  { "'n3' is in two blocks: 'b1' (line 1) and 'b2'" } },
		{ "BlockName=b1 Nodes=n1\nBlockName=b2 Nodes=n2\n"
		  "blockname=b1 Nodes=n3\n",
		  { "topo.conf:3:11:", "block 'b1' defined twice (first on line 1)" } },
	};
	CHECK_SAYS(parse, RM_EINPUT, E.msg, refused);
	/* a fabric takes one topology */
	CHECK_INT(parse("SwitchName=s1 Nodes=a\n"), RM_OK);
	CHECK_INT(rm_fabric_parse_topology(F, "SwitchName=s2 Nodes=b", 21, "u",
					   &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "already holds a topology");
}

static void files(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/rm-topo-%ld.conf", (long)getpid());
	FILE *fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fputs("SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n3,n3\n", fp);
	fclose(fp);
	rm_fabric_free(F);
	rm_fabric_new(&F, &E);
	CHECK_INT(rm_fabric_load_topology(F, path, &E), RM_EINPUT);
	CHECK_HAS(E.msg, path);
	CHECK_HAS(E.msg, ":2:21:");
	unlink(path);
	rm_fabric_free(F);
	rm_fabric_new(&F, &E);
	CHECK(rm_fabric_load_topology(F, "/nonexistent/topology.conf", &E) !=
	      RM_OK);
	CHECK_HAS(E.msg, "/nonexistent/topology.conf");
}

/* A fabric the size of a real site: 3,072 nodes under 1,536 leaves, two
 * levels above; every node must be found under its own leaf. */
static void large(void)
{
	size_t cap = 1 << 20, o = 0;
	char *t = malloc(cap);
	for (int l = 0; l < 1536; l++)
		o += (size_t)snprintf(t + o, cap - o,
				      "SwitchName=leaf%04d Nodes=gpu[%05d-%05d]\n",
				      l, 2 * l, 2 * l + 1);
	for (int s = 0; s < 48; s++)
		o += (size_t)snprintf(t + o, cap - o,
				      "SwitchName=spine%02d Switches=leaf[%04d-%04d]\n",
				      s, 32 * s, 32 * s + 31);
	o += (size_t)snprintf(t + o, cap - o,
			      "SwitchName=core Switches=spine[00-47]\n");
	CHECK_INT(parse(t), RM_OK);
	CHECK_INT(F->nnode, 3072);
	CHECK_INT(F->nsw, 1536 + 48 + 1);
	CHECK_INT(sw("core")->level, 2);
	int wrong = 0;
	for (int i = 0; i < 3072; i++) {
		char node[16], leaf[16];
		snprintf(node, sizeof(node), "gpu%05d", i);
		snprintf(leaf, sizeof(leaf), "leaf%04d", i / 2);
		if (strcmp(leaf_of(node), leaf) != 0)
			wrong++;
	}
	CHECK_INT(wrong, 0);
	CHECK_STR(parent_of("leaf1535"), "spine47");
	free(t);
}

static void names(void)
{
	rm_fabric *f;
	CHECK_INT(rm_fabric_new(&f, &E), RM_OK);
	char nm[32];
	for (int i = 0; i < 50000; i++) {
		snprintf(nm, sizeof(nm), "node%d", i);
		CHECK_INT(rmi_fabric_add_node(f, nm), i);
	}
	/* adding again finds the same entry */
	CHECK_INT(rmi_fabric_add_node(f, "node123"), 123);
	CHECK_INT(f->nnode, 50000);
	int bad = 0;
	for (int i = 0; i < 50000; i += 7) {
		snprintf(nm, sizeof(nm), "node%d", i);
		if (rmi_fabric_find(f, nm) != i)
			bad++;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(rmi_fabric_find(f, "node50000"), -1);
	CHECK_INT(rmi_fabric_find(f, ""), -1);
	CHECK_INT(rmi_fabric_find_switch(f, "node1"), -1);
	for (int i = 0; i < 3000; i++) {
		snprintf(nm, sizeof(nm), "sw%d", i);
		CHECK_INT(rmi_fabric_add_switch(f, nm), i);
	}
	CHECK_INT(rmi_fabric_find_switch(f, "sw2999"), 2999);
	CHECK_INT(f->sw[17].parent, -1);
	CHECK_INT(rmi_fabric_find(f, "sw1"), -1);
	rm_fabric_free(f);
	CHECK_INT(rmi_fabric_find(NULL, "x"), -1);
}

int main(void)
{
	RUN("topology", tree);
	RUN("topology", levels);
	RUN("topology", blocks);
	RUN("topology", block_rules);
	RUN("topology", flat);
	RUN("topology", slurm_warns);
	RUN("topology", bad_syntax);
	RUN("topology", bad_tree);
	RUN("topology", files);
	RUN("topology", large);
	RUN("topology", names);
	rm_fabric_free(F);
	TEST_EXIT();
}
