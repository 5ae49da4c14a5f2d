/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_explain.c - `rankmap explain`: what a layout costs, axis by axis. */
#include "cmd_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
	fputs("usage: rankmap explain --model M --layout L [--gpus N] [--hw H]\n"
	      "         [--batch TOKENS] [--seq N] [--micro-batch N]\n"
	      "         [--schedule S] [--recompute R] [--sharding S]\n"
	      "         [--tokens N] [--set KEY=VALUE]... [--format text|json]\n\n"
	      "  --model M        llama3-8b, llama3-70b, llama3-405b, gpt3-175b;\n"
	      "                   mixture of experts: mixtral-8x7b, mixtral-8x22b,\n"
	      "                   deepseek-v3, qwen3-235b-a22b, llama4-maverick;\n"
	      "                   or a model YAML file\n"
	      "  --hw H           h100-sxm-80gb, a100-sxm-80gb, h200, gb200-nvl72\n"
	      "                   or a hardware YAML file (default: the site's\n"
	      "                   defaults.hw, else h100-sxm-80gb)\n"
	      "  --layout L       8x16x128 (TP x PP x DP) or tp=8,cp=2,pp=16,dp=auto;\n"
	      "                   experts: tp=2,ep=8,etp=1,pp=4,dp=auto\n"
	      "  --gpus N         GPU count (default: the layout's product)\n"
	      "  --batch TOKENS   global batch, K/M/G = 2^10/2^20/2^30 (default 4M)\n"
	      "  --seq N          sequence length (default: the model's)\n"
	      "  --micro-batch N  sequences per micro-batch (default 1)\n"
	      "  --schedule S     1f1b (default), interleaved:V, zb-h1, zb-h2, zb-v\n"
	      "  --recompute R    none, selective (default), full\n"
	      "  --sharding S     none, zero1 (default: Megatron's distributed\n"
	      "                   optimizer), zero2, fsdp\n"
	      "  --tokens N       a training budget, K/M/G/T = 1e3/1e6/1e9/1e12\n"
	      "                   (15.6T): total FLOPs, steps and days\n"
	      "  --set KEY=VALUE  grad_bytes (4), flash (on), seq_parallel (on),\n"
	      "                   first_layers, last_layers (an even share),\n"
	      "                   recompute_layers (full on K layers per chunk),\n"
	      "                   dp_overlap (1.0), tp_overlap (the GPU's), mem_reserve_gib (4),\n"
	      "                   fail_per_gpu_day (4.74e-4), ckpt_write_s (60),\n"
	      "                   restart_s (600), moe_overlap (0: EP all-to-alls\n"
	      "                   exposed), moe_imbalance (1.0: balanced routing),\n"
	      "                   fp8 (off; hybrid, e4m3), fp8_recipe (delayed;\n"
	      "                   current, mxfp8, nvfp4), fp8_params (off),\n"
	      "                   fp8_dispatch (off), fp8_eff (the GPU's);\n"
	      "                   at scale (0): coll_base_us, coll_hop_us, jitter,\n"
	      "                   data_s;\n"
	      "                   the GPU's calibration: gemm_eff,\n"
	      "                   gemm_dim0, attn_eff, hbm_eff, nvlink_eff, net_eff\n"
	      "  --nodes HOSTLIST, --nodes-file F, --topology F, --site F,\n"
	      "  --no-site-config, --gpus-per-node N, --order O, --allow-missing\n"
	      "                   plan the map as `rankmap plan` does and put each\n"
	      "                   axis on the links the map really uses\n"
	      "  --baseline [KINDS]\n"
	      "                   also price what a job gets without rankmap\n"
	      "                   (what `plan --baseline` builds), side by side:\n"
	      "                   slurm (default: Slurm's order), sorted (a\n"
	      "                   hostfile sorted by pod, leaf, name), switch-rank\n"
	      "                   (Slurm's SwitchAsNodeRank); several: slurm,sorted\n"
	      "  --map F, --assignment F\n"
	      "                   also price a map file or a \"rank host gpu\" table\n"
	      "                   (the nodes default to the map's) against the plan,\n"
	      "                   or with --baseline against Slurm's order\n\n"
	      "exit: 0 the layout fits, 1 it does not fit memory, 2 usage or input error\n",
	      f);
}

/* One line naming the option and its value; the usage only with --help. */
static int bad(const char *name, const char *v, const char *want)
{
	char q[96];
	return rmc_usage("%s %s: %s", name, rm_quote(v, strlen(v), q,
						      sizeof(q)), want);
}

static int fail(const rm_error *e)
{
	rmc_prefix(stderr);
	fprintf(stderr, "%s\n", e->msg);
	return RMC_USAGE;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return false;
	*out = v;
	return true;
}

/* The options the model commands add to the shared ones: the model and
 * its run (M_RUN: explain, suggest, check), the GPU count (M_GPUS: not
 * check, whose map has one), those only suggest has and those only
 * explain has (M_EXPLAIN: a token budget); all take a value. */
enum { M_RUN = 1, M_GPUS = 2, M_SUGGEST = 4, M_EXPLAIN = 8 };
static const rmc_optdef model_opts[] = {
	{ "--model", true, M_RUN, 0 }, { "--hw", true, M_RUN, 0 },
	{ "--hardware", true, M_RUN, 0 }, { "--gpus", true, M_GPUS, 0 },
	{ "--set", true, M_RUN, 0 }, { "--batch", true, M_RUN, 0 },
	{ "--seq", true, M_RUN, 0 }, { "--micro-batch", true, M_RUN, 0 },
	{ "--schedule", true, M_RUN, 0 }, { "--recompute", true, M_RUN, 0 },
	{ "--sharding", true, M_RUN, 0 }, { "--tokens", true, M_EXPLAIN, 0 },
	{ "--top", true, M_SUGGEST, 0 },
	{ "--max-cp", true, M_SUGGEST, 0 }, { "--max-mb", true, M_SUGGEST, 0 },
	{ "--around", true, M_SUGGEST, 0 },
	{ "--schedules", true, M_SUGGEST, 0 },
};

/* Options that set one rm_train key each (calibrate takes them too). */
const rmc_train_opt rmc_train_opts[] = {
	{ "--batch", "batch" }, { "--seq", "seq" }, { "--micro-batch", "mb" },
	{ "--schedule", "schedule" }, { "--recompute", "recompute" },
	{ "--sharding", "sharding" }, { "--tokens", "tokens" }, { NULL, NULL },
};

static int own_opt(rmc_model_args *a, bool suggest, const char *name,
		   const char *v)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	uint64_t n;
	if (strcmp(name, "--model") && !a->train_given)
		a->train_given = name;
	for (size_t k = 0; rmc_train_opts[k].name; k++)
		if (!strcmp(name, rmc_train_opts[k].name)) {
			if (!strcmp(name, "--recompute"))
				a->recompute_given = true;
			a->batch_given |= !strcmp(name, "--batch");
			a->sharding_given |= !strcmp(name, "--sharding");
			return rm_train_set(&a->train, rmc_train_opts[k].key, v, &e)
				       ? fail(&e) : -1;
		}
	if (!strcmp(name, "--model")) {
		a->model_spec = v;
	} else if (!strcmp(name, "--hw") || !strcmp(name, "--hardware")) {
		a->hw_spec = v;
	} else if (!strcmp(name, "--gpus")) {
		if (!parse_u64(v, RM_MAX_WORLD, &a->gpus))
			return bad(name, v, "expected a GPU count from 1 to "
				   "2^24");
	} else if (!strcmp(name, "--set")) {
		char key[64];
		const char *eq = strchr(v, '=');
		if (!eq || eq == v || (size_t)(eq - v) >= sizeof(key))
			return bad(name, v, "expected KEY=VALUE");
		memcpy(key, v, (size_t)(eq - v));
		key[eq - v] = '\0';
		if (!strcmp(key, "recompute"))
			a->recompute_given = true;
		a->batch_given |= !strcmp(key, "batch");
		a->sharding_given |= !strcmp(key, "sharding");
		if (rm_train_set(&a->train, key, eq + 1, &e))
			return fail(&e);
	} else if (suggest && (!strcmp(name, "--top") ||
			       !strcmp(name, "--max-cp") ||
			       !strcmp(name, "--max-mb"))) {
		if (!parse_u64(v, 1024, &n))
			return bad(name, v, "expected a count from 1 to 1024");
		if (!strcmp(name, "--top"))
			a->top = (uint32_t)n;
		else if (!strcmp(name, "--max-cp"))
			a->max_cp = (uint32_t)n;
		else
			a->max_mb = (uint32_t)n;
	} else if (suggest && !strcmp(name, "--around")) {
		a->around = v;
	} else if (suggest && !strcmp(name, "--schedules")) {
		/* comma list of schedule names; interleaved covers every v */
		char buf[128];
		snprintf(buf, sizeof(buf), "%s", v);
		a->schedules = 0;
		for (char *sv = NULL, *w = strtok_r(buf, ",", &sv); w;
		     w = strtok_r(NULL, ",", &sv)) {
			rm_train tmp;
			rm_train_init(&tmp, RM_TRAIN_VERSION);
			if (rm_train_set(&tmp, "schedule", w, &e))
				return fail(&e);
			a->schedules |= 1u << tmp.schedule;
		}
		if (!a->schedules)
			return bad(name, v, "expected a list like "
				   "1f1b,interleaved");
	} else {
		return -2;
	}
	return -1;
}

/* The shared options each model command takes (rmc_opt's mask). */
static unsigned common_mask(rmc_model_cmd cmd)
{
	const unsigned fabric = RMC_O_NODES | RMC_O_TOPOLOGY | RMC_O_SITE |
				RMC_O_SITECONF |
				RMC_O_GPN | RMC_O_MISSING | RMC_O_BASELINE |
				RMC_O_MAP | RMC_O_LAYOUT | RMC_O_ORDER;
	switch (cmd) {
	case RMC_SUGGEST: return RMC_O_FORMAT;
	case RMC_CHECK: return RMC_O_FORMAT | RMC_O_OUTPUT | fabric;
	default: return RMC_O_FORMAT | fabric;
	}
}

/* What prices until a site says otherwise (rmc_model_site_hw): --hw, else
 * the default. Loaded while parsing, so a bad --hw is told before any
 * fabric is read. */
static const char *hw_spec(const rmc_model_args *a)
{
	return a->hw_spec ? a->hw_spec : RMC_DEFAULT_HW;
}

int rmc_model_parse(int argc, char **argv, rmc_model_cmd cmd,
		    rmc_model_args *a, void (*h)(FILE *))
{
	bool suggest = cmd == RMC_SUGGEST;
	memset(a, 0, sizeof(*a));
	a->model = (rm_model)RM_MODEL_INIT;
	a->hw = (rm_hw)RM_HW_INIT;
	rm_train_init(&a->train, RM_TRAIN_VERSION);
	rmc_opts_init(&a->common);
	a->hw_spec = NULL;
	rm_error e;
	memset(&e, 0, sizeof(e));
	unsigned mask = common_mask(cmd);
	const char *name = cmd == RMC_SUGGEST ? "suggest" :
			   cmd == RMC_CHECK ? "check" : "explain";
	unsigned own = M_RUN | (cmd == RMC_CHECK ? 0 : M_GPUS) |
		       (suggest ? M_SUGGEST : 0) |
		       (cmd == RMC_EXPLAIN ? M_EXPLAIN : 0);
	for (int i = 1; i < argc; i++) {
		/* the shared options first: -h and --help are none of them */
		int r = rmc_opt(&a->common, mask, argc, argv, &i);
		if (r < 0)
			return RMC_USAGE;
		if (r > 0)
			continue;
		const char *v;
		int rc;
		int k = rmc_opt_own(model_opts,
				    sizeof(model_opts) / sizeof(model_opts[0]),
				    own, name, h, argc, argv, &i, &v, &rc);
		if (k < 0)
			return rc;
		rc = own_opt(a, suggest, model_opts[k].name, v);
		if (rc >= 0)
			return rc;
	}
	if (cmd == RMC_CHECK && !a->model_spec && a->train_given)
		return rmc_usage("%s prices the map with a model: give --model "
				 "too (e.g. --model llama3-8b)", a->train_given);
	if (cmd == RMC_CHECK)
		/* check parses its own formats and loads its own inputs */
		return a->model_spec && (rm_model_get(a->model_spec, &a->model,
						      &e) ||
					 rm_hw_get(hw_spec(a), &a->hw, &e))
			       ? fail(&e) : -1;
	if (!a->model_spec)
		return rmc_usage("--model is required (e.g. --model "
				 "llama3-8b)");
	if (suggest && !a->gpus)
		return rmc_usage("--gpus is required (e.g. --gpus 1024)");
	if (!suggest && !a->common.layout)
		return rmc_usage("--layout is required (e.g. --layout "
				 "8x16x128)");
	a->fmt = RM_FMT_TEXT;
	const char *fmt = a->common.format;
	if (fmt && (rm_format_parse(fmt, &a->fmt, &e) ||
		    (a->fmt != RM_FMT_TEXT && a->fmt != RM_FMT_JSON)))
		return bad("--format", fmt, "expected text or json");
	if (rm_model_get(a->model_spec, &a->model, &e) ||
	    rm_hw_get(hw_spec(a), &a->hw, &e))
		return fail(&e);
	return -1;
}

int rmc_model_site_hw(rmc_model_args *a, const rm_site *site)
{
	const char *hw = rm_site_hw(site);
	if (a->hw_spec || !hw[0])
		return RMC_OK;
	rm_error e;
	memset(&e, 0, sizeof(e));
	/* A preset only, never rm_hw_get: the site's value is a name the
	 * site reader checked, not a path to open. */
	rm_hw h = RM_HW_INIT;
	if (rm_hw_preset(hw, &h, &e))
		return rmc_usage("%s: defaults.hw: %s", rm_site_path(site),
				 e.msg);
	a->hw = h;
	return RMC_OK;
}

/* The map file (--map) or user's assignment (--assignment) to price. */
static int given_map(const rmc_opts *o, const rmc_inputs *in, rm_map **out)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	rm_status st = o->map ? rm_map_read(o->map, out, &e)
			      : rm_map_read_assignment(o->assignment,
						       &in->layout, &in->order,
						       in->gpus_per_node, out,
						       &e);
	return st ? rmc_fail(&e) : RMC_OK;
}

static int by_host(const void *a, const void *b)
{
	return rm_host_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* The allocation of a comparison without --nodes: the hosts (and spares)
 * of the map it compares with, in the order Slurm lists an allocation
 * (its hostlists are sorted), which is what Slurm's order numbers. */
static int nodes_of(const rm_map *m, rmc_inputs *in)
{
	uint32_t nh = rm_map_host_count(m);
	size_t n = (size_t)nh + rm_map_spare_count(m);
	char **v = calloc(n ? n : 1, sizeof(char *));
	if (!v)
		return rmc_usage("out of memory");
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = strdup(i < nh ? rm_map_host(m, (uint32_t)i)
					   : rm_map_spare(m, (uint32_t)(i - nh))))) {
			while (i)
				free(v[--i]);
			free(v);
			return rmc_usage("out of memory");
		}
	qsort(v, n, sizeof(char *), by_host);
	rm_hostlist_clear(&in->nodes);
	in->nodes.host = v;
	in->nodes.n = n;
	return RMC_OK;
}

/* What explain prices: one map, two side by side, or a map and every
 * baseline asked for. */
typedef struct priced {
	rm_estimate *est[1 + RM_BASELINE_COUNT];   /* NULL: not priced */
	const char *name[2];
	size_t n;                    /* estimates in est[] */
	bool kinds;                  /* est[1..] are the kinds asked for */
} priced;

/*
 * With nodes, a topology or a site: plan the map and price its links.
 * Further columns are the baselines asked for (--baseline, what `plan
 * --baseline KIND` builds) or a given map (--map, --assignment) against
 * the plan; both together price the given map against the baselines -
 * what the order of a job that ran would have cost.
 */
static int with_map(rmc_model_args *a, priced *p)
{
	const rmc_opts *o = &a->common;
	const char *file = o->map ? o->map : o->assignment;
	rmc_inputs in;
	rmc_inputs_init(&in);
	rm_map *given = NULL, *plan = NULL, *base[RM_BASELINE_COUNT] = { 0 };
	unsigned nb = o->baseline ? o->nbaseline : 0;
	int rc;
	if ((rc = rmc_load_fabric(o, &in)) ||
	    (rc = rmc_model_site_hw(a, in.site)) ||
	    (rc = rmc_load_layout(o, &in)) ||
	    (rc = rmc_load_nodes(o, &in, !file)))
		goto out;
	if (file && ((rc = given_map(o, &in, &given)) ||
		     (in.nodes.n == 0 && (rc = nodes_of(given, &in)))))
		goto out;
	rm_error e;
	memset(&e, 0, sizeof(e));
	rm_plan_options po = RM_PLAN_OPTIONS_INIT;
	po.layout = &in.layout;
	po.order = &in.order;
	po.nodes = (const char *const *)in.nodes.host;
	po.nnodes = in.nodes.n;
	po.gpus_per_node = in.gpus_per_node;
	po.fabric = in.fabric;
	po.allow_missing = o->allow_missing ||
			   (in.site && rm_site_allow_missing_nodes(in.site));
	/* Several plans on one fabric (the plan's candidates, the
	 * baselines): hash it once (it was 40 % of the work). */
	char fd[65];
	rm_fabric_digest(in.fabric, fd);
	const char *digest = fd;
	/* The plan is the fastest of its candidates as this model prices
	 * them (docs/placement.md, "One objective"). */
	unsigned ncand;
	if (!(given && nb) && rm_plan_priced(&a->model, &a->hw, &a->train, &po,
					     digest, &plan, &p->est[0], &ncand,
					     &e)) {
		rc = rmc_fail(&e);
		goto out;
	}
	if (plan)
		p->n = 1;
	for (unsigned i = 0; i < nb; i++) {
		rm_plan_options bo = po;
		bo.baseline = true;
		bo.baseline_kind = o->baseline_kind[i];
		if (rm_plan_with_digest(&bo, digest, &base[i], &e)) {
			rc = rmc_fail(&e);
			goto out;
		}
	}
	const rm_map *col[1 + RM_BASELINE_COUNT] = { plan ? plan : given };
	size_t n = 1;
	for (unsigned i = 0; i < nb; i++)
		col[n++] = base[i];
	if (given && plan)
		col[n++] = given;
	p->name[0] = plan ? "plan" : "given map";
	p->name[1] = nb ? "baseline" : "given map";
	p->kinds = nb > 0;
	for (size_t i = 0; i < n; i++) {
		if (i && !rm_layout_equal(rm_map_layout(col[0]),
					  rm_map_layout(col[i]))) {
			/* column i is a baseline (1..nb) or the given map;
			 * column 0 the plan, else the given map */
			char x[128], y[128], who[96];
			rm_layout_format(rm_map_layout(col[i]), x, sizeof(x));
			rm_layout_format(rm_map_layout(col[0]), y, sizeof(y));
			if (i <= nb)
				snprintf(who, sizeof(who), "the %s baseline",
					 rm_baseline_name(o->baseline_kind[i - 1]));
			else
				snprintf(who, sizeof(who), "%.90s", file);
			rc = rmc_usage("%s has layout %s, the %s %s: only maps "
				       "of one layout compare", who, x,
				       p->name[0], y);
			goto out;
		}
		if (!(i == 0 && plan) &&
		    rm_estimate_map(&a->model, &a->hw, &a->train, col[i],
				    in.fabric, &p->est[i], &e)) {
			rc = rmc_fail(&e);
			goto out;
		}
		p->n = i + 1;
	}
out:
	rm_map_free(given);
	rm_map_free(plan);
	for (unsigned i = 0; i < nb; i++)
		rm_map_free(base[i]);
	rmc_inputs_free(&in);
	return rc;
}

int rmc_explain(int argc, char **argv)
{
	rmc_model_args a;
	int rc = rmc_model_parse(argc, argv, RMC_EXPLAIN, &a, help);
	if (rc >= 0)
		return rc;
	rm_error e;
	memset(&e, 0, sizeof(e));
	priced p = { .name = { "plan", NULL }, .n = 1 };
	const rmc_opts *o = &a.common;
	if (o->map && o->assignment)
		return rmc_usage("give one of --map, --assignment");
	if (o->baseline && !(o->nodes || o->nodes_file || o->topology ||
			     o->site || o->map || o->assignment ||
			     getenv("SLURM_JOB_NODELIST")))
		return rmc_usage("--baseline needs the allocation: --nodes, "
				 "--nodes-file, --topology or --site");
	if (o->nodes || o->nodes_file || o->topology || o->site ||
	    o->baseline || o->map || o->assignment) {
		if ((rc = with_map(&a, &p)))
			goto out;
	} else {
		rm_layout l;
		if (rm_layout_parse(o->layout, &l, &e)) {
			rc = fail(&e);
			goto out;
		}
		uint64_t gpus = a.gpus ? a.gpus : rm_layout_world(&l);
		if (l.dp_auto && !a.gpus) {
			rc = rmc_usage("--layout %s: dp=auto needs --gpus",
				       o->layout);
			goto out;
		}
		if (rm_layout_resolve(&l, gpus, true, &e) ||
		    rm_estimate_run(&a.model, &a.hw, &a.train, &l, &p.est[0],
				    &e)) {
			rc = fail(&e);
			goto out;
		}
	}
	char *text = NULL;
	size_t len = 0;
	rm_status st;
	if (p.kinds && !rmc_baseline_plain(o))
		st = rm_estimate_baselines_write(
			&a.model, &a.hw, &a.train, p.est[0], p.name[0],
			(const rm_estimate *const *)p.est + 1, o->baseline_kind,
			p.n - 1, a.fmt, &text, &len, &e);
	else if (p.n == 2)
		st = rm_estimate_compare_write(&a.model, &a.hw, &a.train,
					       p.est[0], p.name[0], p.est[1],
					       p.name[1], a.fmt, &text, &len,
					       &e);
	else
		st = rm_estimate_write(&a.model, &a.hw, &a.train, p.est[0],
				       a.fmt, &text, &len, &e);
	if (st) {
		rc = fail(&e);
		goto out;
	}
	fwrite(text, 1, len, stdout);
	free(text);
	rc = rm_estimate_fits(p.est[0]) ? RMC_OK : RMC_RULE_FAILED;
out:
	for (size_t i = 0; i < p.n; i++)
		rm_estimate_free(p.est[i]);
	return rc;
}
