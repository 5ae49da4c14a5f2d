/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_site.c - `rankmap site validate FILE [--topology F]`: what an admin
 * runs before pushing a site file and topology.conf to every node. Loads
 * both exactly as plan and the plugin do, prints what every setting
 * resolves to (defaults included), and lists what is legal but probably
 * not meant (warnings, exit 0) or unusable (problems, exit 2).
 */
#include "cli.h"
#include "common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
	fputs("usage: rankmap site validate FILE [--topology F]\n"
	      "         [--format text|json]\n"
	      "       rankmap site import --ibnetdiscover FILE ... (site import -h)\n\n"
	      "  Reads a site file (rankmap-site/1) and its topology.conf as\n"
	      "  plan and the SPANK plugin do, prints what each setting\n"
	      "  resolves to and the fabric digest every node must agree on.\n"
	      "  --topology F  topology.conf (default: the site's `topology`)\n"
	      "  --format F    text (default) or json (rankmap-site-validate/1)\n\n"
	      "exit: 0 valid (warnings may be printed), 2 an error or a problem\n",
	      f);
}

#define MAX_NOTES 16

typedef struct report {
	rm_buf set;                 /* text: "key  value" lines */
	rm_buf json;                /* json: "key": "value" members */
	const char *warn[MAX_NOTES], *prob[MAX_NOTES];
	char text[2 * MAX_NOTES][256];
	size_t nwarn, nprob, ntext;
} report;

/* One resolved setting, in both forms. */
static void setting(report *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void setting(report *r, const char *key, const char *fmt, ...)
{
	char v[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	rm_buf_printf(&r->set, "  %-24s %s\n", key, v);
	rm_buf_puts(&r->json, r->json.len ? ",\n    " : "    ");
	rm_buf_json_str(&r->json, key);
	rm_buf_puts(&r->json, ": ");
	rm_buf_json_str(&r->json, v);
}

static void note(report *r, bool problem, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(report *r, bool problem, const char *fmt, ...)
{
	size_t *n = problem ? &r->nprob : &r->nwarn;
	if (*n >= MAX_NOTES || r->ntext >= 2 * MAX_NOTES)
		return;
	char *t = r->text[r->ntext++];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t, sizeof(r->text[0]), fmt, ap);
	va_end(ap);
	(problem ? r->prob : r->warn)[(*n)++] = t;
}

/* The site's NIC exclusions, "a, b, c" of up to 8, "..." after. */
static void join_excluded(char *out, size_t n, const rm_site *s)
{
	size_t at = 0, k = rm_site_nic_exclude_count(s);
	out[0] = '\0';
	for (size_t i = 0; i < k && i < 8 && at < n; i++)
		at += (size_t)snprintf(out + at, n - at, "%s%s", i ? ", " : "",
				       rm_site_nic_exclude(s, i));
	if (k > 8 && at < n)
		snprintf(out + at, n - at, ", ... (%zu)", k);
}

static const char *nvl_name(rm_nvl_kind k)
{
	return k == RM_NVL_BLOCK ? "block" : k == RM_NVL_GROUPS ? "groups"
								 : "node";
}

static const char *enforce_name(rm_enforce e)
{
	return e == RM_ENFORCE_OFF ? "off" : e == RM_ENFORCE_STRICT ? "strict"
								     : "warn";
}

static void site_settings(report *r, const rm_site *s, uint32_t gpn)
{
	char buf[512];
	const char *name = rm_site_name(s);
	bool gpn_given = rm_site_gpus_per_node(s) != 0;
	setting(r, "name", "%s", name ? name : "(none)");
	setting(r, "gpus_per_node", "%u%s", gpn,
		gpn_given ? "" : " (default: not in the site file)");
	if (!gpn_given)
		note(r, false, "gpus_per_node is not set: 8 is assumed");
	setting(r, "nvlink.domain", "%s%s", nvl_name(rm_site_nvl_kind(s)),
		rm_site_nvl_given(s) ? "" : " (default)");
	if (rm_site_unit_count(s))
		setting(r, "units", "%zu rail-optimised units, %u rails",
			rm_site_unit_count(s), rm_site_rails(s));
	else
		setting(r, "units", "none (not rail-optimised)");
	size_t at = 0;
	buf[0] = '\0';
	rm_tier t;
	for (size_t i = 0; rm_site_tier(s, i, &t) && at < sizeof(buf); i++) {
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s %g GB/s",
				       i ? "; " : "", t.name, t.gbytes_per_s);
		if (t.oversubscription > 0 && at < sizeof(buf))
			at += (size_t)snprintf(buf + at, sizeof(buf) - at,
					       " %g:1", t.oversubscription);
	}
	setting(r, "tiers", "%s",
		rm_site_tier_count(s) ? buf : "(none: the hardware's)");
	const char *order = rm_site_order(s);
	setting(r, "defaults.order", "%s",
		order[0] ? order : "(none: the layout's nesting order)");
	const char *hw = rm_site_hw(s);
	setting(r, "defaults.hw", "%s",
		hw[0] ? hw : "(none: --hw, else " RMC_DEFAULT_HW ")");
	setting(r, "policy.enforce", "%s", enforce_name(rm_site_enforce(s)));
	int64_t max_pp = rm_site_max_pp_crossings(s);
	if (max_pp < 0)
		setting(r, "policy.max_pp_crossings", "no limit");
	else
		setting(r, "policy.max_pp_crossings", "%lld",
			(long long)max_pp);
	setting(r, "policy.missing_nodes", "%s",
		rm_site_allow_missing_nodes(s) ? "own-leaf" : "error");
	join_excluded(buf, sizeof(buf), s);
	setting(r, "nccl.exclude_nics", "%s",
		rm_site_nic_exclude_count(s) ? buf : "none");
	at = 0;
	buf[0] = '\0';
	const char *key, *val;
	for (size_t i = 0; rm_site_nccl(s, i, &key, &val) && at < sizeof(buf);
	     i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s=%s",
				       i ? " " : "", key, val);
	setting(r, "nccl.env", "%s", rm_site_nccl_count(s) ? buf : "none");
	setting(r, "nccl.override_user", "%s",
		rm_site_nccl_override_user(s) ? "yes: the site's values win"
					      : "no: a job's own values win");
	const char *xml = rm_site_hwloc_xml(s);
	setting(r, "hwloc_xml", "%s",
		xml ? xml : "(none: live hwloc on each node)");
}

static void fabric_settings(report *r, const rm_site *s, const rm_fabric *f,
			    uint32_t gpn)
{
	rm_fabric_info fi;
	rm_fabric_info_get(f, &fi);
	setting(r, "fabric", "%u nodes (%llu GPUs), %u switches: %u leaves, "
		"%u levels, %u top-level%s", fi.nodes,
		(unsigned long long)fi.nodes * gpn, fi.switches, fi.leaves,
		fi.levels, fi.top_switches,
		fi.blocks ? ", topology/block blocks" : "");
	if (fi.nvl_domains)
		setting(r, "nvlink domains", "%u of up to %u nodes (%u GPUs)",
			fi.nvl_domains, fi.nvl_domain_nodes,
			fi.nvl_domain_gpus ? fi.nvl_domain_gpus
					   : fi.nvl_domain_nodes * gpn);
	else
		setting(r, "nvlink domains", "one per node (%u GPUs)", gpn);
	if (fi.units)
		setting(r, "rail units", "%u of up to %u nodes, %u rails",
			fi.units, fi.unit_nodes, fi.rails);
	/* Nodes the site file names but the topology does not place. */
	const char *first = NULL;
	for (uint32_t i = 0; i < fi.nodes && !first; i++)
		if (!(rm_fabric_node_where(f, i) & RM_FABRIC_NODE_LEAF) &&
		    fi.switches)
			first = rm_fabric_node_name(f, i);
	if (first)
		note(r, !rm_site_allow_missing_nodes(s),
		     "%u node%s named in the site file but under no switch of "
		     "the topology (first: %s)%s", fi.no_leaf,
		     fi.no_leaf == 1 ? "" : "s", first,
		     rm_site_allow_missing_nodes(s)
			     ? "; each gets a leaf of its own"
			     : "; policy.missing_nodes is error, so jobs on "
			       "them fail");
	if (fi.nvl_domains && fi.no_domain)
		note(r, false, "%u node%s in no NVLink group: each is a "
		     "domain of its own", fi.no_domain,
		     fi.no_domain == 1 ? "" : "s");
	if (fi.units && fi.no_unit)
		note(r, false, "%u node%s in no rail unit", fi.no_unit,
		     fi.no_unit == 1 ? "" : "s");
	/* tiers after nvlink describe switch levels, innermost first */
	size_t ntiers = rm_site_tier_count(s);
	if (ntiers > 1 && fi.levels && ntiers - 1 != fi.levels)
		note(r, false, "%zu network tiers after nvlink for %u switch "
		     "levels: levels without a tier use the hardware's, extra "
		     "tiers are unused", ntiers - 1, fi.levels);
	char hex[65];
	rm_fabric_digest(f, hex);
	setting(r, "fabric sha256", "%s", hex);
}

static int render(report *r, const char *site, const char *topo, bool json)
{
	rm_buf b;
	rm_buf_init(&b);
	if (json) {
		rm_buf_puts(&b, "{\n  \"schema\": \"rankmap-site-validate/1\",\n"
				 "  \"site\": ");
		rm_buf_json_str(&b, site);
		rm_buf_puts(&b, ",\n  \"topology\": ");
		if (topo)
			rm_buf_json_str(&b, topo);
		else
			rm_buf_puts(&b, "null");
		rm_buf_printf(&b, ",\n  \"ok\": %s,\n  \"settings\": {\n",
			       r->nprob ? "false" : "true");
		rm_buf_add(&b, r->json.data ? r->json.data : "", r->json.len);
		rm_buf_puts(&b, "\n  },\n  \"warnings\": [");
		for (size_t i = 0; i < r->nwarn; i++) {
			rm_buf_puts(&b, i ? ", " : "");
			rm_buf_json_str(&b, r->warn[i]);
		}
		rm_buf_puts(&b, "],\n  \"problems\": [");
		for (size_t i = 0; i < r->nprob; i++) {
			rm_buf_puts(&b, i ? ", " : "");
			rm_buf_json_str(&b, r->prob[i]);
		}
		rm_buf_puts(&b, "]");
		rm_buf_puts(&b, "\n}\n");
	} else {
		rm_buf_printf(&b, "site %s\ntopology %s\n\nresolved settings\n",
			       site, topo ? topo : "(none: one flat switch)");
		rm_buf_add(&b, r->set.data ? r->set.data : "", r->set.len);
		for (size_t i = 0; i < r->nwarn; i++)
			rm_buf_printf(&b, "%s  warning: %s\n", i ? "" : "\n",
				       r->warn[i]);
		for (size_t i = 0; i < r->nprob; i++)
			rm_buf_printf(&b, "%s  problem: %s\n", i ? "" : "\n",
				       r->prob[i]);
		rm_buf_printf(&b, "\nresult: %s, %zu warning%s, %zu problem%s\n",
			       r->nprob ? "NOT valid" : "valid", r->nwarn,
			       r->nwarn == 1 ? "" : "s", r->nprob,
			       r->nprob == 1 ? "" : "s");
	}
	size_t len = 0;
	char *text = rm_buf_take(&b, &len);
	rm_buf_clear(&b);
	if (!text)
		return rmc_usage("out of memory");
	int rc = rmc_output(NULL, text, len);
	free(text);
	if (rc)
		return rc;
	if (r->nprob)
		return rmc_usage("%s: %zu problem%s (listed above)", site,
				 r->nprob, r->nprob == 1 ? "" : "s");
	return RMC_OK;
}

static int validate(const rmc_opts *o, rmc_inputs *in)
{
	bool json = false;
	if (o->format && !(json = !strcmp(o->format, "json")) &&
	    strcmp(o->format, "text"))
		return rmc_usage("--format %s: expected text or json",
				 o->format);
	int rc = rmc_load_fabric(o, in);
	if (rc)
		return rc;
	report r;
	memset(&r, 0, sizeof(r));
	rm_buf_init(&r.set);
	rm_buf_init(&r.json);
	site_settings(&r, in->site, in->gpus_per_node);
	if (in->fabric)
		fabric_settings(&r, in->site, in->fabric, in->gpus_per_node);
	if (!in->topology)
		note(&r, false, "no topology (the site's `topology` or "
		     "--topology): every node hangs off one flat switch");
	rc = render(&r, o->site, in->topology, json);
	rm_buf_clear(&r.set);
	rm_buf_clear(&r.json);
	return rc;
}

int rmc_site(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (argc < 2)
			return rmc_usage("expected `validate FILE` (see "
					 "rankmap help site)");
		help(stdout);
		return RMC_OK;
	}
	if (!strcmp(argv[1], "import"))
		return rmc_site_import(argc - 1, argv + 1);
	if (strcmp(argv[1], "validate")) {
		char q[96];
		return rmc_usage("unknown action %s (see rankmap help site)",
				 rm_quote(argv[1], strlen(argv[1]), q,
					   sizeof(q)));
	}
	/* The site file is the one positional argument: hand it to the
	 * shared options as --site so it loads exactly as plan loads it. */
	char **args = calloc((size_t)argc + 2, sizeof(char *));
	if (!args)
		return rmc_usage("out of memory");
	int n = 0;
	const char *file = NULL;
	args[n++] = argv[1];
	for (int i = 2; i < argc; i++) {
		if (argv[i][0] != '-' && !file &&
		    !(i > 2 && !strcmp(argv[i - 1], "--topology")) &&
		    !(i > 2 && !strcmp(argv[i - 1], "--format"))) {
			file = argv[i];
			continue;
		}
		args[n++] = argv[i];
	}
	int rc;
	if (!file) {
		bool helped = false;
		for (int i = 1; i < n; i++)
			helped |= !strcmp(args[i], "--help") ||
				  !strcmp(args[i], "-h");
		rc = helped ? (help(stdout), RMC_OK)
			    : rmc_usage("validate needs the site FILE");
	} else {
		args[n++] = (char *)"--site";
		args[n++] = (char *)file;
		rc = rmc_command("site", RMC_O_TOPOLOGY | RMC_O_FORMAT |
					 RMC_O_SITE, n, args, help, validate);
	}
	free(args);
	return rc;
}
