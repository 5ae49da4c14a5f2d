/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cloud.c - the instance topology Google Cloud and Oracle Cloud publish,
 * read with the project's checked libyaml loader (JSON is YAML's flow
 * style), each into a tree of network blocks:
 *
 *   Google Cloud: `gcloud compute instances list --format=json` (or one
 *   instance's `describe`): each instance's resourceStatus
 *   .physicalHostTopology {cluster, block, subblock, host}, or the older
 *   resourceStatus.physicalHost "/CLUSTER/BLOCK/HOST". cluster > block >
 *   subblock; the lowest one present is the instance's leaf. Instances
 *   that share a physical host are counted, not merged.
 *
 *   Oracle Cloud: a mapping of node name to that node's instance metadata
 *   /opc/v2/host/rdmaTopologyData (or the whole /opc/v2/host/ document,
 *   which holds it): customerHPCIslandId > customerNetworkBlock >
 *   customerLocalBlock; customerGpuMemoryFabric (GB200/GB300 racks) is an
 *   NVLink domain. `pdsh ... curl -s .../rdmaTopologyData` prints exactly
 *   such a mapping ("node: {json}" per line) when the JSON is one line.
 *
 * The providers' ids (OCIDs, long hex strings) are no names for a
 * topology.conf: each network block becomes PREFIX<n>, with a comment
 * line saying which id it stands for. Keys the providers add later are
 * passed over.
 */
#include "import/import_int.h"
#include "util/yaml.h"

#include <stdlib.h>
#include <string.h>

/* The limits stand in the rules' text too (RMI_STR), hence plain
 * numbers. */
#define MAX_ID 255
#define MAX_NODE_NAME 63

static bool id_char(char c)
{
	return c > ' ' && c < 0x7f && c != '"' && c != '\'' && c != '\\';
}

/* An id: printable ASCII without blanks or quotes, at most MAX_ID. */
static rm_status cloud_id(const rmi_ynode *n, const char *file,
			  const char *what, const char **out, rm_error *err)
{
	return rmi_import_str(n, file, what, MAX_ID, id_char, "printable, no "
			      "blanks or quotes, at most " RMI_STR(MAX_ID)
			      " bytes", out, err);
}

static bool node_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/* A node name: what Slurm takes (letters, digits, - _ .), at most
 * MAX_NODE_NAME. */
static rm_status node_name(const rmi_ynode *n, const char *file,
			   const char *what, const char **out, rm_error *err)
{
	return rmi_import_str(n, file, what, MAX_NODE_NAME, node_char,
			      "letters, digits, -, _ and . only, at most "
			      RMI_STR(MAX_NODE_NAME), out, err);
}

/* ---- Google Cloud ---- */

static const char *const gcp_prefix[] = { "cluster", "block", "subblock" };

static rm_status gcp_one(rm_import *im, const rmi_ynode *inst,
			 size_t *nopath, rm_error *err)
{
	const char *file = im->source, *name;
	const rmi_ynode *v;
	rm_status st = rmi_import_instance(inst, file, "name", &v, err);
	if (st || (st = node_name(v, file, "instance name", &name, err)))
		return st;
	const rmi_ynode *rs = rmi_y_get(inst, "resourceStatus");
	const rmi_ynode *t = rs && rs->kind == RMI_Y_MAP
				     ? rmi_y_get(rs, "physicalHostTopology")
				     : NULL;
	const rmi_ynode *ph = rs && rs->kind == RMI_Y_MAP
				      ? rmi_y_get(rs, "physicalHost") : NULL;
	/* The physical host itself is left out: VMs sharing a machine stay
	 * nodes of their own under its sub-block. */
	const char *id[3];
	char *copy = NULL;           /* physicalHost's parts live here */
	size_t n = 0;
	if (t) {
		if ((st = rmi_y_kind(t, file, "physicalHostTopology",
				     RMI_Y_MAP, err)))
			return st;
		for (size_t k = 0; k < 3; k++) {
			const rmi_ynode *f = rmi_y_get(t, gcp_prefix[k]);
			if (!f)
				break;      /* the lowest present is the leaf */
			if ((st = cloud_id(f, file, gcp_prefix[k], &id[n++],
					   err)))
				return st;
		}
	} else if (ph) {
		/* "/CLUSTER/BLOCK[/SUBBLOCK]/HOST" */
		const char *s;
		if ((st = cloud_id(ph, file, "physicalHost", &s, err)))
			return st;
		if (!(copy = strdup(s)))
			return rmi_err(err, RM_ENOMEM, "out of memory");
		char *part[5];
		size_t np = 0;
		for (char *sv = NULL, *p = strtok_r(copy, "/", &sv);
		     p && np < 5; p = strtok_r(NULL, "/", &sv))
			part[np++] = p;
		if (s[0] != '/' || np < 2 || np > 4) {
			free(copy);
			return rmi_err_at(err, RM_EINPUT, file, rmi_y_line(ph),
					  rmi_y_col(ph), "physicalHost %s: "
					  "not /CLUSTER/BLOCK[/SUBBLOCK]/HOST",
					  rm_quote(s, strlen(s),
						   (char[96]){ 0 }, 96));
		}
		for (size_t k = 0; k + 1 < np; k++)
			id[n++] = part[k];
	}
	if (n)
		st = rmi_import_add_path(im, name, id, n, gcp_prefix, true,
					 rmi_y_line(inst), rmi_y_col(inst),
					 err);
	else
		(*nopath)++;
	free(copy);
	return st;
}

rm_status rmi_gcp_build(rm_import *im, const rmi_ynode *root, rm_error *err)
{
	rm_status st = RM_OK;
	size_t nopath = 0;
	if (root && root->kind == RMI_Y_SEQ) {
		for (size_t i = 0; !st && i < root->n; i++)
			st = gcp_one(im, root->item[i], &nopath, err);
	} else if (root && root->kind == RMI_Y_MAP && rmi_y_get(root, "name")) {
		st = gcp_one(im, root, &nopath, err);
	} else {
		st = rmi_err(err, RM_EINPUT, "%s: not `gcloud compute "
			     "instances list --format=json` output (a list "
			     "of instances)", im->source);
	}
	if (!st && !im->nsw)
		st = rmi_err(err, RM_EINPUT, "%s: no instance has a "
			     "resourceStatus.physicalHostTopology: nothing to "
			     "build a topology from (compact placement or a "
			     "reservation's blocks give one)", im->source);
	if (!st)
		rm_buf_printf(&im->unplaced, "  %-38s %zu\n",
			      "instances without a physical topology", nopath);
	return st;
}

/* ---- Oracle Cloud ---- */

static const char *const oci_prefix[] = { "island", "netblock",
					  "localblock" };

rm_status rmi_oci_build(rm_import *im, const rmi_ynode *root, rm_error *err)
{
	rm_status st = RM_OK;
	const char *file = im->source;
	if (!root || root->kind != RMI_Y_MAP)
		st = rmi_err(err, RM_EINPUT, "%s: not a mapping of node name "
			     "to its /opc/v2/host/rdmaTopologyData",
			     file);
	size_t nopath = 0;
	im->nvl_blocks = true;
	im->nvl_what = "customerGpuMemoryFabric";
	for (size_t i = 0; !st && i < root->n; i++) {
		const char *name;
		const rmi_ynode *nk = root->item[2 * i];
		const rmi_ynode *v = root->item[2 * i + 1];
		if ((st = node_name(nk, file, "node name", &name, err)))
			break;
		if ((st = rmi_y_kind(v, file, name, RMI_Y_MAP, err)))
			break;
		const rmi_ynode *d = rmi_y_get(v, "rdmaTopologyData");
		if (d && (st = rmi_y_kind(d, file, "rdmaTopologyData",
					  RMI_Y_MAP, err)))
			break;
		if (!d)
			d = v;
		static const char *const key[] = { "customerHPCIslandId",
						   "customerNetworkBlock",
						   "customerLocalBlock" };
		const char *id[3];
		size_t n = 0;
		for (size_t k = 0; !st && k < 3; k++) {
			const rmi_ynode *f = rmi_y_get(d, key[k]);
			if (f)
				st = cloud_id(f, file, key[k], &id[n++], err);
			else if (n)
				st = rmi_err_at(err, RM_EINPUT, file,
						rmi_y_line(d), rmi_y_col(d),
						"%s: %s without %s", name,
						key[k - 1], key[k]);
			else
				break;
		}
		if (st)
			break;
		if (n && n < 3) {
			st = rmi_err_at(err, RM_EINPUT, file, rmi_y_line(d),
					rmi_y_col(d), "%s: %s without %s",
					name, key[n - 1], key[n]);
			break;
		}
		const rmi_ynode *g = rmi_y_get(d, "customerGpuMemoryFabric");
		const char *fab;
		if (g && !(st = cloud_id(g, file, "customerGpuMemoryFabric",
					 &fab, err)) &&
		    !rmi_import_add_nvl(im, name, fab, 0))
			st = rmi_err(err, RM_ENOMEM, "out of memory");
		if (st)
			break;
		if (!n) {
			nopath++;
			continue;
		}
		st = rmi_import_add_path(im, name, id, 3, oci_prefix, true,
					 rmi_y_line(nk), rmi_y_col(nk), err);
	}
	if (!st && !im->nsw)
		st = rmi_err(err, RM_EINPUT, "%s: no node has "
			     "customerLocalBlock: nothing to build a topology "
			     "from (RDMA topology data needs a capacity "
			     "topology on the tenancy)", file);
	if (!st)
		rm_buf_printf(&im->unplaced, "  %-38s %zu\n",
			      "nodes without RDMA topology data", nopath);
	return st;
}
