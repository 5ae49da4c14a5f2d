/* SPDX-License-Identifier: Apache-2.0 */
/* common.c - the options plan, check and explain share (see common.h). */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_GPUS_PER_NODE 8
#define MAX_GPUS_PER_NODE 1024

/* The running subcommand, for the "rankmap <cmd>: " prefix of every
 * message; set once by main() before dispatch. */
static const char *command = NULL;

void rmc_set_command(const char *name)
{
	command = name;
}

void rmc_prefix(FILE *f)
{
	if (command)
		fprintf(f, "rankmap %s: ", command);
	else
		fputs("rankmap: ", f);
}

void rmc_opts_init(rmc_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->rank = -1;
}

int rmc_usage(const char *fmt, ...)
{
	va_list ap;
	rmc_prefix(stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return RMC_USAGE;
}

int rmc_fail(const rm_error *e)
{
	rmc_prefix(stderr);
	fprintf(stderr, "%s\n", e->msg[0] ? e->msg : rm_status_name(e->code));
	return e->code == RM_ERULE ? RMC_RULE_FAILED : RMC_USAGE;
}

bool rmc_parse_num(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t v = 0;
	if (!s || !*s || strlen(s) > 12)
		return false;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

#define STR(f) offsetof(rmc_opts, f)
static const rmc_optdef known[] = {
	{ "--layout", true, RMC_O_LAYOUT, STR(layout) },
	{ "--order", true, RMC_O_ORDER, STR(order) },
	{ "--nodes", true, RMC_O_NODES, STR(nodes) },
	{ "--nodes-file", true, RMC_O_NODES, STR(nodes_file) },
	{ "--topology", true, RMC_O_TOPOLOGY, STR(topology) },
	{ "--partition", true, RMC_O_TOPOLOGY, STR(partition) },
	{ "--site", true, RMC_O_SITE, STR(site) },
	{ "--no-site-config", false, RMC_O_SITECONF, STR(no_site_config) },
	{ "--gpus-per-node", true, RMC_O_GPN, STR(gpus_per_node) },
	{ "--allow-missing", false, RMC_O_MISSING, STR(allow_missing) },
	{ "-o", true, RMC_O_OUTPUT, STR(output) },
	{ "--output", true, RMC_O_OUTPUT, STR(output) },
	{ "--format", true, RMC_O_FORMAT, STR(format) },
	{ "--rank", true, RMC_O_RANK, STR(rank) },
	{ "--task", true, RMC_O_RANK, STR(task) },
	{ "--slurm-task", false, RMC_O_RANK, STR(slurm_task) },
	{ "--master-port", true, RMC_O_PORT, STR(master_port) },
	{ "--map", true, RMC_O_MAP, STR(map) },
	{ "--assignment", true, RMC_O_MAP, STR(assignment) },
};
#undef STR

int rmc_opt_match(const rmc_optdef *defs, size_t ndefs, unsigned mask,
		  int argc, char **argv, int *i, const char **v)
{
	const char *arg = argv[*i];
	const char *eq = strchr(arg, '=');
	size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
	*v = NULL;
	for (size_t k = 0; k < ndefs; k++) {
		const rmc_optdef *d = &defs[k];
		if (!(d->mask & mask) || strlen(d->name) != nlen ||
		    strncmp(d->name, arg, nlen))
			continue;
		if (d->value) {
			if (eq)
				*v = eq + 1;
			else if (*i + 1 < argc)
				*v = argv[++*i];
			else
				return rmc_usage("%s needs a value", d->name),
				       RMC_OPT_BAD;
		} else if (eq) {
			return rmc_usage("%s takes no value", d->name),
			       RMC_OPT_BAD;
		}
		return (int)k;
	}
	return RMC_OPT_NOT_OURS;
}

int rmc_unknown(const char *cmd, const char *word)
{
	char q[96];
	return rmc_usage("unknown %s %s (see rankmap help %s)",
			 word[0] == '-' ? "option" : "argument",
			 rm_quote(word, strlen(word), q, sizeof(q)), cmd);
}

int rmc_opt_own(const rmc_optdef *defs, size_t ndefs, unsigned mask,
		const char *cmd, void (*help)(FILE *f), int argc, char **argv,
		int *i, const char **v, int *rc)
{
	if (!strcmp(argv[*i], "--help") || !strcmp(argv[*i], "-h")) {
		help(stdout);
		*rc = RMC_OK;
		return -1;
	}
	int k = rmc_opt_match(defs, ndefs, mask, argc, argv, i, v);
	if (k >= 0)
		return k;
	*rc = k == RMC_OPT_BAD ? RMC_USAGE : rmc_unknown(cmd, argv[*i]);
	return -1;
}

/* The value of a shared option into its rmc_opts member; 1 when set, -1
 * after a usage error. */
static int set(rmc_opts *o, const rmc_optdef *d, const char *v)
{
	char q[96];
	uint64_t n;
	char *field = (char *)o + d->field;
	if (d->field == offsetof(rmc_opts, gpus_per_node)) {
		if (!rmc_parse_num(v, 1, MAX_GPUS_PER_NODE, &n))
			return rmc_usage("--gpus-per-node %s: expected a whole "
					 "number from 1 to %d",
					 rm_quote(v, strlen(v), q, sizeof(q)),
					 MAX_GPUS_PER_NODE), -1;
		o->gpus_per_node = (uint32_t)n;
	} else if (d->field == offsetof(rmc_opts, rank)) {
		if (!rmc_parse_num(v, 0, RM_MAX_WORLD - 1, &n))
			return rmc_usage("--rank %s: expected a whole number "
					 "below %u",
					 rm_quote(v, strlen(v), q, sizeof(q)),
					 RM_MAX_WORLD), -1;
		o->rank = (int64_t)n;
	} else if (d->field == offsetof(rmc_opts, master_port)) {
		if (!rmc_parse_num(v, 1, 65535, &n))
			return rmc_usage("--master-port %s: expected a TCP port "
					 "from 1 to 65535",
					 rm_quote(v, strlen(v), q, sizeof(q))), -1;
		o->master_port = (uint32_t)n;
	} else if (!d->value) {
		*(bool *)(void *)field = true;
	} else {
		const char **slot = (const char **)(void *)field;
		if (*slot)
			return rmc_usage("%s given twice", d->name), -1;
		*slot = v;
	}
	return 1;
}

static int add_baselines(rmc_opts *o, const char *v)
{
	char buf[128], q[96];
	if (strlen(v) >= sizeof(buf) || !*v)
		return rmc_usage("--baseline %s: expected kinds like slurm,"
				 "sorted", rm_quote(v, strlen(v), q, sizeof(q))),
		       -1;
	strcpy(buf, v);
	for (char *sv = NULL, *w = strtok_r(buf, ",", &sv); w;
	     w = strtok_r(NULL, ",", &sv)) {
		rm_baseline k;
		rm_error e;
		memset(&e, 0, sizeof(e));
		if (rm_baseline_parse(w, &k, &e))
			return rmc_usage("--baseline: %s", e.msg), -1;
		bool have = false;
		for (unsigned j = 0; j < o->nbaseline; j++)
			have |= o->baseline_kind[j] == k;
		if (!have)
			o->baseline_kind[o->nbaseline++] = k;
	}
	return 1;
}

int rmc_opt_baseline(rmc_opts *o, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	if (strncmp(arg, "--baseline", 10) || (arg[10] && arg[10] != '='))
		return 0;
	o->baseline = true;
	if (arg[10] == '=')
		return add_baselines(o, arg + 11);
	if (*i + 1 < argc && argv[*i + 1][0] != '-')
		return add_baselines(o, argv[++*i]);
	return add_baselines(o, "slurm");
}

bool rmc_baseline_plain(const rmc_opts *o)
{
	return o->nbaseline == 1 && o->baseline_kind[0] == RM_BASELINE_SLURM;
}

int rmc_opt(rmc_opts *o, unsigned mask, int argc, char **argv, int *i)
{
	const char *v;
	if (mask & RMC_O_BASELINE) {
		int r = rmc_opt_baseline(o, argc, argv, i);
		if (r)
			return r;
	}
	int k = rmc_opt_match(known, sizeof(known) / sizeof(known[0]), mask,
			      argc, argv, i, &v);
	if (k == RMC_OPT_NOT_OURS)
		return 0;
	return k >= 0 && set(o, &known[k], v) == 1 ? 1 : -1;
}

int rmc_command(const char *name, unsigned mask, int argc, char **argv,
		void (*help)(FILE *f),
		int (*run)(const rmc_opts *o, rmc_inputs *in))
{
	rmc_opts o;
	rmc_opts_init(&o);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return RMC_OK;
		}
		int r = rmc_opt(&o, mask, argc, argv, &i);
		if (r < 0)
			return RMC_USAGE;
		if (r == 0)
			return rmc_unknown(name, argv[i]);
	}
	rmc_inputs in;
	rmc_inputs_init(&in);
	int rc = run(&o, &in);
	rmc_flat_warning(&in, rc);
	rmc_order_warning(&in, rc);
	rmc_inputs_free(&in);
	return rc;
}

void rmc_inputs_init(rmc_inputs *in)
{
	memset(in, 0, sizeof(*in));
	in->site = NULL;
}

void rmc_inputs_free(rmc_inputs *in)
{
	rm_site_free(in->site);
	in->site = NULL;
	rm_fabric_free(in->fabric);
	rm_hostlist_clear(&in->nodes);
	free(in->topology);
	free(in->conf_order);
	memset(in, 0, sizeof(*in));
}

__attribute__((format(printf, 2, 3)))
static rm_status cli_err(rm_error *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return e->code = RM_EINPUT;
}

/* A topology.conf or topology.yaml; slurm.conf beside it (where Slurm
 * keeps both) names the partition's topology and the TopologyPlugin. */
static rm_status load_topology(const rmc_opts *o, const char *path,
			       rm_fabric *f, rm_error *e)
{
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path) + 1 : 0;
	char conf[4096];
	snprintf(conf, sizeof(conf), "%.*sslurm.conf", dir, path);
	if (o->partition && !rm_topology_is_yaml(path))
		return cli_err(e, "--partition picks one of a topology.yaml's "
			       "topologies; %.900s is a topology.conf", path);
	rm_slurm_topology t;
	rm_status st = rm_slurm_topology_find(conf, o->partition, path, &t, e);
	if (st)
		return st;
	if (o->partition && !t.partition_found)
		st = cli_err(e, "--partition %.100s: %.700s defines no such "
			     "partition, so its topology is unknown",
			     o->partition, conf);
	else
		st = rm_fabric_load_slurm_topology(f, &t, e);
	rm_slurm_topology_clear(&t);
	return st;
}

/*
 * Inside a job, with no --layout: the job's layout, order and GPUs per node
 * from its map (RANKMAP_MAP), so that `rankmap plan` alone plans what the
 * plugin planned for the step.
 */
static int job_defaults(const rmc_opts *o, rmc_inputs *in)
{
	const char *path = getenv("RANKMAP_MAP");
	if (o->layout || o->map || o->assignment || !path || !*path)
		return RMC_OK;
	rm_error e;
	memset(&e, 0, sizeof(e));
	rm_map *m = NULL;
	if (rm_map_read(path, &m, &e) != RM_OK) {
		rmc_prefix(stderr);
		fprintf(stderr, "warning: RANKMAP_MAP: %s: give --layout\n",
			e.msg);
		return RMC_OK;
	}
	const rm_order *ord = rm_map_order(m);
	rm_layout_format(rm_map_layout(m), in->job_layout,
			 sizeof(in->job_layout));
	if (!strcmp(ord->name, "custom"))
		rm_order_format(ord, in->job_order, sizeof(in->job_order));
	else if (strcmp(ord->name, "nest"))
		snprintf(in->job_order, sizeof(in->job_order), "%s",
			 ord->name);
	in->job_gpn = rm_map_gpus_per_node(m);
	rm_map_free(m);
	rmc_prefix(stderr);
	fprintf(stderr, "the job's layout %s, order %s, %u GPUs per node "
		"(from RANKMAP_MAP)\n", in->job_layout,
		in->job_order[0] ? in->job_order : "nest", in->job_gpn);
	return RMC_OK;
}

/*
 * The site's configuration as the SPANK plugin gets it (issue 37), unless
 * the command names a site or a topology, or says --no-site-config:
 * rankmap's plugstack.conf arguments, the topology slurmctld reads beside
 * slurm.conf (the job's partition's). Says which files it used.
 */
static int site_config(const rmc_opts *o, rmc_inputs *in,
		       rm_site_config *sc, rm_slurm_topology *t)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	if (o->site || o->topology || o->no_site_config)
		return RMC_OK;
	if (rm_site_config_find(NULL, sc, &e) != RM_OK)
		return rmc_fail(&e);
	if (!sc->slurm_conf)
		return RMC_OK;
	if (sc->site) {
		if (rm_site_load(sc->site, &in->site, &e) != RM_OK)
			return rmc_fail(&e);
		in->have_site = true;
	}
	const char *given = sc->topology ? sc->topology
			    : in->have_site ? rm_site_topology(in->site)
					    : NULL;
	const char *part = o->partition ? o->partition
					: getenv("SLURM_JOB_PARTITION");
	if (rm_slurm_topology_find(sc->slurm_conf, part, given, t, &e) !=
	    RM_OK)
		return rmc_fail(&e);
	if (sc->order && !(in->conf_order = strdup(sc->order)))
		return rmc_usage("out of memory");
	rmc_prefix(stderr);
	if (sc->plugstack)
		fprintf(stderr, "as the plugin: %s:%u (site %s, topology %s)\n",
			sc->plugstack, sc->line, sc->site ? sc->site : "none",
			t->path ? t->path : "none");
	else
		fprintf(stderr, "as slurmctld: topology %s (%s has no "
			"rankmap plugin line)\n", t->path ? t->path : "none",
			sc->slurm_conf);
	return RMC_OK;
}

int rmc_load_fabric(const rmc_opts *o, rmc_inputs *in)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	int rc = job_defaults(o, in);
	if (rc)
		return rc;
	if (o->site) {
		if (rm_site_load(o->site, &in->site, &e) != RM_OK)
			return rmc_fail(&e);
		in->have_site = true;
	}
	rm_site_config sc;
	rm_slurm_topology t;
	memset(&sc, 0, sizeof(sc));
	memset(&t, 0, sizeof(t));
	rc = site_config(o, in, &sc, &t);
	rm_site_config_clear(&sc);
	if (rc) {
		rm_slurm_topology_clear(&t);
		return rc;
	}
	uint32_t site_gpn = in->site ? rm_site_gpus_per_node(in->site) : 0;
	in->gpus_per_node = o->gpus_per_node ? o->gpus_per_node
			    : in->job_gpn     ? in->job_gpn
			    : site_gpn        ? site_gpn
					      : DEFAULT_GPUS_PER_NODE;
	if (t.path) {
		in->topology = strdup(t.path);
		if (!in->topology || rm_fabric_new(&in->fabric, &e) != RM_OK ||
		    rm_fabric_load_slurm_topology(in->fabric, &t, &e) != RM_OK ||
		    (in->have_site &&
		     rm_fabric_apply_site(in->fabric, in->site, &e) != RM_OK)) {
			rm_slurm_topology_clear(&t);
			return in->topology ? rmc_fail(&e)
					    : rmc_usage("out of memory");
		}
		rm_slurm_topology_clear(&t);
		return RMC_OK;
	}
	rm_slurm_topology_clear(&t);
	if (o->topology)
		in->topology = strdup(o->topology);
	else if (in->have_site && rm_site_topology(in->site))
		in->topology = strdup(rm_site_topology(in->site)); /* already rebased */
	if ((o->topology || (in->have_site && rm_site_topology(in->site))) &&
	    !in->topology)
		return rmc_usage("out of memory");
	if (!in->topology && !in->have_site) {
		in->flat = true;
		return RMC_OK;
	}
	if (rm_fabric_new(&in->fabric, &e) != RM_OK ||
	    (in->topology && load_topology(o, in->topology, in->fabric, &e)) ||
	    (in->have_site &&
	     rm_fabric_apply_site(in->fabric, in->site, &e) != RM_OK))
		return rmc_fail(&e);
	/* What slurmctld accepts with a warning, rankmap says too. */
	for (const char *w = rm_fabric_warnings(in->fabric); w && *w;) {
		const char *nl = strchr(w, '\n');
		int n = nl ? (int)(nl - w) : (int)strlen(w);
		rmc_prefix(stderr);
		fprintf(stderr, "warning: %.*s\n", n, w);
		w += n + (nl ? 1 : 0);
	}
	return RMC_OK;
}

void rmc_flat_warning(const rmc_inputs *in, int rc)
{
	/* After the output, and only when there was one: an input error stays
	 * the one line on stderr. */
	if (!in->flat || rc == RMC_USAGE)
		return;
	rmc_prefix(stderr);
	fputs("warning: no topology (--topology or a site file): all nodes "
	      "are treated as one flat switch\n", stderr);
}

int rmc_load_layout(const rmc_opts *o, rmc_inputs *in)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	const char *layout = o->layout ? o->layout
			     : in->job_layout[0] ? in->job_layout : NULL;
	if (!layout)
		return rmc_usage("--layout is required (e.g. --layout 8x16x128)");
	if (rm_layout_parse(layout, &in->layout, &e) != RM_OK)
		return rmc_fail(&e);
	/* plugstack.conf's order= before the site file's, as the plugin
	 * takes them */
	const char *order = o->order;
	if (!order && !o->layout && in->job_layout[0])
		order = in->job_order[0] ? in->job_order : NULL;
	else if (!order && in->conf_order)
		order = in->conf_order;
	else if (!order && in->have_site && rm_site_order(in->site)[0])
		order = rm_site_order(in->site);
	if (rm_order_parse(order, &in->layout, &in->order, &e) != RM_OK)
		return rmc_fail(&e);
	in->nest_order = !order;
	return RMC_OK;
}

void rmc_order_warning(const rmc_inputs *in, int rc)
{
	/* Only a numbering with two axes larger than 1 can disagree with
	 * the framework's. */
	unsigned big = 0;
	for (unsigned i = 0; i < in->order.naxes && i < RM_NAXES; i++)
		big += in->layout.size[in->order.axis[i]] > 1 ||
		       (in->order.axis[i] == RM_AXIS_DP && in->layout.dp_auto);
	if (!in->nest_order || rc == RMC_USAGE || big < 2)
		return;
	char perm[64];
	rm_order_format(&in->order, perm, sizeof(perm));
	rmc_prefix(stderr);
	fprintf(stderr,
		"warning: no --order and no site default: ranks are numbered "
		"in the layout's nesting order %s, which is not Megatron's "
		"default (tp-cp-ep-dp-pp); give --order megatron, llama3 or "
		"torchtitan to match the framework\n", perm);
}

static int append(rm_hostlist *all, rm_hostlist *more)
{
	if (more->n > RM_MAX_HOSTS - all->n)
		return rmc_usage("more than %u nodes", RM_MAX_HOSTS);
	char **p = realloc(all->host, (all->n + more->n + 1) * sizeof(char *));
	if (!p)
		return rmc_usage("out of memory");
	all->host = p;
	memcpy(all->host + all->n, more->host, more->n * sizeof(char *));
	all->n += more->n;
	free(more->host);
	more->host = NULL;
	more->n = 0;
	return RMC_OK;
}

/* One host or hostlist expression per line; '#' starts a comment. */
static int nodes_file(const char *path, rm_hostlist *out)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	char *text;
	size_t len;
	if (rm_file_read(path, &text, &len, &e) != RM_OK)
		return rmc_fail(&e);
	int rc = RMC_OK;
	unsigned long line = 0;
	for (size_t pos = 0; pos < len && rc == RMC_OK;) {
		char *s = text + pos;
		char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + 1;
		line++;
		char *hash = memchr(s, '#', n);
		if (hash)
			n = (size_t)(hash - s);
		size_t b = 0;
		while (b < n && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r'))
			b++;
		while (n > b && (s[n - 1] == ' ' || s[n - 1] == '\t' ||
				 s[n - 1] == '\r'))
			n--;
		if (b == n)
			continue;
		if (memchr(s + b, '\0', n - b)) {
			rc = rmc_usage("%s:%lu: NUL byte: not a text file",
				       path, line);
			break;
		}
		char *expr = strndup(s + b, n - b);
		if (!expr) {
			rc = rmc_usage("out of memory");
			break;
		}
		rm_hostlist hl = { 0 };
		if (rm_hostlist_parse(expr, &hl, &e) != RM_OK) {
			rc = rmc_usage("%s:%lu:%zu: %s", path, line, b + 1,
				       e.msg);
		} else {
			rc = append(out, &hl);
		}
		rm_hostlist_clear(&hl);
		free(expr);
	}
	free(text);
	if (rc == RMC_OK && !out->n)
		rc = rmc_usage("%s: no nodes in the file", path);
	return rc;
}

int rmc_load_nodes(const rmc_opts *o, rmc_inputs *in, bool required)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	if (o->nodes && o->nodes_file)
		return rmc_usage("give --nodes or --nodes-file, not both");
	if (o->nodes_file)
		return nodes_file(o->nodes_file, &in->nodes);
	const char *expr = o->nodes, *from = "--nodes";
	if (!expr && (expr = getenv("SLURM_STEP_NODELIST")))
		from = "SLURM_STEP_NODELIST";
	if (!expr && (expr = getenv("SLURM_JOB_NODELIST")))
		from = "SLURM_JOB_NODELIST";
	if (!expr) {
		if (!required)
			return RMC_OK;
		return rmc_usage("no nodes: give --nodes HOSTLIST or "
				 "--nodes-file F, or run inside a Slurm job");
	}
	if (rm_hostlist_parse(expr, &in->nodes, &e) != RM_OK)
		return rmc_usage("%s: %s", from, e.msg);
	if (!in->nodes.n)
		return rmc_usage("%s: no nodes", from);
	return RMC_OK;
}

/* Write to what is already at `path` - a device (/dev/null, /dev/stdout)
 * or a FIFO - instead of renaming a regular file over it: as root, the
 * rename would replace /dev/null itself with a file. */
static int output_special(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return rmc_usage("%s: %s", path, strerror(errno));
	bool ok = fwrite(data, 1, len, f) == len;
	int e = errno;
	if (fclose(f) != 0 && ok) {
		ok = false;
		e = errno;
	}
	return ok ? RMC_OK : rmc_usage("%s: %s", path, strerror(e));
}

int rmc_output(const char *path, const char *data, size_t len)
{
	if (!path || !strcmp(path, "-")) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout))
			return rmc_usage("writing the output: %s",
					 strerror(errno));
		return RMC_OK;
	}
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		if (S_ISDIR(sb.st_mode))
			return rmc_usage("%s: is a directory", path);
		return output_special(path, data, len);
	}
	size_t n = strlen(path);
	char *tmp = malloc(n + 16);
	if (!tmp)
		return rmc_usage("out of memory");
	memcpy(tmp, path, n);
	/* mkstemp's template: ".tmp." and six 'X' it replaces. */
	memcpy(tmp + n, ".tmp.", 5);
	memset(tmp + n + 5, 'X', 6);
	tmp[n + 11] = '\0';
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int rc = rmc_usage("%s: cannot create a temporary file: %s",
				   path, strerror(errno));
		free(tmp);
		return rc;
	}
	/* mkstemp makes 0600; a map is for every node and user to read. */
	mode_t mask = umask(0);
	umask(mask);
	const char *p = data;
	size_t left = len;
	int err = 0;
	while (left && !err) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			err = w < 0 ? errno : EIO;
		else
			p += w, left -= (size_t)w;
	}
	if (!err && fchmod(fd, 0644 & ~mask) != 0)
		err = errno;
	if (!err && fsync(fd) != 0)
		err = errno;
	if (close(fd) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) != 0)
		err = errno;
	if (err) {
		unlink(tmp);
		free(tmp);
		return rmc_usage("%s: %s", path, strerror(err));
	}
	free(tmp);
	return RMC_OK;
}
