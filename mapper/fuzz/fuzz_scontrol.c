/* fuzz_scontrol.c - `scontrol show topology` text from arbitrary bytes. */
#include "internal.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, 65536);
	if (!s)
		return 0;
	rm_import *im = NULL;
	rm_error e;
	if (rm_import_scontrol(s, size, "fuzz", NULL, &im, &e) == RM_OK) {
		/* what imports was read back as topology.conf already; the
		 * three writers must still work on it */
		for (int part = 0; part < 3; part++) {
			char *out;
			size_t n;
			if (rm_import_write(im, (rm_import_part)part, &out, &n, &e))
				abort();
			free(out);
		}
		rm_import_free(im);
	} else if (!strstr(e.msg, "fuzz") && e.code != RM_ENOMEM) {
		abort();
	}
	free(s);
	return 0;
}
