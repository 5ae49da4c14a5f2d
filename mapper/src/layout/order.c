/* SPDX-License-Identifier: Apache-2.0 */
/* order.c - rank numbering: which coordinate a framework derives from RANK. */
#include "layout/layout_int.h"

#include <string.h>
#include <strings.h>

#define ORDER_MAX_TEXT 64

/* Axes a rank order talks about: written in the layout, or larger than 1. */
static bool present(const rm_layout *l, rm_axis a)
{
	if (l->size[a] > 1 || (a == RM_AXIS_DP && l->dp_auto))
		return true;
	for (unsigned i = 0; i < l->naxes && i < RM_NAXES; i++)
		if (l->nest[i] == a)
			return true;
	return false;
}

/* Size that must be numbered: dp=auto will almost always be > 1. */
static bool needs_place(const rm_layout *l, rm_axis a)
{
	if (a == RM_AXIS_EP && rm_layout_ep(l) > 1)
		return true;
	return l->size[a] > 1 || (a == RM_AXIS_DP && l->dp_auto);
}

static int order_pos(const rm_order *o, rm_axis a)
{
	for (unsigned i = 0; i < o->naxes && i < RM_NAXES; i++)
		if (o->axis[i] == a)
			return (int)i;
	return -1;
}

/* Size of an axis in the dense (ep = 1) and the expert (cp = 1)
 * numbering, with dp taken as 1: it appears in both or in neither. */
static uint64_t dense_size(const rm_layout *l, rm_axis a)
{
	return a == RM_AXIS_EP || a == RM_AXIS_DP ? 1 : l->size[a];
}

static uint64_t expert_size(const rm_layout *l, rm_axis a)
{
	switch (a) {
	case RM_AXIS_TP: return rm_layout_etp(l);
	case RM_AXIS_EP: return rm_layout_ep(l);
	case RM_AXIS_PP: return l->size[a];
	default: return 1;
	}
}

/*
 * Megatron-Core builds an expert numbering (etp, ep, edp, pp; cp = 1)
 * beside the dense one for every model, dense or not, and asserts two
 * things about the pair (megatron/core/parallel_state.py,
 * initialize_model_parallel, after the expert RankGenerator): unless the
 * order ends with pp or pp = 1, both numberings must have the same
 * data-parallel size; and both must give the same pipeline groups. The
 * checks look at the order's content only, so a named order and the same
 * permutation written out get the same answer.
 *
 * The nest order is rankmap's own numbering, not one a user hands to
 * Megatron's RankGenerator: a job numbered by it takes its groups from the
 * map. Megatron's data-parallel assertion is an artefact of how its two
 * generators are built, so nest skips it, and a dense nest map has no
 * expert numbering to agree with (as before issue 39).
 */
rm_status rmi_order_experts_ok(const rm_layout *l, const rm_order *o,
			       rm_error *err)
{
	char text[64];
	bool nest = strcmp(o->name, "nest") == 0;
	if (nest && rm_layout_ep(l) <= 1 &&
	    rm_layout_etp(l) == l->size[RM_AXIS_TP])
		return RM_OK;
	rm_order_format(o, text, sizeof(text));
	int e = order_pos(o, RM_AXIS_EP), d = order_pos(o, RM_AXIS_DP);
	int p = order_pos(o, RM_AXIS_PP);
	uint64_t tc = (uint64_t)l->size[RM_AXIS_TP] * l->size[RM_AXIS_CP];
	uint64_t eb = (uint64_t)rm_layout_etp(l) * rm_layout_ep(l);
	bool pp_last = p >= 0 && (unsigned)p + 1 == o->naxes;
	/* dp and edp are equal exactly when etp x ep = tp x cp. */
	if (!nest && l->size[RM_AXIS_PP] > 1 && !pp_last && eb != tc)
		return rmi_err(err, RM_EINPUT,
			       "order %s: with pp not last, Megatron-Core requires the same data-parallel size in the dense and the expert numbering (etp x ep = %llu must equal tp x cp = %llu); put pp last (--order megatron) or change etp or ep",
			       text, (unsigned long long)eb,
			       (unsigned long long)tc);
	/* The pipeline groups agree when pp has the same stride in both. */
	if (p >= 0 && l->size[RM_AXIS_PP] > 1) {
		uint64_t a = 1, b = 1;
		for (int i = 0; i < p; i++) {
			a *= dense_size(l, o->axis[i]);
			b *= expert_size(l, o->axis[i]);
		}
		bool same = d >= 0 && d < p ? a * eb == tc * b : a == b;
		if (!same)
			return rmi_err(err, RM_EINPUT,
				       "order %s: the dense and the expert numbering would give different pipeline groups (Megatron-Core requires pp last, or etp x ep = tp x cp); use --order megatron",
				       text);
	}
	/* rankmap's own rule, stricter than Megatron-Core: it counts ep as
	 * a factor of data parallelism, numbered right before the rest. */
	if (l->size[RM_AXIS_EP] > 1) {
		bool ok = e >= 0 && d > e;
		for (int i = e + 1; ok && i < d; i++)
			ok = l->size[o->axis[i]] == 1;
		if (!ok)
			return rmi_err(err, RM_EINPUT,
				       "order %s: with ep=%u the expert ranks span several data-parallel replicas, so ep must come right before dp (as in tp-cp-ep-dp-pp)",
				       text, rm_layout_ep(l));
	}
	return RM_OK;
}

void rm_order_from_nest(const rm_layout *l, rm_order *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; l && i < l->naxes && i < RM_NAXES; i++)
		if ((unsigned)l->nest[i] < RM_NAXES &&
		    !(l->nest[i] == RM_AXIS_EP && l->size[RM_AXIS_EP] > 1))
			out->axis[out->naxes++] = l->nest[i];
	/* The ep factor is part of data parallelism: numbered right before
	 * the rest of dp, as Megatron-Core numbers it. */
	if (l && l->size[RM_AXIS_EP] > 1) {
		int d = order_pos(out, RM_AXIS_DP);
		if (d < 0)
			d = (int)out->naxes;
		for (int i = (int)out->naxes; i > d; i--)
			out->axis[i] = out->axis[i - 1];
		out->axis[d] = RM_AXIS_EP;
		out->naxes++;
	}
	snprintf(out->name, sizeof(out->name), "nest");
}

struct named {
	const char *name;
	rm_axis axis[RM_NAXES];
	unsigned n;
};

/* Fastest first, as the frameworks document them (see docs/layouts.md). */
static const struct named named_orders[] = {
	{ "megatron",
	  { RM_AXIS_TP, RM_AXIS_CP, RM_AXIS_EP, RM_AXIS_DP, RM_AXIS_PP }, 5 },
	{ "llama3",
	  { RM_AXIS_TP, RM_AXIS_CP, RM_AXIS_EP, RM_AXIS_PP, RM_AXIS_DP }, 5 },
	{ "torchtitan", { RM_AXIS_TP, RM_AXIS_CP, RM_AXIS_DP, RM_AXIS_PP }, 4 },
};

static rm_status parse_explicit(const char *t, size_t n, const rm_layout *l,
				rm_order *o, rm_error *err)
{
	char q[96], q2[96];
	bool seen[RM_NAXES] = { false };
	size_t at = 0, len;
	const char *f;
	while (rmi_next_field(t, n, "-", &at, &f, &len)) {
		if (len == 0)
			return rmi_err(err, RM_EINPUT,
				       "order %s: empty axis name at column %zu",
				       rm_quote(t, n, q, sizeof(q)),
				       (size_t)(f - t) + 1);
		int a = rm_axis_from_name(f, len);
		if (a < 0)
			return rmi_err(err, RM_EINPUT,
				       "order %s: unknown axis or order %s (known orders: megatron, llama3, torchtitan, nest; axes: tp, cp, ep, pp, dp)",
				       rm_quote(t, n, q, sizeof(q)),
				       rm_quote(f, len, q2, sizeof(q2)));
		if (seen[a])
			return rmi_err(err, RM_EINPUT,
				       "order %s: axis %s appears twice",
				       rm_quote(t, n, q, sizeof(q)),
				       rm_quote(f, len, q2, sizeof(q2)));
		seen[a] = true;
		o->axis[o->naxes++] = (rm_axis)a;
	}
	for (int a = 0; a < RM_NAXES; a++)
		if (needs_place(l, (rm_axis)a) && !seen[a]) {
			char sz[24];
			if (l->dp_auto && a == RM_AXIS_DP)
				snprintf(sz, sizeof(sz), "auto");
			else
				snprintf(sz, sizeof(sz), "%u",
					 (unsigned)l->size[a]);
			return rmi_err(err, RM_EINPUT,
				       "order %s leaves out %s (size %s): every axis larger than 1 must appear once",
				       rm_quote(t, n, q, sizeof(q)),
				       rm_axis_name((rm_axis)a), sz);
		}
	snprintf(o->name, sizeof(o->name), "custom");
	return RM_OK;
}

rm_status rm_order_parse(const char *text, const rm_layout *l, rm_order *out,
			 rm_error *err)
{
	if (!l || !out)
		return rmi_err(err, RM_EINPUT, "order: no layout given");
	size_t n;
	rm_status st = rmi_short_text("order", ORDER_MAX_TEXT, &text, &n, err);
	if (st)
		return st;
	if (n == 0 || (n == 4 && strncasecmp(text, "nest", 4) == 0)) {
		rm_order_from_nest(l, out);
		return rmi_order_experts_ok(l, out, err);
	}
	rm_order o;
	memset(&o, 0, sizeof(o));
	for (size_t k = 0; k < sizeof(named_orders) / sizeof(named_orders[0]);
	     k++) {
		const struct named *nm = &named_orders[k];
		if (strlen(nm->name) != n || strncasecmp(text, nm->name, n))
			continue;
		if (strcmp(nm->name, "torchtitan") == 0 &&
		    rm_layout_ep(l) > 1)
			return rmi_err(err, RM_EINPUT,
				       "order 'torchtitan' with ep=%u: torchtitan numbers experts in its own mesh (pp, dp_replicate, efsdp, ep; ep fastest, no expert TP); --order megatron with etp=1 gives the same ep groups, and the same efsdp groups when dp_replicate is 1",
				       (unsigned)rm_layout_ep(l));
		for (unsigned i = 0; i < nm->n; i++)
			if (present(l, nm->axis[i]))
				o.axis[o.naxes++] = nm->axis[i];
		snprintf(o.name, sizeof(o.name), "%s", nm->name);
		st = rmi_order_experts_ok(l, &o, err);
		if (st)
			return st;
		*out = o;
		return RM_OK;
	}
	st = parse_explicit(text, n, l, &o, err);
	if (st)
		return st;
	st = rmi_order_experts_ok(l, &o, err);
	if (st)
		return st;
	*out = o;
	return RM_OK;
}

size_t rm_order_format(const rm_order *o, char *buf, size_t n)
{
	char tmp[64];
	size_t len = 0;
	for (unsigned i = 0; o && i < o->naxes && i < RM_NAXES; i++)
		len += (size_t)snprintf(tmp + len, sizeof(tmp) - len, "%s%s",
					i ? "-" : "", rm_axis_name(o->axis[i]));
	return rmi_copy_out(tmp, len, buf, n);
}

uint32_t rm_rank_encode(const rm_layout *l, const rm_order *o,
			const uint32_t coord[RM_NAXES])
{
	uint64_t rank = 0, stride = 1;
	for (unsigned i = 0; i < o->naxes && i < RM_NAXES; i++) {
		rm_axis a = o->axis[i];
		if ((unsigned)a >= RM_NAXES)
			continue;
		rank += (uint64_t)coord[a] * stride;
		stride *= l->size[a];
	}
	return (uint32_t)rank;
}

void rm_rank_decode(const rm_layout *l, const rm_order *o, uint32_t rank,
		    uint32_t coord[RM_NAXES])
{
	for (int a = 0; a < RM_NAXES; a++)
		coord[a] = 0;
	for (unsigned i = 0; i < o->naxes && i < RM_NAXES; i++) {
		rm_axis a = o->axis[i];
		if ((unsigned)a >= RM_NAXES || l->size[a] == 0)
			continue;
		coord[a] = rank % l->size[a];
		rank /= l->size[a];
	}
}
