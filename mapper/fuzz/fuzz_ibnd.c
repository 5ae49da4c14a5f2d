/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_ibnd.c - ibnetdiscover text from arbitrary bytes, through the import. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(data, size, rm_import_ibnetdiscover);
}
