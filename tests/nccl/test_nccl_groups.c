/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_nccl_groups.c - the colors and keys of every communicator split,
 * for every rank and axis, against the group lists written in the map
 * file itself (read here with librankmap's JSON reader, independently of
 * rm_map_group).
 */
#include "test.h"
#include "nccl_fixture.h"

static const char *TOPO = "SwitchName=leaf0 Nodes=n[0-3]\n"
			  "SwitchName=leaf1 Nodes=n[4-7]\n"
			  "SwitchName=spine Switches=leaf[0-1]\n";

/* Check one map: every rank, every axis listed under "groups". */
static void against_file(const fx_map *fx)
{
	rmi_ynode *root = NULL;
	rm_error e = { 0 };
	rmn_error ne = { 0 };
	const rm_map *m = fx->map;
	if (rmi_yaml_load(fx->json, fx->len, fx->path, &root, &e)) {
		printf("  %s\n", e.msg);
		t_bad++;
		return;
	}
	rmn_split *sp = calloc(m->world, sizeof(*sp) * RM_NAXES);
	for (uint32_t r = 0; r < m->world; r++)
		CHECK_INT(rmn_splits(m, r, sp + (size_t)r * RM_NAXES, &ne),
			  RMN_OK);
	bool listed[RM_NAXES] = { false };
	/* Dense groups, then the expert ones (ep); etp, edp and the HSDP
	 * split have no communicator axis here. */
	for (int part = 0; part < 2; part++) {
	const rmi_ynode *groups = rmi_y_get(root, part ? "expert_groups"
						       : "groups");
	CHECK(part || (groups && groups->kind == RMI_Y_MAP));
	for (size_t k = 0; groups && k < groups->n; k++) {
		const rmi_ynode *key = groups->item[2 * k];
		const rmi_ynode *lists = groups->item[2 * k + 1];
		int a = rm_axis_from_name(key->str, key->len);
		if (a < 0)
			continue;
		listed[a] = true;
		int32_t *color_of_list = calloc(lists->n, sizeof(int32_t));
		uint32_t *got = NULL, ng = 0, gsize = 0;
		CHECK_INT(rmn_axis_groups(m, (rm_axis)a, &got, &ng, &gsize, &ne),
			  RMN_OK);
		CHECK_INT(ng, lists->n);
		for (size_t g = 0; g < lists->n; g++) {
			const rmi_ynode *list = lists->item[g];
			uint32_t r0 = (uint32_t)strtoul(list->item[0]->str, NULL,
							10);
			int32_t color = sp[(size_t)r0 * RM_NAXES + a].color;
			color_of_list[g] = color;
			for (size_t j = 0; j < list->n; j++) {
				uint32_t r = (uint32_t)strtoul(list->item[j]->str,
							       NULL, 10);
				const rmn_split *s =
					&sp[(size_t)r * RM_NAXES + a];
				CHECK(s->present);
				CHECK_INT(s->size, list->n);
				CHECK_INT(s->key, j);          /* position */
				CHECK_INT(s->color, color);    /* same group */
				/* The enumeration agrees, by color. */
				if (got && color >= 0 && (uint32_t)color < ng &&
				    gsize == list->n)
					CHECK_INT(got[(size_t)color * gsize + j],
						  r);
			}
			for (size_t h = 0; h < g; h++)     /* other groups */
				CHECK(color_of_list[h] != color);
		}
		free(color_of_list);
		free(got);
	}
	}
	for (int a = 0; a < RM_NAXES; a++)
		CHECK_INT(sp[a].present, listed[a]);
	free(sp);
	rmi_yaml_free(root);
}

static void one(const char *layout, const char *order, const char *nodes,
		uint32_t gpn)
{
	fx_map fx;
	if (!fx_ready(&fx, layout, order, nodes, gpn, TOPO))
		return;
	against_file(&fx);
	fx_free(&fx);
}

static void megatron_order(void)
{
	one("tp=2,pp=2,dp=4", "megatron", "n[0-3]", 4);
}

static void llama3_order(void)
{
	one("tp=2,pp=2,dp=4", "llama3", "n[0-3]", 4);
}

static void torchtitan_order(void)
{
	one("tp=2,pp=2,dp=4", "torchtitan", "n[0-3]", 4);
}

static void nesting_order_two_leaves(void)
{
	one("8x4x2", NULL, "n[0-7]", 8);
}

static void with_context_parallel(void)
{
	one("tp=2,cp=2,pp=2,dp=2", "megatron", "n[0-3]", 4);
}

static void with_expert_parallel_no_pipeline(void)
{
	/* ep is carved out of dp (Megatron-Core): numbered right before it */
	one("tp=2,ep=2,dp=8", "ep-dp-tp", "n[0-3]", 4);
}

static void bad_input(void)
{
	fx_map fx;
	rmn_split sp[RM_NAXES];
	rmn_error e = { 0 };
	uint32_t *g = NULL, ng = 0, size = 0;
	CHECK_INT(rmn_splits(NULL, 0, sp, &e), RMN_EINPUT);
	if (!fx_ready(&fx, "tp=2,pp=2,dp=2", "megatron", "n[0-1]", 4, TOPO))
		return;
	CHECK_INT(rmn_splits(fx.map, 8, sp, &e), RMN_EINPUT);
	CHECK_HAS(e.msg, "RANK 8 is outside the map's world of 8");
	CHECK_INT(rmn_axis_groups(fx.map, (rm_axis)RM_NAXES, &g, &ng, &size,
				  &e),
		  RMN_EINPUT);
	CHECK(g == NULL);
	/* A map whose coordinates disagree with its numbering. */
	fx.map->rank[3].coord[RM_AXIS_TP] ^= 1;
	CHECK_INT(rmn_splits(fx.map, 3, sp, &e), RMN_EINPUT);
	CHECK_HAS(e.msg, "rank 3 has tp coordinate");
	fx_free(&fx);
}

/*
 * Megatron-Core's RankGenerator, re-derived here from parallel_state.py
 * (generate_masked_orthogonal_rank_groups): `order` lists the axes fastest
 * first; a group holds the ranks that differ only in the masked axes,
 * enumerated with the first masked axis fastest. Returns the number of
 * groups; out[k * size + i].
 */
static uint32_t megatron_groups(const rm_axis *order, const uint32_t *sizes,
				size_t n, const bool *mask, uint32_t *out,
				uint32_t *size)
{
	uint32_t stride[RM_NAXES], world = 1, gsize = 1;
	for (size_t i = 0; i < n; i++) {
		stride[i] = world;
		world *= sizes[i];
		if (mask[i])
			gsize *= sizes[i];
	}
	uint32_t ngroups = world / gsize;
	for (uint32_t g = 0; g < ngroups; g++) {
		uint32_t base = 0, rest = g;
		for (size_t i = 0; i < n; i++)
			if (!mask[i]) {
				base += rest % sizes[i] * stride[i];
				rest /= sizes[i];
			}
		for (uint32_t k = 0; k < gsize; k++) {
			uint32_t off = 0, left = k;
			for (size_t i = 0; i < n; i++)
				if (mask[i]) {
					off += left % sizes[i] * stride[i];
					left /= sizes[i];
				}
			out[(size_t)g * gsize + k] = base + off;
		}
	}
	(void)order;
	*size = gsize;
	return ngroups;
}

/* Megatron's lists `want` against the library's `got`: same groups, same
 * member order (matched by first member: numbering may differ). The
 * color and key of every member are checked with `split`. */
static void same_groups(const char *what, const uint32_t *want, uint32_t wn,
			uint32_t wsize, const uint32_t *got, uint32_t gn,
			uint32_t gsize, const rm_map *m, int g)
{
	rmn_error e = { 0 };
	CHECK_INT(gn, wn);
	CHECK_INT(gsize, wsize);
	if (!got || gn != wn || gsize != wsize) {
		printf("  %s: %u groups of %u, Megatron %u of %u\n", what, gn,
		       gsize, wn, wsize);
		return;
	}
	for (uint32_t k = 0; k < wn; k++) {
		const uint32_t *w = want + (size_t)k * wsize;
		uint32_t at = UINT32_MAX;
		for (uint32_t j = 0; j < gn; j++)
			if (got[(size_t)j * gsize] == w[0])
				at = j;
		if (at == UINT32_MAX ||
		    memcmp(got + (size_t)at * gsize, w, sizeof(*w) * wsize)) {
			printf("  %s: Megatron group %u (ranks %u..) differs\n",
			       what, k, w[0]);
			t_bad++;
			return;
		}
		for (uint32_t i = 0; g >= 0 && i < wsize; i++) {
			rmn_split sp;
			CHECK_INT(rmn_group_split(m, (rmn_group)g, w[i], &sp, &e),
				  RMN_OK);
			CHECK(sp.present);
			CHECK_INT(sp.color, at);
			CHECK_INT(sp.key, i);
			CHECK_INT(sp.size, wsize);
		}
	}
}

/*
 * A map's groups against Megatron-Core's two generators for the same
 * sizes and order: dense tp x cp x dp x pp (ep = 1, dp the whole data
 * parallel degree) and expert etp x ep x edp x pp (cp = 1).
 */
static void combined_like_megatron(const char *layout, const char *order,
				   const rm_axis *morder, const char *nodes,
				   uint32_t gpn)
{
	/* Tokens on the dense generator, then on the expert one. */
	static const char *const tokens[RMN_NGROUPS] = {
		"tp-pp", "tp-cp", "dp-cp", "tp-dp-cp", "pp", "tp", "dp"
	};
	fx_map fx;
	rmn_error e = { 0 };
	if (!fx_ready(&fx, layout, order, nodes, gpn, TOPO))
		return;
	const rm_map *m = fx.map;
	const rm_layout *l = &m->layout;
	uint32_t dense[RM_NAXES], expert[RM_NAXES];
	for (int i = 0; i < RM_NAXES; i++) {
		rm_axis a = morder[i];
		dense[i] = a == RM_AXIS_EP ? 1 :
			   a == RM_AXIS_DP ? rm_layout_dp(l) : l->size[a];
		expert[i] = a == RM_AXIS_TP ? rm_layout_etp(l) :
			    a == RM_AXIS_CP ? 1 :
			    a == RM_AXIS_EP ? rm_layout_ep(l) :
			    a == RM_AXIS_DP ? rm_layout_edp(l) : l->size[a];
	}
	uint32_t *want = malloc(sizeof(*want) * m->world * 2);
	for (int g = 0; g <= RMN_NGROUPS; g++) {
		/* g == RMN_NGROUPS: the ep axis, Megatron's expert "ep". */
		const char *tok = g < RMN_NGROUPS ? tokens[g] : "ep";
		bool ex = g >= RMN_GROUP_ETP;
		bool mask[RM_NAXES] = { false };
		for (int i = 0; i < RM_NAXES; i++) {
			const char *name = rm_axis_name(morder[i]);
			const char *t = strstr(tok, name);
			mask[i] = t && (t == tok || t[-1] == '-') &&
				  (t[strlen(name)] == '\0' ||
				   t[strlen(name)] == '-');
		}
		uint32_t wsize = 0;
		uint32_t wn = megatron_groups(morder, ex ? expert : dense,
					      RM_NAXES, mask, want, &wsize);
		if (g == RMN_GROUP_EMBEDDING) {
			/* First and last stage of each pipeline. */
			for (uint32_t k = 0; k < wn; k++) {
				uint32_t first = want[(size_t)k * wsize];
				uint32_t last = want[(size_t)k * wsize + wsize - 1];
				want[2 * k] = first;
				want[2 * k + 1] = last;
			}
			wsize = wsize > 1 ? 2 : 1;
			for (uint32_t k = 0; wsize == 1 && k < wn; k++)
				want[k] = want[2 * k];
		}
		uint32_t *got = NULL, gn = 0, gsize = 0;
		char what[96];
		snprintf(what, sizeof(what), "%s %s", layout,
			 g < RMN_NGROUPS ? rmn_group_name((rmn_group)g)
					 : "ep axis");
		if (g < RMN_NGROUPS)
			CHECK_INT(rmn_group_members(m, (rmn_group)g, &got, &gn,
						    &gsize, &e), RMN_OK);
		else
			CHECK_INT(rmn_axis_groups(m, RM_AXIS_EP, &got, &gn,
						  &gsize, &e), RMN_OK);
		same_groups(what, want, wn, wsize, got, gn, gsize, m,
			    g < RMN_NGROUPS ? g : -1);
		free(got);
	}
	/* Middle stages are in no embedding group. */
	for (uint32_t r = 0; r < m->world; r++) {
		rmn_split sp;
		uint32_t pp = m->layout.size[RM_AXIS_PP];
		uint32_t at = m->rank[r].coord[RM_AXIS_PP];
		rmn_group_split(m, RMN_GROUP_EMBEDDING, r, &sp, &e);
		CHECK(sp.present == (at == 0 || at + 1 == pp));
	}
	free(want);
	fx_free(&fx);
}

static const rm_axis MEGATRON[RM_NAXES] = { RM_AXIS_TP, RM_AXIS_CP, RM_AXIS_EP,
					    RM_AXIS_DP, RM_AXIS_PP };
/* Megatron with --use-tp-pp-dp-mapping. */
static const rm_axis TP_PP_DP[RM_NAXES] = { RM_AXIS_TP, RM_AXIS_CP, RM_AXIS_EP,
					    RM_AXIS_PP, RM_AXIS_DP };

static void combined_groups_megatron_order(void)
{
	/* parallelism.md's example world, and one with cp. */
	combined_like_megatron("tp=2,pp=4,dp=2", "megatron", MEGATRON,
			       "n[0-3]", 4);
	combined_like_megatron("tp=2,cp=2,pp=2,dp=2", "megatron", MEGATRON,
			       "n[0-3]", 4);
	combined_like_megatron("tp=2,pp=1,dp=4", "megatron", MEGATRON,
			       "n[0-1]", 4);
	combined_like_megatron("tp=2,cp=2,pp=3,dp=2", "megatron", MEGATRON,
			       "n[0-5]", 4);
}

/* MoE: expert parallelism carved out of data parallelism. */
static void expert_groups_like_megatron(void)
{
	combined_like_megatron("tp=2,ep=2,pp=2,dp=auto", "megatron", MEGATRON,
			       "n[0-3]", 4);
	combined_like_megatron("tp=2,ep=4,etp=1,pp=2,dp=auto", "megatron",
			       MEGATRON, "n[0-3]", 4);
	combined_like_megatron("tp=2,cp=2,ep=2,pp=2,dp=auto", "megatron",
			       MEGATRON, "n[0-7]", 4);
}

static void combined_groups_tp_pp_dp_order(void)
{
	combined_like_megatron("tp=2,pp=4,dp=2", "llama3", TP_PP_DP, "n[0-3]",
			       4);
	/* (With cp the expert numbering would split pipelines differently:
	 * librankmap refuses that order, as Megatron-Core needs pp last.) */
	combined_like_megatron("tp=2,pp=2,dp=4", "llama3", TP_PP_DP, "n[0-3]",
			       4);
}

static void group_names(void)
{
	for (int g = 0; g < RMN_NGROUPS; g++) {
		const char *n = rmn_group_name((rmn_group)g);
		CHECK_INT(rmn_group_from_name(n, strlen(n)), g);
	}
	CHECK_INT(rmn_group_from_name("tp", 2), -1);
	CHECK_STR(rmn_group_name(RMN_GROUP_DP_CP), "dp-cp");
}

int main(void)
{
	RUN("nccl_groups", megatron_order);
	RUN("nccl_groups", llama3_order);
	RUN("nccl_groups", torchtitan_order);
	RUN("nccl_groups", nesting_order_two_leaves);
	RUN("nccl_groups", with_context_parallel);
	RUN("nccl_groups", with_expert_parallel_no_pipeline);
	RUN("nccl_groups", bad_input);
	RUN("nccl_groups", combined_groups_megatron_order);
	RUN("nccl_groups", combined_groups_tp_pp_dp_order);
	RUN("nccl_groups", expert_groups_like_megatron);
	RUN("nccl_groups", group_names);
	TEST_EXIT();
}
