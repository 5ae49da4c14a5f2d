/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_reader.c - the one JSON/YAML event source and its tree builder
 * (util/ysrc*.c, util/yaml.c) from hostile bytes: never a crash or a leak,
 * and one input, one verdict. Walking the events alone, building the
 * tree and reading the input as a map file must agree: where the walk
 * fails, the tree fails with the same message (or names a duplicate key
 * first), where the walk passes, only the builder's own checks may fail
 * the tree, and a map file holding none of the keys the map reader
 * streams fails exactly as the tree does.
 */
#include "map/mapio.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

/* Every event to the end, building nothing; the first event's kind. */
static rm_status one_pass(rmi_ysrc *s, rmi_yevk *first)
{
	rmi_yevent ev = { .k = RMI_EV_EOF };
	rm_status st = rmi_ysrc_next(s, &ev);
	*first = ev.k;
	if (!st && ev.k != RMI_EV_EOF)
		st = rmi_ysrc_skip(s, &ev);
	if (!st && ev.k != RMI_EV_EOF) {
		st = rmi_ysrc_next(s, &ev);
		if (!st && ev.k != RMI_EV_EOF)
			abort();        /* the source gives one value */
	}
	return st;
}

static rm_status walk(const char *text, size_t len, rm_error *e,
		      rmi_yevk *first)
{
	rmi_ysrc *s;
	rm_status st = rmi_ysrc_text(text, len, "fuzz", e, &s);
	if (st)
		return st;
	st = one_pass(s, first);
	/* a second pass over the same bytes tells the same */
	char msg[sizeof(e->msg)];
	memcpy(msg, e->msg, sizeof(msg));
	rmi_yevk again;
	if (!rmi_ysrc_rewind(s)) {
		rm_status st2 = one_pass(s, &again);
		if (st2 != st || again != *first ||
		    (st && strcmp(msg, e->msg)))
			abort();
	}
	rmi_ysrc_free(s);
	return st;
}

static bool builder_only(const char *msg)
{
	return strstr(msg, "duplicate key") || strstr(msg, "empty document") ||
	       strstr(msg, "more than");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size, 1 << 16);
	if (!text)
		return 0;
	rm_error ew, et, em;
	memset(&ew, 0, sizeof(ew));
	memset(&et, 0, sizeof(et));
	memset(&em, 0, sizeof(em));
	rmi_yevk first;
	rm_status sw = walk(text, size, &ew, &first);
	rmi_ynode *root = NULL;
	rm_status stt = rmi_yaml_load(text, size, "fuzz", &root, &et);
	rmi_yaml_free(root);
	if (sw == RM_ENOMEM || stt == RM_ENOMEM)
		goto out;
	if (sw && (!stt || (strcmp(ew.msg, et.msg) &&
			    !strstr(et.msg, "duplicate key"))))
		abort();
	if (!sw && stt && !builder_only(et.msg))
		abort();
	/* the map reader: the same verdict while it builds every key */
	bool streamed = memmem(text, size, "ranks", 5) ||
			memmem(text, size, "groups", 6) ||
			memchr(text, '\\', size);
	rm_map *m = NULL;
	rm_status sm = rmi_map_stream_text(text, size, "fuzz", &m, &em);
	rm_map_free(m);
	if (!streamed && stt && first == RMI_EV_MAP && sm != RM_ENOMEM &&
	    !strstr(em.msg, "keys in the map file") && strcmp(em.msg, et.msg))
		abort();
out:
	free(text);
	return 0;
}
