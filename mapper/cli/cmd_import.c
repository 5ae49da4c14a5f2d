/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_import.c - `rankmap site import --ibnetdiscover FILE`: a fabric
 * capture into topology.conf and a site file in --out DIR, and always the
 * report of what was found, left out and assumed (on stdout), so an admin
 * can read what the files rest on before pushing them.
 */
#include "cli.h"
#include "common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
	fputs("usage: rankmap site import --ibnetdiscover FILE [--hosts H]\n"
	      "       rankmap site import --scontrol FILE|-\n"
	      "       rankmap site import --aws|--gcp|--oci FILE|-\n"
	      "       rankmap site import --nvidia-smi DIR (also with the others)\n"
	      "         [--out DIR] [--name NAME] [--gpus-per-node N]\n"
	      "         [--against topology.conf]\n\n"
	      "  Reads ibnetdiscover's output (plain, --full or -p) and builds\n"
	      "  the switch tree and rail-optimised units from the cables.\n"
	      "  --ibnetdiscover FILE  the capture (- for stdin)\n"
	      "  --scontrol FILE  `scontrol show topology` output (- for\n"
	      "                stdin), tree or block, for a login node\n"
	      "  --hosts H     compute hosts: a hostlist or a pattern (* ?);\n"
	      "                default every host an HCA description names\n"
	      "  --out DIR     write DIR/topology.conf, DIR/topology.yaml\n"
	      "                (Slurm 25.05+, the same) and DIR/site.yaml\n"
	      "                (without it: the report only)\n"
	      "  --name NAME   the site's name (default: imported)\n"
	      "  --aws FILE    `aws ec2 describe-instance-topology` JSON\n"
	      "                (NetworkNodes; CapacityBlockId: NVLink groups)\n"
	      "  --gcp FILE    `gcloud compute instances list --format=json`\n"
	      "                (resourceStatus.physicalHostTopology)\n"
	      "  --oci FILE    node name: its /opc/v2/host/rdmaTopologyData\n"
	      "                (customerGpuMemoryFabric: NVLink groups)\n"
	      "  --nvidia-smi DIR  NVLink domains: DIR/HOST holds HOST's\n"
	      "                `nvidia-smi -q` (Fabric: ClusterUUID, CliqueId)\n"
	      "  --gpus-per-node N  written into the site file\n"
	      "  --against F   list where topology.conf F and the fabric\n"
	      "                disagree (a host under another leaf, ...)\n\n"
	      "exit: 0 imported (and --against agrees), 1 --against found\n"
	      "differences, 2 an error (file:line:col)\n", f);
}

static const rmc_optdef opts[] = {
	{ "--ibnetdiscover", true, 1, 0 }, { "--hosts", true, 1, 0 },
	{ "--out", true, 1, 0 },           { "--name", true, 1, 0 },
	{ "--gpus-per-node", true, 1, 0 }, { "--against", true, 1, 0 },
	{ "--scontrol", true, 1, 0 },      { "--nvidia-smi", true, 1, 0 },
	{ "--aws", true, 1, 0 },           { "--gcp", true, 1, 0 },
	{ "--oci", true, 1, 0 },
};

/* Every regular file of `dir` (DIR/HOST: that node's `nvidia-smi -q`). */
static int nvidia_smi(const char *dir, const rm_import_options *o,
		      rm_import **im)
{
	struct dirent **ent = NULL;
	int n = scandir(dir, &ent, NULL, alphasort);
	if (n < 0)
		return rmc_usage("--nvidia-smi %s: cannot list it", dir);
	int rc = RMC_OK, used = 0;
	for (int i = 0; i < n; i++) {
		const char *h = ent[i]->d_name;
		if (!rc && h[0] != '.') {
			size_t len = strlen(dir) + strlen(h) + 2;
			char *path = malloc(len), *text = NULL;
			size_t tl = 0;
			rm_error e;
			if (!path) {
				rc = rmc_usage("out of memory");
			} else {
				snprintf(path, len, "%s/%s", dir, h);
				if (rm_file_read(path, &text, &tl, &e) ||
				    rm_import_nvidia_smi(im, h, text, tl, path,
							 o, &e))
					rc = rmc_fail(&e);
				used++;
			}
			free(text);
			free(path);
		}
		free(ent[i]);
	}
	free(ent);
	if (!rc && !used)
		rc = rmc_usage("--nvidia-smi %s: no files (one per node, "
			       "named after it)", dir);
	return rc;
}

static char *slurp_stdin(size_t *len)
{
	rm_buf b;
	rm_buf_init(&b);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0) {
		if (b.len + n > RM_MAX_INPUT) {
			rm_buf_clear(&b);
			return NULL;
		}
		rm_buf_add(&b, chunk, n);
	}
	char *t = rm_buf_take(&b, len);
	rm_buf_clear(&b);
	return t;
}

static int write_part(const rm_import *im, rm_import_part part,
		      const char *dir, const char *name)
{
	char *text;
	size_t len;
	rm_error e;
	if (rm_import_write(im, part, &text, &len, &e))
		return rmc_fail(&e);
	int rc = RMC_OK;
	if (dir) {
		size_t n = strlen(dir) + strlen(name) + 2;
		char *path = malloc(n);
		if (!path) {
			free(text);
			return rmc_usage("out of memory");
		}
		snprintf(path, n, "%s/%s", dir, name);
		rc = rmc_output(path, text, len);
		free(path);
	} else {
		rc = rmc_output(NULL, text, len);
	}
	free(text);
	return rc;
}

int rmc_site_import(int argc, char **argv)
{
	const char *file = NULL, *out = NULL, *against = NULL, *nvsmi = NULL;
	char kind = 'i';             /* ibnetdiscover, scontrol, aws, gcp, oci */
	rm_import_options o = RM_IMPORT_OPTIONS_INIT;
	for (int i = 1; i < argc; i++) {
		const char *v;
		int rc;
		int k = rmc_opt_own(opts, sizeof(opts) / sizeof(opts[0]), 1,
				    "site import", help, argc, argv, &i, &v,
				    &rc);
		if (k < 0)
			return rc;
		const char *name = opts[k].name;
		uint64_t n;
		if (!strcmp(name, "--ibnetdiscover") ||
		    !strcmp(name, "--scontrol") || !strcmp(name, "--aws") ||
		    !strcmp(name, "--gcp") || !strcmp(name, "--oci")) {
			if (file)
				return rmc_usage("one capture at a time: "
						 "--ibnetdiscover, --scontrol, "
						 "--aws, --gcp or --oci");
			file = v;
			kind = name[2];
		}
		else if (!strcmp(name, "--hosts"))
			o.hosts = v;
		else if (!strcmp(name, "--out"))
			out = v;
		else if (!strcmp(name, "--name"))
			o.name = v;
		else if (!strcmp(name, "--against"))
			against = v;
		else if (!strcmp(name, "--nvidia-smi"))
			nvsmi = v;
		else if (!rmc_parse_num(v, 1, 1024, &n))
			return rmc_usage("--gpus-per-node wants 1-1024, not "
					 "'%.40s'", v);
		else
			o.gpus_per_node = (uint32_t)n;
	}
	if (!file && !nvsmi)
		return rmc_usage("site import needs --ibnetdiscover FILE, "
				 "--scontrol FILE, --aws/--gcp/--oci FILE or "
				 "--nvidia-smi DIR (see "
				 "rankmap site import -h)");
	char *text = NULL;
	size_t len = 0;
	rm_error e;
	rm_import *im = NULL;
	if (!file) {
		/* NVLink domains only */
	} else if (!strcmp(file, "-")) {
		if (!(text = slurp_stdin(&len)))
			return rmc_usage("stdin: unreadable or over %u bytes",
					 RM_MAX_INPUT);
		file = "(stdin)";
	} else if (rm_file_read(file, &text, &len, &e)) {
		return rmc_fail(&e);
	}
	rm_status st = RM_OK;
	if (file && kind == 's')
		st = rm_import_scontrol(text, len, file, &o, &im, &e);
	else if (file && kind == 'a')
		st = rm_import_aws(text, len, file, &o, &im, &e);
	else if (file && kind == 'g')
		st = rm_import_gcp(text, len, file, &o, &im, &e);
	else if (file && kind == 'o')
		st = rm_import_oci(text, len, file, &o, &im, &e);
	else if (file)
		st = rm_import_ibnetdiscover(text, len, file, &o, &im, &e);
	free(text);
	if (st)
		return rmc_fail(&e);
	int rc = nvsmi ? nvidia_smi(nvsmi, &o, &im) : RMC_OK;
	if (!rc && out && rm_import_has_topology(im))
		rc = write_part(im, RM_IMPORT_TOPOLOGY, out, "topology.conf");
	if (!rc && out && rm_import_has_topology(im))
		rc = write_part(im, RM_IMPORT_TOPOLOGY_YAML, out,
				"topology.yaml");
	if (!rc && out)
		rc = write_part(im, RM_IMPORT_SITE, out, "site.yaml");
	if (!rc)
		rc = write_part(im, RM_IMPORT_REPORT, NULL, NULL);
	if (!rc && against && !rm_import_has_topology(im))
		rc = rmc_usage("--against needs a topology (--ibnetdiscover, "
			       "--scontrol, --aws, --gcp or --oci)");
	else if (!rc && against) {
		char *diff = NULL;
		size_t nd = 0;
		if (rm_import_against(im, against, &diff, &nd, &e)) {
			rc = rmc_fail(&e);
		} else {
			rc = rmc_output(NULL, "\n", 1);
			if (!rc)
				rc = rmc_output(NULL, diff, strlen(diff));
			if (!rc && nd)
				rc = RMC_RULE_FAILED;
		}
		free(diff);
	}
	rm_import_free(im);
	return rc;
}
