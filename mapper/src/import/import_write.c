/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import_write.c - an rm_import as topology.conf, as a rankmap-site/1 file
 * and as the report. The site file points at the topology file and adds
 * only what the capture showed (rail units); the rest stays at the
 * site's defaults, which `rankmap site validate` prints.
 */
#include "import/import_int.h"

#include <stdlib.h>
#include <string.h>

static bool names(rm_buf *b, char *const *v, size_t n)
{
	char *hl = NULL;
	rm_error e;
	if (rm_hostlist_format((const char *const *)v, n, &hl, &e))
		return false;
	rm_buf_puts(b, hl);
	free(hl);
	return true;
}

/* One line of the tree: topology.conf's KEY=VALUE pairs, or the items of
 * topology.yaml's switch list. */
static bool sw_line(rm_buf *b, bool yaml, const char *what, const char *name,
		    char *const *host, size_t nhost, char *const *kids,
		    size_t nkids)
{
	bool ok = true;
	rm_buf_printf(b, yaml ? "    - %s: \"%s\"\n" : "%sName=%s", what,
		      name);
	if (nhost) {
		rm_buf_puts(b, yaml ? "      nodes: \"" : " Nodes=");
		ok = names(b, host, nhost);
		rm_buf_puts(b, yaml ? "\"\n" : "");
	}
	if (nkids && ok) {
		rm_buf_puts(b, yaml ? "      children: \"" : " Switches=");
		ok = names(b, kids, nkids);
		rm_buf_puts(b, yaml ? "\"\n" : "");
	}
	if (!yaml)
		rm_buf_puts(b, "\n");
	return ok;
}

/* The tree or the blocks, as topology.conf or as a topology.yaml (Slurm
 * 25.05+) holding one topology, the cluster default. */
static bool topology(const rm_import *im, rm_buf *b, bool yaml)
{
	bool blocks = false;
	for (size_t i = 0; i < im->nsw; i++)
		blocks |= im->sw[i].block;
	rm_buf_printf(b, "# %s (topology/%s) written by `rankmap "
		      "site import` from %s (%s).\n",
		      yaml ? "topology.yaml" : "topology.conf",
		      blocks ? "block" : "tree", im->source, im->format);
	if (im->nunit)
		rm_buf_puts(b, "# A rail-optimised unit is one switch here: "
			    "Slurm's tree cannot say rails;\n# the site file "
			    "lists the units and their rails.\n");
	if (yaml)
		rm_buf_puts(b, "- topology: default\n  cluster_default: true\n");
	if (yaml && blocks && im->block_size)
		rm_buf_printf(b, "  block:\n    block_sizes: [%u]\n",
			      im->block_size);
	else if (yaml)
		rm_buf_puts(b, blocks ? "  block:\n" : "  tree:\n");
	if (yaml)
		rm_buf_puts(b, blocks ? "    blocks:\n" : "    switches:\n");
	uint32_t top = 0;
	for (size_t i = 0; i < im->nsw; i++)
		top = im->sw[i].level > top ? im->sw[i].level : top;
	char **kids = calloc(im->nsw ? im->nsw : 1, sizeof(char *));
	if (!kids)
		return false;
	bool ok = true;
	for (uint32_t lv = 0; lv <= top && ok; lv++) {
		for (size_t i = 0; i < im->nsw && ok; i++) {
			const rmi_tsw *s = &im->sw[i];
			if (s->level != lv || s->block)
				continue;
			if (s->stands_for)
				rm_buf_printf(b, "%s# %s: %s\n",
					      yaml ? "    " : "", s->name,
					      s->stands_for);
			size_t nk = 0;
			for (size_t j = 0; j < im->nsw; j++)
				if (im->sw[j].parent == (int32_t)i)
					kids[nk++] = im->sw[j].name;
			ok = sw_line(b, yaml, yaml ? "switch" : "Switch",
				     s->name, s->host, s->nhost, kids, nk);
		}
	}
	free(kids);
	for (size_t i = 0; i < im->nsw && ok; i++)
		if (im->sw[i].block)
			ok = sw_line(b, yaml, yaml ? "block" : "Block",
				     im->sw[i].name, im->sw[i].host,
				     im->sw[i].nhost, NULL, 0);
	if (!yaml && im->block_size)
		rm_buf_printf(b, "BlockSizes=%u\n", im->block_size);
	return ok;
}

/* Index of the first node with each NVLink key; -1 for nodes in none. */
static bool nvl_groups(const rm_import *im, rm_buf *b)
{
	bool ok = true, any = false;
	char **v = malloc((im->nnvl + 1) * sizeof(char *));
	if (!v)
		return false;
	for (size_t i = 0; i < im->nnvl && ok; i++) {
		const char *k = im->nvl_key[i];
		bool first = strcmp(k, "-") && strcmp(k, "mixed");
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(im->nvl_key[j], k) != 0;
		if (!first)
			continue;
		size_t n = 0;
		for (size_t j = i; j < im->nnvl; j++)
			if (!strcmp(im->nvl_key[j], k))
				v[n++] = im->nvl_host[j];
		rm_buf_puts(b, any ? ", \"" : "  groups: [\"");
		ok = names(b, v, n);
		rm_buf_puts(b, "\"");
		any = true;
	}
	if (any)
		rm_buf_puts(b, "]\n");
	free(v);
	return ok;
}

static uint32_t nvl_gpn(const rm_import *im)
{
	uint32_t g = im->nnvl ? im->nvl_gpus[0] : 0;
	for (size_t i = 1; i < im->nnvl; i++)
		if (im->nvl_gpus[i] != g)
			return 0;
	return g;
}

static bool site(const rm_import *im, rm_buf *b)
{
	rm_buf_printf(b, "# rankmap-site/1 written by `rankmap site import` "
		      "from %s (%s).\n# Check it with `rankmap site validate`"
		      "; add tiers, defaults and policy by hand.\n",
		      im->source, im->format);
	rm_buf_puts(b, "schema: rankmap-site/1\nname: ");
	rm_buf_json_str(b, im->o_name ? im->o_name : "imported");
	rm_buf_puts(b, "\n");
	uint32_t gpn = im->opts.gpus_per_node ? im->opts.gpus_per_node
					       : nvl_gpn(im);
	if (gpn)
		rm_buf_printf(b, "gpus_per_node: %u\n", gpn);
	if (im->nsw) {
		rm_buf_puts(b, "topology: ");
		rm_buf_json_str(b, im->o_topology ? im->o_topology
						  : "topology.conf");
		rm_buf_puts(b, "\n");
	}
	size_t ndom = 0;
	for (size_t i = 0; i < im->nnvl; i++)
		ndom += strcmp(im->nvl_key[i], "-") && strcmp(im->nvl_key[i], "mixed");
	if (ndom) {
		rm_buf_puts(b, "nvlink:\n  domain: groups\n");
		if (!nvl_groups(im, b))
			return false;
	}
	if (!im->nunit)
		return true;
	rm_buf_printf(b, "units:\n  rails: %u\n  list:\n", im->rails);
	for (size_t i = 0; i < im->nunit; i++) {
		rm_buf_printf(b, "    - {name: %s, nodes: \"", im->unit[i].name);
		if (!names(b, im->unit[i].host, im->unit[i].nhost))
			return false;
		rm_buf_puts(b, "\"}\n");
	}
	return true;
}

static void report(const rm_import *im, rm_buf *b)
{
	rm_buf_printf(b, "import %s (%s)\n\nfound\n", im->source, im->format);
	rm_buf_add(b, im->found.data ? im->found.data : "", im->found.len);
	size_t groups = 0, none = 0, mixed = 0, biggest = 0;
	if (im->nnvl) {
		for (size_t i = 0; i < im->nnvl; i++) {
			const char *k = im->nvl_key[i];
			none += !strcmp(k, "-");
			mixed += !strcmp(k, "mixed");
			if (!strcmp(k, "-") || !strcmp(k, "mixed"))
				continue;
			bool first = true;
			size_t n = 0;
			for (size_t j = 0; j < im->nnvl; j++) {
				first &= j >= i || strcmp(im->nvl_key[j], k);
				n += !strcmp(im->nvl_key[j], k);
			}
			groups += first;
			biggest = n > biggest ? n : biggest;
		}
		rm_buf_printf(b, "  %-38s %zu nodes, %zu NVLink domain%s "
			      "of up to %zu nodes\n",
			      im->nvl_blocks ? im->nvl_what
					     : "nvidia-smi -q (ClusterUUID/CliqueId)",
			      im->nnvl, groups, groups == 1 ? "" : "s", biggest);
	}
	rm_buf_puts(b, "\ncould not place\n");
	if (im->unplaced.len)
		rm_buf_add(b, im->unplaced.data, im->unplaced.len);
	if (im->nnvl && !im->nvl_blocks)
		rm_buf_printf(b, "  %-38s %zu\n  %-38s %zu\n",
			      "nodes whose fabric is not Completed", none,
			      "nodes whose GPUs name two domains", mixed);
	if (!im->unplaced.len && (!im->nnvl || im->nvl_blocks))
		rm_buf_puts(b, "  nothing\n");
	rm_buf_puts(b, "\nassumed\n");
	if (im->assumed.len)
		rm_buf_add(b, im->assumed.data, im->assumed.len);
	else
		rm_buf_puts(b, "  nothing\n");
}

rm_status rm_import_write(const rm_import *im, rm_import_part part,
			  char **out, size_t *len, rm_error *err)
{
	rm_buf b;
	rm_buf_init(&b);
	bool ok = true;
	if (part == RM_IMPORT_TOPOLOGY || part == RM_IMPORT_TOPOLOGY_YAML)
		ok = topology(im, &b, part == RM_IMPORT_TOPOLOGY_YAML);
	else if (part == RM_IMPORT_SITE)
		ok = site(im, &b);
	else
		report(im, &b);
	size_t n = 0;
	char *t = rm_buf_take(&b, &n);
	rm_buf_clear(&b);
	if (!ok || !t) {
		free(t);
		return rmi_err(err, RM_ENOMEM, "out of memory writing the "
			       "import");
	}
	*out = t;
	if (len)
		*len = n;
	return RM_OK;
}
