/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz.h - shared by the fuzz targets in this folder. */
#ifndef RANKMAP_FUZZ_H
#define RANKMAP_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input as a malloc'd NUL-terminated string, for parsers that take C
 * strings (and for length-taking ones, so that ASan catches a read past the
 * end that would hide in libFuzzer's own buffer). NULL when the input is
 * over `max` bytes (slow runs for no new paths) or memory is short.
 */
static inline char *fuzz_cstr(const uint8_t *data, size_t size, size_t max)
{
	if (size > max)
		return NULL;
	char *s = malloc(size + 1);
	if (!s)
		return NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
