/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_site.c - any byte string given as a site file is read or refused,
 * and a site that is read applies to a small fabric without a crash or a
 * leak; its defaults.hw, if any, is a preset the CLI can load. */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char TOPO[] = "SwitchName=l1 Nodes=n[1-4]\n"
			   "SwitchName=l2 Nodes=n[5-8]\n"
			   "SwitchName=top Switches=l[1-2]\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rm_error err;
	rm_site s;
	if (rmi_site_parse((const char *)data, size, "fuzz.yaml", &s, &err))
		return 0;
	rm_hw hw = RM_HW_INIT;
	if (rm_site_hw(&s)[0] && rm_hw_preset(rm_site_hw(&s), &hw, &err))
		abort();
	rm_fabric *f = NULL;
	if (rm_fabric_new(&f, &err) == RM_OK &&
	    rm_fabric_parse_topology(f, TOPO, strlen(TOPO), "t", &err) ==
		    RM_OK)
		(void)rm_fabric_apply_site(f, &s, &err);
	rm_fabric_free(f);
	rmi_site_clear(&s);
	return 0;
}
