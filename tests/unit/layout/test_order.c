/* SPDX-License-Identifier: Apache-2.0 */
/* test_order.c - rank numbering orders and mixed-radix encode/decode. */
#include "internal.h"
#include "test.h"

#include <stdint.h>

static rm_layout L;
static rm_order O;
static rm_error E;

static void layout(const char *s)
{
	rm_error e;
	if (rm_layout_parse(s, &L, &e) != RM_OK) {
		printf("  bad layout %s: %s\n", s, e.msg);
		t_bad++;
	}
}

static rm_status order(const char *s)
{
	memset(&E, 0, sizeof(E));
	return rm_order_parse(s, &L, &O, &E);
}

static const char *fmt(void)
{
	static char buf[64];
	rm_order_format(&O, buf, sizeof(buf));
	return buf;
}

/* `in` numbers the ranks as `nest`, under the order's `name` where given. */
static void orders_as(const char *in, const char *nest, const char *name)
{
	CHECK_INT(order(in), RM_OK);
	CHECK_STR(fmt(), nest);
	if (name)
		CHECK_STR(O.name, name);
}

static void named_orders(void)
{
	layout("tp=8,pp=16,dp=128");
	orders_as("megatron", "tp-dp-pp", "megatron");
	orders_as("LLAMA3", "tp-pp-dp", "llama3");
	orders_as("torchtitan", "tp-dp-pp", NULL);

	layout("tp=4,cp=2,ep=2,pp=8,dp=4");
	orders_as("megatron", "tp-cp-ep-dp-pp", NULL);
	orders_as("llama3", "tp-cp-ep-pp-dp", NULL);
	CHECK_INT(order("torchtitan"), RM_EINPUT);
	CHECK_HAS(E.msg, "ep=2");
	CHECK_HAS(E.msg, "--order megatron with etp=1");

	/* ep written but 1: torchtitan still fine */
	layout("tp=4,ep=1,pp=2");
	orders_as("torchtitan", "tp-dp-pp", NULL);
}

static void nest_order(void)
{
	layout("pp=4,tp=2,dp=auto");
	orders_as(NULL, "pp-tp-dp", "nest");
	orders_as("", "pp-tp-dp", NULL);
	orders_as("Nest", "pp-tp-dp", NULL);
	rm_order_from_nest(&L, &O);
	CHECK_STR(fmt(), "pp-tp-dp");
}

static void explicit_orders(void)
{
	layout("8x16x128");
	orders_as("dp-tp-pp", "dp-tp-pp", "custom");
	/* size-1 axes may be listed */
	orders_as("tp-cp-pp-ep-dp", "tp-cp-pp-ep-dp", NULL);
	static const t_say refused[] = {
		{ "tp-pp",
		  { "leaves out dp (size 128)" } },
		{ "tp-pp-dp-tp",
		  { "'tp' appears twice" } },
		{ "tp-pp-xx",
		  { "'xx'" } },
		{ "megatronx",
		  { "'megatronx'" } },
		{ "tp--pp-dp",
		  { "column 4" } },
		{ "tp-pp-dp-",
		  { NULL } },
		{ "-tp-pp-dp",
		  { "column 1" } },
		{ " megatron",
		  { "order ' megatron'", "blank at its start or end" } },
		{ "tp-pp-dp\n",
		  { "order 'tp-pp-dp\\x0a'", "blank at its start or end" } },
	};
	CHECK_SAYS(order, RM_EINPUT, E.msg, refused);
	layout("tp=2,pp=2");
	CHECK_INT(order("tp-pp"), RM_EINPUT);
	CHECK_HAS(E.msg, "dp (size auto)");
	char big[200];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_INT(order(big), RM_EINPUT);
	CHECK_HAS(E.msg, "longer than");
}

/*
 * Each of the 16 ranks decodes to r % n1 on axis a1, r / n1 % n2 on a2 and
 * r / (n1 n2) on a3: the order's formula, worked out apart from the library.
 */
static void decodes(rm_axis a1, unsigned n1, rm_axis a2, unsigned n2,
		    rm_axis a3)
{
	for (unsigned r = 0; r < 16; r++) {
		uint32_t c[RM_NAXES];
		rm_rank_decode(&L, &O, r, c);
		CHECK_INT(c[a1], r % n1);
		CHECK_INT(c[a2], (r / n1) % n2);
		CHECK_INT(c[a3], r / (n1 * n2));
	}
}

/*
 * parallelism.md: world 16, TP=2 PP=4 DP=2, Megatron's default order.
 * Groups are computed here from Megatron's formula rank = tp + dp*TP +
 * pp*TP*DP, independently of the library, and compared with decode.
 */
static void megatron_example(void)
{
	layout("tp=2,pp=4,dp=2");
	CHECK_INT(order("megatron"), RM_OK);
	const unsigned TP = 2, PP = 4, DP = 2;
	decodes(RM_AXIS_TP, TP, RM_AXIS_DP, DP, RM_AXIS_PP);
	for (unsigned r = 0; r < 16; r++) {
		uint32_t c[RM_NAXES];
		rm_rank_decode(&L, &O, r, c);
		CHECK_INT(c[RM_AXIS_CP], 0);
		CHECK_INT(c[RM_AXIS_EP], 0);
		CHECK_INT(rm_rank_encode(&L, &O, c), r);
	}
	/* The documented groups: PP [0,4,8,12], [1,5,9,13] ...; DP [0,2],
	 * [1,3], [4,6] ...; TP [0,1], [2,3] ... */
	static const unsigned pp_groups[4][4] = { { 0, 4, 8, 12 },
						  { 1, 5, 9, 13 },
						  { 2, 6, 10, 14 },
						  { 3, 7, 11, 15 } };
	for (unsigned g = 0; g < 4; g++)
		for (unsigned s = 0; s < PP; s++) {
			uint32_t c[RM_NAXES] = { 0 };
			c[RM_AXIS_TP] = g % TP;
			c[RM_AXIS_DP] = g / TP;
			c[RM_AXIS_PP] = s;
			CHECK_INT(rm_rank_encode(&L, &O, c), pp_groups[g][s]);
		}
	uint32_t c0[RM_NAXES] = { 0 }, c1[RM_NAXES] = { 0 };
	c1[RM_AXIS_DP] = 1;
	c0[RM_AXIS_PP] = c1[RM_AXIS_PP] = 1;
	CHECK_INT(rm_rank_encode(&L, &O, c0), 4);
	CHECK_INT(rm_rank_encode(&L, &O, c1), 6);

	/* --use-tp-pp-dp-mapping: rank = tp + pp*TP + dp*TP*PP */
	CHECK_INT(order("llama3"), RM_OK);
	decodes(RM_AXIS_TP, TP, RM_AXIS_PP, PP, RM_AXIS_DP);
}

/* Encode and decode are inverse over the whole world for every order. */
static void bijection(void)
{
	/* ep=6 spans two dp replicas: a placement factor of 2 next to dp */
	layout("tp=2,cp=3,ep=6,pp=5,dp=4");
	const char *orders[] = { "megatron", "tp-cp-ep-dp-pp",
				 "ep-dp-cp-tp-pp", "cp-tp-ep-dp-pp",
				 "cp-ep-dp-tp-pp" };
	for (size_t k = 0; k < sizeof(orders) / sizeof(orders[0]); k++) {
		CHECK_INT(order(orders[k]), RM_OK);
		uint64_t world = rm_layout_world(&L);
		CHECK_INT(world, 120);
		static unsigned char seen[120];
		memset(seen, 0, sizeof(seen));
		for (uint32_t r = 0; r < world; r++) {
			uint32_t c[RM_NAXES];
			rm_rank_decode(&L, &O, r, c);
			for (int a = 0; a < RM_NAXES; a++)
				CHECK(c[a] < L.size[a]);
			uint32_t back = rm_rank_encode(&L, &O, c);
			CHECK_INT(back, r);
			if (back < 120)
				seen[back]++;
		}
		for (int r = 0; r < 120; r++)
			CHECK_INT(seen[r], 1);
	}
}

/* Megatron-Core's constraints between dense and expert numbering. */
static void expert_orders(void)
{
	layout("tp=2,ep=4,pp=2,dp=4");
	orders_as("megatron", "tp-ep-dp-pp", NULL);
	/* pp before dp: edp (2) differs from dp (4), as Megatron asserts */
	CHECK_INT(order("llama3"), RM_EINPUT);
	CHECK(strstr(E.msg, "same data-parallel size") != NULL);
	CHECK_INT(order("tp-dp-ep-pp"), RM_EINPUT);
	CHECK(strstr(E.msg, "right before dp") != NULL);
	CHECK_INT(order("torchtitan"), RM_EINPUT);
	/* etp x ep == tp x cp: llama3 is fine */
	layout("tp=2,cp=2,ep=4,etp=1,pp=2,dp=2");
	CHECK_INT(order("llama3"), RM_OK);
	/* no experts, cp > 1: Megatron still builds expert groups with
	 * etp = tp, so its tp-pp-dp mapping refuses pp > 1 */
	layout("tp=2,cp=2,pp=2,dp=2");
	CHECK_INT(order("llama3"), RM_EINPUT);
	CHECK(strstr(E.msg, "same data-parallel size") != NULL);
	/* the same check whatever the order is called (issue 39) */
	CHECK_INT(order("tp-cp-ep-pp-dp"), RM_EINPUT);
	CHECK_INT(order("tp-cp-pp-dp"), RM_EINPUT);
	CHECK_INT(order("tp-cp-dp-pp"), RM_OK);
	/* rankmap's own numbering (tp-cp-pp-dp here) is not Megatron's: a
	 * job numbered by it takes its groups from the map */
	CHECK_INT(order(NULL), RM_OK);
	CHECK_STR(fmt(), "tp-cp-pp-dp");
	/* nest with experts: ep before dp, pp inside; the pipeline groups
	 * agree, the data-parallel sizes (4, 2) need not */
	layout("tp=8,ep=2,pp=2,dp=4");
	CHECK_INT(order(NULL), RM_OK);
	CHECK_STR(fmt(), "tp-pp-ep-dp");
	CHECK_INT(order("tp-pp-ep-dp"), RM_EINPUT);
	/* pp not last, but etp x ep = tp x cp: the pipeline groups decide */
	layout("tp=2,ep=2,etp=1,pp=2,dp=2");
	CHECK_INT(order("tp-ep-dp-pp"), RM_OK);
	layout("tp=2,cp=2,ep=4,etp=1,pp=2,dp=2");
	CHECK_INT(order("tp-pp-cp-ep-dp"), RM_EINPUT);
	CHECK(strstr(E.msg, "pipeline groups") != NULL);
}

int main(void)
{
	RUN("order", named_orders);
	RUN("order", nest_order);
	RUN("order", explicit_orders);
	RUN("order", megatron_example);
	RUN("order", bijection);
	RUN("order", expert_orders);
	TEST_EXIT();
}
