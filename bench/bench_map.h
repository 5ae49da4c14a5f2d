/* SPDX-License-Identifier: Apache-2.0 */
/* A map planned and rendered the way the plugin and the CLI make one:
 * what bench_spank times as its floor and bench_read writes to read back. */
#ifndef RM_BENCH_MAP_H
#define RM_BENCH_MAP_H
#include "rankmap.h"

/* `layout` in Megatron's order on `nodes` (gpn GPUs each; fabric f, NULL
 * for one flat switch), rendered as fmt into *out. *m is the map (the
 * caller frees it and *out, also on failure); false with e set. */
static inline bool bench_plan_render(const char *layout,
				     const char *const *nodes, size_t n,
				     uint32_t gpn, const rm_fabric *f,
				     rm_format fmt, rm_map **m, char **out,
				     size_t *len, rm_error *e)
{
	rm_layout l;
	rm_order o;
	if (rm_layout_parse(layout, &l, e) != RM_OK ||
	    rm_order_parse("megatron", &l, &o, e) != RM_OK)
		return false;
	rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
			       .layout = &l, .order = &o, .nodes = nodes,
			       .nnodes = n, .gpus_per_node = gpn, .fabric = f };
	return rm_plan(&po, m, e) == RM_OK &&
	       rm_map_write(*m, fmt, out, len, e) == RM_OK;
}
#endif
