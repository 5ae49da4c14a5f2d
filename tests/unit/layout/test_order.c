/* test_order.c - rank numbering orders and mixed-radix encode/decode. */
#include "rankmap.h"
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

static void named_orders(void)
{
	layout("tp=8,pp=16,dp=128");
	CHECK_INT(order("megatron"), RM_OK);
	CHECK_STR(fmt(), "tp-dp-pp");
	CHECK_STR(O.name, "megatron");
	CHECK_INT(order("LLAMA3"), RM_OK);
	CHECK_STR(fmt(), "tp-pp-dp");
	CHECK_STR(O.name, "llama3");
	CHECK_INT(order("torchtitan"), RM_OK);
	CHECK_STR(fmt(), "tp-dp-pp");

	layout("tp=4,cp=2,ep=2,pp=8,dp=4");
	CHECK_INT(order("megatron"), RM_OK);
	CHECK_STR(fmt(), "tp-cp-ep-dp-pp");
	CHECK_INT(order("llama3"), RM_OK);
	CHECK_STR(fmt(), "tp-cp-ep-pp-dp");
	CHECK_INT(order("torchtitan"), RM_EINPUT);
	CHECK_HAS(E.msg, "ep=2");
	CHECK_HAS(E.msg, "explicit order");

	/* ep written but 1: torchtitan still fine */
	layout("tp=4,ep=1,pp=2");
	CHECK_INT(order("torchtitan"), RM_OK);
	CHECK_STR(fmt(), "tp-dp-pp");
}

static void nest_order(void)
{
	layout("pp=4,tp=2,dp=auto");
	CHECK_INT(order(NULL), RM_OK);
	CHECK_STR(fmt(), "pp-tp-dp");
	CHECK_STR(O.name, "nest");
	CHECK_INT(order(""), RM_OK);
	CHECK_STR(fmt(), "pp-tp-dp");
	CHECK_INT(order("Nest"), RM_OK);
	CHECK_STR(fmt(), "pp-tp-dp");
	rm_order_from_nest(&L, &O);
	CHECK_STR(fmt(), "pp-tp-dp");
}

static void explicit_orders(void)
{
	layout("8x16x128");
	CHECK_INT(order("dp-tp-pp"), RM_OK);
	CHECK_STR(fmt(), "dp-tp-pp");
	CHECK_STR(O.name, "custom");
	/* size-1 axes may be listed */
	CHECK_INT(order("tp-cp-pp-ep-dp"), RM_OK);
	CHECK_STR(fmt(), "tp-cp-pp-ep-dp");
	CHECK_INT(order("tp-pp"), RM_EINPUT);
	CHECK_HAS(E.msg, "leaves out dp (size 128)");
	CHECK_INT(order("tp-pp-dp-tp"), RM_EINPUT);
	CHECK_HAS(E.msg, "'tp' appears twice");
	CHECK_INT(order("tp-pp-xx"), RM_EINPUT);
	CHECK_HAS(E.msg, "'xx'");
	CHECK_INT(order("megatronx"), RM_EINPUT);
	CHECK_HAS(E.msg, "'megatronx'");
	CHECK_INT(order("tp--pp-dp"), RM_EINPUT);
	CHECK_HAS(E.msg, "column 4");
	CHECK_INT(order("tp-pp-dp-"), RM_EINPUT);
	CHECK_INT(order("-tp-pp-dp"), RM_EINPUT);
	CHECK_HAS(E.msg, "column 1");
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
 * parallelism.md: world 16, TP=2 PP=4 DP=2, Megatron's default order.
 * Groups are computed here from Megatron's formula rank = tp + dp*TP +
 * pp*TP*DP, independently of the library, and compared with decode.
 */
static void megatron_example(void)
{
	layout("tp=2,pp=4,dp=2");
	CHECK_INT(order("megatron"), RM_OK);
	const unsigned TP = 2, PP = 4, DP = 2;
	for (unsigned r = 0; r < 16; r++) {
		uint32_t c[RM_NAXES];
		rm_rank_decode(&L, &O, r, c);
		CHECK_INT(c[RM_AXIS_TP], r % TP);
		CHECK_INT(c[RM_AXIS_DP], (r / TP) % DP);
		CHECK_INT(c[RM_AXIS_PP], r / (TP * DP));
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
	for (unsigned r = 0; r < 16; r++) {
		uint32_t c[RM_NAXES];
		rm_rank_decode(&L, &O, r, c);
		CHECK_INT(c[RM_AXIS_TP], r % TP);
		CHECK_INT(c[RM_AXIS_PP], (r / TP) % PP);
		CHECK_INT(c[RM_AXIS_DP], r / (TP * PP));
	}
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
	CHECK_INT(order("megatron"), RM_OK);
	CHECK_STR(fmt(), "tp-ep-dp-pp");
	/* pp before dp: edp (2) differs from dp (4), as Megatron asserts */
	CHECK_INT(order("llama3"), RM_EINPUT);
	CHECK(strstr(E.msg, "pipeline groups") || strstr(E.msg, "right before dp"));
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
	CHECK_INT(order("tp-cp-pp-dp"), RM_OK);
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
