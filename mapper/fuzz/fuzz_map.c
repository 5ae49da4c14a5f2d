/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_map.c - map files and assignment files from hostile bytes.
 * Whatever parses must also survive every writer, and a map that reads
 * must write back to the same bytes it reads from (the round trip the
 * plugin relies on when each node re-reads the map file).
 */
#include "map/mapio.h"

#include <stdlib.h>
#include <string.h>

static void write_all(const rm_map *m)
{
	static const rm_format fmts[] = { RM_FMT_TEXT, RM_FMT_CSV,
					  RM_FMT_ENV };
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		char *out = NULL;
		if (rm_map_write(m, fmts[i], &out, NULL, NULL) == RM_OK)
			free(out);
	}
}

static void map_file(const char *text, size_t len)
{
	rm_map *m = NULL;
	rm_error e;
	if (rmi_map_stream_text(text, len, "fuzz.json", &m, &e) != RM_OK)
		return;
	write_all(m);
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	if (rm_map_write(m, RM_FMT_JSON, &a, &alen, &e) == RM_OK) {
		rm_map *back = NULL;
		if (rmi_map_stream_text(a, alen, "again.json", &back, &e) !=
		    RM_OK)
			abort();        /* our own output must read back */
		if (rm_map_write(back, RM_FMT_JSON, &b, &blen, &e) != RM_OK ||
		    blen != alen || memcmp(a, b, alen) != 0)
			abort();        /* and give the same bytes */
		rm_map_free(back);
		/* The YAML rendering holds the same map. */
		char *y = NULL, *c = NULL;
		size_t ylen = 0, clen = 0;
		if (rm_map_write(m, RM_FMT_YAML, &y, &ylen, &e) != RM_OK ||
		    rmi_map_stream_text(y, ylen, "again.yaml", &back, &e) !=
			    RM_OK ||
		    rm_map_write(back, RM_FMT_JSON, &c, &clen, &e) != RM_OK ||
		    clen != alen || memcmp(a, c, alen) != 0)
			abort();
		rm_map_free(back);
		free(y);
		free(c);
	}
	free(a);
	free(b);
	rm_map_free(m);
}

static void assignment(const char *text, size_t len)
{
	rm_layout l;
	rm_order o;
	if (rm_layout_parse("tp=2,pp=2,dp=auto", &l, NULL) != RM_OK ||
	    rm_order_parse("megatron", &l, &o, NULL) != RM_OK)
		abort();
	rm_map *m = NULL;
	rm_error e;
	if (rmi_map_parse_assignment(text, len, "fuzz.txt", &l, &o, 4, &m,
				     &e) == RM_OK) {
		write_all(m);
		rm_map_free(m);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The parsers take text with a length; keep a NUL after it anyway,
	 * as rm_file_read does. */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	map_file(text, size);
	assignment(text, size);
	free(text);
	return 0;
}
