/* SPDX-License-Identifier: Apache-2.0 */
/*
 * site_api.c - the site as an object for programs: rm_site_load allocates
 * what rmi_site_load fills in place (the library and its tests keep sites
 * as values), and the accessors read it.
 */
#include "internal.h"

#include <stdlib.h>

rm_status rm_site_load(const char *path, rm_site **out, rm_error *err)
{
	if (!out)
		return rmi_err(err, RM_EINPUT, "rm_site_load: no output given");
	*out = NULL;
	rm_site *s = malloc(sizeof(*s));
	if (!s)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	rm_status st = rmi_site_load(path, s, err);
	if (st) {
		free(s);
		return st;
	}
	*out = s;
	return RM_OK;
}

void rm_site_free(rm_site *s)
{
	if (!s)
		return;
	rmi_site_clear(s);
	free(s);
}

/* The strings a NULL site has: none, and no default --order or --hw. */
const char *rm_site_path(const rm_site *s)
{
	return s ? s->path : NULL;
}

const char *rm_site_name(const rm_site *s)
{
	return s ? s->name : NULL;
}

const char *rm_site_order(const rm_site *s)
{
	return s ? s->order : "";
}

const char *rm_site_hw(const rm_site *s)
{
	return s ? s->hw : "";
}

const char *rm_site_topology(const rm_site *s)
{
	return s ? s->topology : NULL;
}

const char *rm_site_hwloc_xml(const rm_site *s)
{
	return s ? s->hwloc_xml : NULL;
}

/* A NULL site reads as a site file that sets nothing: the defaults. */
static const rm_site *or_defaults(const rm_site *s, rm_site *d)
{
	if (s)
		return s;
	rmi_site_init(d);
	return d;
}

uint32_t rm_site_gpus_per_node(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->gpus_per_node;
}

rm_enforce rm_site_enforce(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->enforce;
}

int64_t rm_site_max_pp_crossings(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->max_pp_crossings;
}

bool rm_site_allow_missing_nodes(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->allow_missing_nodes;
}

bool rm_site_nccl_override_user(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->nccl_override_user;
}

size_t rm_site_tier_count(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->ntiers;
}

rm_nvl_kind rm_site_nvl_kind(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->nvl_kind;
}

bool rm_site_nvl_given(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->nvl_given;
}

size_t rm_site_unit_count(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->nunits;
}

uint32_t rm_site_rails(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->rails;
}

size_t rm_site_nic_exclude_count(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->n_nic_exclude;
}

size_t rm_site_nccl_count(const rm_site *s)
{
	rm_site d;
	return or_defaults(s, &d)->n_nccl;
}

bool rm_site_tier(const rm_site *s, size_t i, rm_tier *out)
{
	if (!s || i >= s->ntiers)
		return false;
	*out = s->tier[i];
	return true;
}

const char *rm_site_nic_exclude(const rm_site *s, size_t i)
{
	return s && i < s->n_nic_exclude ? s->nic_exclude[i] : NULL;
}

bool rm_site_nccl(const rm_site *s, size_t i, const char **key,
		  const char **val)
{
	if (!s || i >= s->n_nccl)
		return false;
	*key = s->nccl_key[i];
	*val = s->nccl_val[i];
	return true;
}
