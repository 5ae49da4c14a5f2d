/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_nvl.c - rm_plan on 300 seeded NVL72 fabrics (2-6 racks of 18
 * trays of 4 GPUs, each rack one NVLink domain, 0-4 trays drained per
 * rack) with mixture-of-experts layouts. Whenever a plan succeeds: no TP
 * group leaves its domain; with EP right outside TP, the real EP groups
 * cut across domains are exactly the fewest the domains allow (a bound
 * worked out here from the racks' tray counts alone), and neither Slurm's
 * order nor a sorted hostfile cuts fewer.
 */
#include "internal.h"
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "xorshift.h"

#define RACKS_MAX 6
#define TRAYS 18
#define GPN 4

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
	return xorshift_below(&rng, n);
}

typedef struct rack_set {
	char text[1024];
	char name[RACKS_MAX * TRAYS][16];
	const char *alloc[RACKS_MAX * TRAYS];
	uint32_t trays[RACKS_MAX];   /* allocated (not drained) per rack */
	uint32_t nrack, nalloc;
} rack_set;

static void make_racks(rack_set *s)
{
	size_t o = 0;
	memset(s, 0, sizeof(*s));
	s->nrack = 2 + rnd(5);
	for (uint32_t r = 0; r < s->nrack; r++) {
		o += (size_t)snprintf(s->text + o, sizeof(s->text) - o,
				      "BlockName=rack%u Nodes=r%un[01-18]\n",
				      r, r);
		bool drained[TRAYS] = { false };
		for (uint32_t k = rnd(5); k > 0; k--)
			drained[rnd(TRAYS)] = true;    /* repeats: fewer */
		for (uint32_t t = 0; t < TRAYS; t++) {
			if (drained[t])
				continue;
			char *n = s->name[s->nalloc];
			snprintf(n, sizeof(s->name[0]), "r%un%02u", r, t + 1);
			s->alloc[s->nalloc++] = n;
			s->trays[r]++;
		}
	}
}

/* Blocks of tp x ep GPUs that cannot sit whole in one rack, times the
 * EP groups in each (tp: every EP group has a member in each TP group
 * of its block, so a block across racks cuts them all). */
static uint64_t cut_bound(const rack_set *s, uint32_t tp, uint32_t ep,
			  uint32_t world)
{
	uint64_t b = (uint64_t)tp * ep, whole = 0;
	if (b <= GPN)
		return 0;
	for (uint32_t r = 0; r < s->nrack; r++)
		whole += (uint64_t)s->trays[r] * GPN / b;
	uint64_t blocks = world / b;
	return blocks > whole ? (blocks - whole) * tp : 0;
}

typedef struct tally {
	unsigned planned, right, other;
	uint64_t cut, bound, groups, base_more;
} tally;

static void one_case(unsigned iter, tally *t)
{
	rack_set s;
	make_racks(&s);
	rm_error e = { 0 };
	rm_fabric *f = fixture_fabric(s.text, "nvl72.conf");
	if (!f) {
		printf("  iter %u: the topology above\n", iter);
		t_bad++;
		return;
	}
	static const uint32_t tps[] = { 1, 2, 4 }, eps[] = { 2, 4, 8, 16 };
	uint32_t tp = tps[rnd(3)], ep = eps[rnd(4)], pp = 1u << rnd(3);
	/* two in three: EP right outside TP, the MoE layouts that matter */
	bool right = rnd(3) != 0;
	char lay[96];
	if (right)
		snprintf(lay, sizeof(lay), "tp=%u,ep=%u,pp=%u,dp=auto", tp,
			 ep, pp);
	else
		snprintf(lay, sizeof(lay), "tp=%u,pp=%u,ep=%u,dp=auto", tp,
			 pp, ep);
	const char *ord = right && rnd(2) ? "megatron" : NULL;
	rm_layout l;
	rm_order o;
	if (rm_layout_parse(lay, &l, &e) || rm_order_parse(ord, &l, &o, &e)) {
		printf("  iter %u: %s: %s\n", iter, lay, e.msg);
		t_bad++;
		rm_fabric_free(f);
		return;
	}
	rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
			       .layout = &l, .order = ord ? &o : NULL,
			       .nodes = s.alloc, .nnodes = s.nalloc,
			       .gpus_per_node = GPN, .fabric = f };
	rm_map *m = NULL;
	rm_status st = rm_plan(&po, &m, &e);
	if (st != RM_OK) {
		/* too few GPUs for one replica: said properly */
		CHECK(st == RM_EINPUT || st == RM_ERULE);
		CHECK(e.msg[0] != '\0');
		rm_fabric_free(f);
		return;
	}
	t->planned++;
	CHECK_INT(m->report.tp_split, 0);
	CHECK(m->report.must_ok);
	if (!right) {
		t->other++;
	} else {
		uint64_t b = cut_bound(&s, tp, ep, m->world);
		t->right++;
		t->cut += m->report.ep_split;
		t->bound += b;
		t->groups += m->report.ep_groups;
		if (m->report.ep_split != b)
			printf("  iter %u: %s on %u racks: %llu EP groups cut, "
			       "bound %llu\n", iter, lay, s.nrack,
			       (unsigned long long)m->report.ep_split,
			       (unsigned long long)b);
		CHECK_INT(m->report.ep_split, b);
		/* the orders a user gets without rankmap cut no fewer */
		for (int k = RM_BASELINE_SLURM; k <= RM_BASELINE_SORTED; k++) {
			rm_map *c = NULL;
			po.baseline = true;
			po.baseline_kind = (rm_baseline)k;
			CHECK_INT(rm_plan(&po, &c, &e), RM_OK);
			if (c && c->world == m->world) {
				CHECK(c->report.ep_split >= m->report.ep_split);
				t->base_more += c->report.ep_split >
						m->report.ep_split;
			}
			rm_map_free(c);
		}
	}
	rm_map_free(m);
	rm_fabric_free(f);
}

static void nvl_fabrics(void)
{
	tally t = { 0 };
	for (unsigned i = 0; i < 300 && !t_bad; i++)
		one_case(i, &t);
	printf("  300 fabrics, %u planned (TP split 0); EP right outside TP: "
	       "%u cases, %llu of %llu EP groups cut, bound %llu, a "
	       "baseline cut more in %llu; other orders: %u\n",
	       t.planned, t.right, (unsigned long long)t.cut,
	       (unsigned long long)t.groups, (unsigned long long)t.bound,
	       (unsigned long long)t.base_more, t.other);
	CHECK(t.planned >= 250);
	CHECK(t.cut == t.bound);
}

int main(void)
{
	RUN("nvl", nvl_fabrics);
	TEST_EXIT();
}
