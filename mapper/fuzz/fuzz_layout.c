/* fuzz_layout.c - layouts and orders from arbitrary bytes. */
#include "rankmap.h"
#include "fuzz.h"

static bool same(const rm_layout *a, const rm_layout *b)
{
	if (a->naxes != b->naxes || a->dp_auto != b->dp_auto)
		return false;
	for (unsigned i = 0; i < a->naxes; i++)
		if (a->nest[i] != b->nest[i])
			return false;
	for (int i = 0; i < RM_NAXES; i++)
		if (a->size[i] != b->size[i])
			return false;
	return true;
}

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
		    !same(&back, &l))
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
