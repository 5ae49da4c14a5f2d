/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_topology.c - topology.conf text from arbitrary bytes. */
#include "internal.h"
#include "fuzz.h"
#include "fuzz_fabric.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, 65536);
	if (!s)
		return 0;
	rm_fabric *f = NULL;
	rm_error e;
	if (rm_fabric_new(&f, &e) == RM_OK) {
		if (rm_fabric_parse_topology(f, s, size, "fuzz", &e) == RM_OK)
			fuzz_check_fabric(f);
		else if (!strstr(e.msg, "fuzz"))
			abort();
		rm_fabric_free(f);
	}
	free(s);
	return 0;
}
