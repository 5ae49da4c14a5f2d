/* SPDX-License-Identifier: Apache-2.0 */
/* format.c - output format names, as given to --format. */
#include "internal.h"

#include <string.h>

static const char *const names[] = {
	[RM_FMT_TEXT] = "text", [RM_FMT_JSON] = "json", [RM_FMT_YAML] = "yaml",
	[RM_FMT_CSV] = "csv",   [RM_FMT_ENV] = "env",
	[RM_FMT_HTML] = "html", [RM_FMT_SVG] = "svg",
};

rm_status rm_format_parse(const char *s, rm_format *out, rm_error *err)
{
	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*out = (rm_format)i;
			return RM_OK;
		}
	char q[80];
	return rmi_err(err, RM_EINPUT,
		       "unknown format %s (known: text, json, yaml, csv, env, html, svg)",
		       rm_quote(s ? s : "", s ? strlen(s) : 0, q, sizeof(q)));
}
