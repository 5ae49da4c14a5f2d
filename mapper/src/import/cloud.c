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

#define MAX_ID 255u

/* The switch standing for provider id `id` at `level`, made when new. */
static int64_t block_for(rm_import *im, const char *prefix, uint32_t level,
			 const char *id)
{
	size_t same = 0;
	for (size_t i = 0; i < im->nsw; i++) {
		if (im->sw[i].level != level || !im->sw[i].stands_for)
			continue;
		if (!strcmp(im->sw[i].stands_for, id))
			return (int64_t)i;
		same++;
	}
	char name[48];
	snprintf(name, sizeof(name), "%s%zu", prefix, same);
	int64_t s = rmi_import_add_switch(im, name, level);
	if (s >= 0 && !(im->sw[s].stands_for = strdup(id)))
		return -1;
	return s;
}

/* An id: printable ASCII without blanks or quotes, at most MAX_ID. */
static rm_status cloud_id(const rmi_ynode *n, const char *file,
			  const char *what, const char **out, rm_error *err)
{
	rm_status st = rmi_y_str(n, file, what, out, err);
	if (st)
		return st;
	size_t len = strlen(*out);
	bool ok = len && len <= MAX_ID;
	for (size_t i = 0; ok && i < len; i++)
		ok = (*out)[i] > ' ' && (*out)[i] < 0x7f && (*out)[i] != '"' &&
		     (*out)[i] != '\'' && (*out)[i] != '\\';
	if (!ok)
		return rmi_err_at(err, RM_EINPUT, file, rmi_y_line(n),
				  rmi_y_col(n), "%s %s: printable, no blanks "
				  "or quotes, at most %u bytes", what,
				  rm_quote(*out, len, (char[96]){ 0 }, 96),
				  MAX_ID);
	return RM_OK;
}

/* A node name: what Slurm takes (letters, digits, - _ .), at most 63. */
static rm_status node_name(const rmi_ynode *n, const char *file,
			   const char *what, const char **out, rm_error *err)
{
	rm_status st = rmi_y_str(n, file, what, out, err);
	if (st)
		return st;
	size_t len = strlen(*out);
	bool ok = len && len <= 63;
	for (size_t i = 0; ok && i < len; i++) {
		char c = (*out)[i];
		ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		     (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		     c == '.';
	}
	if (!ok)
		return rmi_err_at(err, RM_EINPUT, file, rmi_y_line(n),
				  rmi_y_col(n), "%s %s: letters, digits, -, _ "
				  "and . only, at most 63", what,
				  rm_quote(*out, len, (char[96]){ 0 }, 96));
	return RM_OK;
}

/* Puts `host` under the chain id[0] (top) .. id[n-1] (its leaf). `at`
 * is where the chain was read, for messages. */
static rm_status add_chain(rm_import *im, const char *host,
			   const char *const *id, const char *const *prefix,
			   size_t n, const rmi_ynode *at, rm_error *err)
{
	int64_t below = -1;
	for (size_t k = n; k-- > 0;) {
		uint32_t level = (uint32_t)(n - 1 - k);
		int64_t s = -1;
		for (size_t i = 0; i < im->nsw && s < 0; i++)
			if (im->sw[i].stands_for &&
			    !strcmp(im->sw[i].stands_for, id[k]))
				s = (int64_t)i;
		if (s >= 0 && im->sw[s].level != level)
			return rmi_err_at(err, RM_EINPUT, im->source,
					  rmi_y_line(at), rmi_y_col(at),
					  "%s %s is %u levels above one node "
					  "and %u above another", prefix[k],
					  id[k], level, im->sw[s].level);
		if (s < 0 && (s = block_for(im, prefix[k], level, id[k])) < 0)
			return rmi_err(err, RM_ENOMEM, "out of memory");
		if (below < 0 && !rmi_import_add_host(&im->sw[s], host))
			return rmi_err(err, RM_ENOMEM, "out of memory");
		if (below >= 0) {
			int32_t p = im->sw[below].parent;
			if (p >= 0 && p != (int32_t)s)
				return rmi_err_at(err, RM_EINPUT, im->source,
						  rmi_y_line(at), rmi_y_col(at),
						  "%s %s is under both %s and "
						  "%s", prefix[k + 1],
						  im->sw[below].stands_for,
						  im->sw[p].stands_for, id[k]);
			im->sw[below].parent = (int32_t)s;
		}
		below = s;
	}
	return RM_OK;
}

/* A node listed twice would sit under two leaves: refuse it. */
static rm_status once(const rm_import *im, const char *host,
		      const rmi_ynode *at, rm_error *err)
{
	for (size_t i = 0; i < im->nsw; i++)
		for (size_t h = 0; h < im->sw[i].nhost; h++)
			if (!strcmp(im->sw[i].host[h], host))
				return rmi_err_at(err, RM_EINPUT, im->source,
						  rmi_y_line(at), rmi_y_col(at),
						  "node %s is listed twice",
						  host);
	return RM_OK;
}

/* ---- Google Cloud ---- */

static const char *const gcp_prefix[] = { "cluster", "block", "subblock" };

static rm_status gcp_one(rm_import *im, const rmi_ynode *inst,
			 size_t *nopath, char ***phys, size_t *nphys,
			 rm_error *err)
{
	const char *file = im->source, *name;
	rm_status st = rmi_y_kind(inst, file, "an instance", RMI_Y_MAP, err);
	if (st)
		return st;
	const rmi_ynode *v = rmi_y_get(inst, "name");
	if (!v)
		return rmi_err_at(err, RM_EINPUT, file, rmi_y_line(inst),
				  rmi_y_col(inst), "an instance without name");
	if ((st = node_name(v, file, "instance name", &name, err)))
		return st;
	const rmi_ynode *rs = rmi_y_get(inst, "resourceStatus");
	const rmi_ynode *t = rs && rs->kind == RMI_Y_MAP
				     ? rmi_y_get(rs, "physicalHostTopology")
				     : NULL;
	const rmi_ynode *ph = rs && rs->kind == RMI_Y_MAP
				      ? rmi_y_get(rs, "physicalHost") : NULL;
	const char *id[3], *host = NULL;
	size_t n = 0;
	if (t) {
		if ((st = rmi_y_kind(t, file, "physicalHostTopology",
				     RMI_Y_MAP, err)))
			return st;
		static const char *const key[] = { "cluster", "block",
						   "subblock" };
		for (size_t k = 0; k < 3; k++) {
			const rmi_ynode *f = rmi_y_get(t, key[k]);
			if (!f)
				break;      /* the lowest present is the leaf */
			if ((st = cloud_id(f, file, key[k], &id[n++], err)))
				return st;
		}
		const rmi_ynode *h = rmi_y_get(t, "host");
		if (h && (st = cloud_id(h, file, "host", &host, err)))
			return st;
	} else if (ph) {
		/* "/CLUSTER/BLOCK/HOST": the last part is the machine. */
		const char *s;
		if ((st = cloud_id(ph, file, "physicalHost", &s, err)))
			return st;
		char *copy = strdup(s);
		if (!copy)
			return rmi_err(err, RM_ENOMEM, "out of memory");
		char *part[8];
		size_t np = 0;
		for (char *sv = NULL, *p = strtok_r(copy, "/", &sv);
		     p && np < 8; p = strtok_r(NULL, "/", &sv))
			part[np++] = p;
		if (s[0] != '/' || np < 2 || np > 4) {
			free(copy);
			return rmi_err_at(err, RM_EINPUT, file, rmi_y_line(ph),
					  rmi_y_col(ph), "physicalHost %s: "
					  "not /CLUSTER/BLOCK[/SUBBLOCK]/HOST",
					  rm_quote(s, strlen(s),
						   (char[96]){ 0 }, 96));
		}
		/* The parts live in `copy`: keep them with the import's
		 * other strings until it is built. */
		char **grow = realloc(*phys, (*nphys + 1) * sizeof(char *));
		if (!grow) {
			free(copy);
			return rmi_err(err, RM_ENOMEM, "out of memory");
		}
		*phys = grow;
		(*phys)[(*nphys)++] = copy;
		for (size_t k = 0; k + 1 < np; k++)
			id[n++] = part[k];
		host = part[np - 1];
	}
	if (!n) {
		(*nopath)++;
		return RM_OK;
	}
	if ((st = once(im, name, inst, err)))
		return st;
	(void)host;         /* VMs sharing a machine stay apart */
	return add_chain(im, name, id, gcp_prefix, n, inst, err);
}

rm_status rmi_gcp_build(rm_import *im, const char *text, size_t len,
			rm_error *err)
{
	rmi_ynode *root = NULL;
	rm_status st = rmi_yaml_load(text, len, im->source, &root, err);
	if (st)
		return st;
	size_t nopath = 0, nphys = 0;
	char **phys = NULL;
	if (root && root->kind == RMI_Y_SEQ) {
		for (size_t i = 0; !st && i < root->n; i++)
			st = gcp_one(im, root->item[i], &nopath, &phys, &nphys,
				     err);
	} else if (root && root->kind == RMI_Y_MAP && rmi_y_get(root, "name")) {
		st = gcp_one(im, root, &nopath, &phys, &nphys, err);
	} else {
		st = rmi_err(err, RM_EINPUT, "%s: not `gcloud compute "
			     "instances list --format=json` output (a list "
			     "of instances)", im->source);
	}
	for (size_t i = 0; i < nphys; i++)
		free(phys[i]);
	free(phys);
	rmi_yaml_free(root);
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

rm_status rmi_oci_build(rm_import *im, const char *text, size_t len,
			rm_error *err)
{
	rmi_ynode *root = NULL;
	rm_status st = rmi_yaml_load(text, len, im->source, &root, err);
	if (st)
		return st;
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
		if (!(st = once(im, name, nk, err)))
			st = add_chain(im, name, id, oci_prefix, 3, nk, err);
	}
	rmi_yaml_free(root);
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
