/* SPDX-License-Identifier: Apache-2.0 */
/*
 * groups.c - the framework's process groups for a layout and an order,
 * built by Megatron-Core's rule (RankGenerator and its masked orthogonal
 * groups): list the parallel sizes in numbering order, pick the ones a
 * group spans (the mask); the others name the group. A dense generator
 * (tp, cp, dp, pp; ep = 1) and an expert generator (etp, ep, edp, pp;
 * cp = 1) number the same ranks. dp is always two digits, dp_shard inside
 * dp_replicate, as torchtitan's HSDP mesh has it (without HSDP the
 * replicate digit has size 1).
 */
#include "layout/layout_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum tok { T_TP, T_CP, T_EP, T_DPS, T_DPR, T_PP, T_ETP, T_EDP, NTOK };

#define BIT(t) (1u << (t))
#define T_DPALL (BIT(T_DPS) | BIT(T_DPR))

static const struct kind {
	const char *name;
	bool expert;                 /* from the expert generator */
	unsigned mask;
} kinds[RM_NGROUP_KINDS] = {
	[RM_GROUP_TP] = { "tp", false, BIT(T_TP) },
	[RM_GROUP_CP] = { "cp", false, BIT(T_CP) },
	[RM_GROUP_DP] = { "dp", false, T_DPALL },
	[RM_GROUP_PP] = { "pp", false, BIT(T_PP) },
	[RM_GROUP_EP] = { "ep", true, BIT(T_EP) },
	[RM_GROUP_ETP] = { "etp", true, BIT(T_ETP) },
	[RM_GROUP_EDP] = { "edp", true, BIT(T_EDP) },
	[RM_GROUP_DP_SHARD] = { "dp_shard", false, BIT(T_DPS) },
	[RM_GROUP_DP_REPLICATE] = { "dp_replicate", false, BIT(T_DPR) },
	[RM_GROUP_DP_CP] = { "dp-cp", false, T_DPALL | BIT(T_CP) },
	[RM_GROUP_TP_PP] = { "tp-pp", false, BIT(T_TP) | BIT(T_PP) },
	[RM_GROUP_TP_CP] = { "tp-cp", false, BIT(T_TP) | BIT(T_CP) },
	[RM_GROUP_TP_DP] = { "tp-dp", false, BIT(T_TP) | T_DPALL },
	[RM_GROUP_TP_DP_CP] = { "tp-dp-cp", false,
				BIT(T_TP) | T_DPALL | BIT(T_CP) },
	[RM_GROUP_ETP_EP] = { "etp-ep", true, BIT(T_ETP) | BIT(T_EP) },
	[RM_GROUP_ETP_EP_PP] = { "etp-ep-pp", true,
				 BIT(T_ETP) | BIT(T_EP) | BIT(T_PP) },
	[RM_GROUP_DP_SHARD_CP] = { "dp_shard-cp", false,
				   BIT(T_DPS) | BIT(T_CP) },
	[RM_GROUP_EMBEDDING] = { "embedding", false, BIT(T_PP) },
	[RM_GROUP_POS_EMBEDDING] = { "position-embedding", false, BIT(T_PP) },
};

const char *rm_group_kind_name(rm_group_kind k)
{
	return (unsigned)k < RM_NGROUP_KINDS ? kinds[k].name : "?";
}

int rm_group_kind_from_name(const char *s)
{
	if (!s)
		return -1;
	if (strcasecmp(s, "mp") == 0)
		return RM_GROUP_TP_PP;
	for (int k = 0; k < RM_NGROUP_KINDS; k++)
		if (strcasecmp(s, kinds[k].name) == 0)
			return k;
	return -1;
}

typedef struct gen {
	unsigned n;
	int tok[NTOK];
	uint64_t size[NTOK];
} gen;

static void push(gen *g, int tok, uint64_t size)
{
	g->tok[g->n] = tok;
	g->size[g->n++] = size;
}

/*
 * The order with the axes it leaves out (all of size 1 in the dense
 * numbering) put where Megatron-Core's default order has them, so that a
 * left-out tp still numbers expert tp fastest.
 */
static unsigned full_order(const rm_order *o, rm_axis out[RM_NAXES])
{
	bool seen[RM_NAXES] = { false };
	unsigned n = 0;
	for (unsigned i = 0; i < o->naxes && i < RM_NAXES; i++)
		if ((unsigned)o->axis[i] < RM_NAXES && !seen[o->axis[i]]) {
			seen[o->axis[i]] = true;
			out[n++] = o->axis[i];
		}
	if (!seen[RM_AXIS_TP]) {
		memmove(out + 1, out, n * sizeof(*out));
		out[0] = RM_AXIS_TP;
		n++;
	}
	if (!seen[RM_AXIS_DP])
		out[n++] = RM_AXIS_DP;
	if (!seen[RM_AXIS_PP])
		out[n++] = RM_AXIS_PP;
	if (!seen[RM_AXIS_CP])
		out[n++] = RM_AXIS_CP;
	if (!seen[RM_AXIS_EP]) {
		unsigned d = 0;
		while (out[d] != RM_AXIS_DP)
			d++;
		memmove(out + d + 1, out + d, (n - d) * sizeof(*out));
		out[d] = RM_AXIS_EP;
		n++;
	}
	return n;
}

static void build(const rm_layout *l, const rm_order *o, bool expert, gen *g)
{
	rm_axis ax[RM_NAXES];
	unsigned n = full_order(o, ax);
	memset(g, 0, sizeof(*g));
	for (unsigned i = 0; i < n; i++) {
		switch (ax[i]) {
		case RM_AXIS_TP:
			push(g, expert ? T_ETP : T_TP,
			     expert ? rm_layout_etp(l) : l->size[RM_AXIS_TP]);
			break;
		case RM_AXIS_CP:
			push(g, T_CP, expert ? 1 : l->size[RM_AXIS_CP]);
			break;
		case RM_AXIS_EP:
			push(g, T_EP, expert ? rm_layout_ep(l) : 1);
			break;
		case RM_AXIS_DP:
			if (expert) {
				push(g, T_EDP, rm_layout_edp(l));
			} else {
				push(g, T_DPS, rm_layout_dp_shard(l));
				push(g, T_DPR, rm_layout_dp_replicate(l));
			}
			break;
		case RM_AXIS_PP:
			push(g, T_PP, l->size[RM_AXIS_PP]);
			break;
		default:
			break;
		}
	}
}

/* Megatron-Core's masked orthogonal groups: group g decomposes over the
 * unmasked sizes, member k over the masked ones, both fastest first. */
static void generate(const gen *g, unsigned mask, rm_groups *out)
{
	uint64_t stride[NTOK], ms[NTOK], mst[NTOK], us[NTOK], ust[NTOK];
	unsigned nm = 0, nu = 0;
	uint64_t s = 1;
	for (unsigned i = 0; i < g->n; i++) {
		stride[i] = s;
		s *= g->size[i];
		if (mask & BIT(g->tok[i])) {
			ms[nm] = g->size[i];
			mst[nm++] = stride[i];
		} else {
			us[nu] = g->size[i];
			ust[nu++] = stride[i];
		}
	}
	uint32_t *r = out->rank;
	for (uint64_t gi = 0; gi < out->ngroups; gi++) {
		uint64_t base = 0, x = gi;
		for (unsigned i = 0; i < nu; i++) {
			base += (x % us[i]) * ust[i];
			x /= us[i];
		}
		for (uint64_t k = 0; k < out->size; k++) {
			uint64_t off = 0, y = k;
			for (unsigned i = 0; i < nm; i++) {
				off += (y % ms[i]) * mst[i];
				y /= ms[i];
			}
			*r++ = (uint32_t)(base + off);
		}
	}
}

void rm_groups_clear(rm_groups *g)
{
	if (!g)
		return;
	free(g->rank);
	free(g->group_of);
	free(g->index_of);
	memset(g, 0, sizeof(*g));
}

static rm_status sizes_ok(const rm_layout *l, const gen *dense,
			  const gen *expert, uint64_t world, rm_error *err)
{
	char name[256];
	uint64_t a = 1, b = 1;
	for (unsigned i = 0; i < dense->n; i++)
		a *= dense->size[i];
	for (unsigned i = 0; i < expert->n; i++)
		b *= expert->size[i];
	if (a == world && b == world)
		return RM_OK;
	rm_layout_format(l, name, sizeof(name));
	return rmi_err(err, RM_EINPUT,
		       "layout %s: the expert numbering (etp x ep x edp x pp) does not cover the %llu ranks",
		       name, (unsigned long long)world);
}

rm_status rm_layout_groups(const rm_layout *l, const rm_order *o,
			   rm_group_kind kind, rm_groups *out, rm_error *err)
{
	if (!out)
		return rmi_err(err, RM_EINPUT, "groups: nowhere to put them");
	memset(out, 0, sizeof(*out));
	if (!l || !o || (unsigned)kind >= RM_NGROUP_KINDS)
		return rmi_err(err, RM_EINPUT, "groups: bad layout or kind");
	uint64_t world = rm_layout_world(l);
	if (world == 0)
		return rmi_err(err, RM_EINPUT,
			       "groups: the layout is unresolved (dp=auto)");
	rm_status st = rmi_order_experts_ok(l, o, err);
	if (st)
		return st;
	gen dense, expert;
	build(l, o, false, &dense);
	build(l, o, true, &expert);
	if ((st = sizes_ok(l, &dense, &expert, world, err)))
		return st;
	const gen *g = kinds[kind].expert ? &expert : &dense;
	uint64_t size = 1;
	for (unsigned i = 0; i < g->n; i++)
		if (kinds[kind].mask & BIT(g->tok[i]))
			size *= g->size[i];
	out->kind = kind;
	out->world = (uint32_t)world;
	out->size = (uint32_t)size;
	out->ngroups = (uint32_t)(world / size);
	out->rank = malloc(world * sizeof(uint32_t));
	out->group_of = malloc(world * sizeof(uint32_t));
	out->index_of = malloc(world * sizeof(uint32_t));
	if (!out->rank || !out->group_of || !out->index_of) {
		rm_groups_clear(out);
		return rmi_err(err, RM_ENOMEM, "out of memory");
	}
	generate(g, kinds[kind].mask, out);
	if (kind == RM_GROUP_EMBEDDING || kind == RM_GROUP_POS_EMBEDDING) {
		/* Megatron's defaults: the first and the last stage of each
		 * pipeline hold the word embeddings, the first alone the
		 * position embeddings. */
		uint32_t keep = kind == RM_GROUP_EMBEDDING && size > 1 ? 2 : 1;
		for (uint32_t gi = 0; gi < out->ngroups; gi++) {
			const uint32_t *src = out->rank + (size_t)gi * size;
			uint32_t first = src[0], last = src[size - 1];
			out->rank[(size_t)gi * keep] = first;
			if (keep == 2)
				out->rank[(size_t)gi * keep + 1] = last;
		}
		out->size = keep;
	}
	memset(out->group_of, 0xff, world * sizeof(uint32_t));
	memset(out->index_of, 0xff, world * sizeof(uint32_t));
	for (uint32_t gi = 0; gi < out->ngroups; gi++)
		for (uint32_t k = 0; k < out->size; k++) {
			uint32_t r = out->rank[(size_t)gi * out->size + k];
			out->group_of[r] = gi;
			out->index_of[r] = k;
		}
	return RM_OK;
}

rm_status rm_map_groups(const rm_map *map, rm_group_kind kind,
			rm_groups *out, rm_error *err)
{
	if (!map)
		return rmi_err(err, RM_EINPUT, "groups: no map");
	return rm_layout_groups(&map->layout, &map->order, kind, out, err);
}

/* What a map file spells out per rank and lists as groups: the dense
 * axes, the HSDP split, and the expert axes when the layout has them. */
unsigned rmi_map_kinds(const rm_layout *l, rm_group_kind k[RMI_MAX_KINDS])
{
	unsigned n = 0;
	bool experts = rmi_layout_pos(l, RM_AXIS_EP) >= 0 || l->etp ||
		       rm_layout_ep(l) > 1;
	k[n++] = RM_GROUP_TP;
	if (l->size[RM_AXIS_CP] > 1 || rmi_layout_pos(l, RM_AXIS_CP) >= 0)
		k[n++] = RM_GROUP_CP;
	if (experts) {
		k[n++] = RM_GROUP_EP;
		k[n++] = RM_GROUP_ETP;
		k[n++] = RM_GROUP_EDP;
	}
	k[n++] = RM_GROUP_PP;
	k[n++] = RM_GROUP_DP;
	if (l->hsdp) {
		k[n++] = RM_GROUP_DP_REPLICATE;
		k[n++] = RM_GROUP_DP_SHARD;
	}
	return n;
}

bool rmi_kind_expert(rm_group_kind k)
{
	return (unsigned)k < RM_NGROUP_KINDS && kinds[k].expert;
}

/* CP and the expert axes only when the job uses them (the SPANK plugin
 * exports the same kinds). It asks the layout alone, so it sits beside
 * the kinds it names rather than in map/, its caller (layout_int.h). */
bool rmi_kind_env(const rm_layout *l, rm_group_kind k)
{
	if (k == RM_GROUP_CP)
		return l->size[RM_AXIS_CP] > 1;
	if (k == RM_GROUP_EP || k == RM_GROUP_ETP || k == RM_GROUP_EDP)
		return rm_layout_ep(l) > 1 || l->etp;
	return true;
}

uint32_t rmi_kind_size(const rm_layout *l, rm_group_kind k)
{
	switch (k) {
	case RM_GROUP_TP: return l->size[RM_AXIS_TP];
	case RM_GROUP_CP: return l->size[RM_AXIS_CP];
	case RM_GROUP_PP: return l->size[RM_AXIS_PP];
	case RM_GROUP_DP: return rm_layout_dp(l);
	case RM_GROUP_EP: return rm_layout_ep(l);
	case RM_GROUP_ETP: return rm_layout_etp(l);
	case RM_GROUP_EDP: return rm_layout_edp(l);
	case RM_GROUP_DP_SHARD: return rm_layout_dp_shard(l);
	case RM_GROUP_DP_REPLICATE: return rm_layout_dp_replicate(l);
	default: return 0;
	}
}

rm_status rmi_coord_prep(const rm_layout *l, const rm_order *o,
			 rm_group_kind k, rmi_coord *c, rm_error *err)
{
	memset(c, 0, sizeof(*c));
	rm_status st = rmi_order_experts_ok(l, o, err);
	if (st)
		return st;
	gen g;
	build(l, o, kinds[k].expert, &g);
	uint64_t s = 1, mult = 1;
	for (unsigned i = 0; i < g.n; i++) {
		if ((kinds[k].mask & BIT(g.tok[i])) && c->n < 2) {
			c->stride[c->n] = s;
			c->size[c->n] = g.size[i] ? g.size[i] : 1;
			c->mult[c->n++] = mult;
			mult *= g.size[i];
		}
		s *= g.size[i];
	}
	return RM_OK;
}
