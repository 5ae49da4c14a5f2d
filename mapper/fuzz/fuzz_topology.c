/* fuzz_topology.c - topology.conf text from arbitrary bytes. */
#include "internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, 65536);
	if (!s)
		return 0;
	rm_fabric *f = NULL;
	rm_error e;
	if (rm_fabric_new(&f, &e) == RM_OK) {
		if (rm_fabric_parse_topology(f, s, size, "fuzz", &e) == RM_OK) {
			/* Whatever loads is a forest with consistent links. */
			for (uint32_t i = 0; i < f->nsw; i++) {
				const rmi_switch *w = &f->sw[i];
				if (w->parent >= (int32_t)f->nsw)
					abort();
				for (uint32_t k = 0; k < w->nchild; k++)
					if (f->sw[w->child[k]].parent !=
						    (int32_t)i ||
					    f->sw[w->child[k]].level >= w->level)
						abort();
			}
			for (uint32_t i = 0; i < f->nnode; i++)
				if (f->node[i].leaf >= (int32_t)f->nsw ||
				    f->node[i].domain >= (int32_t)f->ndomain ||
				    rmi_fabric_find(f, f->node[i].name) != i)
					abort();
		} else if (!strstr(e.msg, "fuzz")) {
			abort();
		}
		rm_fabric_free(f);
	}
	free(s);
	return 0;
}
