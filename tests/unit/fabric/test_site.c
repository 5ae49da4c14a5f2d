/* SPDX-License-Identifier: Apache-2.0 */
/* test_site.c - the rankmap-site/1 reader and rm_fabric_apply_site: a full
 * file read field by field, every class of mistake refused at its
 * file:line:col, and a fabric updated the way the site says. */
#include "internal.h"
#include "test.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

static rm_error E;

static const char FULL[] =
	"schema: rankmap-site/1\n"
	"name: gb200-test\n"
	"gpus_per_node: 4\n"
	"topology: topo/topology.conf\n"
	"nvlink:\n"
	"  domain: groups\n"
	"  groups: [\"nvl01n[01-18]\", \"nvl02n[01-18]\"]\n"
	"  domain_gpus: 72\n"
	"units:\n"
	"  rails: 4\n"
	"  list:\n"
	"    - {name: su1, nodes: \"nvl01n[01-18]\"}\n"
	"    - name: su2\n"
	"      nodes: nvl02n[01-18]\n"
	"tiers:\n"
	"  - {name: nvlink, bandwidth_gbs: 900}\n"
	"  - {name: leaf, bandwidth_gbs: 50}\n"
	"  - {name: spine, bandwidth_gbs: 50, oversubscription: 1.5}\n"
	"defaults: {order: megatron, hw: gb200-nvl72}\n"
	"policy: {enforce: strict, max_pp_crossings: 4, missing_nodes: own-leaf,\n"
	"         crossings: pods-first}\n"
	"nccl:\n"
	"  exclude_nics: [mlx5_1, \"irdma*\"]\n"
	"  env: {NCCL_IB_GID_INDEX: \"3\", NCCL_NET_GDR_LEVEL: 2}\n"
	"  override_user: true\n"
	"hwloc_xml: /var/cache/rankmap/%n.xml\n";

static void full_file(void)
{
	rm_site s;
	CHECK_INT(rmi_site_parse(FULL, strlen(FULL), "s.yaml", &s, &E), RM_OK);
	if (E.code)
		printf("  %s\n", E.msg);
	CHECK_STR(s.path, "s.yaml");
	CHECK_STR(s.name, "gb200-test");
	CHECK_INT(s.gpus_per_node, 4);
	CHECK_STR(s.topology, "topo/topology.conf");
	CHECK_INT(s.nvl_kind, RM_NVL_GROUPS);
	CHECK(s.nvl_given);
	CHECK_INT(s.n_nvl_groups, 2);
	if (s.n_nvl_groups == 2)
		CHECK_STR(s.nvl_groups[1], "nvl02n[01-18]");
	CHECK_INT(s.nvl_domain_gpus, 72);
	CHECK_INT(s.rails, 4);
	CHECK_INT(s.nunits, 2);
	if (s.nunits == 2) {
		CHECK_STR(s.unit_name[1], "su2");
		CHECK_STR(s.unit_nodes[1], "nvl02n[01-18]");
	}
	CHECK_INT(s.ntiers, 3);
	CHECK_STR(s.tier[0].name, "nvlink");
	CHECK(s.tier[0].gbytes_per_s == 900.0);
	CHECK(s.tier[0].oversubscription == 0.0);
	CHECK(s.tier[2].oversubscription == 1.5);
	CHECK_STR(s.order, "megatron");
	CHECK_STR(s.hw, "gb200-nvl72");
	CHECK_STR(rm_site_hw(&s), "gb200-nvl72");
	CHECK_INT(s.enforce, RM_ENFORCE_STRICT);
	CHECK_INT(s.max_pp_crossings, 4);
	CHECK(s.allow_missing_nodes);
	CHECK_INT(s.cross_policy, RM_CROSS_PODS_FIRST);
	CHECK_INT(s.n_nic_exclude, 2);
	if (s.n_nic_exclude == 2)
		CHECK_STR(s.nic_exclude[1], "irdma*");
	CHECK_INT(s.n_nccl, 2);
	if (s.n_nccl == 2) {
		CHECK_STR(s.nccl_key[0], "NCCL_IB_GID_INDEX");
		CHECK_STR(s.nccl_val[0], "3");
		CHECK_STR(s.nccl_val[1], "2");
	}
	CHECK(s.nccl_override_user);
	CHECK_STR(s.hwloc_xml, "/var/cache/rankmap/%n.xml");
	rmi_site_clear(&s);
}

static void defaults(void)
{
	const char *t = "schema: rankmap-site/1\n";
	rm_site s;
	CHECK_INT(rmi_site_parse(t, strlen(t), "min.yaml", &s, &E), RM_OK);
	CHECK_INT(s.gpus_per_node, 0);
	CHECK_INT(s.nvl_kind, RM_NVL_NODE);
	CHECK(!s.nvl_given);
	CHECK_INT(s.enforce, RM_ENFORCE_WARN);
	CHECK_INT(s.max_pp_crossings, -1);
	CHECK(!s.allow_missing_nodes);
	CHECK_INT(s.cross_policy, RM_CROSS_CHEAPEST);
	CHECK_STR(s.order, "");
	CHECK_STR(s.hw, "");
	CHECK_STR(rm_site_hw(&s), "");
	CHECK_STR(rm_site_hw(NULL), "");
	CHECK(s.topology == NULL && s.name == NULL && s.hwloc_xml == NULL);
	CHECK_INT(s.ntiers + s.nunits + s.n_nccl + s.n_nvl_groups, 0);
	rmi_site_clear(&s);
}

/* The whole file `t` must be refused with both strings in the message. */
static void refused(const char *t, const char *where, const char *why)
{
	rm_site s;
	memset(&E, 0, sizeof(E));
	CHECK_INT(rmi_site_parse(t, strlen(t), "s.yaml", &s, &E), RM_EINPUT);
	CHECK_HAS(E.msg, where);
	CHECK_HAS(E.msg, why);
	/* A refused parse leaves nothing to free, and freeing is safe. */
	CHECK(s.name == NULL && s.path == NULL && s.unit_name == NULL);
	rmi_site_clear(&s);
}

#define HEAD "schema: rankmap-site/1\n"

static void schema_errors(void)
{
	refused("name: x\n", "s.yaml:1:1:", "missing 'schema: rankmap-site/1'");
	refused("schema: rankmap-site/2\n", "s.yaml:1:9:",
		"'rankmap-site/2' is not supported");
	refused("schema: rankmap-map/1\n", "s.yaml:1:9:",
		"not a site file schema");
	refused("- a\n- b\n", "s.yaml:1:1:", "must be a mapping, not a list");
	refused(HEAD "gpu_per_node: 8\n", "s.yaml:2:1:",
		"unknown key 'gpu_per_node' in the site file (known: schema, "
		"name, gpus_per_node");
	refused(HEAD "nvlink: {domian: node}\n", "s.yaml:2:10:",
		"unknown key 'domian' in nvlink (known: domain, groups, "
		"domain_gpus)");
	refused(HEAD "name: a\nname: b\n", "s.yaml:3:1:",
		"duplicate key 'name' (first at line 2)");
	refused(HEAD "tiers:\n  - {name: leaf, bandwith_gbs: 5}\n",
		"s.yaml:3:18:", "unknown key 'bandwith_gbs' in tiers[0]");
	refused(HEAD "a: [", "s.yaml:", "");
}

static void type_errors(void)
{
	refused(HEAD "gpus_per_node: \"8\"\n", "s.yaml:2:16:",
		"gpus_per_node must be a whole number, got the quoted string");
	refused(HEAD "gpus_per_node: eight\n", "s.yaml:2:16:", "'eight'");
	refused(HEAD "tiers: {name: leaf}\n", "s.yaml:2:8:",
		"tiers must be a list, not a mapping");
	refused(HEAD "nvlink: node\n", "s.yaml:2:9:",
		"nvlink must be a mapping, not a single value");
	refused(HEAD "name: [a]\n", "s.yaml:2:7:", "name must be a single value");
	refused(HEAD "name:\n", "s.yaml:2:6:", "name has no value");
	refused(HEAD "nccl: {override_user: sometimes}\n", "s.yaml:2:23:",
		"nccl.override_user must be true or false");
	refused(HEAD "nccl: {env: {NCCL_DEBUG: [INFO]}}\n", "s.yaml:2:26:",
		"nccl.env.NCCL_DEBUG must be a single value");
	refused(HEAD "name: \"a\\tb\"\n", "s.yaml:2:7:", "control characters");
}

static void range_errors(void)
{
	refused(HEAD "gpus_per_node: 0\n", "s.yaml:2:16:",
		"gpus_per_node must be between 1 and 1024, got '0'");
	refused(HEAD "gpus_per_node: 1025\n", "s.yaml:2:16:", "'1025'");
	refused(HEAD "units: {rails: 65, list: [{name: a, nodes: n1}]}\n",
		"s.yaml:2:16:", "units.rails must be between 1 and 64");
	refused(HEAD "units: {rails: 0, list: [{name: a, nodes: n1}]}\n",
		"s.yaml:2:16:", "units.rails");
	refused(HEAD "tiers: [{name: a, bandwidth_gbs: 0}]\n", "s.yaml:2:34:",
		"tiers[0].bandwidth_gbs must be more than 0");
	refused(HEAD "tiers: [{name: a, bandwidth_gbs: 1000000}]\n",
		"s.yaml:2:34:", "less than 1000000");
	refused(HEAD "tiers: [{name: a, bandwidth_gbs: -5}]\n", "s.yaml:2:34:",
		"bandwidth_gbs");
	refused(HEAD "tiers: [{name: a, oversubscription: 0.5}]\n",
		"s.yaml:2:37:", "tiers[0].oversubscription must be between 1");
	refused(HEAD "tiers: [{name: a}, {name: b}, {name: c}, {name: d}, "
		     "{name: e}, {name: f}, {name: g}, {name: h}, {name: i}]\n",
		"s.yaml:2:", "at most 8 tiers");
	refused(HEAD "tiers: [{name: leaf}, {name: leaf}]\n", "s.yaml:2:30:",
		"tier name 'leaf' is used twice");
	refused(HEAD "tiers: [{bandwidth_gbs: 5}]\n", "s.yaml:2:9:",
		"tiers[0] needs a name");
	refused(HEAD "policy: {max_pp_crossings: -1}\n", "s.yaml:2:28:",
		"policy.max_pp_crossings");
	refused(HEAD "gpus_per_node: 4\nnvlink: {domain: groups, "
		     "groups: [\"n[1-3]\"], domain_gpus: 6}\n",
		"s.yaml:3:", "multiple of gpus_per_node");
}

static void enum_errors(void)
{
	refused(HEAD "nvlink: {domain: rack}\n", "s.yaml:2:18:",
		"nvlink.domain must be node, block or groups, got 'rack'");
	refused(HEAD "policy: {enforce: maybe}\n", "s.yaml:2:19:",
		"policy.enforce must be off, warn or strict");
	refused(HEAD "policy: {missing_nodes: ignore}\n", "s.yaml:2:25:",
		"policy.missing_nodes must be error or own-leaf");
	refused(HEAD "policy: {crossings: pods}\n", "s.yaml:2:21:",
		"policy.crossings must be cheapest, leaves-first or pods-first");
	refused(HEAD "defaults: {order: tp-pp-tp}\n", "s.yaml:2:19:",
		"defaults.order must be");
	refused(HEAD "defaults: {order: fast}\n", "s.yaml:2:19:", "'fast'");
	refused(HEAD "hwloc_xml: /c/%h.xml\n", "s.yaml:2:12:",
		"only %n (short host name)");
	refused(HEAD "nccl: {exclude_nics: [\"mlx5 1\"]}\n", "s.yaml:2:23:",
		"nccl.exclude_nics[0] is not a NIC name or pattern");
	/* Explicit `off` is the text, not a boolean. */
	const char *t = HEAD "policy: {enforce: off}\ndefaults: {order: tp-dp-pp}\n";
	rm_site s;
	CHECK_INT(rmi_site_parse(t, strlen(t), "s.yaml", &s, &E), RM_OK);
	CHECK_INT(s.enforce, RM_ENFORCE_OFF);
	CHECK_STR(s.order, "tp-dp-pp");
	rmi_site_clear(&s);
}

/* defaults.hw: every preset is read back whole (the site keeps it in a
 * fixed buffer), anything else is refused where it is written, with the
 * presets listed - a path above all, as the plugin may read the file as
 * root. */
static void hw_default(void)
{
	for (size_t i = 0; rm_hw_presets[i]; i++) {
		char t[128];
		snprintf(t, sizeof(t), HEAD "defaults:\n  hw: %s\n",
			 rm_hw_presets[i]);
		rm_site s;
		CHECK_INT(rmi_site_parse(t, strlen(t), "s.yaml", &s, &E),
			  RM_OK);
		CHECK_STR(rm_site_hw(&s), rm_hw_presets[i]);
		rmi_site_clear(&s);
	}
	refused(HEAD "defaults: {hw: b300}\n", "s.yaml:2:16:",
		"defaults.hw must be a hardware preset (a100-sxm-80gb, "
		"h100-sxm-80gb, h200, gb200-nvl72, gb200-nvl36x2 or "
		"gb300-nvl72), got 'b300'");
	/* aliases rm_hw_preset takes are not names the file may use */
	refused(HEAD "defaults: {hw: h100}\n", "s.yaml:2:16:", "got 'h100'");
	refused(HEAD "defaults: {hw: GB200-NVL72}\n", "s.yaml:2:16:",
		"must be a hardware preset");
	refused(HEAD "defaults: {hw: ./gb200.yaml}\n", "s.yaml:2:16:",
		"got './gb200.yaml': a hardware file is given with --hw, not "
		"in a site file");
	refused(HEAD "defaults:\n  hw: /etc/shadow\n", "s.yaml:3:7:",
		"got '/etc/shadow': a hardware file");
	refused(HEAD "defaults: {hw: [gb200-nvl72]}\n", "s.yaml:2:16:",
		"defaults.hw must be a single value, not a list");
	refused(HEAD "defaults: {hw: {name: gb200-nvl72}}\n", "s.yaml:2:16:",
		"defaults.hw must be a single value");
	refused(HEAD "defaults: {hw: 200}\n", "s.yaml:2:16:",
		"got '200'");
	refused(HEAD "defaults: {hw: ~}\n", "s.yaml:2:16:",
		"defaults.hw has no value");
	refused(HEAD "defaults: {hw: \"gb200\\tnvl72\"}\n", "s.yaml:2:16:",
		"control characters");
	char big[300];
	int n = snprintf(big, sizeof(big), HEAD "defaults: {hw: ");
	memset(big + n, 'x', 200);
	snprintf(big + n + 200, sizeof(big) - (size_t)n - 200, "}\n");
	refused(big, "s.yaml:2:16:",
		"defaults.hw must be 1 to 128 characters long, got 200");
	refused(HEAD "defaults: {hw: gb200-nvl72, gpu: gb200}\n",
		"s.yaml:2:29:", "unknown key 'gpu' in defaults (known: order, hw)");
}

static void nccl_env_errors(void)
{
	refused(HEAD "nccl: {env: {LD_PRELOAD: /tmp/x.so}}\n", "s.yaml:2:14:",
		"nccl.env: 'LD_PRELOAD' is not an NCCL variable");
	refused(HEAD "nccl: {env: {NCCL_: 1}}\n", "s.yaml:2:14:", "'NCCL_'");
	refused(HEAD "nccl: {env: {nccl_debug: INFO}}\n", "s.yaml:2:14:",
		"not an NCCL variable");
	refused(HEAD "nccl: {env: {NCCL_DEBUG: INFO, NCCL_DEBUG: WARN}}\n",
		"s.yaml:2:32:", "duplicate key 'NCCL_DEBUG'");
	const char *t = HEAD "nccl: {env: {TORCH_NCCL_ASYNC_ERROR_HANDLING: 1, "
			     "CUDA_DEVICE_MAX_CONNECTIONS: 1}}\n";
	rm_site s;
	CHECK_INT(rmi_site_parse(t, strlen(t), "s.yaml", &s, &E), RM_OK);
	CHECK_INT(s.n_nccl, 2);
	rmi_site_clear(&s);
}

static void membership_errors(void)
{
	refused(HEAD "nvlink:\n  domain: groups\n  groups: [\"n[1-4]\", "
		     "\"n[5-\"]\n",
		"s.yaml:4:22:", "nvlink.groups[1]: hostlist");
	refused(HEAD "nvlink:\n  domain: groups\n  groups:\n    - n[1-4]\n"
		     "    - n[4-8]\n",
		"s.yaml:6:7:", "node 'n4' is in group 'n[1-4]' and in group "
			       "'n[4-8]' (line 5)");
	refused(HEAD "nvlink: {domain: groups, groups: [\"n[1-3],n2\"]}\n",
		"s.yaml:2:35:", "node 'n2' is listed twice");
	refused(HEAD "nvlink: {domain: node, groups: [n1]}\n", "s.yaml:2:32:",
		"nvlink.groups is only read with domain: groups");
	refused(HEAD "nvlink: {domain: groups}\n", "s.yaml:2:18:",
		"needs nvlink.groups");
	refused(HEAD "nvlink: {domain: groups, groups: []}\n", "s.yaml:2:34:",
		"nvlink.groups is empty");
	refused(HEAD "gpus_per_node: 4\nnvlink: {domain: groups, "
		     "groups: [\"n[1-18]\", \"m[1-19]\"], domain_gpus: 72}\n",
		"s.yaml:3:46:", "nvlink.groups[1] holds 76 GPUs, more than "
				"nvlink.domain_gpus (72)");
	refused(HEAD "units:\n  rails: 8\n  list:\n"
		     "    - {name: su1, nodes: \"dgx[001-032]\"}\n"
		     "    - {name: su2, nodes: \"dgx[032-064]\"}\n",
		"s.yaml:6:26:", "node 'dgx032' is in unit 'su1' and in unit "
				"'su2' (line 5); a node belongs to one unit");
	refused(HEAD "units: {rails: 8, list: [{name: a, nodes: \"x[9-1]\"}]}\n",
		"s.yaml:2:43:", "units.list[0]: hostlist");
	refused(HEAD "units: {rails: 8, list: [{name: a, nodes: n1}, "
		     "{name: a, nodes: n2}]}\n",
		"s.yaml:2:55:", "unit name 'a' is used twice");
	refused(HEAD "units: {rails: 8, list: [{name: a}]}\n", "s.yaml:2:26:",
		"units.list[0] needs nodes");
	refused(HEAD "units: {list: [{name: a, nodes: n1}]}\n", "s.yaml:2:8:",
		"units needs rails");
	refused(HEAD "units: {rails: 8}\n", "s.yaml:2:8:", "units needs list");
}

static char *write_tmp(const char *dir, const char *name, const char *text)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

static void load_file(void)
{
	char dir[32];
	CHECK(t_tmpdir(dir, sizeof(dir), "/tmp/rm-site-"));
	char *p = write_tmp(dir, "site.yaml",
			    HEAD "topology: topology.conf\n"
				 "hwloc_xml: xml/%n.xml\n");
	rm_site s;
	CHECK_INT(rmi_site_load(p, &s, &E), RM_OK);
	/* Relative paths become absolute, next to the site file. */
	char *real = realpath(dir, NULL), want[PATH_MAX + 64];
	snprintf(want, sizeof(want), "%s/topology.conf", real);
	CHECK_STR(s.topology, want);
	snprintf(want, sizeof(want), "%s/xml/%%n.xml", real);
	CHECK_STR(s.hwloc_xml, want);
	free(real);
	CHECK_STR(s.path, p);
	rmi_site_clear(&s);
	char *q = write_tmp(dir, "abs.yaml", HEAD "topology: /etc/t.conf\n"
						  "gpus_per_node: x\n");
	CHECK_INT(rmi_site_load(q, &s, &E), RM_EINPUT);
	snprintf(want, sizeof(want), "%s:3:16:", q);
	CHECK_HAS(E.msg, want);
	char *missing = malloc(strlen(dir) + 16);
	sprintf(missing, "%s/none.yaml", dir);
	CHECK_INT(rmi_site_load(missing, &s, &E), RM_EIO);
	CHECK_HAS(E.msg, "none.yaml");
	unlink(p);
	unlink(q);
	rmdir(dir);
	free(p);
	free(q);
	free(missing);
}

/* ---- rm_fabric_apply_site ---- */

static rm_fabric *topo(const char *text)
{
	rm_fabric *f = NULL;
	CHECK_INT(rm_fabric_new(&f, &E), RM_OK);
	if (f && text)
		CHECK_INT(rm_fabric_parse_topology(f, text, strlen(text),
						   "topology.conf", &E), RM_OK);
	return f;
}

static bool site(const char *t, rm_site *s)
{
	rm_status st = rmi_site_parse(t, strlen(t), "s.yaml", s, &E);
	CHECK_INT(st, RM_OK);
	if (st)
		printf("  %s\n", E.msg);
	return st == RM_OK;
}

static const rmi_fnode *node(const rm_fabric *f, const char *name)
{
	int64_t i = rmi_fabric_find(f, name);
	return i < 0 ? NULL : &f->node[i];
}

static void apply_groups_units(void)
{
	rm_fabric *f = topo("SwitchName=leaf1 Nodes=a[01-04]\n"
			    "SwitchName=leaf2 Nodes=a[05-08]\n"
			    "SwitchName=top Switches=leaf[1-2]\n");
	rm_site s;
	if (!f || !site(HEAD "gpus_per_node: 4\n"
			"nvlink: {domain: groups, groups: [\"a[01-06]\", "
			"\"a[07-08],b[1-2]\"], domain_gpus: 24}\n"
			"units: {rails: 4, list: [{name: su1, nodes: "
			"\"a[01-04]\"}, {name: su2, nodes: \"a[05-08]\"}]}\n"
			"tiers: [{name: nvlink, bandwidth_gbs: 900}, "
			"{name: leaf, bandwidth_gbs: 50}]\n", &s)) {
		rm_fabric_free(f);
		return;
	}
	uint32_t before = f ? f->nnode : 0;
	CHECK_INT(rm_fabric_apply_site(f, &s, &E), RM_OK);
	CHECK_INT(f->ndomain, 2);
	CHECK_STR(f->domain_name[1], "a[07-08],b[1-2]");
	CHECK_INT(f->nvl_domain_gpus, 24);
	/* b1, b2: named by the site only - added, without a leaf. */
	CHECK_INT(f->nnode, before + 2);
	const rmi_fnode *a6 = node(f, "a06"), *a7 = node(f, "a07");
	const rmi_fnode *b2 = node(f, "b2");
	CHECK(a6 && a6->domain == 0 && a6->unit == 1 && a6->leaf >= 0);
	CHECK(a7 && a7->domain == 1);
	CHECK(b2 && b2->domain == 1 && b2->leaf == -1 && b2->unit == -1);
	CHECK_INT(f->nunit, 2);
	CHECK_STR(f->unit_name[0], "su1");
	CHECK_INT(f->rails, 4);
	CHECK_INT(f->ntiers, 2);
	CHECK_STR(f->tier[1].name, "leaf");
	CHECK(f->tier[0].gbytes_per_s == 900.0);
	/* Applying again gives the same fabric, not doubled domains. */
	CHECK_INT(rm_fabric_apply_site(f, &s, &E), RM_OK);
	CHECK_INT(f->ndomain, 2);
	CHECK_INT(f->nunit, 2);
	CHECK_INT(f->nnode, before + 2);
	rmi_site_clear(&s);
	rm_fabric_free(f);
}

/* Site text t parsed and applied to f, which must give `want`; false,
 * nothing applied, when there is no f or the site does not parse. */
static bool applied(rm_fabric *f, const char *t, rm_status want)
{
	rm_site s;
	if (!f || !site(t, &s))
		return false;
	CHECK_INT(rm_fabric_apply_site(f, &s, &E), want);
	rmi_site_clear(&s);
	return true;
}

static void apply_blocks(void)
{
	const char *blocks = "BlockName=rack1 Nodes=g[01-18]\n"
			     "BlockName=rack2 Nodes=g[19-36]\n"
			     "BlockSizes=18\n";
	rm_fabric *f = topo(blocks);
	if (applied(f, HEAD "gpus_per_node: 4\nnvlink: {domain: block, "
			   "domain_gpus: 72}\n", RM_OK)) {
		CHECK_INT(f->ndomain, 2);
		CHECK_INT(f->nvl_domain_gpus, 72);
		const rmi_fnode *g20 = node(f, "g20");
		CHECK(g20 && g20->domain == 1);
	}
	/* A domain size smaller than a block: the two files disagree. */
	if (applied(f, HEAD "gpus_per_node: 4\nnvlink: {domain: block, "
			   "domain_gpus: 36}\n", RM_EINPUT))
		CHECK_HAS(E.msg, "s.yaml: NVLink domain rack1 holds 72 GPUs, "
				 "more than nvlink.domain_gpus (36)");
	rm_fabric_free(f);
	/* An explicit `domain: node` drops the blocks. */
	f = topo(blocks);
	if (applied(f, HEAD "nvlink: {domain: node}\n", RM_OK)) {
		CHECK_INT(f->ndomain, 0);
		const rmi_fnode *g01 = node(f, "g01");
		CHECK(g01 && g01->domain == -1);
	}
	rm_fabric_free(f);
	/* Saying nothing keeps them. */
	f = topo(blocks);
	if (applied(f, HEAD "gpus_per_node: 4\n", RM_OK))
		CHECK_INT(f->ndomain, 2);
	rm_fabric_free(f);
	/* domain: block on a tree without blocks. */
	f = topo("SwitchName=s1 Nodes=n[1-4]\n");
	if (applied(f, HEAD "nvlink: {domain: block}\n", RM_EINPUT)) {
		CHECK_HAS(E.msg, "s.yaml: nvlink.domain is block, but the "
				 "topology");
		CHECK_HAS(E.msg, "has no BlockName= blocks");
	}
	rm_fabric_free(f);
}

static void apply_hand_built(void)
{
	rm_fabric *f = topo(NULL);
	rm_site s;
	rmi_site_init(&s);
	char g0[] = "n[1-4]", g1[] = "n[4-5]";
	char *groups[] = { g0, g1 };
	s.nvl_kind = RM_NVL_GROUPS;
	s.nvl_groups = groups;
	s.n_nvl_groups = 2;
	CHECK_INT(rm_fabric_apply_site(f, &s, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "node 'n4' is already in n[1-4]");
	char bad[] = "n[";
	groups[1] = bad;
	CHECK_INT(rm_fabric_apply_site(f, &s, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "nvlink.groups[1]:");
	rm_fabric_free(f);
}

/* The fabrics shipped under site/ (run from the repository root, as
 * tests/run.sh does): the facts each one is meant to describe. */
static rm_fabric *shipped(const char *name, rm_site *s)
{
	char path[128];
	snprintf(path, sizeof(path), "site/%s/site.yaml", name);
	rm_fabric *f = NULL;
	if (rmi_site_load(path, s, &E) != RM_OK) {
		printf("  %s\n", E.msg);
		CHECK(!"shipped site loads");
		return NULL;
	}
	CHECK(s->topology != NULL);
	if (rm_fabric_new(&f, &E) ||
	    rm_fabric_load_topology(f, s->topology, &E) ||
	    rm_fabric_apply_site(f, s, &E)) {
		printf("  %s\n", E.msg);
		CHECK(!"shipped topology loads and the site applies");
		rm_fabric_free(f);
		rmi_site_clear(s);
		return NULL;
	}
	return f;
}

static uint32_t leaves(const rm_fabric *f)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nsw; i++)
		n += f->sw[i].level == 0;
	return n;
}

/* 24,576 GPUs; racks of 2 nodes per ToR; 8 pods of 192. */
static void llama3_roce(const rm_fabric *f, const rm_site *s)
{
	CHECK_INT(f->nnode * s->gpus_per_node, 24576);
	CHECK_INT(leaves(f), 1536);
	CHECK_INT(f->nsw, 1536 + 8 + 1);
	CHECK_INT(f->ntiers, 4);
	CHECK(f->tier[3].oversubscription == 7.0);
	CHECK_INT(f->ndomain, 0);
	CHECK_STR(rm_site_hw(s), "h100-sxm-80gb");
}

static void superpod_h100(const rm_fabric *f, const rm_site *s)
{
	CHECK_INT(f->nnode, 127);
	CHECK_INT(f->nunit, 4);
	CHECK_INT(f->rails, 8);
	const rmi_fnode *n = node(f, "dgx033");
	CHECK(n && n->unit == 1);
	n = node(f, "dgx127");
	CHECK(n && n->unit == 3 && n->leaf >= 0);
	CHECK_INT(s->n_nic_exclude, 4);
	CHECK_STR(rm_site_hw(s), "h100-sxm-80gb");
}

static void gb200_nvl72(const rm_fabric *f, const rm_site *s)
{
	CHECK_INT(f->nnode, 8 * 18);
	CHECK_INT(s->gpus_per_node, 4);
	CHECK_INT(f->ndomain, 8);
	CHECK_INT(f->nvl_domain_gpus, 72);
	const rmi_fnode *n = node(f, "nvl03n18");
	CHECK(n && n->domain >= 0 && n->unit == 0);
	CHECK_INT(f->rails, 4);
	CHECK_STR(rm_site_hw(s), "gb200-nvl72");
}

/* The lab names no GPU, so it sets none: the CLI's default prices. */
static void lab(const rm_fabric *f, const rm_site *s)
{
	CHECK_INT(f->nnode, 16);
	CHECK_INT(leaves(f), 3);
	CHECK(s->allow_missing_nodes);
	CHECK_STR(rm_site_hw(s), "");
}

/* Each site the project ships (site/) loads, applies to its topology and
 * gives the fabric its check says. */
static void shipped_sites(void)
{
	static const struct {
		const char *name;
		void (*check)(const rm_fabric *f, const rm_site *s);
	} sites[] = {
		{ "llama3-roce", llama3_roce },
		{ "dgx-superpod-h100", superpod_h100 },
		{ "gb200-nvl72", gb200_nvl72 },
		{ "lab", lab },
	};
	for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++) {
		rm_site s;
		rm_fabric *f = shipped(sites[i].name, &s);
		if (!f)
			continue;
		sites[i].check(f, &s);
		rm_fabric_free(f);
		rmi_site_clear(&s);
	}
}

int main(void)
{
	RUN("site", full_file);
	RUN("site", defaults);
	RUN("site", schema_errors);
	RUN("site", type_errors);
	RUN("site", range_errors);
	RUN("site", enum_errors);
	RUN("site", hw_default);
	RUN("site", nccl_env_errors);
	RUN("site", membership_errors);
	RUN("site", load_file);
	RUN("site", apply_groups_units);
	RUN("site", apply_blocks);
	RUN("site", apply_hand_built);
	RUN("site", shipped_sites);
	TEST_EXIT();
}
