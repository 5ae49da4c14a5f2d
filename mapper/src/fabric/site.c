/* SPDX-License-Identifier: Apache-2.0 */
/*
 * site.c - the site file (rankmap-site/1): what a cluster's admins know
 * about their fabric that Slurm's topology.conf cannot say - NVLink domains
 * wider than a node, rail-optimised units, tier bandwidths, and defaults.
 * Every rejection names file:line:col; the schema is in docs/site.md.
 */
#include "fabric/site_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

rm_status rmi_site_oom(ctx *c)
{
	return rmi_err(c->err, RM_ENOMEM, "%s: out of memory", c->file);
}

void rmi_site_init(rm_site *s)
{
	memset(s, 0, sizeof(*s));
	s->nvl_kind = RM_NVL_NODE;
	s->enforce = RM_ENFORCE_WARN;
	s->max_pp_crossings = -1;
}

void rmi_site_clear(rm_site *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->name);
	rmi_strv_free(s->nvl_groups, s->n_nvl_groups);
	rmi_strv_free(s->unit_name, s->nunits);
	rmi_strv_free(s->unit_nodes, s->nunits);
	free(s->topology);
	rmi_strv_free(s->nic_exclude, s->n_nic_exclude);
	rmi_strv_free(s->nccl_key, s->n_nccl);
	rmi_strv_free(s->nccl_val, s->n_nccl);
	free(s->hwloc_xml);
	rmi_site_init(s);
}

/* A text value: a scalar without control bytes, 1..max bytes. */
rm_status rmi_site_text(ctx *c, const rmi_ynode *n, const char *what,
			size_t max, const char **out)
{
	rm_status st = rmi_y_str(n, c->file, what, out, c->err);
	if (st)
		return st;
	char q[160];
	if (n->len == 0 || n->len > max)
		return rmi_site_bad(
			c, n, "%s must be 1 to %zu characters long, got %zu",
			what, max, n->len);
	for (size_t i = 0; i < n->len; i++)
		if ((unsigned char)n->str[i] < 0x20 || n->str[i] == 0x7f)
			return rmi_site_bad(
				c, n, "%s must not hold control characters: %s",
				what, rm_quote(n->str, n->len, q, sizeof(q)));
	return RM_OK;
}

rm_status rmi_site_word(ctx *c, const rmi_ynode *n, const char *what,
			const rmi_word *w, int *out)
{
	if (!n)
		return RM_OK;
	/* A plain `off` is the YAML 1.1 boolean false to Python: read the
	 * text, whatever its style. */
	const char *t;
	rm_status st = rmi_site_text(c, n, what, 16, &t);
	if (st)
		return st;
	int v = rmi_word_find(t, w);
	if (v >= 0) {
		*out = v;
		return RM_OK;
	}
	char list[160] = "";
	size_t len = 0;
	for (size_t i = 0; w[i].word && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					!i ? "" : w[i + 1].word ? ", " : " or ",
					w[i].word);
	return rmi_site_bad(c, n, "%s must be %s, got %s", what, list,
			    rm_quote(t, n->len, (char[160]){0}, 160));
}

rm_status rmi_site_dup(ctx *c, const rmi_ynode *n, const char *what, size_t max,
		       char **out)
{
	const char *t;
	rm_status st = rmi_site_text(c, n, what, max, &t);
	if (st)
		return st;
	char *p = strdup(t);
	if (!p)
		return rmi_site_oom(c);
	free(*out);
	*out = p;
	return RM_OK;
}

/* Strings of a list, copied; `check` may refuse one. */
rm_status
rmi_site_list(ctx *c, const rmi_ynode *n, const char *what, size_t max,
	      rm_status (*check)(ctx *, const rmi_ynode *, const char *),
	      char ***out, size_t *nout)
{
	rm_status st = rmi_y_kind(n, c->file, what, RMI_Y_SEQ, c->err);
	if (st)
		return st;
	char **v = calloc(n->n ? n->n : 1, sizeof(*v));
	if (!v)
		return rmi_site_oom(c);
	for (size_t i = 0; i < n->n; i++) {
		char w[96];
		snprintf(w, sizeof(w), "%s[%zu]", what, i);
		st = rmi_site_dup(c, n->item[i], w, max, &v[i]);
		if (!st && check)
			st = check(c, n->item[i], w);
		if (st) {
			rmi_strv_free(v, n->n);
			return st;
		}
	}
	*out = v;
	*nout = n->n;
	return RM_OK;
}

/* bandwidth_gbs: more than 0 and below 1e6 GB/s (0 means unknown in
 * rm_tier, so it cannot be written). */
static rm_status parse_tiers(ctx *c, const rmi_ynode *l)
{
	static const char *const keys[] = {"name", "bandwidth_gbs",
					   "oversubscription", NULL};
	rm_site *s = c->s;
	rm_status st = rmi_y_kind(l, c->file, "tiers", RMI_Y_SEQ, c->err);
	if (st)
		return st;
	if (l->n > RM_MAX_TIERS)
		return rmi_site_bad(c, l->item[RM_MAX_TIERS],
				    "at most %d tiers", RM_MAX_TIERS);
	for (size_t i = 0; i < l->n; i++) {
		const rmi_ynode *t = l->item[i];
		rm_tier *tr = &s->tier[i];
		char w[64];
		snprintf(w, sizeof(w), "tiers[%zu]", i);
		if ((st = rmi_y_keys(t, c->file, w, keys, c->err)))
			return st;
		const rmi_ynode *nm = rmi_y_get(t, "name");
		const char *name;
		if (!nm)
			return rmi_site_bad(c, t, "%s needs a name", w);
		snprintf(w, sizeof(w), "tiers[%zu].name", i);
		if ((st = rmi_site_text(c, nm, w, sizeof(tr->name) - 1, &name)))
			return st;
		for (size_t j = 0; j < i; j++)
			if (strcmp(s->tier[j].name, name) == 0)
				return rmi_site_bad(
					c, nm, "tier name '%s' is used twice",
					s->tier[j].name);
		memcpy(tr->name, name, nm->len + 1);
		const rmi_ynode *bw = rmi_y_get(t, "bandwidth_gbs");
		snprintf(w, sizeof(w), "tiers[%zu].bandwidth_gbs", i);
		if (bw && (st = rmi_y_double(bw, c->file, w, 0, 1e6,
					     &tr->gbytes_per_s, c->err)))
			return st;
		if (bw && (tr->gbytes_per_s <= 0 || tr->gbytes_per_s >= 1e6))
			return rmi_site_bad(
				c, bw,
				"%s must be more than 0 and less than "
				"1000000 (GB/s per GPU), got %s",
				w, bw->str);
		const rmi_ynode *ov = rmi_y_get(t, "oversubscription");
		snprintf(w, sizeof(w), "tiers[%zu].oversubscription", i);
		if (ov && (st = rmi_y_double(ov, c->file, w, 1, 1e4,
					     &tr->oversubscription, c->err)))
			return st;
		s->ntiers = i + 1;
	}
	return RM_OK;
}

/* The order is checked for shape here; against a layout at plan time. */
static rm_status check_order(ctx *c, const rmi_ynode *n, const char *o)
{
	static const char *const named[] = {"megatron", "llama3", "torchtitan",
					    "nest", NULL};
	for (size_t i = 0; named[i]; i++)
		if (strcmp(o, named[i]) == 0)
			return RM_OK;
	unsigned seen = 0;
	const char *p = o;
	char q[160];
	for (;;) {
		size_t len = strcspn(p, "-");
		int a = rm_axis_from_name(p, len);
		if (a < 0 || (seen & (1u << a)))
			return rmi_site_bad(
				c, n,
				"defaults.order must be megatron, llama3, "
				"torchtitan or axes like tp-pp-dp, each "
				"once; got %s",
				rm_quote(o, strlen(o), q, sizeof(q)));
		seen |= 1u << a;
		if (!p[len])
			return RM_OK;
		p += len + 1;
	}
}

/*
 * defaults.hw names a preset of rm_hw_presets and nothing else: the SPANK
 * plugin reads site files too, possibly as root, and a hardware file path
 * here would make it open whatever file an admin's typo names. Aliases
 * (`h100`) are refused too, so that the file says what the reports print.
 */
static rm_status check_hw(ctx *c, const rmi_ynode *n, const char *hw)
{
	char list[256] = "", q[160];
	size_t len = 0, k;
	for (k = 0; rm_hw_presets[k]; k++)
		if (strcmp(hw, rm_hw_presets[k]) == 0)
			return RM_OK;
	for (size_t i = 0; i < k && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					!i ? "" : i + 1 < k ? ", " : " or ",
					rm_hw_presets[i]);
	/* what rm_hw_get would take for a file: say where it goes */
	size_t hl = strlen(hw);
	bool file = strchr(hw, '/') ||
		    (hl > 5 && !strcmp(hw + hl - 5, ".yaml")) ||
		    (hl > 4 && !strcmp(hw + hl - 4, ".yml")) ||
		    (hl > 5 && !strcmp(hw + hl - 5, ".json"));
	return rmi_site_bad(c, n,
			    "defaults.hw must be a hardware preset (%s), got "
			    "%s%s",
			    list, rm_quote(hw, hl, q, sizeof(q)),
			    file ? ": a hardware file is given with --hw, not "
				   "in a site file"
				 : "");
}

static rm_status parse_defaults(ctx *c, const rmi_ynode *m)
{
	static const char *const keys[] = {"order", "hw", NULL};
	rm_status st = rmi_y_keys(m, c->file, "defaults", keys, c->err);
	const rmi_ynode *o = rmi_y_get(m, "order");
	const rmi_ynode *h = rmi_y_get(m, "hw");
	const char *t;
	if (st)
		return st;
	if (o) {
		if ((st = rmi_site_text(c, o, "defaults.order",
					sizeof(c->s->order) - 1, &t)) ||
		    (st = check_order(c, o, t)))
			return st;
		memcpy(c->s->order, t, o->len + 1);
	}
	if (h) {
		/* Longer than any preset, so that a near miss is told the
		 * presets rather than a length; the copy is of a preset,
		 * which unit/site checks fits. */
		if ((st = rmi_site_text(c, h, "defaults.hw", 128, &t)) ||
		    (st = check_hw(c, h, t)))
			return st;
		snprintf(c->s->hw, sizeof(c->s->hw), "%s", t);
	}
	return RM_OK;
}

static rm_status parse_policy(ctx *c, const rmi_ynode *m)
{
	static const char *const keys[] = {"enforce", "max_pp_crossings",
					   "missing_nodes", "crossings", NULL};
	rm_site *s = c->s;
	rm_status st = rmi_y_keys(m, c->file, "policy", keys, c->err);
	if (st)
		return st;
	static const rmi_word enforce[] = {
		{"off", RM_ENFORCE_OFF}, {"warn", RM_ENFORCE_WARN},
		{"strict", RM_ENFORCE_STRICT}, {NULL, 0}};
	static const rmi_word missing[] = {
		{"error", false}, {"own-leaf", true}, {NULL, 0}};
	static const rmi_word cross[] = {
		{"cheapest", RM_CROSS_CHEAPEST},
		{"leaves-first", RM_CROSS_LEAVES_FIRST},
		{"pods-first", RM_CROSS_PODS_FIRST}, {NULL, 0}};
	int k = (int)s->enforce;
	if ((st = rmi_site_word(c, rmi_y_get(m, "enforce"), "policy.enforce",
				enforce, &k)))
		return st;
	s->enforce = (rm_enforce)k;
	const rmi_ynode *x = rmi_y_get(m, "max_pp_crossings");
	uint64_t v;
	if (x) {
		if ((st = rmi_y_u64(x, c->file, "policy.max_pp_crossings", 0,
				    RM_MAX_WORLD, &v, c->err)))
			return st;
		s->max_pp_crossings = (int64_t)v;
	}
	k = s->allow_missing_nodes;
	if ((st = rmi_site_word(c, rmi_y_get(m, "missing_nodes"),
				"policy.missing_nodes", missing, &k)))
		return st;
	s->allow_missing_nodes = k;
	k = (int)s->cross_policy;
	if ((st = rmi_site_word(c, rmi_y_get(m, "crossings"),
				"policy.crossings", cross, &k)))
		return st;
	s->cross_policy = (rm_cross_policy)k;
	return RM_OK;
}

static rm_status parse_root(ctx *c, const rmi_ynode *root)
{
	static const char *const keys[] = {
		"schema", "name",  "gpus_per_node", "topology",
		"nvlink", "units", "tiers",	    "defaults",
		"policy", "nccl",  "hwloc_xml",	    NULL};
	rm_site *s = c->s;
	char q[160];
	rm_status st =
		rmi_y_kind(root, c->file, "a site file", RMI_Y_MAP, c->err);
	if (st)
		return st;
	/* The schema first: a wrong file gets one clear sentence rather
	 * than a complaint about its first unknown key. */
	const rmi_ynode *sc = rmi_y_get(root, "schema");
	const char *t;
	if (!sc)
		return rmi_site_bad(c, root,
				    "not a site file: missing 'schema: %s'",
				    RM_SITE_SCHEMA);
	if ((st = rmi_site_text(c, sc, "schema", 64, &t)))
		return st;
	rm_quote(t, sc->len, q, sizeof(q));
	if (strncmp(t, "rankmap-site/", 13) == 0 &&
	    strcmp(t, RM_SITE_SCHEMA) != 0)
		return rmi_site_bad(c, sc,
				    "site file schema %s is not supported; "
				    "this rankmap reads %s",
				    q, RM_SITE_SCHEMA);
	if (strcmp(t, RM_SITE_SCHEMA) != 0)
		return rmi_site_bad(c, sc,
				    "schema %s is not a site file schema "
				    "(expected %s)",
				    q, RM_SITE_SCHEMA);
	if ((st = rmi_y_keys(root, c->file, "the site file", keys, c->err)))
		return st;
	const rmi_ynode *n;
	uint64_t v;
	if ((n = rmi_y_get(root, "name")) &&
	    (st = rmi_site_dup(c, n, "name", 128, &s->name)))
		return st;
	if ((n = rmi_y_get(root, "gpus_per_node"))) {
		if ((st = rmi_y_u64(n, c->file, "gpus_per_node", 1, 1024, &v,
				    c->err)))
			return st;
		s->gpus_per_node = (uint32_t)v;
	}
	if ((n = rmi_y_get(root, "topology")) &&
	    (st = rmi_site_dup(c, n, "topology", SITE_MAX_PATH, &s->topology)))
		return st;
	if ((n = rmi_y_get(root, "hwloc_xml")) &&
	    ((st = rmi_site_dup(c, n, "hwloc_xml", SITE_MAX_PATH,
				&s->hwloc_xml)) ||
	     (st = rmi_site_xml_path(c, n))))
		return st;
	/* The sections in this order: a file with several mistakes is
	 * always told about the same one first. */
	static const struct {
		const char *key;
		rm_status (*parse)(ctx *, const rmi_ynode *);
	} sections[] = {
		{"nvlink", rmi_site_nvlink}, {"units", rmi_site_units},
		{"tiers", parse_tiers},	     {"defaults", parse_defaults},
		{"policy", parse_policy},    {"nccl", rmi_site_nccl},
	};
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if ((n = rmi_y_get(root, sections[i].key)) &&
		    (st = sections[i].parse(c, n)))
			return st;
	return RM_OK;
}

rm_status rmi_site_parse(const char *text_in, size_t len, const char *name,
			rm_site *out, rm_error *err)
{
	if (!out)
		return rmi_err(err, RM_EINPUT, "rm_site_parse: no output given");
	rmi_site_init(out);
	const char *file = name ? name : "<site>";
	if (!text_in)
		return rmi_err_at(err, RM_EINPUT, file, 0, 0, "no text given");
	rmi_ynode *root = NULL;
	rm_status st = rmi_yaml_load(text_in, len, file, &root, err);
	if (st)
		return st;
	ctx c = {file, out, err};
	st = parse_root(&c, root);
	rmi_yaml_free(root);
	if (!st && !(out->path = strdup(file)))
		st = rmi_site_oom(&c);
	if (st)
		rmi_site_clear(out);
	return st;
}

/* Relative paths in a site file are relative to the file itself, so a
 * site directory can be moved as a whole; they are made absolute because
 * the SPANK plugin and the CLI read them from other working directories. */
static rm_status rebase(const char *site_path, char **p, rm_error *err)
{
	if (!*p || (*p)[0] == '/')
		return RM_OK;
	const char *slash = strrchr(site_path, '/');
	char *dir;
	if (slash) {
		size_t dl = (size_t)(slash - site_path);
		char *d = strndup(site_path, dl ? dl : 1);
		if (!d)
			return rmi_err(err, RM_ENOMEM, "%s: out of memory",
				       site_path);
		dir = realpath(d, NULL);
		free(d);
	} else {
		dir = realpath(".", NULL);
	}
	if (!dir)
		return rmi_err(err, RM_EIO, "%s: cannot resolve its directory",
			       site_path);
	size_t dl = strlen(dir), pl = strlen(*p);
	char *q = malloc(dl + pl + 2);
	if (!q) {
		free(dir);
		return rmi_err(err, RM_ENOMEM, "%s: out of memory", site_path);
	}
	memcpy(q, dir, dl);
	q[dl] = '/';
	memcpy(q + dl + 1, *p, pl + 1);
	free(dir);
	free(*p);
	*p = q;
	return RM_OK;
}

static rm_status parse_site(void *s, const char *text, size_t len,
			    const char *file, rm_error *err)
{
	return rmi_site_parse(text, len, file, s, err);
}

rm_status rmi_site_load(const char *path, rm_site *out, rm_error *err)
{
	if (!out || !path)
		return rmi_err(err, RM_EINPUT, "rm_site_load: no %s given",
			       out ? "path" : "output");
	rmi_site_init(out);
	rm_status st = rmi_parse_file(path, parse_site, out, err);
	if (!st && ((st = rebase(path, &out->topology, err)) ||
		    (st = rebase(path, &out->hwloc_xml, err))))
		rmi_site_clear(out);
	return st;
}
