/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_nvsmi.c - one node's `nvidia-smi -q` text from arbitrary bytes. */
#include "fuzz_import.h"

/* The importer's shape for fuzz_import: the node is called n1. */
static rm_status one_node(const char *t, size_t n, const char *file,
			  const rm_import_options *o, rm_import **im, rm_error *e)
{
	*im = NULL;
	rm_status st = rm_import_nvidia_smi(im, "n1", t, n, file, o, e);
	if (st) {
		rm_import_free(*im);
		*im = NULL;
	}
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(data, size, one_node);
}
