/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stamp.c - what srun tells the nodes about the map it planned: the plugin
 * version, a digest of each input (plugstack.conf arguments, topology.conf,
 * site file) and of the map file's bytes. A node plans from its own files
 * and compares; the map digest decides whether its map is srun's, the
 * input digests say which file to fix.
 */
#include "rms.h"

#include <stdio.h>
#include <string.h>

#define STAMP_MAGIC "rankmap-step/1"

static const char *or_dash(const char *hex)
{
	return hex && *hex ? hex : "-";
}

bool rms_stamp_format(const rms_plan *p, const rms_conf *c, char *buf,
		      size_t len)
{
	int k = snprintf(buf, len, STAMP_MAGIC " v=%s a=%s t=%s s=%s m=%s",
			 RMS_PLUGIN_VERSION, c->args_sha256,
			 or_dash(p->topology_sha256), or_dash(p->site_sha256),
			 p->json_sha256);
	return k > 0 && (size_t)k < len;
}

/* The value of " key=" in a stamp, copied into out; false if absent. */
static bool field(const char *stamp, const char *key, char *out, size_t len)
{
	char pat[8];
	snprintf(pat, sizeof(pat), " %s=", key);
	const char *at = strstr(stamp, pat);
	if (!at)
		return false;
	at += strlen(pat);
	size_t n = strcspn(at, " ");
	if (n >= len)
		return false;
	memcpy(out, at, n);
	out[n] = 0;
	return true;
}

static void add(char *why, size_t len, const char *what)
{
	size_t used = strlen(why);
	if (used < len)
		snprintf(why + used, len - used, "%s%s", used ? ", " : "",
			 what);
}

rms_drift rms_stamp_compare(const char *theirs, const char *mine, char *why,
			    size_t len)
{
	static const struct {
		const char *key, *name;
	} inputs[] = {
		{ "a", "plugstack.conf arguments" },
		{ "t", "topology.conf" },
		{ "s", "site file" },
	};
	char a[72], b[72];
	why[0] = 0;
	if (strncmp(theirs, STAMP_MAGIC " ", strlen(STAMP_MAGIC) + 1) ||
	    !field(theirs, "v", a, sizeof(a)) ||
	    !field(theirs, "m", b, sizeof(b))) {
		snprintf(why, len, "srun's stamp is unreadable (srun runs "
			 "another rankmap.so?)");
		return RMS_DRIFT_MAP;
	}
	char mv[72];
	if (field(mine, "v", mv, sizeof(mv)) && strcmp(a, mv)) {
		char t[200];
		snprintf(t, sizeof(t), "plugin version (srun %.32s, here %.32s)",
			 a, mv);
		add(why, len, t);
	}
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
		if (!field(theirs, inputs[i].key, a, sizeof(a)) ||
		    !field(mine, inputs[i].key, b, sizeof(b)) || strcmp(a, b))
			add(why, len, inputs[i].name);
	bool map_same = field(theirs, "m", a, sizeof(a)) &&
			field(mine, "m", b, sizeof(b)) && !strcmp(a, b);
	if (map_same)
		return why[0] ? RMS_DRIFT_INPUTS : RMS_DRIFT_NONE;
	if (!why[0])
		snprintf(why, len, "the map itself (same inputs: a "
			 "nondeterministic placement?)");
	return RMS_DRIFT_MAP;
}
