/* SPDX-License-Identifier: Apache-2.0 */
/* test_layout.c - parsing, resolving and printing parallel layouts. */
#include "rankmap.h"
#include "test.h"

static rm_layout L;
static rm_error E;

static rm_status parse(const char *s)
{
	memset(&E, 0, sizeof(E));
	return rm_layout_parse(s, &L, &E);
}

static void positional(void)
{
	CHECK_INT(parse("8x16x128"), RM_OK);
	CHECK_INT(L.size[RM_AXIS_TP], 8);
	CHECK_INT(L.size[RM_AXIS_PP], 16);
	CHECK_INT(L.size[RM_AXIS_DP], 128);
	CHECK_INT(L.size[RM_AXIS_CP], 1);
	CHECK_INT(L.size[RM_AXIS_EP], 1);
	CHECK_INT(L.naxes, 3);
	CHECK_INT(L.nest[0], RM_AXIS_TP);
	CHECK_INT(L.nest[1], RM_AXIS_PP);
	CHECK_INT(L.nest[2], RM_AXIS_DP);
	CHECK(!L.dp_auto);
	CHECK_INT(rm_layout_world(&L), 16384);

	CHECK_INT(parse("2x4xauto"), RM_OK);
	CHECK(L.dp_auto);
	CHECK_INT(rm_layout_world(&L), 0);
	CHECK_INT(parse("8X1X2"), RM_OK);
	CHECK_INT(L.size[RM_AXIS_TP], 8);
}

static void named(void)
{
	CHECK_INT(parse("tp=8,pp=16,dp=128"), RM_OK);
	CHECK_INT(rm_layout_world(&L), 16384);
	CHECK_INT(parse("pp=4,TP=2,Dp=auto"), RM_OK);
	CHECK_INT(L.nest[0], RM_AXIS_PP);
	CHECK_INT(L.nest[1], RM_AXIS_TP);
	CHECK_INT(L.nest[2], RM_AXIS_DP);
	CHECK(L.dp_auto);

	/* dp left out: appended outermost as auto */
	CHECK_INT(parse("tp=4,cp=2,ep=2,pp=8"), RM_OK);
	CHECK_INT(L.naxes, 5);
	CHECK_INT(L.nest[4], RM_AXIS_DP);
	CHECK(L.dp_auto);
	CHECK_INT(L.size[RM_AXIS_CP], 2);
	/* ep is carved out of dp: etp x ep = 8 = tp x cp, no dp replica
	 * beyond TP x CP, so no placement factor of its own */
	CHECK_INT(rm_layout_ep(&L), 2);
	CHECK_INT(L.size[RM_AXIS_EP], 1);

	/* expert blocks spanning dp replicas: the ep factor comes out of dp */
	CHECK_INT(parse("tp=2,ep=4,pp=2,dp=8"), RM_OK);
	CHECK_INT(L.size[RM_AXIS_EP], 4);
	CHECK_INT(L.size[RM_AXIS_DP], 2);
	CHECK_INT(rm_layout_dp(&L), 8);
	CHECK_INT(rm_layout_edp(&L), 2);
	CHECK_INT(rm_layout_world(&L), 32);
	CHECK_INT(parse("tp=2,ep=4,etp=1,dp=auto"), RM_OK);
	CHECK_INT(L.size[RM_AXIS_EP], 2);
	CHECK_INT(rm_layout_resolve(&L, 16, true, NULL), RM_OK);
	CHECK_INT(rm_layout_dp(&L), 8);
	CHECK_INT(rm_layout_edp(&L), 4);
	CHECK_INT(parse("tp=2,ep=4,dp=3"), RM_EINPUT);
	CHECK(strstr(E.msg, "must divide") != NULL);

	/* HSDP: torchtitan's degrees; dp_shard defaults to the rest */
	CHECK_INT(parse("tp=2,dp_replicate=2,pp=2"), RM_OK);
	CHECK(L.hsdp && L.dp_auto);
	CHECK_INT(rm_layout_resolve(&L, 32, true, NULL), RM_OK);
	CHECK_INT(rm_layout_dp_shard(&L), 4);
	CHECK_INT(rm_layout_dp_replicate(&L), 2);
	/* spares allowed: dp rounds down to what the degrees allow */
	CHECK_INT(parse("tp=2,dp_shard=4,dp_replicate=auto"), RM_OK);
	CHECK_INT(rm_layout_resolve(&L, 30, false, NULL), RM_OK);
	CHECK_INT(rm_layout_dp(&L), 12);
	CHECK_INT(rm_layout_dp_replicate(&L), 3);
	CHECK_INT(parse("tp=3,ep=2,dp=auto"), RM_OK);
	CHECK_INT(rm_layout_resolve(&L, 27, false, NULL), RM_OK);
	CHECK_INT(rm_layout_dp(&L), 8);
	CHECK_INT(parse("tp=2,dp_shard=4,dp_replicate=auto"), RM_OK);
	CHECK_INT(rm_layout_resolve(&L, 6, false, NULL), RM_EINPUT);
	CHECK_INT(parse("tp=2,dp=4,dp_shard=2"), RM_EINPUT);
	CHECK_INT(parse("dp_shard=auto,dp_replicate=auto"), RM_EINPUT);
}

static void format(void)
{
	char buf[128];
	CHECK_INT(parse("8x16x128"), RM_OK);
	CHECK_INT(rm_layout_format(&L, buf, sizeof(buf)), 17);
	CHECK_STR(buf, "tp=8,pp=16,dp=128");
	CHECK_INT(parse("tp=2,pp=4"), RM_OK);
	rm_layout_format(&L, buf, sizeof(buf));
	CHECK_STR(buf, "tp=2,pp=4,dp=auto");
	/* truncation reports the length needed */
	char small[5];
	CHECK_INT(rm_layout_format(&L, small, sizeof(small)), 17);
	CHECK_STR(small, "tp=2");
	/* the canonical form parses back to the same layout */
	rm_layout a;
	CHECK_INT(parse("cp=2,tp=4,dp=3,pp=5"), RM_OK);
	a = L;
	rm_layout_format(&a, buf, sizeof(buf));
	CHECK_INT(parse(buf), RM_OK);
	CHECK(rm_layout_equal(&a, &L));
	/* ... also with the framework degrees that are not placement axes */
	static const char *const round[] = {
		"tp=2,ep=4,pp=2,dp=8", "tp=2,ep=4,etp=1,pp=2,dp=auto",
		"tp=4,etp=8,pp=2,dp=4", "tp=2,pp=2,dp_replicate=2,dp_shard=4",
		"tp=2,dp_replicate=2,dp_shard=auto",
	};
	static const char *const canon[] = {
		"tp=2,ep=4,pp=2,dp=8", "tp=2,ep=4,etp=1,pp=2,dp=auto",
		"tp=4,pp=2,ep=1,etp=8,dp=4",
		"tp=2,pp=2,dp_replicate=2,dp_shard=4",
		"tp=2,dp_replicate=2,dp_shard=auto",
	};
	for (size_t i = 0; i < sizeof(round) / sizeof(round[0]); i++) {
		CHECK_INT(parse(round[i]), RM_OK);
		a = L;
		rm_layout_format(&a, buf, sizeof(buf));
		CHECK_STR(buf, canon[i]);
		CHECK_INT(parse(buf), RM_OK);
		CHECK(rm_layout_equal(&a, &L));
	}
}

static void bad_values(void)
{
	static const t_say refused[] = {
		{ "0x16x128",
		  { "'0'", "at least 1" } },
		/* a quoting slip, named as typed (issue 21) */
		{ " 8x2x2",
		  { "layout ' 8x2x2'", "blank at its start or end" } },
		{ "8x2x2\n",
		  { "layout '8x2x2\\x0a'", "blank at its start or end" } },
		{ "\ttp=8,pp=2",
		  { "'\\x09tp=8,pp=2'", "blank" } },
		{ "tp=-8,pp=2",
		  { "'-8'", "negative" } },
		{ "8x1sixx2",
		  { NULL } },
		{ "8xabcx2",
		  { "'abc'", "not a number" } },
		{ "tp=+8",
		  { "'+8'" } },
		{ "tp=8.0",
		  { NULL } },
		{ "8x16x4294967296",
		  { "'4294967296'", "too large" } },
		{ "tp=99999999999999999999999",
		  { "too large" } },
		/* each fits in 32 bits, the product does not fit the limit */
		{ "4096x4096x2",
		  { "2^24" } },
		{ "tp=65536,pp=65536,dp=65536",
		  { "more than 16777216" } },
		{ "autox2x2",
		  { "'auto'" } },
		{ "tp=auto",
		  { NULL } },
	};
	CHECK_SAYS(parse, RM_EINPUT, E.msg, refused);
	/* the limit itself is allowed */
	CHECK_INT(parse("4096x4096x1"), RM_OK);
}

static void bad_shape(void)
{
	CHECK_INT(rm_layout_parse(NULL, &L, &E), RM_EINPUT);
	static const t_say refused[] = {
		{ "8x16x",
		  { "empty field 3" } },
		{ "8x16",
		  { "exactly three" } },
		{ "8x16x2x2",
		  { "exactly three" } },
		{ ",tp=8",
		  { "column 1" } },
		{ "tp=8,,pp=2",
		  { "column 6" } },
		{ "tp=8,pp=2,",
		  { "empty field" } },
		{ "tp=8,xp=2",
		  { "unknown axis 'xp'" } },
		{ "tp=8,TP=2",
		  { "'TP' given twice" } },
		{ "8x16,dp=4",
		  { "'8x16'", "mixed" } },
		{ "tp=8=2",
		  { NULL } },
		{ "tp= 8",
		  { "column 4" } },
		{ "tp=8,pp",
		  { "'pp'" } },
		{ "tp=",
		  { "empty size for tp" } },
		{ "",
		  { NULL } },
		{ "   ",
		  { NULL } },
		{ "tp=8\x01",
		  { "\\x01" } },
	};
	CHECK_SAYS(parse, RM_EINPUT, E.msg, refused);

	char big[400];
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_INT(parse(big), RM_EINPUT);
	CHECK_HAS(E.msg, "longer than 256");
	/* the error path must not overwrite the caller's layout */
	rm_layout before;
	CHECK_INT(parse("2x2x2"), RM_OK);
	before = L;
	CHECK_INT(parse("2x2x0"), RM_EINPUT);
	CHECK(rm_layout_equal(&before, &L));
}

/* `layout` parsed, then resolved for `gpus` (all of them, or spares). */
static rm_status resolve_on(const char *layout, uint64_t gpus, bool all)
{
	CHECK_INT(parse(layout), RM_OK);
	return rm_layout_resolve(&L, gpus, all, &E);
}

static void resolve(void)
{
	CHECK_INT(resolve_on("tp=8,pp=16,dp=auto", 16384, true), RM_OK);
	CHECK_INT(L.size[RM_AXIS_DP], 128);
	CHECK(!L.dp_auto);
	CHECK_INT(rm_layout_world(&L), 16384);

	/* dp=auto: whole replicas that fit, the rest spare; an error only
	 * when every GPU must be used (docs/layouts.md) */
	CHECK_INT(resolve_on("8x16xauto", 16376, false), RM_OK);
	CHECK_INT(L.size[RM_AXIS_DP], 127);
	CHECK_INT(resolve_on("8x16xauto", 16376, true), RM_EINPUT);
	CHECK_HAS(E.msg, "16376");
	CHECK_HAS(E.msg, "128 GPUs in one replica");
	CHECK_HAS(E.msg, "dp=127 would use 16256");

	CHECK_INT(resolve_on("8x16xauto", 64, true), RM_EINPUT);
	CHECK_HAS(E.msg, "at least 128");

	CHECK_INT(resolve_on("8x16x128", 16376, true), RM_EINPUT);
	CHECK_HAS(E.msg, "tp=8,pp=16,dp=128 needs 16384 GPUs, 16376 available");
	CHECK_INT(rm_layout_resolve(&L, 16392, true, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "16392 available");
	CHECK_INT(rm_layout_resolve(&L, 16392, false, &E), RM_OK);
	CHECK_INT(rm_layout_resolve(&L, 16384, true, &E), RM_OK);
	CHECK_INT(rm_layout_resolve(&L, 16383, false, &E), RM_EINPUT);

	/* dp=auto beyond the world limit */
	CHECK_INT(resolve_on("tp=8", 1ull << 30, true), RM_EINPUT);
	CHECK_HAS(E.msg, "16777216");
}

static void axis_names(void)
{
	CHECK_STR(rm_axis_name(RM_AXIS_TP), "tp");
	CHECK_STR(rm_axis_name(RM_AXIS_DP), "dp");
	CHECK_INT(rm_axis_from_name("Ep", 2), RM_AXIS_EP);
	CHECK_INT(rm_axis_from_name("cp", 2), RM_AXIS_CP);
	CHECK_INT(rm_axis_from_name("tpx", 3), -1);
	CHECK_INT(rm_axis_from_name("tpx", 2), RM_AXIS_TP);
	CHECK_INT(rm_axis_from_name(NULL, 2), -1);
}

int main(void)
{
	RUN("layout", positional);
	RUN("layout", named);
	RUN("layout", format);
	RUN("layout", bad_values);
	RUN("layout", bad_shape);
	RUN("layout", resolve);
	RUN("layout", axis_names);
	TEST_EXIT();
}
