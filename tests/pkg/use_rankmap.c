/* SPDX-License-Identifier: Apache-2.0 */
/* A program an installed librankmap must serve: built with
 * `pkg-config --cflags --libs rankmap` against the installed rankmap.h
 * alone, it has to start (find librankmap.so.1), parse a layout and plan
 * it through the versioned options. Prints the layout's GPU count, the
 * planned map's world, and the library's release and ABI. */
#include <rankmap.h>
#include <stdio.h>

int main(void)
{
	rm_layout l;
	rm_error e;
	rm_hostlist hl = { 0 };
	if (rm_layout_parse("tp=8,pp=16,dp=128", &l, &e) != RM_OK ||
	    rm_hostlist_parse("gpu[0001-2048]", &hl, &e) != RM_OK)
		return 1;
	printf("%llu GPUs\n", (unsigned long long)rm_layout_world(&l));
	rm_plan_options po = RM_PLAN_OPTIONS_INIT;
	po.layout = &l;
	po.nodes = (const char *const *)hl.host;
	po.nnodes = hl.n;
	po.gpus_per_node = 8;
	rm_map *m = NULL;
	if (rm_plan(&po, &m, &e) != RM_OK) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	printf("planned %u ranks\n", rm_map_world(m));
	printf("librankmap %s, ABI %d\n", rm_version(), RM_ABI_VERSION);
	rm_map_free(m);
	rm_hostlist_clear(&hl);
	return 0;
}
