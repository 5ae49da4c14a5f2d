/* SPDX-License-Identifier: Apache-2.0 */
/*
 * node_nic.c - PCI distance between GPUs and NICs, which NIC ports are
 * compute NICs, and which of them each GPU uses.
 *
 * Distances follow NCCL's words: the lowest common ancestor decides. We walk
 * the parent chain ourselves because hwloc_get_common_ancestor_obj() is not
 * safe on I/O objects in hwloc 2.9.
 */
#include "node/node_int.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHAIN 256

static bool is_bridge(hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_BRIDGE;
}

/* Bridges strictly between `o` and `top`. */
static unsigned bridges_below(hwloc_obj_t o, hwloc_obj_t top)
{
	unsigned n = 0;
	for (hwloc_obj_t p = o->parent; p && p != top; p = p->parent)
		if (is_bridge(p))
			n++;
	return n;
}

rm_pci_dist rmi_pci_distance(hwloc_obj_t a, hwloc_obj_t b, unsigned *hops)
{
	hwloc_obj_t chain[MAX_CHAIN];
	size_t n = 0;
	for (hwloc_obj_t p = a; p && n < MAX_CHAIN; p = p->parent)
		chain[n++] = p;
	hwloc_obj_t lca = NULL;
	for (hwloc_obj_t p = b; p && !lca; p = p->parent)
		for (size_t i = 0; i < n; i++)
			if (chain[i] == p) {
				lca = p;
				break;
			}
	*hops = 0;
	if (lca && is_bridge(lca)) {
		unsigned ha = bridges_below(a, lca), hb = bridges_below(b, lca);
		*hops = ha + hb;
		if (lca->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST)
			return RM_DIST_PHB;
		/* One switch is an upstream port plus one downstream port per
		 * device: more than one bridge on a side is a second switch. */
		return ha <= 1 && hb <= 1 ? RM_DIST_PIX : RM_DIST_PXB;
	}
	if (lca && lca->type == HWLOC_OBJ_PCI_DEVICE)
		return RM_DIST_PIX;
	hwloc_obj_t la = a, lb = b;
	while (la && !la->nodeset)
		la = la->parent;
	while (lb && !lb->nodeset)
		lb = lb->parent;
	if (la && lb && hwloc_bitmap_intersects(la->nodeset, lb->nodeset))
		return RM_DIST_NODE;
	return RM_DIST_SYS;
}

const char *rmi_port_state(int32_t st)
{
	switch (st) {
	case 1: return "DOWN";
	case 2: return "INIT";
	case 3: return "ARMED";
	case 4: return "ACTIVE";
	case 5: return "ACTIVE_DEFER";
	default: return NULL;
	}
}

static const char *excluded_by(const rmi_port *p, const rm_site *site)
{
	if (!site)
		return NULL;
	char np[160];
	snprintf(np, sizeof(np), "%s:%u", p->name, p->port);
	for (size_t i = 0; i < site->n_nic_exclude; i++) {
		const char *pat = site->nic_exclude[i];
		if (pat && (fnmatch(pat, p->name, 0) == 0 ||
			    fnmatch(pat, np, 0) == 0))
			return pat;
	}
	return NULL;
}

/* Closeness for pairing: the distance class first, then the bridges on the
 * path (only meaningful inside one PCI tree). */
static unsigned score(rm_pci_dist d, unsigned hops)
{
	return (unsigned)d * 1000u + (d <= RM_DIST_PXB ? (hops > 999 ? 999 : hops) : 0);
}

static void nearest_gpu(rm_node_hw *hw, rmi_port *p)
{
	unsigned best = ~0u;
	for (size_t g = 0; g < hw->ngpu; g++) {
		unsigned hops;
		rm_pci_dist d = rmi_pci_distance(hw->gpu[g].pci, p->pci, &hops);
		if (score(d, hops) < best) {
			best = score(d, hops);
			p->gpu = (int32_t)g;
			p->dist = d;
			p->hops = hops;
		}
	}
}

/* Ports that can carry GPU traffic at all, before distance is looked at;
 * fills the reason for the others. */
static bool usable(rmi_port *p, const rm_site *site)
{
	char q[96];
	if (p->why[0])
		return false; /* set while scanning (no RDMA device) */
	/* Kernel RDMA names are [A-Za-z0-9_.-]; anything else (a doctored XML)
	 * would break the comma/colon syntax of NCCL_IB_HCA. */
	if (strspn(p->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789_.-") != strlen(p->name)) {
		snprintf(p->why, sizeof(p->why), "name not usable in NCCL_IB_HCA");
		return false;
	}
	if (p->vf) {
		snprintf(p->why, sizeof(p->why), "SR-IOV virtual function");
		return false;
	}
	if (p->state >= 0 && p->state != 4 && p->state != 5) {
		const char *word = rmi_port_state(p->state);
		snprintf(p->why, sizeof(p->why), "port %s",
			 word ? word : "unknown");
		return false;
	}
	const char *pat = excluded_by(p, site);
	if (pat) {
		snprintf(p->why, sizeof(p->why), "excluded by the site (%s)",
			 rm_quote(pat, strlen(pat), q, sizeof(q)));
		return false;
	}
	return true;
}

static bool same_set(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	return na == nb && (na == 0 || memcmp(a, b, na * sizeof(*a)) == 0);
}

/*
 * Every GPU gets the compute ports closest to it. GPUs with the same set of
 * closest ports at the same distance share them out in bus order: two GPUs
 * and four EFA behind one switch get two each, two GPUs and one NIC share
 * it. A farther GPU borrowing the same ports takes nothing from the near one.
 */
static rm_status pair(rm_node_hw *hw, rm_error *err)
{
	size_t ng = hw->ngpu, np = hw->nport;
	uint32_t **near = calloc(ng ? ng : 1, sizeof(*near));
	size_t *nnear = calloc(ng ? ng : 1, sizeof(*nnear));
	unsigned *best = calloc(ng ? ng : 1, sizeof(*best));
	bool *done = calloc(ng ? ng : 1, sizeof(*done));
	rm_status s = RM_OK;
	if (!near || !nnear || !best || !done) {
		s = rmi_err(err, RM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t g = 0; g < ng; g++) {
		rm_pci_dist bd = RM_DIST_NONE;
		best[g] = ~0u;
		near[g] = malloc((np ? np : 1) * sizeof(uint32_t));
		if (!near[g]) {
			s = rmi_err(err, RM_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < np; i++) {
			if (!hw->port[i].compute)
				continue;
			unsigned hops;
			rm_pci_dist d = rmi_pci_distance(hw->gpu[g].pci, hw->port[i].pci, &hops);
			unsigned sc = score(d, hops);
			if (sc < best[g]) {
				best[g] = sc;
				bd = d;
				nnear[g] = 0;
			}
			if (sc == best[g])
				near[g][nnear[g]++] = (uint32_t)i;
		}
		hw->gpu[g].dist = nnear[g] ? bd : RM_DIST_NONE;
	}
	for (size_t g = 0; g < ng; g++) {
		if (done[g] || !nnear[g])
			continue;
		size_t members[RMI_NODE_MAX_GPUS], m = 0;
		for (size_t h = g; h < ng; h++)
			if (!done[h] && best[h] == best[g] &&
			    same_set(near[g], nnear[g], near[h], nnear[h])) {
				members[m++] = h;
				done[h] = true;
			}
		size_t k = nnear[g];
		for (size_t j = 0; j < m; j++) {
			rmi_gpu *gp = &hw->gpu[members[j]];
			size_t lo = j * k / m, hi = (j + 1) * k / m;
			if (hi <= lo)
				hi = lo + 1;
			gp->nic = malloc((hi - lo) * sizeof(uint32_t));
			if (!gp->nic) {
				s = rmi_err(err, RM_ENOMEM, "out of memory");
				goto out;
			}
			for (size_t i = lo; i < hi; i++)
				gp->nic[gp->nnic++] = near[g][i];
		}
	}
out:
	if (near)
		for (size_t g = 0; g < ng; g++)
			free(near[g]);
	free(near);
	free(nnear);
	free(best);
	free(done);
	return s;
}

rm_status rmi_node_classify(rm_node_hw *hw, const rm_site *site, rm_error *err)
{
	bool any_close = false;
	for (size_t i = 0; i < hw->nport; i++) {
		rmi_port *p = &hw->port[i];
		nearest_gpu(hw, p);
		if (!usable(p, site))
			continue;
		if (hw->ngpu == 0) {
			snprintf(p->why, sizeof(p->why), "no GPU on this node");
			continue;
		}
		if (p->dist <= RM_DIST_PHB) {
			p->compute = true;
			any_close = true;
		}
	}
	/* NICs in another PCI domain than every GPU (POWER9): nothing is
	 * within PHB, so the NICs on a GPU's NUMA node are the compute NICs. */
	if (!any_close && hw->ngpu)
		for (size_t i = 0; i < hw->nport; i++) {
			rmi_port *p = &hw->port[i];
			if (!p->why[0] && p->dist == RM_DIST_NODE) {
				p->compute = true;
				hw->numa_fallback = true;
			}
		}
	for (size_t i = 0; i < hw->nport; i++) {
		rmi_port *p = &hw->port[i];
		if (!p->compute && !p->why[0])
			snprintf(p->why, sizeof(p->why),
				 "serves no GPU at PHB or closer (nearest %s)",
				 rm_pci_dist_name(p->dist));
	}
	return pair(hw, err);
}
