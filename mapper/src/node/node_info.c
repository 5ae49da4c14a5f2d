/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node_info.c - what callers read from a loaded node (accessors) and where
 * a site's cached hwloc XML for a host lives.
 */
#include "node/node_int.h"

#include <stdlib.h>
#include <string.h>

rm_status rm_node_xml_path(const rm_site *site, const char *host, char **out,
			   rm_error *err)
{
	*out = NULL;
	if (!site || !site->hwloc_xml || !*site->hwloc_xml)
		return RM_OK;
	char shortname[RM_MAX_HOSTNAME + 1] = "";
	if (host) {
		size_t n = strcspn(host, ".");
		if (n > RM_MAX_HOSTNAME)
			n = RM_MAX_HOSTNAME;
		memcpy(shortname, host, n);
		shortname[n] = '\0';
	}
	rm_buf b;
	rm_buf_init(&b);
	for (const char *p = site->hwloc_xml; *p; p++) {
		if (p[0] == '%' && p[1] == 'n') {
			if (!*shortname) {
				rm_buf_clear(&b);
				return rmi_err(err, RM_EINPUT,
					       "hwloc_xml '%%n' needs a host name");
			}
			rm_buf_puts(&b, shortname);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			rm_buf_add(&b, "%", 1);
			p++;
		} else {
			rm_buf_add(&b, p, 1);
		}
	}
	/* NULL (the buffer freed) when it ran out of memory */
	*out = rm_buf_take(&b, NULL);
	return *out ? RM_OK : rmi_err(err, RM_ENOMEM, "out of memory");
}

const char *rm_node_source(const rm_node_hw *hw)
{
	return hw->source;
}

size_t rm_node_gpu_count(const rm_node_hw *hw)
{
	return hw ? hw->ngpu : 0;
}

size_t rm_node_nic_count(const rm_node_hw *hw)
{
	return hw ? hw->nport : 0;
}

size_t rm_node_nvswitch_count(const rm_node_hw *hw)
{
	return hw ? hw->nnvswitch : 0;
}

bool rm_node_numa_fallback(const rm_node_hw *hw)
{
	return hw && hw->numa_fallback;
}

bool rm_node_gpu(const rm_node_hw *hw, size_t i, rm_gpu_info *out)
{
	if (!hw || i >= hw->ngpu)
		return false;
	const rmi_gpu *g = &hw->gpu[i];
	out->busid = g->busid;
	out->vendor = g->vendor;
	out->device = g->device;
	out->numa = g->numa;
	out->cpus = g->cpus;
	out->nic = g->nic;
	out->nnic = g->nnic;
	out->dist = g->dist;
	return true;
}

bool rm_node_nic(const rm_node_hw *hw, size_t i, rm_nic_info *out)
{
	if (!hw || i >= hw->nport)
		return false;
	const rmi_port *p = &hw->port[i];
	out->name = p->name;
	out->port = p->port;
	out->busid = p->busid;
	out->netdev = p->netdev;
	out->state = p->state;
	out->numa = p->numa;
	out->compute = p->compute;
	out->why_not = p->why;
	out->gpu = p->gpu;
	out->dist = p->dist;
	return true;
}
