/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_gcp.c - the gcp importer's input from arbitrary bytes. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(data, size, rm_import_gcp);
}
