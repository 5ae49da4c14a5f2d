/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_topology_yaml.c - topology.yaml text from arbitrary bytes, read for
 * the cluster default and for a named topology. */
#include "internal.h"
#include "fuzz.h"
#include "fuzz_fabric.h"

static void one(const char *s, size_t size, const char *name)
{
	rm_fabric *f = NULL;
	rm_error e;
	if (rm_fabric_new(&f, &e) != RM_OK)
		return;
	if (rm_fabric_parse_topology_yaml(f, s, size, "fuzz", name, &e) ==
	    RM_OK)
		fuzz_check_fabric(f);
	else if (!strstr(e.msg, "fuzz")) /* every refusal names the file */
		abort();
	rm_fabric_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size, 65536);
	if (!s)
		return 0;
	one(s, size, NULL);
	one(s, size, "t2");
	free(s);
	return 0;
}
