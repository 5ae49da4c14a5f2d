/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_plan.c - `rankmap plan`: compute the rank map for a job. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
	fputs("usage: rankmap plan [--layout L] [--order O]\n"
	      "         (--nodes HOSTLIST | --nodes-file F | Slurm env)\n"
	      "         [--topology F [--partition P]] [--site F] [--no-site-config]\n"
	      "         [--gpus-per-node N]\n"
	      "         [--allow-missing] [--baseline [KIND]] [-o FILE]\n"
	      "         [--format text|json|yaml|csv|env|hostfile|\n"
	      "                   deepspeed-hostfile|html|svg]\n"
	      "         [--rank N | --task HOST:LOCALID | --slurm-task]\n"
	      "         [--master-port N]\n\n"
	      "  --layout L         8x16x128 (TP x PP x DP, innermost first) or\n"
	      "                     tp=8,cp=2,pp=4,dp=auto; default inside a\n"
	      "                     job: its map's (RANKMAP_MAP), with its order\n"
	      "                     and GPUs per node\n"
	      "  --order O          rank numbering: megatron, llama3, torchtitan\n"
	      "                     or a permutation like tp-dp-pp (default: the\n"
	      "                     site's order, else the layout's nesting)\n"
	      "  --nodes HOSTLIST   the allocation, e.g. gpu[001-128]; default\n"
	      "                     SLURM_STEP_NODELIST, then SLURM_JOB_NODELIST\n"
	      "  --nodes-file F     one host or hostlist per line, '#' comments\n"
	      "  --topology F       Slurm topology.conf or topology.yaml (default:\n"
	      "                     the site's)\n"
	      "  --partition P      with a topology.yaml: the topology of partition\n"
	      "                     P (Topology= in slurm.conf beside the file);\n"
	      "                     default: the cluster_default topology\n"
	      "  --site F           site file (rankmap-site/1 YAML)\n"
	      "  --no-site-config   without --site or --topology, the site's\n"
	      "                     configuration is what the SPANK plugin gets:\n"
	      "                     rankmap's plugstack.conf line (slurm.conf from\n"
	      "                     SLURM_CONF, else /etc/slurm) and the topology\n"
	      "                     beside slurm.conf; this option plans without\n"
	      "                     them\n"
	      "  --gpus-per-node N  default: the site's, else 8\n"
	      "  --allow-missing    nodes absent from the topology get a leaf of\n"
	      "                     their own instead of an error\n"
	      "  --baseline [KIND]  plan what a job gets without rankmap: Slurm's\n"
	      "                     block distribution over the nodes in the order\n"
	      "                     slurm (default: as given), sorted (by pod,\n"
	      "                     leaf, name) or switch-rank (Slurm's\n"
	      "                     SwitchAsNodeRank); html, svg: drawn beside\n"
	      "                     the plan, several kinds side by side\n"
	      "  -o FILE            write atomically to FILE instead of stdout\n"
	      "  --format F         text (default), json, yaml, csv, env; html\n"
	      "                     (interactive page) or svg: a picture; or\n"
	      "                     hostfile (one host per rank: SLURM_HOSTFILE\n"
	      "                     for srun's arbitrary distribution), or\n"
	      "                     deepspeed-hostfile (\"host slots=N\" lines in\n"
	      "                     the map's node order, for deepspeed -H)\n"
	      "  --rank N           with --format env: the variables of map rank N\n"
	      "  --task HOST:ID     with --format env: those of the task that is\n"
	      "                     local task ID on HOST (it plays the GPU of\n"
	      "                     that index); exit 3 when it plays no rank\n"
	      "  --slurm-task       --task $SLURMD_NODENAME:$SLURM_LOCALID\n"
	      "  --master-port N    with --format env: MASTER_PORT=N (1-65535);\n"
	      "                     default: the plugin's port for the step\n"
	      "                     (first of SLURM_STEP_RESV_PORTS, else from\n"
	      "                     SLURM_JOB_ID and SLURM_STEP_ID; 20000 with\n"
	      "                     neither)\n\n"
	      "exit: 0 all must-rules hold, 1 one fails, 2 usage or input error,\n"
	      "      3 the task plays no rank (spare node or idle GPU)\n",
	      f);
}

enum { PLAN_IDLE = 3 };

/* HOST:LOCALID, from --task or Slurm's task environment. */
static int task_spec(const rmc_opts *o, char *host, size_t n, uint32_t *local)
{
	char q[96];
	const char *spec = o->task, *id;
	size_t hlen;
	if (o->slurm_task) {
		spec = getenv("SLURMD_NODENAME");
		id = getenv("SLURM_LOCALID");
		if (!spec || !*spec || !id)
			return rmc_usage("--slurm-task needs SLURMD_NODENAME and "
					 "SLURM_LOCALID (run it inside srun)");
		hlen = strlen(spec);
	} else {
		const char *colon = strrchr(spec, ':');
		if (!colon || colon == spec)
			return rmc_usage("--task %s: expected HOST:LOCALID",
					 rm_quote(spec, strlen(spec), q,
						   sizeof(q)));
		hlen = (size_t)(colon - spec);
		id = colon + 1;
	}
	char *end = NULL;
	unsigned long v = strtoul(id, &end, 10);
	if (!*id || *end || *id < '0' || *id > '9' || v > 1023)
		return rmc_usage("task local id %s: expected a number below "
				 "1024", rm_quote(id, strlen(id), q, sizeof(q)));
	if (hlen >= n)
		return rmc_usage("task host name longer than %zu bytes", n - 1);
	memcpy(host, spec, hlen);
	host[hlen] = '\0';
	*local = (uint32_t)v;
	return RMC_OK;
}

/* A Slurm id from the environment; absent is 0, as for a job and step
 * that do not exist, so that outside Slurm the port is still defined. */
static int slurm_id(const char *name, uint32_t *id)
{
	char q[96];
	const char *v = getenv(name);
	uint64_t n = 0;
	*id = 0;
	if (!v || !*v)
		return RMC_OK;
	if (!rmc_parse_num(v, 0, UINT32_MAX, &n))
		return rmc_usage("%s=%s: expected a whole number (or give "
				 "--master-port)", name,
				 rm_quote(v, strlen(v), q, sizeof(q)));
	*id = (uint32_t)n;
	return RMC_OK;
}

/* MASTER_PORT: --master-port, else the plugin's rule for this step, so
 * that tasks started with and without the plugin meet on one port. */
static int master_port(const rmc_opts *o, uint32_t *port)
{
	uint32_t job, step;
	int rc;
	*port = o->master_port;
	if (*port)
		return RMC_OK;
	if ((rc = slurm_id("SLURM_JOB_ID", &job)) ||
	    (rc = slurm_id("SLURM_STEP_ID", &step)))
		return rc;
	/* The node's ephemeral ports, read as the plugin reads them; Linux's
	 * default where /proc says nothing usable. */
	uint32_t lo = RM_EPHEMERAL_LO, hi = RM_EPHEMERAL_HI;
	char line[64];
	rm_error e;
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
	if (f && fgets(line, sizeof(line), f) &&
	    rm_port_range_parse(line, &lo, &hi, &e) != RM_OK) {
		lo = RM_EPHEMERAL_LO;
		hi = RM_EPHEMERAL_HI;
	}
	if (f)
		fclose(f);
	/* Slurm's reserved ports (MpiParams=ports) from the slurm.conf srun
	 * reads, as the plugin reads it on the nodes. */
	const char *conf = getenv("SLURM_CONF");
	uint32_t mlo = 0, mhi = 0;
	if (rm_slurm_mpi_ports(conf && *conf ? conf : "/etc/slurm/slurm.conf",
			       &mlo, &mhi, &e) != RM_OK)
		return rmc_fail(&e);
	*port = rm_master_port_avoiding(job, step,
					getenv("SLURM_STEP_RESV_PORTS"), lo,
					hi, mlo, mhi);
	return RMC_OK;
}

/* The map rank the task plays, or PLAN_IDLE with a message. */
static int task_rank(const rm_map *map, const rmc_opts *o, int64_t *rank)
{
	char host[RM_MAX_HOSTNAME + 1], q[96];
	uint32_t local = 0;
	int rc = task_spec(o, host, sizeof(host), &local);
	if (rc)
		return rc;
	int64_t h = rm_map_host_index(map, host);
	if (h < 0) {
		for (uint32_t i = 0; i < rm_map_spare_count(map); i++)
			if (!strcmp(rm_map_spare(map, i), host)) {
				rmc_prefix(stderr);
				fprintf(stderr, "%s is a spare node: its tasks "
					"play no rank\n", host);
				return PLAN_IDLE;
			}
		return rmc_usage("task host %s is not in the allocation",
				 rm_quote(host, strlen(host), q, sizeof(q)));
	}
	if (local >= rm_map_gpus_per_node(map))
		return rmc_usage("task local id %u: nodes have %u GPUs", local,
				 rm_map_gpus_per_node(map));
	*rank = rm_map_rank_at(map, (uint32_t)h, local);
	if (*rank < 0) {
		rmc_prefix(stderr);
		fprintf(stderr, "GPU %u of %s plays no rank (idle)\n", local,
			host);
		return PLAN_IDLE;
	}
	return RMC_OK;
}

static int plan(const rmc_opts *o, rmc_inputs *in)
{
	rm_format fmt = RM_FMT_TEXT;
	rm_error e;
	memset(&e, 0, sizeof(e));
	bool hostfile = o->format && !strcmp(o->format, "hostfile");
	bool dshost = o->format && !strcmp(o->format, "deepspeed-hostfile");
	/* plan writes two formats of its own beside the library's */
	if (o->format && !hostfile && !dshost &&
	    rm_format_parse(o->format, &fmt, &e) != RM_OK)
		return rmc_usage("unknown format '%.60s' (known: text, json, yaml, "
				 "csv, env, hostfile, deepspeed-hostfile, html, "
				 "svg)", o->format);
	unsigned who = (o->rank >= 0) + (o->task != NULL) + o->slurm_task;
	if (who > 1)
		return rmc_usage("give one of --rank, --task, --slurm-task");
	if ((who || o->master_port) && (fmt != RM_FMT_ENV || hostfile || dshost))
		return rmc_usage("%s goes with --format env",
				 o->rank >= 0    ? "--rank"
				 : o->task       ? "--task"
				 : o->slurm_task ? "--slurm-task"
						 : "--master-port");
	uint32_t port = 0;
	int rc;
	if (fmt == RM_FMT_ENV && (rc = master_port(o, &port)))
		return rc;
	/* inside a job the job's map gives it (rmc_load_fabric) */
	const char *job_map = getenv("RANKMAP_MAP");
	if (!o->layout && !(job_map && *job_map))
		return rmc_usage("--layout is required (e.g. --layout 8x16x128)");
	if ((rc = rmc_load_fabric(o, in)) || (rc = rmc_load_layout(o, in)) ||
	    (rc = rmc_load_nodes(o, in, true)))
		return rc;
	rm_plan_options po = RM_PLAN_OPTIONS_INIT;
	po.layout = &in->layout;
	po.order = &in->order;
	po.nodes = (const char *const *)in->nodes.host;
	po.nnodes = in->nodes.n;
	po.gpus_per_node = in->gpus_per_node;
	po.fabric = in->fabric;
	po.allow_missing = o->allow_missing ||
			   (in->site && rm_site_allow_missing_nodes(in->site));
	rm_map *map = NULL, *base[RM_BASELINE_COUNT] = { 0 };
	bool picture = fmt == RM_FMT_HTML || fmt == RM_FMT_SVG;
	unsigned nb = o->baseline ? o->nbaseline : 0;
	if (nb > 1 && !picture)
		return rmc_usage("--baseline: plan writes one map; give one "
				 "kind, or --format html|svg to draw them all "
				 "(explain and check compare several)");
	/* A picture puts the baselines beside the plan of the same job. */
	po.baseline = nb && !picture;
	po.baseline_kind = nb ? o->baseline_kind[0] : RM_BASELINE_SLURM;
	if (rm_plan(&po, &map, &e) != RM_OK)
		return rmc_fail(&e);
	po.baseline = true;
	for (unsigned i = 0; picture && i < nb; i++) {
		po.baseline_kind = o->baseline_kind[i];
		if (rm_plan(&po, &base[i], &e) != RM_OK) {
			rm_map_free(map);
			for (unsigned j = 0; j < i; j++)
				rm_map_free(base[j]);
			return rmc_fail(&e);
		}
	}
	char *text = NULL;
	size_t len = 0;
	rm_status st;
	int64_t rank = o->rank;
	if (o->task || o->slurm_task) {
		if ((rc = task_rank(map, o, &rank))) {
			rm_map_free(map);
			return rc;
		}
	}
	if (hostfile) {
		st = rm_map_write_hostfile(map, &text, &len, &e);
	} else if (dshost) {
		st = rm_map_write_deepspeed_hostfile(map, &text, &len, &e);
	} else if (picture) {
		rm_picture_options pic = RM_PICTURE_OPTIONS_INIT;
		pic.format = fmt;
		pic.fabric = in->fabric;
		pic.baselines = (const rm_map *const *)base;
		pic.baseline_kinds = o->baseline_kind;
		pic.nbaselines = nb;
		st = rm_map_picture(map, &pic, &text, &len, &e);
		for (unsigned i = 0; i < nb; i++)
			rm_map_free(base[i]);
	} else if (fmt == RM_FMT_ENV) {
		st = rm_map_write_env(map, rank, port, &text, &len, &e);
	} else {
		st = rm_map_write(map, fmt, &text, &len, &e);
	}
	bool ok = rm_report_count(rm_map_report(map), RM_REPORT_MUST_OK);
	rm_map_free(map);
	if (st != RM_OK)
		return rmc_fail(&e);
	rc = rmc_output(o->output, text, len);
	free(text);
	if (rc)
		return rc;
	return ok ? RMC_OK : RMC_RULE_FAILED;
}

int rmc_plan(int argc, char **argv)
{
	const unsigned mask = RMC_O_LAYOUT | RMC_O_ORDER | RMC_O_NODES |
			      RMC_O_TOPOLOGY | RMC_O_SITE | RMC_O_SITECONF |
			      RMC_O_GPN |
			      RMC_O_MISSING | RMC_O_BASELINE | RMC_O_OUTPUT |
			      RMC_O_FORMAT | RMC_O_RANK | RMC_O_PORT;
	return rmc_command("plan", mask, argc, argv, help, plan);
}
