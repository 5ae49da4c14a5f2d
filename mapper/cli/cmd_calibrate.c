/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_calibrate.c - `rankmap calibrate`: a site's calibration from its
 * own training logs and NCCL measurements, as a hardware file. */
#include "cmd_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
	fputs("usage: rankmap calibrate --hw PRESET|FILE -o FILE [--model M]\n"
	      "         [--megatron-log LOG]... [--nemo-log LOG]...\n"
	      "         [--torchtitan-log LOG]... [--mlperf-log LOG]...\n"
	      "         [--nccl-tests OUT]... [--nccl-check REPORT]...\n"
	      "         [--fit KEY,KEY...] [--layout L --batch TOKENS ...]\n\n"
	      "  Fits the calibration of PRESET to this site's measurements and\n"
	      "  writes FILE, a hardware file (base: PRESET plus the fitted keys)\n"
	      "  that explain and suggest read with --hw FILE; prints every\n"
	      "  measurement with what the fitted model gives for it. --hw may\n"
	      "  be a hardware file (one calibrate wrote): the fit starts from\n"
	      "  it and FILE gives every figure, its own and the fitted.\n"
	      "  --megatron-log   a Megatron-LM log: its arguments block says the run\n"
	      "  --nemo-log       a NeMo log: its configuration says the run\n"
	      "  --torchtitan-log a torchtitan log: the run is --layout, --batch,\n"
	      "                   --seq, --micro-batch, --schedule, --recompute,\n"
	      "                   --sharding, --set KEY=VALUE as for explain\n"
	      "  --mlperf-log     an MLPerf Training result log (:::MLLOG lines): its\n"
	      "                   batch, sequence and parallelism keys say the run;\n"
	      "                   what they do not, --layout, --seq ... as above\n"
	      "  --set KEY=VALUE  also over what every log says its run was\n"
	      "                   (flash=off, grad_bytes=2 ...); not the keys\n"
	      "                   calibrate fits\n"
	      "  --nccl-tests     all_reduce_perf output: one host, NVLink (NVLS up to\n"
	      "                   2 x nvlink_gbps); more, the network (busbw over\n"
	      "                   the GPUs of a host, each with its NIC)\n"
	      "  --nccl-check     a rankmap-nccl-check report (each axis's link)\n"
	      "  --fit            keys to fit (default gemm_eff from step times,\n"
	      "                   nvlink_eff and net_eff from what links are measured);\n"
	      "                   also attn_eff, hbm_eff, gemm_dim0. No more step-time\n"
	      "                   keys than step times.\n\n"
	      "exit: 0 written, 2 usage or input error\n", f);
}

enum { C_ALL = 1 };
static const rmc_optdef opts[] = {
	{ "--hw", true, C_ALL, 0 }, { "--model", true, C_ALL, 0 },
	{ "--megatron-log", true, C_ALL, 0 }, { "--nemo-log", true, C_ALL, 0 },
	{ "--torchtitan-log", true, C_ALL, 0 }, { "--mlperf-log", true, C_ALL, 0 },
	{ "--nccl-tests", true, C_ALL, 0 }, { "--nccl-check", true, C_ALL, 0 },
	{ "--fit", true, C_ALL, 0 }, { "-o", true, C_ALL, 0 },
	{ "--output", true, C_ALL, 0 }, { "--layout", true, C_ALL, 0 },
	{ "--batch", true, C_ALL, 0 }, { "--seq", true, C_ALL, 0 },
	{ "--micro-batch", true, C_ALL, 0 }, { "--schedule", true, C_ALL, 0 },
	{ "--recompute", true, C_ALL, 0 }, { "--sharding", true, C_ALL, 0 },
	{ "--set", true, C_ALL, 0 },
};


#define MAX_FILES 32
#define MAX_BYTES (512u << 20)

typedef struct {
	const char *hw, *model, *out, *fit, *layout;
	const char *meg[MAX_FILES], *nemo[MAX_FILES], *tt[MAX_FILES];
	const char *ml[MAX_FILES], *nt[MAX_FILES], *nc[MAX_FILES];
	size_t nmeg, nnemo, ntt, nml, nnt, nnc;
	rm_train train;
	const char *run_flag;        /* the first option saying a torchtitan or
				      * MLPerf run */
	const char *batch_flag;      /* --batch: an MLPerf log says its own */
	struct {
		char key[64];
		const char *value;
	} set[MAX_FILES];            /* --set, in order */
	size_t nset;
} cal_args;

/* The whole file, NUL-ended; NULL with the reason in e. */
static char *slurp(const char *path, size_t *len, rm_error *e)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(e->msg, sizeof(e->msg), "%s: cannot be read", path);
		return NULL;
	}
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			cap = cap ? 2 * cap : 1 << 20;
			char *nb = cap > MAX_BYTES + 65537 ? NULL : realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				snprintf(e->msg, sizeof(e->msg), "%s: more than %u "
					 "MiB", path, MAX_BYTES >> 20);
				return NULL;
			}
			buf = nb;
		}
		size_t r = fread(buf + n, 1, 65536, f);
		n += r;
		if (r < 65536)
			break;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		snprintf(e->msg, sizeof(e->msg), "%s: read error", path);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int add_file(const char **list, size_t *n, const char *name,
		    const char *v)
{
	if (*n >= MAX_FILES)
		return rmc_usage("%s: at most %d files", name, MAX_FILES);
	list[(*n)++] = v;
	return -1;
}

/* --set KEY=VALUE: into the torchtitan run, and kept for the runs a log
 * says, over which it goes. The calibration keys are what calibrate
 * fits: a per-run value would be dropped, so they are refused. */
static int add_set(cal_args *a, const char *v, rm_error *e)
{
	static const char *const fitted[] = { "gemm_eff", "gemm_dim0",
					      "attn_eff", "hbm_eff",
					      "nvlink_eff", "net_eff", NULL };
	if (a->nset >= MAX_FILES)
		return rmc_usage("--set: at most %d", MAX_FILES);
	char *key = a->set[a->nset].key;
	const char *eq = strchr(v, '=');
	if (!eq || eq == v || (size_t)(eq - v) >= sizeof(a->set[0].key))
		return rmc_usage("--set '%s': expected KEY=VALUE", v);
	memcpy(key, v, (size_t)(eq - v));
	key[eq - v] = '\0';
	for (size_t i = 0; fitted[i]; i++)
		if (!strcmp(key, fitted[i]))
			return rmc_usage("--set %s: calibrate fits %s; to start "
					 "from another value give --hw FILE with "
					 "it", key, key);
	if (rm_train_set(&a->train, key, eq + 1, e))
		return rmc_fail(e);
	a->set[a->nset++].value = eq + 1;
	return -1;
}

/* --set over what a log says its run was, said in a note. */
static int apply_sets(const cal_args *a, rm_cal_step *s, const char *path)
{
	if (!a->nset)
		return -1;
	rm_error e;
	char said[160] = "";
	size_t n = 0;
	for (size_t i = 0; i < a->nset; i++) {
		if (rm_train_set(&s->train, a->set[i].key, a->set[i].value, &e))
			return rmc_fail(&e);
		if (n < sizeof(said))
			n += (size_t)snprintf(said + n, sizeof(said) - n, "%s%s=%s",
					      i ? " " : "", a->set[i].key,
					      a->set[i].value);
	}
	size_t w = strlen(s->what);
	snprintf(s->what + w, sizeof(s->what) - w, ", --set %s", said);
	if (s->nnote < RM_CAL_NOTES)
		snprintf(s->note[s->nnote++], RM_CAL_NOTE_LEN, "%s: --set %s "
			 "over what the log says", path, said);
	return -1;
}

static int parse(int argc, char **argv, cal_args *a)
{
	memset(a, 0, sizeof(*a));
	rm_train_init(&a->train, RM_TRAIN_VERSION);
	a->hw = "h100-sxm-80gb";
	rm_error e;
	memset(&e, 0, sizeof(e));
	for (int i = 1; i < argc; i++) {
		const char *v;
		int rc = -1;
		int k = rmc_opt_own(opts, sizeof(opts) / sizeof(opts[0]), C_ALL,
				    "calibrate", help, argc, argv, &i, &v, &rc);
		if (k < 0)
			return rc;
		const char *name = opts[k].name;
		rc = -1;
		if (!strcmp(name, "--hw"))
			a->hw = v;
		else if (!strcmp(name, "--model"))
			a->model = v;
		else if (!strcmp(name, "-o") || !strcmp(name, "--output"))
			a->out = v;
		else if (!strcmp(name, "--fit"))
			a->fit = v;
		else if (!strcmp(name, "--layout")) {
			a->layout = v;
			a->run_flag = a->run_flag ? a->run_flag : name;
		} else if (!strcmp(name, "--megatron-log"))
			rc = add_file(a->meg, &a->nmeg, name, v);
		else if (!strcmp(name, "--nemo-log"))
			rc = add_file(a->nemo, &a->nnemo, name, v);
		else if (!strcmp(name, "--torchtitan-log"))
			rc = add_file(a->tt, &a->ntt, name, v);
		else if (!strcmp(name, "--mlperf-log"))
			rc = add_file(a->ml, &a->nml, name, v);
		else if (!strcmp(name, "--nccl-tests"))
			rc = add_file(a->nt, &a->nnt, name, v);
		else if (!strcmp(name, "--nccl-check"))
			rc = add_file(a->nc, &a->nnc, name, v);
		else if (!strcmp(name, "--set"))
			rc = add_set(a, v, &e);
		else {
			if (!a->run_flag)
				a->run_flag = name;
			if (!strcmp(name, "--batch"))
				a->batch_flag = name;
			for (size_t t = 0; rmc_train_opts[t].name; t++)
				if (!strcmp(name, rmc_train_opts[t].name) &&
				    rm_train_set(&a->train, rmc_train_opts[t].key, v, &e))
					return rmc_fail(&e);
		}
		if (rc >= 0)
			return rc;
	}
	if (!a->out)
		return rmc_usage("-o FILE is required: where the hardware file goes");
	if (!a->nmeg && !a->nnemo && !a->ntt && !a->nml && !a->nnt && !a->nnc)
		return rmc_usage("nothing to fit: give --megatron-log, "
				 "--nemo-log, --torchtitan-log, --mlperf-log, "
				 "--nccl-tests or --nccl-check");
	if ((a->nmeg || a->nnemo || a->ntt || a->nml) && !a->model)
		return rmc_usage("a training log needs --model (the run's architecture)");
	if (a->run_flag && !a->ntt && !a->nml)
		return rmc_usage("%s says a --torchtitan-log's or --mlperf-log's "
				 "run; a Megatron-LM or NeMo log says its own "
				 "(--set KEY=VALUE changes what it says)",
				 a->run_flag);
	if (a->batch_flag && a->nml)
		return rmc_usage("--batch: an MLPerf log says its batch "
				 "(global_batch_size x max_sequence_length)");
	if (a->ntt && !a->layout)
		return rmc_usage("--torchtitan-log needs the run's --layout (and "
				 "--batch, --seq ... as it ran)");
	return -1;
}

/* The measurements of every file given, into steps and links. */
static int measure(const cal_args *a, const rm_model *m, rm_cal_step *steps,
		   size_t *ns, rm_cal_link *links, size_t *nl)
{
	rm_error e;
	memset(&e, 0, sizeof(e));
	rm_layout l;
	if (a->layout && rm_layout_parse(a->layout, &l, &e))
		return rmc_usage("--layout %s: %s", a->layout, e.msg);
	enum { MEG, NEMO, TT, ML, NT, NC, KINDS };
	const char *const *lists[] = { a->meg, a->nemo, a->tt, a->ml, a->nt,
				       a->nc };
	const size_t counts[] = { a->nmeg, a->nnemo, a->ntt, a->nml, a->nnt,
				  a->nnc };
	for (size_t kind = 0; kind < KINDS; kind++)
		for (size_t i = 0; i < counts[kind]; i++) {
			const char *path = lists[kind][i];
			size_t len = 0, got = 0;
			char *text = slurp(path, &len, &e);
			if (!text)
				return rmc_fail(&e);
			rm_status st = RM_OK;
			if (kind == MEG)
				st = rm_cal_megatron_log(text, len, path, m,
							 &steps[*ns], &e);
			else if (kind == NEMO)
				st = rm_cal_nemo_log(text, len, path, m,
						     &steps[*ns], &e);
			else if (kind == TT)
				st = rm_cal_torchtitan_log(text, len, path, m,
							   &a->train, &l,
							   &steps[(*ns)++], &e);
			else if (kind == ML)
				st = rm_cal_mlperf_log(text, len, path, m,
						       &a->train, a->layout ? &l :
						       NULL, &steps[(*ns)++], &e);
			else if (kind == NT)
				st = rm_cal_nccl_tests(text, len, path,
						       &links[(*nl)++], &e);
			else {
				st = rm_cal_nccl_check(text, len, path, links + *nl,
						       RM_CAL_MAX - *nl, &got, &e);
				*nl += got;
			}
			free(text);
			if (st)
				return rmc_fail(&e);
			/* a log that says its run: --set over it */
			int rc = kind == MEG || kind == NEMO ?
				 apply_sets(a, &steps[(*ns)++], path) : -1;
			if (rc >= 0)
				return rc;
		}
	return -1;
}

int rmc_calibrate(int argc, char **argv)
{
	static cal_args a;
	int rc = parse(argc, argv, &a);
	if (rc >= 0)
		return rc;
	rm_error e;
	memset(&e, 0, sizeof(e));
	/* a preset, or a site's own hardware file (what calibrate wrote
	 * before, say): the fit starts from its figures and calibration */
	rm_hw base = RM_HW_INIT;
	bool preset = rm_hw_preset(a.hw, &base, NULL) == RM_OK;
	if (!preset && rm_hw_get(a.hw, &base, &e))
		return rmc_fail(&e);
	rm_model m = RM_MODEL_INIT;
	if (a.model && rm_model_get(a.model, &m, &e))
		return rmc_fail(&e);
	static rm_cal_step steps[4 * MAX_FILES];  /* four kinds of log */
	static rm_cal_link links[RM_CAL_MAX];
	size_t ns = 0, nl = 0;
	rc = measure(&a, &m, steps, &ns, links, &nl);
	if (rc >= 0)
		return rc;
	/* what a log says that the model does not price: before the fit,
	 * which may refuse it */
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < steps[i].nwarn; k++)
			fprintf(stderr, "rankmap calibrate: warning: %s\n",
				steps[i].warn[k]);
	/* --fit a,b,c */
	char buf[256];
	const char *keys[16] = { NULL };
	size_t nk = 0;
	if (a.fit) {
		snprintf(buf, sizeof(buf), "%s", a.fit);
		for (char *sv = NULL, *w = strtok_r(buf, ",", &sv); w && nk < 15;
		     w = strtok_r(NULL, ",", &sv))
			keys[nk++] = w;
	}
	static rm_cal_fit fit;
	if (rm_calibrate(&base, steps, ns, links, nl, keys, &fit, &e))
		return rmc_fail(&e);
	for (size_t i = 0; i < ns; i++)
		if (fit.mem_over[i] > 0)
			fprintf(stderr, "rankmap calibrate: warning: %s: %.1f GiB "
				"over HBM as the model prices it, within the "
				"%.0f %% its memory may overstate: fitted\n",
				steps[i].what, fit.mem_over[i] / 1073741824.0,
				100 * RM_CAL_MEM_SLACK);
	for (size_t i = 0; i < fit.nwarn; i++)
		fprintf(stderr, "rankmap calibrate: warning: %s\n", fit.warn[i]);
	char *yaml = NULL;
	size_t len = 0;
	if (rm_cal_write(&fit, preset ? base.name : NULL, steps, ns, links, nl,
			 &yaml, &len, &e))
		return rmc_fail(&e);
	rc = rmc_output(a.out, yaml, len);
	free(yaml);
	if (rc)
		return rc;
	printf("rankmap calibrate: %s from %zu step time%s and %zu link "
	       "measurement%s -> %s\n", base.name, ns, ns == 1 ? "" : "s", nl,
	       nl == 1 ? "" : "s", a.out);
	size_t nstep = 0;
	for (size_t k = 0; k < fit.nkeys; k++) {
		const char *key = fit.keys[k];
		nstep += strcmp(key, "nvlink_eff") && strcmp(key, "net_eff");
		printf("  %-10s %.4g (%s %.4g)\n", key, rm_cal_key_value(&fit.hw, key),
		       preset ? "preset" : "was", rm_cal_key_value(&base, key));
	}
	puts("residuals (model with the fit / measured - 1)");
	for (size_t i = 0; i < ns; i++)
		printf("  step  %8.3f s measured, %8.3f s model, %+6.1f %%  %s\n",
		       steps[i].seconds, fit.step_pred[i],
		       100 * (fit.step_pred[i] / steps[i].seconds - 1),
		       steps[i].what);
	for (size_t i = 0; i < nl; i++)
		printf("  link  %8.2f GB/s, %.3f of nominal  %s%s\n", links[i].gbps,
		       fit.link_eff[i], links[i].what, fit.link_eff[i] > 1 &&
		       !links[i].network ? " (NVLink SHARP: past what a ring "
		       "reaches; the model's NVLink is a ring, nvlink_eff at "
		       "most 1)" : "");
	bool head = false;
	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < steps[i].nnote; k++) {
			if (!head)
				puts("read from the logs");
			head = true;
			printf("  %s\n", steps[i].note[k]);
		}
	if (nstep && ns == nstep)
		puts("  as many step times as step-time keys: the residuals say "
		     "nothing about the fit; more runs would");
	return RMC_OK;
}
