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
	if (!fx_make(&fx, layout, order, nodes, gpn, TOPO)) {
		t_bad++;
		return;
	}
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
	if (!fx_make(&fx, "tp=2,pp=2,dp=2", "megatron", "n[0-1]", 4, TOPO)) {
		t_bad++;
		return;
	}
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

int main(void)
{
	RUN("nccl_groups", megatron_order);
	RUN("nccl_groups", llama3_order);
	RUN("nccl_groups", torchtitan_order);
	RUN("nccl_groups", nesting_order_two_leaves);
	RUN("nccl_groups", with_context_parallel);
	RUN("nccl_groups", with_expert_parallel_no_pipeline);
	RUN("nccl_groups", bad_input);
	TEST_EXIT();
}
