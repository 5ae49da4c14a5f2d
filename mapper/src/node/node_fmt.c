/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node_fmt.c - the `rankmap node` report as text tables, JSON or KEY=value
 * lines that a shell can source.
 */
#include "node/node_int.h"

#include <stdlib.h>
#include <string.h>

/* The report tells "not read" (-1) from a state it has no name for. */
static const char *state_word(int32_t st)
{
	const char *w = rmi_port_state(st);
	return w ? w : st == -1 ? "unknown" : "other";
}

static void port_list(rm_buf *b, const rm_node_hw *hw, const rmi_gpu *g,
		      bool json)
{
	for (size_t j = 0; j < g->nnic; j++) {
		const rmi_port *p = &hw->port[g->nic[j]];
		char tmp[160];
		snprintf(tmp, sizeof(tmp), "%s:%u", p->name, p->port);
		if (json) {
			if (j)
				rm_buf_add(b, ",", 1);
			rm_buf_json_str(b, tmp);
		} else {
			rm_buf_printf(b, "%s%s", j ? "," : "", tmp);
		}
	}
}

static void env_json(rm_buf *b, const rm_env *e)
{
	rm_buf_add(b, "{", 1);
	for (size_t i = 0; i < e->n; i++) {
		if (i)
			rm_buf_add(b, ",", 1);
		rm_buf_json_str(b, e->key[i]);
		rm_buf_add(b, ":", 1);
		rm_buf_json_str(b, e->val[i]);
	}
	rm_buf_add(b, "}", 1);
}

static void text_tables(rm_buf *b, const rm_node_hw *hw)
{
	size_t ncomp = 0;
	for (size_t i = 0; i < hw->nport; i++)
		ncomp += hw->port[i].compute;
	rm_buf_printf(b, "node: %s\nGPUs: %zu   NVSwitches: %zu   NIC ports: %zu (%zu compute)\n",
		       hw->source, hw->ngpu, hw->nnvswitch, hw->nport, ncomp);
	if (hw->ngpu == 0)
		rm_buf_puts(b, "no GPUs on this node: no GPU-NIC pairs and no NCCL_IB_HCA (CPU-only jobs run as usual)\n");
	if (hw->numa_fallback)
		rm_buf_puts(b, "note: no NIC is within PHB of a GPU; the NICs on the GPUs' NUMA nodes are used\n");
	if (hw->ngpu) {
		rm_buf_printf(b, "\n%-4s %-13s %-9s %-4s %-24s %-28s %s\n", "GPU",
			       "BUS ID", "PCI ID", "NUMA", "CPUS", "NIC", "DIST");
		for (size_t g = 0; g < hw->ngpu; g++) {
			const rmi_gpu *x = &hw->gpu[g];
			char numa[16], ids[16];
			snprintf(numa, sizeof(numa), x->numa >= 0 ? "%d" : "-", (int)x->numa);
			snprintf(ids, sizeof(ids), "%04x:%04x", x->vendor, x->device);
			rm_buf_printf(b, "%-4zu %-13s %-9s %-4s %-24s ", g, x->busid, ids,
				       numa, x->cpus);
			rm_buf buf;
			rm_buf_init(&buf);
			port_list(&buf, hw, x, false);
			rm_buf_printf(b, "%-28s %s\n", buf.data ? buf.data : "-",
				       rm_pci_dist_name(x->dist));
			rm_buf_clear(&buf);
		}
	}
	if (hw->nport) {
		rm_buf_printf(b, "\n%-16s %-13s %-16s %-8s %-4s %-4s %-5s %s\n",
			       "NIC PORT", "BUS ID", "NETDEV", "STATE", "NUMA",
			       "GPU", "DIST", "USE");
		for (size_t i = 0; i < hw->nport; i++) {
			const rmi_port *p = &hw->port[i];
			char np[160], numa[16], gpu[16];
			snprintf(np, sizeof(np), "%s:%u", p->name, p->port);
			snprintf(numa, sizeof(numa), p->numa >= 0 ? "%d" : "-", (int)p->numa);
			snprintf(gpu, sizeof(gpu), p->gpu >= 0 ? "%d" : "-", (int)p->gpu);
			rm_buf_printf(b, "%-16s %-13s %-16s %-8s %-4s %-4s %-5s %s%s\n",
				       np, p->busid, *p->netdev ? p->netdev : "-",
				       state_word(p->state), numa, gpu,
				       rm_pci_dist_name(p->dist),
				       p->compute ? "compute" : "no: ",
				       p->compute ? "" : p->why);
		}
	}
}

static rm_status rank_envs(const rm_node_hw *hw, uint32_t n, rm_env **out,
			   rm_error *err)
{
	*out = calloc(n ? n : 1, sizeof(rm_env));
	if (!*out)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	for (uint32_t r = 0; r < n; r++) {
		rm_status s = rm_node_rank_env(hw, r, n, &(*out)[r], err);
		if (s) {
			for (uint32_t q = 0; q < r; q++)
				rm_env_clear(&(*out)[q]);
			free(*out);
			*out = NULL;
			return s;
		}
	}
	return RM_OK;
}

static void json_report(rm_buf *b, const rm_node_hw *hw, const rm_env *node,
			const rm_env *rank, uint32_t n)
{
	rm_buf_puts(b, "{\"schema\":\"rankmap-node/1\",\"source\":");
	rm_buf_json_str(b, hw->source);
	rm_buf_printf(b, ",\"nvswitches\":%zu,\"numa_fallback\":%s,\"gpus\":[",
		       hw->nnvswitch, hw->numa_fallback ? "true" : "false");
	for (size_t g = 0; g < hw->ngpu; g++) {
		const rmi_gpu *x = &hw->gpu[g];
		rm_buf_printf(b, "%s{\"index\":%zu,\"busid\":\"%s\",\"pci_id\":\"%04x:%04x\",\"numa\":%d,\"cpus\":",
			       g ? "," : "", g, x->busid, x->vendor, x->device, (int)x->numa);
		rm_buf_json_str(b, x->cpus);
		rm_buf_puts(b, ",\"nics\":[");
		port_list(b, hw, x, true);
		rm_buf_printf(b, "],\"dist\":\"%s\"}", rm_pci_dist_name(x->dist));
	}
	rm_buf_puts(b, "],\"nics\":[");
	for (size_t i = 0; i < hw->nport; i++) {
		const rmi_port *p = &hw->port[i];
		rm_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
		rm_buf_json_str(b, p->name);
		rm_buf_printf(b, ",\"port\":%u,\"busid\":\"%s\",\"netdev\":", p->port, p->busid);
		rm_buf_json_str(b, p->netdev);
		rm_buf_printf(b, ",\"state\":\"%s\",\"numa\":%d,\"nearest_gpu\":%d,\"dist\":\"%s\",\"compute\":%s,\"why_not\":",
			       state_word(p->state), (int)p->numa, (int)p->gpu,
			       rm_pci_dist_name(p->dist), p->compute ? "true" : "false");
		rm_buf_json_str(b, p->why);
		rm_buf_add(b, "}", 1);
	}
	rm_buf_puts(b, "],\"nccl_env\":");
	env_json(b, node);
	rm_buf_puts(b, ",\"ranks\":[");
	for (uint32_t r = 0; r < n; r++) {
		rm_buf_printf(b, "%s{\"local_rank\":%u,\"env\":", r ? "," : "", r);
		env_json(b, &rank[r]);
		rm_buf_add(b, "}", 1);
	}
	rm_buf_puts(b, "]}\n");
}

rm_status rm_node_format(const rm_node_hw *hw, const rm_site *site,
			 rm_format fmt, uint32_t local_ranks, char **out,
			 size_t *len, rm_error *err)
{
	*out = NULL;
	if (len)
		*len = 0;
	if (fmt != RM_FMT_TEXT && fmt != RM_FMT_JSON && fmt != RM_FMT_ENV)
		return rmi_err(err, RM_EINPUT,
			       "rankmap node writes text, json or env");
	uint32_t n = local_ranks ? local_ranks : (uint32_t)hw->ngpu;
	if (hw->ngpu == 0)
		n = 0; /* nothing per rank on a CPU-only node */
	rm_env node, *rank = NULL;
	rm_status s = rm_node_nccl_env(hw, site, &node, err);
	if (s)
		return s;
	if ((s = rank_envs(hw, n, &rank, err))) {
		rm_env_clear(&node);
		return s;
	}
	rm_buf b;
	rm_buf_init(&b);
	if (fmt == RM_FMT_JSON) {
		json_report(&b, hw, &node, rank, n);
	} else if (fmt == RM_FMT_ENV) {
		rm_buf_puts(&b, "# node environment\n");
		for (size_t i = 0; i < node.n; i++)
			rm_buf_env(&b, node.key[i], node.val[i]);
		for (uint32_t r = 0; r < n; r++) {
			rm_buf_printf(&b, "# local rank %u\n", r);
			for (size_t i = 0; i < rank[r].n; i++)
				rm_buf_env(&b, rank[r].key[i], rank[r].val[i]);
		}
	} else {
		text_tables(&b, hw);
		rm_buf_puts(&b, "\nNCCL environment (whole node):\n");
		if (node.n == 0)
			rm_buf_puts(&b, "  (none)\n");
		for (size_t i = 0; i < node.n; i++)
			rm_buf_printf(&b, "  %s=%s\n", node.key[i], node.val[i]);
		if (n) {
			rm_buf_printf(&b, "\n%-5s %-4s %-24s %s\n", "RANK", "GPU",
				       "CPUS", "NIC");
			for (uint32_t r = 0; r < n; r++) {
				const char *cpus = "", *nic = "-";
				for (size_t i = 0; i < rank[r].n; i++) {
					if (!strcmp(rank[r].key[i], "RANKMAP_CPUS"))
						cpus = rank[r].val[i];
					if (!strcmp(rank[r].key[i], "RANKMAP_NIC"))
						nic = rank[r].val[i];
				}
				rm_buf_printf(&b, "%-5u %-4u %-24s %s\n", r, r, cpus, nic);
			}
		}
	}
	for (uint32_t r = 0; r < n; r++)
		rm_env_clear(&rank[r]);
	free(rank);
	rm_env_clear(&node);
	/* NULL (the buffer freed) when it ran out of memory */
	*out = rm_buf_take(&b, len);
	if (!*out)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	return RM_OK;
}
