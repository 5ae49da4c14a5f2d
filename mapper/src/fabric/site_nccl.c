/* SPDX-License-Identifier: Apache-2.0 */
/*
 * site_nccl.c - the site file's node-hardware sections: NICs NCCL must not
 * use, NCCL variables for every job, and where cached hwloc XML lives.
 */
#include "fabric/site_int.h"

#include <stdlib.h>
#include <string.h>

/* NIC names as the kernel and NCCL write them, plus fnmatch's wildcards. */
static rm_status check_nic(ctx *c, const rmi_ynode *n, const char *what)
{
	char q[160];
	if (strspn(n->str,
		   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		   "0123456789_.:-*?[]!") != n->len)
		return rmi_site_bad(c, n, "%s is not a NIC name or pattern: %s",
				    what,
				    rm_quote(n->str, n->len, q, sizeof(q)));
	return RM_OK;
}

/* Variables a site may set for every job: NCCL's own and a short list
 * NCCL behaviour depends on; anything else is not the site file's
 * business (LD_PRELOAD, PATH ...). */
static bool env_key_ok(const char *k)
{
	static const char *const extra[] = {"CUDA_DEVICE_MAX_CONNECTIONS",
					    "UCX_NET_DEVICES", NULL};
	for (size_t i = 0; extra[i]; i++)
		if (strcmp(k, extra[i]) == 0)
			return true;
	size_t pre = strncmp(k, "NCCL_", 5) == 0	  ? 5
		     : strncmp(k, "TORCH_NCCL_", 11) == 0 ? 11
							  : 0;
	if (!pre || !k[pre])
		return false;
	return strspn(k + pre, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
	       strlen(k + pre);
}

static rm_status parse_env(ctx *c, const rmi_ynode *m)
{
	rm_site *s = c->s;
	rm_status st = rmi_y_kind(m, c->file, "nccl.env", RMI_Y_MAP, c->err);
	if (st)
		return st;
	size_t n = m->n;
	s->nccl_key = calloc(n ? n : 1, sizeof(char *));
	s->nccl_val = calloc(n ? n : 1, sizeof(char *));
	if (!s->nccl_key || !s->nccl_val)
		return rmi_site_oom(c);
	s->n_nccl = n;
	for (size_t i = 0; i < n; i++) {
		const rmi_ynode *k = m->item[2 * i], *v = m->item[2 * i + 1];
		char q[160], w[160];
		if (!env_key_ok(k->str))
			return rmi_site_bad(
				c, k,
				"nccl.env: %s is not an NCCL variable "
				"(NCCL_*, TORCH_NCCL_*, "
				"CUDA_DEVICE_MAX_CONNECTIONS or "
				"UCX_NET_DEVICES)",
				rm_quote(k->str, k->len, q, sizeof(q)));
		if (!(s->nccl_key[i] = strdup(k->str)))
			return rmi_site_oom(c);
		snprintf(w, sizeof(w), "nccl.env.%s", s->nccl_key[i]);
		if ((st = rmi_site_dup(c, v, w, SITE_MAX_ENV_VAL,
				       &s->nccl_val[i])))
			return st;
	}
	return RM_OK;
}

rm_status rmi_site_nccl(ctx *c, const rmi_ynode *m)
{
	static const char *const keys[] = {"exclude_nics", "env",
					   "override_user", NULL};
	rm_site *s = c->s;
	rm_status st = rmi_y_keys(m, c->file, "nccl", keys, c->err);
	if (st)
		return st;
	const rmi_ynode *n;
	if ((n = rmi_y_get(m, "exclude_nics")) &&
	    (st = rmi_site_list(c, n, "nccl.exclude_nics", 64, check_nic,
				&s->nic_exclude, &s->n_nic_exclude)))
		return st;
	if ((n = rmi_y_get(m, "env")) && (st = parse_env(c, n)))
		return st;
	if ((n = rmi_y_get(m, "override_user")) &&
	    (st = rmi_y_bool(n, c->file, "nccl.override_user",
			     &s->nccl_override_user, c->err)))
		return st;
	return RM_OK;
}

/* "%n" is the short host name and "%%" a percent sign; nothing else. */
rm_status rmi_site_xml_path(ctx *c, const rmi_ynode *n)
{
	for (const char *p = n->str; (p = strchr(p, '%')); p += 2)
		if (p[1] != 'n' && p[1] != '%')
			return rmi_site_bad(
				c, n,
				"hwloc_xml: only %%n (short host name) "
				"and %%%% may follow %%, got '%%%c'",
				p[1] >= 0x20 && p[1] < 0x7f ? p[1] : '?');
	return RM_OK;
}
