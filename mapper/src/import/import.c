/* SPDX-License-Identifier: Apache-2.0 */
/*
 * import.c - the rm_import object: what any importer found, written out
 * as topology.conf (switch tree), a rankmap-site/1 file (rail units) and
 * the report. The writers know nothing of the capture's format, so a new
 * importer fills the same tree and units and gets the same outputs.
 */
#include "import/import_int.h"
#include "fabric/fabric_int.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- uint64 map ---- */
static size_t slot(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

int64_t rmi_u64map_get(const rmi_u64map *m, uint64_t key)
{
	if (!m->cap)
		return -1;
	for (size_t i = slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->val[i])
			return -1;
		if (m->key[i] == key)
			return (int64_t)m->val[i] - 1;
	}
}

bool rmi_u64map_put(rmi_u64map *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		uint64_t *k = calloc(cap, sizeof(*k));
		uint32_t *v = calloc(cap, sizeof(*v));
		if (!k || !v) {
			free(k);
			free(v);
			return false;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->val[i])
				continue;
			size_t j = slot(m->key[i], cap);
			while (v[j])
				j = (j + 1) & (cap - 1);
			k[j] = m->key[i];
			v[j] = m->val[i];
		}
		free(m->key);
		free(m->val);
		m->key = k;
		m->val = v;
		m->cap = cap;
	}
	size_t i = slot(key, m->cap);
	while (m->val[i] && m->key[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->val[i])
		m->n++;
	m->key[i] = key;
	m->val[i] = val + 1;
	return true;
}

void rmi_u64map_free(rmi_u64map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

/* ---- the result ---- */
int64_t rmi_import_add_switch(rm_import *im, const char *name, uint32_t level)
{
	if (!rmi_grow((void **)&im->sw, &im->sw_cap, im->nsw + 1,
		      sizeof(*im->sw)))
		return -1;
	rmi_tsw *s = &im->sw[im->nsw];
	memset(s, 0, sizeof(*s));
	s->parent = -1;
	s->level = level;
	if (!(s->name = strdup(name)))
		return -1;
	return (int64_t)im->nsw++;
}

bool rmi_import_add_host(rmi_tsw *s, const char *host)
{
	if (!rmi_grow((void **)&s->host, &s->host_cap, s->nhost + 1,
		      sizeof(*s->host)))
		return false;
	if (!(s->host[s->nhost] = strdup(host)))
		return false;
	s->nhost++;
	return true;
}

bool rmi_import_host_wanted(const rm_import *im, const rm_hostlist *hl,
			    const char *host)
{
	if (!im->o_hosts)
		return true;
	if (!hl)
		return fnmatch(im->o_hosts, host, 0) == 0;
	for (size_t i = 0; i < hl->n; i++)
		if (!strcmp(hl->host[i], host))
			return true;
	return false;
}

/* The switch for `id` at `level`: with `prefix`, the one standing for the
 * provider's id (made as PREFIX<n> when new); without, the one named `id`.
 * -1 when memory is short. */
static int64_t switch_for(rm_import *im, const char *id, const char *prefix,
			  uint32_t level)
{
	size_t same = 0;
	for (size_t i = 0; i < im->nsw; i++) {
		const char *key = prefix ? im->sw[i].stands_for : im->sw[i].name;
		if (key && !strcmp(key, id))
			return (int64_t)i;
		same += prefix && im->sw[i].stands_for &&
			im->sw[i].level == level;
	}
	if (!prefix)
		return rmi_import_add_switch(im, id, level);
	char name[48];
	snprintf(name, sizeof(name), "%s%zu", prefix, same);
	int64_t s = rmi_import_add_switch(im, name, level);
	if (s >= 0 && !(im->sw[s].stands_for = strdup(id)))
		return -1;
	return s;
}

rm_status rmi_import_add_path(rm_import *im, const char *host,
			      const char *const *id, size_t n,
			      const char *const *what, bool rename,
			      unsigned long line, unsigned long col,
			      rm_error *err)
{
	for (size_t i = 0; i < im->nsw; i++)
		for (size_t h = 0; h < im->sw[i].nhost; h++)
			if (!strcmp(im->sw[i].host[h], host))
				return rmi_err_at(err, RM_EINPUT, im->source,
						  line, col, "node %s is listed "
						  "twice", host);
	int64_t below = -1;
	for (size_t k = n; k-- > 0;) {
		uint32_t level = (uint32_t)(n - 1 - k);
		int64_t s = switch_for(im, id[k], rename ? what[k] : NULL,
				       level);
		if (s < 0)
			return rmi_err(err, RM_ENOMEM, "out of memory");
		if (im->sw[s].level != level)
			return rmi_err_at(err, RM_EINPUT, im->source, line, col,
					  "%s %s is %u levels above one node "
					  "and %u above another", what[k],
					  id[k], level, im->sw[s].level);
		if (below < 0 && !rmi_import_add_host(&im->sw[s], host))
			return rmi_err(err, RM_ENOMEM, "out of memory");
		if (below >= 0) {
			const rmi_tsw *b = &im->sw[below];
			int32_t p = b->parent;
			if (p >= 0 && p != (int32_t)s)
				return rmi_err_at(
					err, RM_EINPUT, im->source, line, col,
					"%s %s is under both %s and %s",
					what[k + 1], rename ? b->stands_for
							    : b->name,
					rename ? im->sw[p].stands_for
					       : im->sw[p].name, id[k]);
			im->sw[below].parent = (int32_t)s;
		}
		below = s;
	}
	return RM_OK;
}

bool rmi_import_add_nvl(rm_import *im, const char *host, const char *key,
			uint32_t gpus)
{
	size_t cap = im->nvl_cap;
	if (!rmi_grow((void **)&im->nvl_host, &cap, im->nnvl + 1,
		      sizeof(char *)))
		return false;
	cap = im->nvl_cap;
	if (!rmi_grow((void **)&im->nvl_key, &cap, im->nnvl + 1,
		      sizeof(char *)))
		return false;
	cap = im->nvl_cap;
	if (!rmi_grow((void **)&im->nvl_gpus, &cap, im->nnvl + 1,
		      sizeof(uint32_t)))
		return false;
	im->nvl_cap = cap;
	im->nvl_host[im->nnvl] = strdup(host);
	im->nvl_key[im->nnvl] = strdup(key);
	im->nvl_gpus[im->nnvl] = gpus;
	im->nnvl++;
	return im->nvl_host[im->nnvl - 1] && im->nvl_key[im->nnvl - 1];
}

bool rm_import_has_topology(const rm_import *im)
{
	return im && im->nsw;
}

void rm_import_free(rm_import *im)
{
	if (!im)
		return;
	for (size_t i = 0; i < im->nsw; i++) {
		rmi_strv_free(im->sw[i].host, im->sw[i].nhost);
		free(im->sw[i].name);
		free(im->sw[i].stands_for);
	}
	free(im->sw);
	for (size_t i = 0; i < im->nunit; i++) {
		free(im->unit[i].name);
		rmi_strv_free(im->unit[i].host, im->unit[i].nhost);
	}
	free(im->unit);
	rmi_strv_free(im->nvl_host, im->nnvl);
	rmi_strv_free(im->nvl_key, im->nnvl);
	free(im->nvl_gpus);
	rm_buf_clear(&im->found);
	rm_buf_clear(&im->unplaced);
	rm_buf_clear(&im->assumed);
	free(im->source);
	free(im->o_hosts);
	free(im->o_name);
	free(im->o_topology);
	free(im);
}

rm_status rmi_import_str(const rmi_ynode *n, const char *file,
			 const char *what, size_t max, bool (*ok_char)(char),
			 const char *rule, const char **out, rm_error *err)
{
	rm_status st = rmi_y_str(n, file, what, out, err);
	if (st)
		return st;
	size_t len = strlen(*out);
	bool ok = len && len <= max;
	for (size_t i = 0; ok && i < len; i++)
		ok = ok_char((*out)[i]);
	if (!ok)
		return rmi_err_at(err, RM_EINPUT, file, rmi_y_line(n),
				  rmi_y_col(n), "%s %s: %s", what,
				  rm_quote(*out, len, (char[96]){ 0 }, 96),
				  rule);
	return RM_OK;
}

rm_status rmi_import_instance(const rmi_ynode *inst, const char *file,
			      const char *key, const rmi_ynode **v,
			      rm_error *err)
{
	rm_status st = rmi_y_kind(inst, file, "an instance", RMI_Y_MAP, err);
	if (st)
		return st;
	*v = rmi_y_get(inst, key);
	if (!*v)
		return rmi_err_at(err, RM_EINPUT, file, rmi_y_line(inst),
				  rmi_y_col(inst), "an instance without %s",
				  key);
	return RM_OK;
}

rm_status rmi_import_start(const char *file, const rm_import_options *o,
			   rm_import **out, rm_error *err)
{
	static const size_t sizes[] = { [1] = sizeof(rm_import_options) };
	rm_import_options full = RM_IMPORT_OPTIONS_INIT;
	if (o) {
		rm_status st = rmi_versioned(o, sizes, 2, &full,
					     "rm_import_options", err);
		if (st)
			return st;
		o = &full;
	}
	rm_import *im = calloc(1, sizeof(*im));
	if (!im)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	rm_buf_init(&im->found);
	rm_buf_init(&im->unplaced);
	rm_buf_init(&im->assumed);
	bool oom = false;
	im->source = rmi_dup_or_null(file, &oom);
	if (o) {
		im->opts = *o;
		im->o_hosts = rmi_dup_or_null(o->hosts, &oom);
		im->o_name = rmi_dup_or_null(o->name, &oom);
		im->o_topology = rmi_dup_or_null(o->topology, &oom);
	}
	if (oom) {
		rm_import_free(im);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	*out = im;
	return RM_OK;
}

rm_status rm_import_ibnetdiscover(const char *text, size_t len,
				  const char *file, const rm_import_options *o,
				  rm_import **out, rm_error *err)
{
	*out = NULL;
	if (!file)
		file = "(ibnetdiscover)";
	if (o && o->hosts && !*o->hosts)
		return rmi_err(err, RM_EINPUT, "--hosts: empty");
	rm_import *im = NULL;
	rm_status st = rmi_import_start(file, o, &im, err);
	if (st)
		return st;
	im->format = "ibnetdiscover";
	rmi_ibgraph g;
	st = rmi_ibnd_parse(&g, text, len, file, err);
	if (!st)
		st = rmi_ibnd_build(im, &g, err);
	rmi_ibgraph_free(&g);
	if (st) {
		rm_import_free(im);
		return st;
	}
	*out = im;
	return RM_OK;
}

/* What scontrol printed, read back as topology.conf: a tree with one
 * parent per switch and no cycle, as rankmap will read it. */
static rm_status readback(rm_import *im, rm_error *err)
{
	char *topo = NULL;
	size_t len = 0;
	rm_fabric *f = NULL;
	rm_status st = rm_import_write(im, RM_IMPORT_TOPOLOGY, &topo, &len, err);
	if (!st)
		st = rm_fabric_new(&f, err);
	if (!st && rm_fabric_parse_topology(f, topo, len, "the written "
					   "topology.conf", err)) {
		char m[900];
		rmi_copy_out(err->msg, strnlen(err->msg, sizeof(m) - 1), m,
			     sizeof(m));
		st = rmi_err(err, RM_EINPUT, "%s: what it prints is no "
			     "topology rankmap reads: %s", im->source, m);
	}
	/* The topology.yaml form must read back to the same fabric. */
	char *ytext = NULL;
	size_t ylen = 0;
	rm_fabric *fy = NULL;
	if (!st)
		st = rm_import_write(im, RM_IMPORT_TOPOLOGY_YAML, &ytext, &ylen,
				     err);
	if (!st)
		st = rm_fabric_new(&fy, err);
	if (!st && rm_fabric_parse_topology_yaml(fy, ytext, ylen, "the "
						 "written topology.yaml", NULL,
						 err)) {
		char m[900];
		rmi_copy_out(err->msg, strnlen(err->msg, sizeof(m) - 1), m,
			     sizeof(m));
		st = rmi_err(err, RM_EINPUT, "%s: its topology.yaml is none "
			     "rankmap reads: %s", im->source, m);
	}
	if (!st) {
		rm_fabric_info a, b;
		rm_fabric_info_get(f, &a);
		rm_fabric_info_get(fy, &b);
		if (a.nodes != b.nodes || a.switches != b.switches ||
		    a.leaves != b.leaves || a.levels != b.levels ||
		    a.blocks != b.blocks)
			st = rmi_err(err, RM_EINPUT, "%s: its topology.yaml "
				     "and topology.conf differ", im->source);
	}
	rm_fabric_free(fy);
	free(ytext);
	if (!st) {
		rm_fabric_info fi;
		rm_fabric_info_get(f, &fi);
		rm_buf_printf(&im->found, "  %-38s %u nodes, %u switches (%u "
			      "leaves, %u levels, %u top-level)%s\n",
			      "topology", fi.nodes, fi.switches, fi.leaves,
			      fi.levels, fi.top_switches,
			      fi.blocks ? ", topology/block blocks" : "");
		if (fi.blocks)
			rm_buf_printf(&im->assumed, "  %-38s not NVLink domains "
				      "(add nvlink: {domain: block} if they "
				      "are)\n", "blocks");
		rm_buf_printf(&im->assumed, "  %-38s none: %s knows no "
			      "rails (add units: by hand, or import "
			      "ibnetdiscover)\n", "rail units", im->format);
	}
	rm_fabric_free(f);
	free(topo);
	return st;
}

/* A reader of a format that states its tree (scontrol, AWS): build, then
 * read the result back as topology.conf before anyone gets it. A text
 * format builds from the bytes (build); a JSON one from the document
 * (doc), which is loaded and freed here once for all of them. */
typedef rm_status (*tree_fn)(rm_import *, const char *, size_t, rm_error *);
typedef rm_status (*doc_fn)(rm_import *, const rmi_ynode *, rm_error *);

static rm_status doc_build(rm_import *im, const char *text, size_t len,
			   doc_fn doc, rm_error *err)
{
	rmi_ynode *root = NULL;
	rm_status st = rmi_yaml_load(text, len, im->source, &root, err);
	if (!st)
		st = doc(im, root, err);
	rmi_yaml_free(root);
	return st;
}

static rm_status tree_import(const char *text, size_t len, const char *file,
			     const rm_import_options *o, const char *format,
			     tree_fn build, doc_fn doc, rm_import **out,
			     rm_error *err)
{
	*out = NULL;
	rm_import *im = NULL;
	rm_status st = rmi_import_start(file, o, &im, err);
	if (st)
		return st;
	im->format = format;
	st = build ? build(im, text, len, err)
		   : doc_build(im, text, len, doc, err);
	if (!st)
		st = readback(im, err);
	if (st) {
		rm_import_free(im);
		return st;
	}
	*out = im;
	return RM_OK;
}

rm_status rm_import_scontrol(const char *text, size_t len, const char *file,
			     const rm_import_options *o, rm_import **out,
			     rm_error *err)
{
	return tree_import(text, len, file ? file : "(scontrol)", o,
			   "scontrol show topology", rmi_scontrol_build, NULL,
			   out, err);
}

rm_status rm_import_aws(const char *text, size_t len, const char *file,
			const rm_import_options *o, rm_import **out, rm_error *err)
{
	return tree_import(text, len, file ? file : "(aws)", o,
			   "aws ec2 describe-instance-topology", NULL,
			   rmi_aws_build, out, err);
}

rm_status rm_import_gcp(const char *text, size_t len, const char *file,
			const rm_import_options *o, rm_import **out, rm_error *err)
{
	return tree_import(text, len, file ? file : "(gcp)", o,
			   "gcloud compute instances list", NULL,
			   rmi_gcp_build, out, err);
}

rm_status rm_import_oci(const char *text, size_t len, const char *file,
			const rm_import_options *o, rm_import **out, rm_error *err)
{
	return tree_import(text, len, file ? file : "(oci)", o,
			   "OCI rdmaTopologyData", NULL, rmi_oci_build, out,
			   err);
}
