/* SPDX-License-Identifier: Apache-2.0 */
/* test_topology_yaml.c - Slurm 25.05+ topology.yaml into a fabric: the
 * topology slurmctld would pick, the same checks as topology.conf, and
 * slurm.conf's part in choosing (slurm_topo.c). */
#include "internal.h"
#include "test.h"
#include "fabric_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static rm_status parse_named(const char *text, const char *name)
{
	if (fabric_fresh() != RM_OK)
		return RM_ENOMEM;
	return rm_fabric_parse_topology_yaml(F, text, strlen(text),
					     "topology.yaml", name, &E);
}

static rm_status parse(const char *text)
{
	return parse_named(text, NULL);
}

static const char *block_of(const char *node)
{
	int64_t i = rmi_fabric_find(F, node);
	if (i < 0 || F->node[i].domain < 0)
		return "(none)";
	return F->domain_name[F->node[i].domain];
}

/* The man page's example, with a spine over two leaves. */
static const char *const THREE =
	"- topology: topo1\n"
	"  cluster_default: True\n"
	"  tree:\n"
	"    switches:\n"
	"    - switch: leaf1\n"
	"      nodes: node[01-04]\n"
	"    - switch: leaf2\n"
	"      nodes: node[05-08]\n"
	"    - switch: spine\n"
	"      children: leaf[1-2]\n"
	"- topology: topo2\n"
	"  cluster_default: False\n"
	"  block:\n"
	"    block_sizes:\n"
	"      - 4\n"
	"      - 8\n"
	"    blocks:\n"
	"    - block: b1\n"
	"      nodes: node[01-04]\n"
	"    - block: b2\n"
	"      nodes: node[05-08]\n"
	"- topology: topo3\n"
	"  flat: true\n";

static void choose(void)
{
	/* No name: the cluster default. */
	CHECK_INT(parse(THREE), RM_OK);
	CHECK_INT(F->has_tree, 1);
	CHECK_INT(F->has_blocks, 0);
	CHECK_INT(F->nsw, 3);
	CHECK_STR(leaf_of("node03"), "leaf1");
	CHECK_STR(leaf_of("node08"), "leaf2");
	CHECK_STR(F->sw[F->sw[F->node[rmi_fabric_find(F, "node08")].leaf]
				.parent].name,
		  "spine");
	CHECK_STR(F->source, "topology.yaml");
	/* A partition's Topology=. */
	CHECK_INT(parse_named(THREE, "topo2"), RM_OK);
	CHECK_INT(F->has_tree, 0);
	CHECK_INT(F->has_blocks, 1);
	CHECK_INT(F->nblock_sizes, 2);
	CHECK_INT(F->block_sizes[1], 8);
	CHECK_STR(block_of("node06"), "b2");
	CHECK_INT(parse_named(THREE, "topo3"), RM_OK);
	CHECK_INT(rm_fabric_is_flat(F), 1);
	CHECK_INT(parse_named(THREE, "topo9"), RM_EINPUT);
	CHECK_HAS(E.msg, "no topology named 'topo9'");
	CHECK_HAS(E.msg, "'topo1', 'topo2', 'topo3'");
	/* No cluster_default anywhere: the first; the first of two. */
	CHECK_INT(parse("- topology: a\n  flat: true\n"
			"- topology: b\n  block:\n    blocks:\n"
			"    - block: x\n      nodes: n[1-2]\n"),
		  RM_OK);
	CHECK_INT(rm_fabric_is_flat(F), 1);
	CHECK_INT(parse("- topology: a\n  flat: true\n"
			"- topology: b\n  cluster_default: true\n"
			"  block:\n    blocks:\n"
			"    - block: x\n      nodes: n[1-2]\n"
			"- topology: c\n  cluster_default: true\n  flat: true\n"),
		  RM_OK);
	CHECK_INT(F->has_blocks, 1);
	/* One mapping is a file of one topology; unknown keys are ignored
	 * as slurmctld ignores them (with a warning). */
	CHECK_INT(parse("topology: only\nfuture_key: 3\ntree:\n  switches:\n"
			"  - {switch: s1, nodes: \"n[1-3]\", link_speed: 9}\n"),
		  RM_OK);
	CHECK_STR(leaf_of("n2"), "s1");
	/* flat given as options (26.05's alpha_step_rank). */
	CHECK_INT(parse("- topology: f\n  flat:\n    alpha_step_rank: true\n"),
		  RM_OK);
	CHECK_INT(rm_fabric_is_flat(F), 1);
	/* Gaps (25.05+): a block below the base size, or without nodes, is
	 * still a block. */
	CHECK_INT(parse("- topology: t\n  block:\n    block_sizes: [4]\n"
			"    blocks:\n    - {block: b1, nodes: \"n[1-4]\"}\n"
			"    - {block: b2, nodes: \"n[5-6]\"}\n    - {block: b3}\n"),
		  RM_OK);
	CHECK_INT(F->ndomain, 3);
	CHECK_STR(block_of("n6"), "b2");
	/* A name twice: the first, as slurmctld looks it up. */
	CHECK_INT(parse_named("- topology: t\n  flat: true\n"
			      "- topology: t\n  tree:\n    switches:\n"
			      "    - {switch: s1, nodes: n1}\n",
			      "t"),
		  RM_OK);
	CHECK_INT(rm_fabric_is_flat(F), 1);
	/* block_sizes as one number. */
	CHECK_INT(parse("- topology: b\n  block:\n    block_sizes: 2\n"
			"    blocks:\n    - block: x\n      nodes: n[1-2]\n"),
		  RM_OK);
	CHECK_INT(F->nblock_sizes, 1);
}

static void refused(void)
{
	static const t_say rows[] = {
		{ "- topology: t\n  ring:\n    rings:\n"
		  "    - ring: r1\n      nodes: n[1-4]\n",
		  { "topology.yaml:2:3:", "topology/ring", "cannot place",
		    "topology/tree, topology/block and topology/flat" } },
		{ "- topology: t\n  torus3d:\n    toruses: []\n",
		  { "topology.yaml:2:3:", "topology/torus3d",
		    "topology/tree, topology/block" } },
		{ "- topology: t\n  cluster_default: yes please\n  flat: true\n",
		  { "topology.yaml:2:20:", "cluster_default",
		    "true or false" } },
		{ "- topology: t\n  flat: true\n  tree:\n    switches: []\n",
		  { "topology.yaml:3:3:", "both `flat` and `tree`",
		    "exactly one" } },
		{ "- topology: t\n  flat: false\n",
		  { "topology.yaml:1:3:", "no type" } },
		{ "- cluster_default: true\n  flat: true\n",
		  { "topology.yaml:1:3:", "without a `topology` name" } },
		{ "just words\n", { "topology.yaml:1:1:", "list of topologies" } },
		{ "[]\n", { "topology.yaml:1:1:", "no topologies" } },
		{ "- topology: t\n  tree: {}\n",
		  { "topology.yaml:2:9:", "no `switches`" } },
		{ "- topology: t\n  tree:\n    switches: s1\n",
		  { "topology.yaml:3:15:", "tree.switches must be a list" } },
		{ "- topology: t\n  tree:\n    switches:\n    - nodes: n1\n",
		  { "topology.yaml:4:7:", "missing `switch`" } },
		/* topology.conf's checks, at YAML positions */
		{ "- topology: t\n  tree:\n    switches:\n"
		  "    - switch: s1\n      nodes: n[5-1]\n",
		  { "topology.yaml:5:", "nodes: ", "reversed range '5-1'" } },
		{ "- topology: t\n  tree:\n    switches:\n"
		  "    - switch: s1\n      nodes: n1\n"
		  "      children: s2\n",
		  { "topology.yaml:6:7:", "both nodes and children" } },
		{ "- topology: t\n  tree:\n    switches:\n"
		  "    - switch: s1\n      children: s9\n",
		  { "topology.yaml:5:17:", "children names 's9'",
		    "no switch line" } },
		{ "- topology: t\n  tree:\n    switches:\n"
		  "    - {switch: a, children: b}\n"
		  "    - {switch: b, children: a}\n",
		  { "cycle" } },
		{ "- topology: t\n  block:\n    block_sizes: [4, 12]\n"
		  "    blocks:\n    - {block: b, nodes: \"n[1-4]\"}\n",
		  { "topology.yaml:3:22:", "'12'", "power of two" } },
		{ "- topology: t\n  block:\n    block_sizes: [0]\n"
		  "    blocks:\n    - {block: b, nodes: n1}\n",
		  { "topology.yaml:3:19:", "block_sizes" } },
		{ "- topology: t\n  block:\n    blocks:\n"
		  "    - {block: b1, nodes: n1}\n    - {block: b1, nodes: n2}\n",
		  { "topology.yaml:5:", "'b1' defined twice" } },
		/* the loader's own guards */
		{ "- topology: &a t\n  flat: true\n", { "anchors" } },
		{ "- topology: t\n  topology: u\n  flat: true\n",
		  { "topology.yaml:2:3:", "duplicate key 'topology'" } },
		{ "- topology: t\n  tree: [\n", { "topology.yaml:" } },
	};
	CHECK_SAYS(parse, RM_EINPUT, E.msg, rows);
	/* A topology slurmctld would refuse fails the file even when a
	 * partition uses another one: slurmctld builds them all. */
	CHECK_INT(parse_named("- topology: good\n  flat: true\n"
			      "- topology: bad\n  tree:\n    switches:\n"
			      "    - {switch: s1, children: nope}\n",
			      "good"),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "topology.yaml:6:30: switch 's1': children names 'nope'");
	/* A ring another partition uses does not stop this one. */
	CHECK_INT(parse_named("- topology: r\n  ring:\n    rings: []\n"
			      "- topology: t\n  flat: true\n",
			      "t"),
		  RM_OK);
	/* A fabric that holds a topology takes no second one. */
	const char *flat = "topology: x\nflat: true\n";
	CHECK_INT(rm_fabric_parse_topology_yaml(F, flat, strlen(flat),
						"again.yaml", NULL, &E),
		  RM_OK);
	CHECK_INT(parse(THREE), RM_OK);
	CHECK_INT(rm_fabric_parse_topology_yaml(F, THREE, strlen(THREE),
						"again.yaml", NULL, &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "again.yaml: load the topology into a new fabric");
}

/* Same fabric from topology.conf and topology.yaml: same digest. */
/* slurmctld warns of a node under two leaves and goes on; so does the
 * reader, keeping the node under the first. */
static void warned(void)
{
	CHECK_INT(parse("- topology: t\n  tree:\n    switches:\n"
			"    - {switch: a, nodes: n1}\n"
			"    - {switch: b, nodes: n1}\n"), RM_OK);
	CHECK_HAS(rm_fabric_warnings(F) ? rm_fabric_warnings(F) : "",
		  "topology.yaml:5: node 'n1' is under two leaf switches");
}

static void same_as_conf(void)
{
	const char *conf = "SwitchName=leaf1 Nodes=node[01-04]\n"
			   "SwitchName=leaf2 Nodes=node[05-08]\n"
			   "SwitchName=spine Switches=leaf[1-2]\n";
	rm_fabric *c = NULL;
	CHECK_INT(rm_fabric_new(&c, &E), RM_OK);
	CHECK_INT(rm_fabric_parse_topology(c, conf, strlen(conf), "t.conf",
					   &E),
		  RM_OK);
	CHECK_INT(parse(THREE), RM_OK);
	char a[65], b[65];
	rm_fabric_digest(c, a);
	rm_fabric_digest(F, b);
	CHECK_STR(a, b);
	rm_fabric_free(c);
}

/* topology.conf's side of topology/ring: named, not "unknown key". */
static void ring_conf(void)
{
	const char *t = "RingName=r1 Nodes=n[1-4]\n";
	rm_fabric *c = NULL;
	CHECK_INT(rm_fabric_new(&c, &E), RM_OK);
	CHECK_INT(rm_fabric_parse_topology(c, t, strlen(t), "t.conf", &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "t.conf:1:1: RingName= is topology/ring's");
	CHECK_HAS(E.msg, "topology/tree (SwitchName=), topology/block");
	rm_fabric_free(c);
}

static char DIR_[64];

static void put(const char *name, const char *text)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/%s", DIR_, name);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void rm_in(const char *name)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/%s", DIR_, name);
	unlink(p);
}

/* slurm.conf picks the file and the topology, as slurmctld does. */
static void locate(void)
{
	CHECK(t_tmpdir(DIR_, sizeof(DIR_), "/tmp/rm-topoyaml."));
	char conf[128];
	snprintf(conf, sizeof(conf), "%s/slurm.conf", DIR_);
	put("slurm.conf",
	    "ClusterName=c # comment\n"
	    "TopologyPlugin=topology/tree\n"
	    "PartitionName=DEFAULT Topology=topo2\n"
	    "PartitionName=gpu Nodes=node[01-08] Default=YES\n"
	    "partitionname=cpu Nodes=node[01-08] \\\n"
	    "   topology=\"topo1\"\n"
	    "PartitionName=flat Nodes=ALL Topology=topo3\n");
	put("topology.conf", "SwitchName=s Nodes=node[01-08]\n");
	rm_slurm_topology t;
	/* topology.conf alone */
	CHECK_INT(rm_slurm_topology_find(conf, "gpu", NULL, &t, &E), RM_OK);
	CHECK_HAS(t.path, "/topology.conf");
	CHECK_INT(t.yaml, 0);
	CHECK_STR(t.plugin, "topology/tree");
	rm_slurm_topology_clear(&t);
	/* topology.yaml beside it wins; DEFAULT's Topology= carries over */
	put("topology.yaml", THREE);
	CHECK_INT(rm_slurm_topology_find(conf, "gpu", NULL, &t, &E), RM_OK);
	CHECK_HAS(t.path, "/topology.yaml");
	CHECK_INT(t.yaml, 1);
	CHECK_STR(t.name, "topo2");
	CHECK_INT(t.partition_found, 1);
	rm_fabric_free(F);
	CHECK_INT(rm_fabric_new(&F, &E), RM_OK);
	CHECK_INT(rm_fabric_load_slurm_topology(F, &t, &E), RM_OK);
	CHECK_INT(F->has_blocks, 1);
	rm_slurm_topology_clear(&t);
	/* a continued line, a quoted value, keys in any case */
	CHECK_INT(rm_slurm_topology_find(conf, "cpu", NULL, &t, &E), RM_OK);
	CHECK_STR(t.name, "topo1");
	rm_slurm_topology_clear(&t);
	/* no such partition: the cluster default */
	CHECK_INT(rm_slurm_topology_find(conf, "nope", NULL, &t, &E), RM_OK);
	CHECK(t.name == NULL);
	CHECK_INT(t.partition_found, 0);
	rm_slurm_topology_clear(&t);
	/* an explicit file beats the guess */
	char other[128];
	snprintf(other, sizeof(other), "%s/topology.conf", DIR_);
	CHECK_INT(rm_slurm_topology_find(conf, "gpu", other, &t, &E), RM_OK);
	CHECK_STR(t.path, other);
	CHECK(t.name == NULL);
	rm_slurm_topology_clear(&t);
	/* ring and torus3d: refused, naming the plugin */
	rm_in("topology.yaml");
	put("slurm.conf", "TopologyPlugin=topology/ring\n");
	CHECK_INT(rm_slurm_topology_find(conf, NULL, NULL, &t, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "slurm.conf: TopologyPlugin=topology/ring");
	CHECK_HAS(E.msg, "topology/tree, topology/block and topology/flat");
	put("slurm.conf", "TopologyPlugin=topology/torus3d\n");
	CHECK_INT(rm_slurm_topology_find(conf, NULL, NULL, &t, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "topology/torus3d");
	/* ... but not when topology.yaml overrides TopologyPlugin= */
	put("topology.yaml", "- topology: a\n  flat: true\n");
	CHECK_INT(rm_slurm_topology_find(conf, NULL, NULL, &t, &E), RM_OK);
	CHECK_INT(t.yaml, 1);
	rm_slurm_topology_clear(&t);
	/* no slurm.conf, no files: nothing to read (flat) */
	rm_in("topology.yaml");
	rm_in("topology.conf");
	rm_in("slurm.conf");
	CHECK_INT(rm_slurm_topology_find(conf, "gpu", NULL, &t, &E), RM_OK);
	CHECK(t.path == NULL);
	CHECK_INT(rm_fabric_load_slurm_topology(F, &t, &E), RM_OK);
	rm_slurm_topology_clear(&t);
	rmdir(DIR_);
	CHECK(rm_topology_is_yaml("a/topology.yml"));
	CHECK(!rm_topology_is_yaml("topology.conf"));
}

int main(void)
{
	RUN("topology_yaml", choose);
	RUN("topology_yaml", refused);
	RUN("topology_yaml", warned);
	RUN("topology_yaml", same_as_conf);
	RUN("topology_yaml", ring_conf);
	RUN("topology_yaml", locate);
	rm_fabric_free(F);
	TEST_EXIT();
}
