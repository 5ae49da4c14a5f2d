/* SPDX-License-Identifier: Apache-2.0 */
/*
 * search.h - what the randomised plan-against-search tests (test_bound.c,
 * test_optimal.c) share: building topology text, planning a random case,
 * and the step budget of their exhaustive searches. Include after test.h.
 */
#ifndef RM_TEST_SEARCH_H
#define RM_TEST_SEARCH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* printf onto the end of buf (cap bytes in all). */
static void cat(char *buf, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t cap, const char *fmt, ...)
{
	size_t o = strlen(buf);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + o, cap - o, fmt, ap);
	va_end(ap);
}

/* rm_plan of the layout text lay over nodes[0..n) of g GPUs on fb; NULL
 * when it refuses (with a message, which is checked). */
static inline rm_map *plan_random(const char *lay, const char **nodes,
				  uint32_t n, uint32_t g, const rm_fabric *fb,
				  bool missing)
{
	rm_layout l;
	rm_error e = { 0 };
	CHECK_INT(rm_layout_parse(lay, &l, &e), RM_OK);
	rm_plan_options po = { .version = RM_PLAN_OPTIONS_VERSION,
			    .layout = &l, .nodes = nodes, .nnodes = n,
			    .gpus_per_node = g, .fabric = fb,
			    .allow_missing = missing };
	rm_map *m = NULL;
	if (rm_plan(&po, &m, &e) != RM_OK) {
		CHECK(e.msg[0] != '\0');
		return NULL;
	}
	return m;
}

/* A branch-and-bound search: the best cost found so far (start it at
 * the bound to beat), the steps taken and the most it may take. */
typedef struct budget {
	uint64_t best, steps, limit;
	bool gave_up;
} budget;

/* At a search node of cost `cost`: false when it cannot beat the best,
 * the steps ran out (gave_up) or it is complete (its cost is then the
 * new best); true when its children are to be tried. */
static inline bool budget_go_on(budget *b, uint64_t cost, bool complete)
{
	if (cost >= b->best || b->gave_up)
		return false;
	if (++b->steps > b->limit) {
		b->gave_up = true;
		return false;
	}
	if (complete) {
		b->best = cost;
		return false;
	}
	return true;
}

#endif
