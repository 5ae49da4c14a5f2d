/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_yaml.c - the YAML/JSON tree loader and its typed getters must turn
 * any byte string into a tree or an error, never a crash or a leak. */
#include "internal.h"

#include <stdint.h>
#include <string.h>

static void walk(const rmi_ynode *n, rm_error *err)
{
	uint64_t u;
	double d;
	bool b;
	const char *s;
	if (n->kind == RMI_Y_SCALAR) {
		(void)rmi_y_u64(n, "f", "v", 0, UINT64_MAX, &u, err);
		(void)rmi_y_double(n, "f", "v", -1e300, 1e300, &d, err);
		(void)rmi_y_bool(n, "f", "v", &b, err);
		(void)rmi_y_str(n, "f", "v", &s, err);
		return;
	}
	size_t cnt = n->kind == RMI_Y_MAP ? 2 * n->n : n->n;
	for (size_t i = 0; i < cnt; i++)
		walk(n->item[i], err);
	if (n->kind == RMI_Y_MAP) {
		static const char *const known[] = { "a", "schema", NULL };
		(void)rmi_y_keys(n, "f", "m", known, err);
		(void)rmi_y_get(n, "schema");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rm_error err;
	rmi_ynode *root = NULL;
	if (rmi_yaml_load((const char *)data, size, "fuzz", &root, &err) ==
	    RM_OK)
		walk(root, &err);
	rmi_yaml_free(root);
	return 0;
}
