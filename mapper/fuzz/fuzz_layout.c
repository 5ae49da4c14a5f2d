/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_layout.c - layouts and orders from arbitrary bytes. */
#include "internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* First line: the layout; the rest: an order. */
	char *s = fuzz_cstr(data, size, 4096);
	if (!s)
		return 0;
	char *order = strchr(s, '\n');
	if (order)
		*order++ = '\0';
	rm_layout l;
	rm_error e;
	if (rm_layout_parse(s, &l, &e) == RM_OK) {
		char buf[256];
		size_t n = rm_layout_format(&l, buf, sizeof(buf));
		if (n >= sizeof(buf))
			abort();
		rm_layout back;
		if (rm_layout_parse(buf, &back, &e) != RM_OK ||
		    !rm_layout_equal(&back, &l))
			abort();
		rm_order o;
		if (rm_order_parse(order, &l, &o, &e) == RM_OK) {
			rm_order_format(&o, buf, sizeof(buf));
			rm_layout r = l;
			if (rm_layout_resolve(&r, 4096, false, &e) == RM_OK) {
				uint32_t c[RM_NAXES];
				uint64_t w = rm_layout_world(&r);
				for (uint32_t k = 0; k < w && k < 64; k++) {
					rm_rank_decode(&r, &o, k, c);
					if (rm_rank_encode(&r, &o, c) != k)
						abort();
				}
			}
		}
	}
	free(s);
	return 0;
}
