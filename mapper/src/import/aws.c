/* SPDX-License-Identifier: Apache-2.0 */
/*
 * aws.c - `aws ec2 describe-instance-topology` JSON, read with the
 * project's checked libyaml loader (JSON is its flow style):
 *   {"Instances": [{"InstanceId": "i-..", "NetworkNodes": ["nn-top",
 *     "nn-mid", "nn-bottom"], "CapacityBlockId": "cr-..", ...}], ...}
 * NetworkNodes run top-down (3 or 4 layers, fewer for some capacity
 * reservations); the bottom one is the instance's leaf, the node above it
 * its parent, and so on. A CapacityBlockId (UltraServers, e.g. GB200
 * NVL72) is an NVLink domain: a site nvlink group. Node names are the
 * instance ids. Keys AWS adds later are passed over: this is AWS's
 * format, not one rankmap defines.
 */
#include "import/import_int.h"
#include "util/yaml.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ID 63

static bool id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* One string scalar that must be an id. */
static rm_status id(const rmi_ynode *n, const char *file, const char *what,
		    const char **out, rm_error *err)
{
	return rmi_import_str(n, file, what, MAX_ID, id_char, "letters, "
			      "digits, - and _ only, at most " RMI_STR(MAX_ID),
			      out, err);
}

/* The path of one instance, bottom switch first. */
static rm_status one(rm_import *im, const rmi_ynode *inst, size_t *nopath,
		     rm_error *err)
{
	const char *file = im->source, *iid, *cb = NULL;
	const rmi_ynode *v;
	rm_status st = rmi_import_instance(inst, file, "InstanceId", &v, err);
	if (st || (st = id(v, file, "InstanceId", &iid, err)))
		return st;
	const rmi_ynode *c = rmi_y_get(inst, "CapacityBlockId");
	if (c && !(c->kind == RMI_Y_SCALAR && !c->quoted &&
		   (!strcmp(c->str, "null") || !c->len)) &&
	    (st = id(c, file, "CapacityBlockId", &cb, err)))
		return st;
	im->nvl_blocks = true;
	im->nvl_what = "CapacityBlockId";
	if (cb && !rmi_import_add_nvl(im, iid, cb, 0))
		return rmi_err(err, RM_ENOMEM, "out of memory");
	const rmi_ynode *nn = rmi_y_get(inst, "NetworkNodes");
	if (!nn || nn->kind != RMI_Y_SEQ || !nn->n) {
		(*nopath)++;
		return RM_OK;
	}
	/* AWS documents 3 or 4 layers; a deeper list is no instance's. */
	enum { MAX_LAYERS = 8 };
	if (nn->n > MAX_LAYERS)
		return rmi_err_at(err, RM_EINPUT, file, rmi_y_line(nn),
				  rmi_y_col(nn), "NetworkNodes of %s: %zu "
				  "layers, at most %d", iid, nn->n, MAX_LAYERS);
	const char *way[MAX_LAYERS], *what[MAX_LAYERS];
	for (size_t k = 0; k < nn->n; k++) {
		if ((st = id(nn->item[k], file, "a network node", &way[k],
			     err)))
			return st;
		what[k] = "network node";
	}
	return rmi_import_add_path(im, iid, way, nn->n, what, false,
				   rmi_y_line(nn), rmi_y_col(nn), err);
}

rm_status rmi_aws_build(rm_import *im, const rmi_ynode *root, rm_error *err)
{
	rm_status st;
	const rmi_ynode *list = root && root->kind == RMI_Y_MAP
					? rmi_y_get(root, "Instances") : NULL;
	if (!list)
		st = rmi_err(err, RM_EINPUT, "%s: no \"Instances\": not `aws "
			     "ec2 describe-instance-topology` output",
			     im->source);
	else
		st = rmi_y_kind(list, im->source, "Instances", RMI_Y_SEQ, err);
	size_t nopath = 0;
	for (size_t i = 0; !st && i < list->n; i++)
		st = one(im, list->item[i], &nopath, err);
	if (!st && !im->nsw)
		st = rmi_err(err, RM_EINPUT, "%s: no instance has NetworkNodes: "
			     "nothing to build a topology from", im->source);
	if (!st)
		rm_buf_printf(&im->unplaced, "  %-38s %zu\n",
			      "instances without NetworkNodes", nopath);
	return st;
}
