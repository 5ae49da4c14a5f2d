/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_hostlist.c - hostlist expressions from arbitrary bytes; whatever
 * parses must survive a trip through rm_hostlist_format. */
#include "internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, 8192);
	if (!s)
		return 0;
	rm_hostlist hl;
	rm_error e;
	/* Large expansions are legal but would make each run slow; the
	 * counting that guards them is exercised either way. */
	if (rm_hostlist_parse(s, &hl, &e) == RM_OK) {
		if (hl.n <= 4096) {
			char *f = NULL;
			if (rm_hostlist_format((const char *const *)hl.host,
					       hl.n, &f, &e) != RM_OK)
				abort();
			rm_hostlist back;
			if (rm_hostlist_parse(f, &back, &e) != RM_OK ||
			    back.n != hl.n)
				abort();
			rm_hostlist_clear(&back);
			free(f);
		}
		for (size_t i = 1; i < hl.n && i < 64; i++)
			if (rm_host_cmp(hl.host[i - 1], hl.host[i]) !=
			    -rm_host_cmp(hl.host[i], hl.host[i - 1]))
				abort();
		rm_hostlist_clear(&hl);
	}
	free(s);
	return 0;
}
