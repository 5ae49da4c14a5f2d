/* SPDX-License-Identifier: Apache-2.0 */
/* model_map.c - put each axis's traffic on the links a planned map uses. */
#include "model/model_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_UP 32  /* switch levels followed upwards */

typedef struct {
	int64_t domain;              /* NVLink domain key */
	int32_t leaf;                /* leaf switch, -1 unknown */
} host_at;

/* Lowest switch level both leaves hang under; `top` when none. */
static uint32_t lca_level(const rm_fabric *f, int32_t a, int32_t b,
			  uint32_t top)
{
	if (a == b)
		return 0;
	if (!f || a < 0 || b < 0)
		return f && f->has_tree ? top : 0;
	int32_t up[MAX_UP];
	size_t n = 0;
	for (int32_t x = a; x >= 0 && n < MAX_UP; x = f->sw[x].parent)
		up[n++] = x;
	for (int32_t y = b, k = 0; y >= 0 && k < MAX_UP;
	     y = f->sw[y].parent, k++)
		for (size_t i = 0; i < n; i++)
			if (up[i] == y)
				return f->sw[y].level;
	return top;
}

static rm_status hosts_of(const rm_map *map, const rm_fabric *f,
			  host_at **out, rm_error *err)
{
	host_at *h = calloc(map->nhost ? map->nhost : 1, sizeof(*h));
	if (!h)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	uint32_t ndom = f ? f->ndomain : 0;
	for (uint32_t i = 0; i < map->nhost; i++) {
		int64_t k = f ? rmi_fabric_find(f, map->host[i]) : -1;
		const rmi_fnode *n = k >= 0 ? &f->node[k] : NULL;
		h[i].leaf = n ? n->leaf : -1;
		h[i].domain = n && n->domain >= 0 ? n->domain
						  : (int64_t)ndom + i;
	}
	*out = h;
	return RM_OK;
}

/* The network tiers by switch level: the site's (after its nvlink entry)
 * when it names them, else the hardware's; unknown figures from the NIC. */
static size_t net_tiers(const rm_hw *hw, const rm_fabric *f,
			rm_hw_tier out[RM_MAX_TIERS])
{
	size_t n = 0;
	if (f && f->ntiers >= 2) {
		for (size_t i = 1; i < f->ntiers && n < RM_MAX_TIERS; i++, n++) {
			const rm_tier *ft = &f->tier[i];
			snprintf(out[n].name, sizeof(out[n].name), "%s", ft->name);
			out[n].span_gpus = 0;
			out[n].gbytes_per_s = ft->gbytes_per_s > 0 ?
				ft->gbytes_per_s : hw->nic_gbytes_per_s;
			out[n].oversubscription = ft->oversubscription >= 1 ?
				ft->oversubscription : 1.0;
		}
		return n;
	}
	for (; n < hw->ntiers; n++)
		out[n] = hw->tier[n];
	return n;
}

/* Hops counted per crossing level over the groups of one kind. */
typedef struct {
	double through[RM_MAX_TIERS + 1], hops, off;
	uint32_t maxc, top;
} hop_count;

/* The hops of one group's members: its ring (closed past 2 members
 * unless `ring` is false: a pipeline's chain), or every ordered pair of
 * them (`pairs`: an all-to-all). */
static void count_hops(const rm_map *map, const rm_fabric *f,
		       const host_at *h, const uint32_t *mem, uint32_t n,
		       bool ring, bool pairs, hop_count *k)
{
	uint32_t last = ring && n > 2 ? n : n - 1;
	for (uint32_t j = 0; j < (pairs ? n : last); j++)
		for (uint32_t i = pairs ? 0 : 1; i < (pairs ? n : 2); i++) {
			if (pairs && i == j)
				continue;
			const rm_rank *x = &map->rank[mem[j]];
			const rm_rank *y = &map->rank[mem[pairs ? i :
							  (j + 1) % n]];
			k->hops++;
			if (h[x->node].domain == h[y->node].domain)
				continue;
			k->off++;
			uint32_t lv = lca_level(f, h[x->node].leaf,
						h[y->node].leaf, k->top);
			if (lv > k->maxc)
				k->maxc = lv;
			for (uint32_t t = 0; t <= lv && t <= RM_MAX_TIERS; t++)
				k->through[t]++;
		}
}

/* The slowest tier with its oversubscription over the share that
 * crosses it sets the pace. */
static void price_hops(const rm_hw *hw, const rm_train *t, const rm_fabric *f,
		       const hop_count *k, char link[32], double *gbps,
		       double *off_nvlink, double *off_leaf)
{
	*off_nvlink = k->hops ? k->off / k->hops : 0;
	*off_leaf = k->hops ? k->through[1] / k->hops : 0;
	rmi_cal cal;
	rmi_cal_of(hw, t, &cal);
	if (k->off == 0) {
		snprintf(link, 32, "nvlink");
		*gbps = hw->nvlink_gbytes_per_s * cal.nvlink_eff;
		return;
	}
	rm_hw_tier tier[RM_MAX_TIERS];
	size_t nt = net_tiers(hw, f, tier);
	double bw = hw->nic_gbytes_per_s * cal.net_eff;
	for (size_t i = 0; i < nt && i <= k->maxc; i++) {
		double share = tier[i].oversubscription * k->through[i] / k->hops;
		double tb = tier[i].gbytes_per_s * cal.net_eff /
			    (share > 1 ? share : 1);
		if (tb < bw)
			bw = tb;
	}
	size_t ti = nt ? (k->maxc < nt ? k->maxc : nt - 1) : 0;
	snprintf(link, 32, "%s", nt ? tier[ti].name : "network");
	*gbps = bw;
}

static uint32_t top_level(const rm_fabric *f)
{
	uint32_t top = 0;
	for (uint32_t i = 0; f && i < f->nsw; i++)
		if (f->sw[i].level + 1 > top)
			top = f->sw[i].level + 1;
	return top;
}

/* Walk every group of `a` and price its ring's hops. */
static rm_status axis_links(const rm_hw *hw, const rm_train *t,
			    const rm_map *map, const rm_fabric *f,
			    const host_at *h, rm_axis a, rm_axis_cost *c,
			    rm_error *err)
{
	uint32_t n = map->layout.size[a];
	if (n <= 1 || !c->used)
		return RM_OK;
	uint32_t *mem = malloc(n * sizeof(*mem));
	if (!mem)
		return rmi_err(err, RM_ENOMEM, "out of memory");
	hop_count k = { .top = top_level(f) };
	rm_status st = RM_OK;
	for (uint32_t r = 0; r < map->world && !st; r++) {
		if (map->rank[r].coord[a] != 0)
			continue;
		st = rm_map_group(map, a, r, mem, NULL, err);
		if (!st)
			count_hops(map, f, h, mem, n, a != RM_AXIS_PP, false, &k);
	}
	free(mem);
	if (!st)
		price_hops(hw, t, f, &k, c->link, &c->gbytes_per_s,
			   &c->off_nvlink, &c->off_leaf);
	return st;
}

/* The framework's EP groups (every ordered pair of members: an
 * all-to-all sends each its share, NVLink peers' over NVLink, the rest
 * over the network, rmi_a2a_gbps) and ETP groups (rings, as TP's). */
static rm_status expert_links(const rm_hw *hw, const rm_train *t,
			      const rm_map *map, const rm_fabric *f,
			      const host_at *h, rm_axis_cost *c,
			      rm_error *err)
{
	for (int pass = 0; pass < 2; pass++) {
		bool ep = pass == 0;
		if (!ep && !(c->etp_bytes > 0))
			break;
		rm_groups g = { 0 };
		rm_status st = rm_map_groups(map, ep ? RM_GROUP_EP :
					     RM_GROUP_ETP, &g, err);
		if (st)
			return st;
		hop_count k = { .top = top_level(f) };
		for (uint32_t i = 0; i < g.ngroups && g.size > 1; i++)
			count_hops(map, f, h, g.rank + (size_t)i * g.size,
				   g.size, true, ep, &k);
		rm_groups_clear(&g);
		double x;
		if (ep) {
			double net;
			price_hops(hw, t, f, &k, c->link, &net, &c->off_nvlink,
				   &c->off_leaf);
			c->gbytes_per_s = rmi_a2a_gbps(hw, t, c->off_nvlink, net);
		} else {
			price_hops(hw, t, f, &k, c->etp_link, &c->etp_gbps, &x,
				   &x);
		}
	}
	return RM_OK;
}

/* The note says which figures priced the links, so a reader can check
 * them against the fabric: each tier's bandwidth and oversubscription, and
 * the share of it a collective achieves (net_eff). */
static void note_links(const rm_hw *hw, const rm_train *t, const rm_map *map,
		       const rm_fabric *f, char *out, size_t cap)
{
	bool flat = !f || rm_fabric_is_flat(f);
	rmi_cal cal;
	rmi_cal_of(hw, t, &cal);
	int n = snprintf(out, cap, "links from the planned map on %s (%u hosts); ",
			 flat ? "one flat switch" : "the given fabric",
			 map->nhost);
	if (flat) {
		snprintf(out + n, cap - (size_t)n,
			 "assumed: every host on one switch at the NIC's "
			 "%.0f GB/s, full bisection, x%.2f achieved",
			 hw->nic_gbytes_per_s, cal.net_eff);
		return;
	}
	rm_hw_tier tier[RM_MAX_TIERS];
	size_t nt = net_tiers(hw, f, tier);
	if (f->ntiers >= 2)
		n += snprintf(out + n, cap - (size_t)n,
			      "by switch level from the site's tiers:");
	else
		n += snprintf(out + n, cap - (size_t)n, "by switch level, "
			      "assumed from %s's tiers (the fabric names none):",
			      hw->name);
	for (size_t i = 0; i < nt && n > 0 && (size_t)n < cap; i++)
		n += snprintf(out + n, cap - (size_t)n, "%s %s %.0f GB/s %.0f:1",
			      i ? "," : "", tier[i].name, tier[i].gbytes_per_s,
			      tier[i].oversubscription);
	if (n > 0 && (size_t)n < cap)
		snprintf(out + n, cap - (size_t)n, "; x%.2f achieved (net_eff)",
			 cal.net_eff);
}

rm_status rmi_estimate_map(const rm_model *m, const rm_hw *hw,
			  const rm_train *t, const rm_map *map,
			  const rm_fabric *fabric, rm_estimate *e,
			  rm_error *err)
{
	if (!map || !map->rank)
		return rmi_err(err, RM_EINPUT, "no map to estimate");
	rm_status st = rmi_estimate_run(m, hw, t, &map->layout, e, err);
	if (st)
		return st;
	host_at *h = NULL;
	st = hosts_of(map, fabric, &h, err);
	for (int a = 0; a < RM_NAXES && !st; a++) {
		/* gradients reduce over dp x cp; the dp rings carry them */
		const uint32_t *sz = map->layout.size;
		rm_axis g = a != RM_AXIS_DP || sz[RM_AXIS_DP] > 1 ? (rm_axis)a :
			    sz[RM_AXIS_EP] > 1 ? RM_AXIS_EP : RM_AXIS_CP;
		/* the ep placement axis is only a part of the framework's
		 * EP groups (Megatron-Core carves them out of dp): walk
		 * those */
		st = a == RM_AXIS_EP ? (e->axis[a].used ?
			expert_links(hw, t, map, fabric, h, &e->axis[a], err) :
			RM_OK) :
			axis_links(hw, t, map, fabric, h, g, &e->axis[a], err);
	}
	free(h);
	if (st)
		return st;
	rmi_estimate_times(m, hw, t, NULL, e);
	note_links(hw, t, map, fabric, e->note, sizeof(e->note));
	/* an EP group cut across domains pays the network on its
	 * all-to-all; say how many the placement could not keep */
	if (map->report.ep_scored)
		snprintf(e->plan, sizeof(e->plan),
			 "EP groups cut across NVLink domains: %llu of %u",
			 (unsigned long long)map->report.ep_split,
			 map->report.ep_groups);
	return RM_OK;
}
