/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_pack.c - the split-replica packing (place_exact.c) on its own.
 * Small random instances are compared with a brute force written here
 * (every partition of the leftovers into groups, any group may carry the
 * short unit); the instances on which the previous memo search gave up
 * (taken from make bench's random fabrics, inputs only) must now be
 * solved exactly, with a fill this file checks piece by piece.
 */
#include "internal.h"
#include "place/place.h"
#include "test.h"

#include <stdlib.h>
#include "xorshift.h"

#define MAXI 64

typedef struct inst {
	uint64_t u, need, p;
	uint64_t val[24], cnt[24];
	uint32_t d;
} inst;

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
	return xorshift_below(&rng, n);
}

/* Units a group of `sum` cells yields; `lead`: it builds the short unit
 * of p cells first. Returns 0 units and *short_ok false when it cannot. */
static uint64_t yield(const inst *in, uint64_t sum, bool lead, bool *built)
{
	*built = false;
	if (!lead)
		return sum / in->u;
	if (sum < in->p)
		return 0;
	*built = true;
	return (sum - in->p) / in->u;
}

typedef struct bfs {
	const inst *in;
	uint64_t item[MAXI];
	int lab[MAXI];
	uint32_t n;
	uint64_t best;
} bfs;

/* label 0: unused; groups 1..k in order of first use */
static void bf(bfs *b, uint32_t i, int k)
{
	if (i == b->n) {
		uint64_t sum[MAXI + 1] = { 0 }, size[MAXI + 1] = { 0 };
		for (uint32_t j = 0; j < b->n; j++) {
			sum[b->lab[j]] += b->item[j];
			size[b->lab[j]]++;
		}
		uint64_t cost = 0;
		for (int g = 1; g <= k; g++)
			cost += size[g] - 1;
		/* which group carries the short unit (0: none) */
		for (int lead = b->in->p ? 1 : 0; lead <= k; lead++) {
			uint64_t units = 0;
			bool built = !b->in->p, bb;
			for (int g = 1; g <= k; g++) {
				units += yield(b->in, sum[g], g == lead, &bb);
				built = built || bb;
			}
			if (units >= b->in->need && built && cost < b->best)
				b->best = cost;
		}
		return;
	}
	for (int l = 0; l <= k + 1; l++) {
		b->lab[i] = l;
		bf(b, i + 1, l == k + 1 ? k + 1 : k);
	}
}

/* Rebuild the fill from the trace: items exist, groups yield what is
 * needed, and the pieces add up to the cost claimed. */
static void check_trace(const inst *in, const rmi_xsol *s)
{
	uint64_t left[24], units = 0, cost = 0;
	bool built = !in->p;
	memcpy(left, in->cnt, sizeof(left));
	CHECK(s->nitem == 0 || s->first[0] != 0);
	for (uint64_t i = 0; i < s->nitem;) {
		uint64_t j = i, sum = 0;
		do {
			CHECK(s->item[j] < in->d);
			CHECK(left[s->item[j]] > 0);
			left[s->item[j]]--;
			sum += in->val[s->item[j]];
			j++;
		} while (j < s->nitem && s->first[j] == 0);
		bool bb;
		units += yield(in, sum, s->first[i] == 2, &bb);
		built = built || bb;
		cost += j - i - 1;
		i = j;
	}
	CHECK(units >= in->need);
	CHECK(built);
	CHECK_INT(cost, s->cost);
}

static void to_counts(inst *in, uint64_t *items, uint32_t n)
{
	/* descending, then runs */
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && items[j - 1] < items[j]; j--) {
			uint64_t t = items[j];
			items[j] = items[j - 1];
			items[j - 1] = t;
		}
	in->d = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!in->d || in->val[in->d - 1] != items[i]) {
			in->val[in->d] = items[i];
			in->cnt[in->d++] = 0;
		}
		in->cnt[in->d - 1]++;
	}
}

/* rmi_split_exact on the instance, within `budget`, asked to beat `below`. */
static rm_status split(const inst *in, uint64_t budget, uint64_t below,
		       rmi_xsol *s)
{
	rm_error e;
	return rmi_split_exact(in->val, in->cnt, in->d, in->u, in->need, in->p,
			       budget, below, s, &e);
}

static void small_brute(void)
{
	unsigned compared = 0;
	for (unsigned it = 0; it < 300 && !t_bad; it++) {
		inst in = { 0 };
		bfs b = { 0 };
		in.u = 2 + rnd(9);
		b.n = 2 + rnd(7);
		uint64_t sum = 0;
		for (uint32_t i = 0; i < b.n; i++) {
			b.item[i] = 1 + rnd((uint32_t)in.u - 1);
			sum += b.item[i];
		}
		in.p = rnd(3) ? 0 : rnd((uint32_t)in.u);
		if (sum < in.u + in.p)
			continue;
		in.need = 1 + rnd((uint32_t)((sum - in.p) / in.u));
		uint64_t sorted[MAXI];
		memcpy(sorted, b.item, sizeof(sorted));
		to_counts(&in, sorted, b.n);
		b.in = &in;
		b.best = UINT64_MAX;
		bf(&b, 0, 0);
		rmi_xsol s;
		CHECK_INT(split(&in, RMI_EXACT_BUDGET, UINT64_MAX, &s), RM_OK);
		compared++;
		if (b.best == UINT64_MAX) {
			CHECK(!s.exact || s.cost == UINT64_MAX);
		} else {
			CHECK(s.exact && s.traced);
			CHECK_INT(s.cost, b.best);
			check_trace(&in, &s);
		}
		if (t_bad)
			printf("  iter %u: u %llu need %llu p %llu, %u items\n",
			       it, (unsigned long long)in.u,
			       (unsigned long long)in.need,
			       (unsigned long long)in.p, b.n);
		rmi_xsol_free(&s);
	}
	printf("  %u instances against the brute force\n", compared);
	CHECK(compared >= 200);
}

/* "u need p:val x count ..." */
static const char *const gave_up[] = {
	"10 11 0:9x2 8x3 7x4 6x4 5x1 4x3 2x3 1x1",
	"11 10 0:10x2 9x1 8x3 7x3 6x2 5x3 4x1 3x2 2x2 1x2",
	"11 10 6:10x2 9x1 8x2 7x3 6x1 5x4 4x1 3x5 2x1 1x3",
	"11 11 0:10x2 9x4 8x1 7x2 6x3 5x1 4x3 3x1 2x1 1x5",
	"11 14 0:10x2 9x2 8x4 7x1 5x6 4x11 2x1 1x7",
	"11 9 0:10x2 9x1 8x3 7x3 6x1 5x1 4x1 3x1 2x4",
	"11 9 0:9x3 8x2 6x1 5x6 4x7 2x1",
	"11 9 6:10x1 8x2 6x1 5x2 4x6 3x7 2x4 1x11",
	"13 10 0:12x4 11x1 10x1 9x1 8x4 6x2 3x3 2x1",
	"13 10 10:12x4 11x1 9x1 8x1 7x2 6x4 5x2 3x4 2x1 1x4",
	"13 11 10:12x2 11x3 10x2 8x1 7x2 6x1 5x4 4x2 3x3 2x4 1x3",
	"13 13 0:12x3 11x1 9x2 8x4 7x4 6x1 5x3 4x3 3x2 2x2 1x2",
	"13 14 0:12x4 11x4 10x1 9x4 8x1 7x2 6x1 5x1 4x4 2x2",
	"13 9 0:12x3 10x1 9x4 8x2 7x1 6x1 5x1 4x1 3x2 1x3",
	"14 14 0:12x5 11x2 10x2 9x1 8x1 7x6 6x1 5x3 4x2 2x4 1x2",
	"14 7 0:12x1 11x1 10x4 8x1 6x1 5x2 4x1 3x3 2x3 1x1",
	"15 10 0:13x4 10x2 9x1 8x5 7x3 5x2 4x1 2x2 1x2",
	"15 6 0:13x1 12x2 11x1 7x3 6x2 5x1 4x2 3x2 2x1 1x2",
	"16 10 0:15x1 14x1 12x2 11x2 10x3 9x3 7x1 6x2 3x2 2x2 1x2",
	"16 3 0:7x1 6x1 5x1 4x2 3x1 2x11 1x11",
	"16 8 0:14x1 12x2 10x2 8x2 6x7 4x5 2x3",
	"7 10 4:6x4 5x1 4x5 3x4 2x6 1x1",
	"7 13 2:6x2 5x3 4x5 3x8 2x9 1x5",
	"7 14 0:6x3 5x8 4x5 3x2 2x5 1x9",
	"7 8 0:6x1 5x4 4x1 3x4 2x5 1x6",
	"8 8 0:7x1 6x2 5x2 4x2 3x7 2x5 1x3",
	"8 8 0:7x3 5x4 3x5 2x3 1x5",
	"9 10 0:8x1 7x2 6x1 5x1 4x3 3x5 2x11 1x8",
	"9 10 0:8x4 6x2 5x1 4x6 3x4 2x3 1x2",
	"9 12 0:8x3 7x2 6x2 5x2 4x1 3x10 2x4 1x7",
	"9 15 0:8x3 7x1 6x5 5x2 4x11 3x1 2x8 1x1",
	"9 7 0:8x1 7x1 6x2 5x2 4x4 3x2 2x3 1x2",
	"9 7 0:6x2 5x3 4x4 3x3 2x4 1x5",
	"9 8 0:8x2 7x2 6x2 5x3 4x1 3x2 2x1 1x4",
	"9 8 3:8x1 7x2 6x2 5x3 3x4 2x4 1x6",
};

static void parse(const char *c, inst *in)
{
	char *end;
	memset(in, 0, sizeof(*in));
	in->u = strtoull(c, &end, 10);
	in->need = strtoull(end, &end, 10);
	in->p = strtoull(end, &end, 10);
	while (*end == ':' || *end == ' ') {
		in->val[in->d] = strtoull(end + 1, &end, 10);
		in->cnt[in->d++] = strtoull(end + 1, &end, 10);
	}
}

/* `one` on each instance of the list, naming those whose checks fail;
 * `one` says whether the planner's budget solved it. */
static void each_case(const char *const *list, size_t n,
		      bool (*one)(const inst *in))
{
	unsigned solved = 0;
	for (size_t i = 0; i < n; i++) {
		int bad = t_bad;
		inst in;
		parse(list[i], &in);
		solved += one(&in);
		if (t_bad > bad)
			printf("  case %zu: %s\n", i, list[i]);
	}
	printf("  %u of %zu solved within the planner's budget\n", solved, n);
}

static bool give_up_case(const inst *in)
{
	bool solved = false;
	rmi_xsol s, below;
	CHECK_INT(split(in, RMI_EXACT_BUDGET, UINT64_MAX, &s), RM_OK);
	uint64_t proved = s.lower;
	CHECK(proved >= in->need);
	if (!s.exact) {
		/* past the planner's budget: a larger one finishes,
		 * and what the small one proved must hold */
		rmi_xsol_free(&s);
		CHECK_INT(split(in, RMI_EXACT_BUDGET * 64, UINT64_MAX, &s),
			  RM_OK);
		CHECK(proved <= s.cost);
	} else {
		solved = true;
	}
	CHECK(s.exact && s.traced);
	CHECK(s.cost >= in->need);
	CHECK(s.lower == s.cost);
	check_trace(in, &s);
	/* asked for anything cheaper, it proves there is none */
	CHECK_INT(split(in, RMI_EXACT_BUDGET * 64, s.cost, &below), RM_OK);
	CHECK(below.exact && !below.traced);
	CHECK_INT(below.cost, s.cost);
	rmi_xsol_free(&s);
	rmi_xsol_free(&below);
	return solved;
}

static void former_give_ups(void)
{
	each_case(gave_up, sizeof(gave_up) / sizeof(*gave_up), give_up_case);
}

/* Residues of random two-level trees of 2,048 nodes (leaves of 1 to 40
 * nodes, TP = 8 GPUs, PP 7, 11 and 13), as `make bench`-sized plans see
 * them. */
static const char *const big[] = {
	"7 39 0:6x12 5x18 4x9 3x14 2x10 1x17",
	"11 46 0:10x9 9x10 8x6 7x11 6x13 5x9 4x6 3x13 2x5 1x7",
	"13 43 0:12x6 11x2 10x10 9x9 8x7 7x10 6x12 5x7 4x5 3x8 2x2 1x10",
	"7 39 0:6x9 5x17 4x13 3x14 2x12 1x20",
	"11 39 0:10x6 9x6 8x6 7x10 6x6 5x10 4x11 3x11 2x14 1x8",
	"13 42 0:12x10 11x7 10x5 9x4 8x5 7x11 6x9 5x6 4x2 3x7 2x16 1x8",
	"7 40 0:6x11 5x17 4x15 3x12 2x14 1x9",
	"11 32 0:10x6 9x6 8x5 7x8 6x7 5x5 4x6 3x8 2x9 1x11",
	"13 43 0:12x7 11x12 10x7 9x2 8x7 7x13 6x5 5x4 4x7 3x7 2x6 1x4",
	"7 38 0:6x9 5x10 4x14 3x23 2x15 1x11",
	"11 43 0:10x5 9x12 8x4 7x7 6x11 5x14 4x10 3x11 2x11 1x5",
	"13 42 0:12x8 11x9 10x7 9x8 8x4 7x5 6x4 5x14 4x2 3x6 2x10 1x9",
	"7 50 0:6x20 5x19 4x13 3x16 2x13 1x13",
	"11 49 0:10x8 9x8 8x10 7x12 6x13 5x11 4x8 3x8 2x13 1x10",
	"13 47 0:12x8 11x5 10x8 9x5 8x8 7x10 6x12 5x11 4x7 3x9 2x10 1x6",
	"7 46 0:6x13 5x17 4x14 3x18 2x20 1x13",
	"11 42 0:10x3 9x11 8x8 7x9 6x8 5x13 4x4 3x12 2x13 1x17",
	"13 49 0:12x12 11x10 10x7 9x8 8x6 7x7 6x4 5x8 4x9 3x8 2x5 1x17",
};

static bool big_case(const inst *in)
{
	bool solved = false;
	rmi_xsol s, any;
	rm_error e;
	CHECK_INT(split(in, RMI_EXACT_BUDGET, UINT64_MAX, &s), RM_OK);
	CHECK(s.lower >= in->need);
	if (s.exact) {
		solved = true;
		CHECK(s.traced);
		check_trace(in, &s);
	} else {
		/* what a stopped search proved holds for any fill */
		CHECK_INT(rmi_split_search(in->val, in->cnt, in->d, in->u,
					   in->need, in->p, 1u << 16,
					   1u << 20, &any, &e),
			  RM_OK);
		CHECK(any.traced);
		check_trace(in, &any);
		CHECK(s.lower <= any.cost);
		rmi_xsol_free(&any);
	}
	rmi_xsol_free(&s);
	return solved;
}

static void two_thousand_nodes(void)
{
	each_case(big, sizeof(big) / sizeof(*big), big_case);
}

int main(void)
{
	RUN("pack", small_brute);
	RUN("pack", former_give_ups);
	RUN("pack", two_thousand_nodes);
	TEST_EXIT();
}
