/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nvsmi.c - NVLink domains from `nvidia-smi -q`, gathered per node: each
 * GPU's Fabric section,
 *     Fabric
 *         State                 : Completed
 *         Status                : Success
 *         CliqueId              : 32766
 *         ClusterUUID           : 3de6a3e2-4ac8-4bf5-a2c5-65e0d4a9d57e
 * says which NVLink domain (NVML's cluster UUID and clique id) the GPU is
 * in; nodes whose GPUs all name the same pair form one site `nvlink`
 * group. A node whose fabric is not Completed, or whose GPUs disagree, is
 * in no domain and counted.
 */
#include "import/import_int.h"

#include <stdlib.h>
#include <string.h>

static bool hostname_ok(const char *h)
{
	size_t n = strlen(h);
	if (!n || n > 63 || h[0] == '-' || h[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= 'A' && h[i] <= 'Z') ||
		      (h[i] >= '0' && h[i] <= '9') || h[i] == '-' ||
		      h[i] == '_' || h[i] == '.'))
			return false;
	return true;
}

/* "  Key   : Value" -> key and value spans; false when not that shape. */
static bool kv(const char *s, size_t n, size_t *kb, size_t *ke, size_t *vb,
	       size_t *ve)
{
	const char *c = memchr(s, ':', n);
	if (!c)
		return false;
	size_t i = 0;
	while (i < n && s[i] == ' ')
		i++;
	*kb = i;
	size_t k = (size_t)(c - s);
	while (k > *kb && s[k - 1] == ' ')
		k--;
	*ke = k;
	size_t v = (size_t)(c - s) + 1;
	while (v < n && s[v] == ' ')
		v++;
	*vb = v;
	size_t e = n;
	while (e > v && (s[e - 1] == ' ' || s[e - 1] == '\r'))
		e--;
	*ve = e;
	return true;
}

static bool span_is(const char *s, size_t b, size_t e, const char *w)
{
	return e - b == strlen(w) && !memcmp(s + b, w, e - b);
}

rm_status rm_import_nvidia_smi(rm_import **imp, const char *host,
			       const char *text, size_t len, const char *file,
			       const rm_import_options *o, rm_error *err)
{
	if (!hostname_ok(host))
		return rmi_err(err, RM_EINPUT, "%s: %s is not a host name "
			       "(the file's name is the node's)", file,
			       rm_quote(host, strlen(host), (char[96]){ 0 }, 96));
	if (len > RM_MAX_INPUT)
		return rmi_err(err, RM_EINPUT, "%s: more than %u bytes", file,
			       RM_MAX_INPUT);
	char key[128] = "", first[128] = "";
	bool in = false, mixed = false, complete = false;
	size_t ind = 0, gpus = 0;
	unsigned long ln = 0;
	char uuid[64] = "", clique[32] = "";
	for (size_t p = 0; p <= len;) {
		const char *nl = p < len ? memchr(text + p, '\n', len - p) : NULL;
		size_t e = nl ? (size_t)(nl - text) : len, n = e - p;
		const char *s = text + p;
		ln++;
		bool last = !nl;
		p = e + 1;
		if (memchr(s, '\0', n))
			return rmi_err_at(err, RM_EINPUT, file, ln, 1, "NUL byte");
		size_t lead = 0;
		while (lead < n && s[lead] == ' ')
			lead++;
		bool blank = lead == n || (n - lead == 1 && s[lead] == '\r');
		/* a section ends at a line indented no deeper than its heading */
		if (in && (last || (!blank && lead <= ind))) {
			char k2[128];
			snprintf(k2, sizeof(k2), "%s/%s", uuid, clique);
			if (!first[0] && !gpus)
				snprintf(first, sizeof(first), "%s", complete ? k2 : "-");
			else if (strcmp(first, complete ? k2 : "-"))
				mixed = true;
			gpus++;
			in = false;
		}
		if (last && lead == n)
			break;
		size_t kb, ke, vb, ve;
		if (!in && n - lead >= 6 && !memcmp(s + lead, "Fabric", 6) &&
		    (n - lead == 6 || s[lead + 6] == '\r')) {
			in = true;
			ind = lead;
			complete = false;
			uuid[0] = clique[0] = '\0';
		} else if (in && kv(s, n, &kb, &ke, &vb, &ve)) {
			if (span_is(s, kb, ke, "State"))
				complete = span_is(s, vb, ve, "Completed");
			else if (span_is(s, kb, ke, "ClusterUUID") ||
				 span_is(s, kb, ke, "CliqueId")) {
				bool u = span_is(s, kb, ke, "ClusterUUID");
				char *dst = u ? uuid : clique;
				size_t cap = u ? sizeof(uuid) : sizeof(clique);
				for (size_t i = vb; i < ve; i++) {
					char c = s[i];
					bool okc = u ? ((c >= '0' && c <= '9') ||
							(c >= 'a' && c <= 'f') ||
							(c >= 'A' && c <= 'F') ||
							c == '-')
						     : (c >= '0' && c <= '9');
					if (!okc && !span_is(s, vb, ve, "N/A"))
						return rmi_err_at(
							err, RM_EINPUT, file, ln,
							i + 1, "%s: %s expected",
							u ? "ClusterUUID"
							  : "CliqueId",
							u ? "a UUID or N/A"
							  : "a number or N/A");
				}
				if (ve - vb >= cap)
					return rmi_err_at(err, RM_EINPUT, file,
							  ln, vb + 1, "value too "
							  "long");
				memcpy(dst, s + vb, ve - vb);
				dst[ve - vb] = '\0';
				if (!strcmp(dst, "N/A"))
					complete = false;
			}
		}
		if (last)
			break;
	}
	if (!gpus)
		return rmi_err(err, RM_EINPUT, "%s: no Fabric section: not the "
			       "`nvidia-smi -q` of a driver that reports one",
			       file);
	rm_import *im = *imp;
	if (!im) {
		rm_status st = rmi_import_start(file, o, &im, err);
		if (st)
			return st;
		im->format = "nvidia-smi -q";
		*imp = im;
	}
	snprintf(key, sizeof(key), "%s", mixed ? "mixed" : first);
	return rmi_import_add_nvl(im, host, key, (uint32_t)gpus) ? RM_OK
		: rmi_err(err, RM_ENOMEM, "out of memory");
}
