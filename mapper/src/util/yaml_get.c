/* SPDX-License-Identifier: Apache-2.0 */
/*
 * yaml_get.c - typed reads from the tree yaml.c builds. Each refusal names
 * file:line:col, what was being read and the value found, so callers can
 * pass results straight to the user.
 */
#include "util/yaml.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const rmi_ynode *rmi_y_get(const rmi_ynode *map, const char *key)
{
	if (!map || map->kind != RMI_Y_MAP)
		return NULL;
	size_t klen = strlen(key);
	for (size_t i = 0; i < map->n; i++) {
		const rmi_ynode *k = map->item[2 * i];
		if (k->len == klen && memcmp(k->str, key, klen) == 0)
			return map->item[2 * i + 1];
	}
	return NULL;
}

static const char *kind_name(rmi_ykind k)
{
	switch (k) {
	case RMI_Y_SCALAR: return "a single value";
	case RMI_Y_MAP: return "a mapping";
	case RMI_Y_SEQ: return "a list";
	}
	return "?";
}

rm_status rmi_y_kind(const rmi_ynode *n, const char *file, const char *what,
		     rmi_ykind want, rm_error *err)
{
	if (!n)
		return rmi_err_at(err, RM_EINPUT, file, 0, 0, "%s is missing",
				  what);
	if (n->kind != want)
		return rmi_err_at(err, RM_EINPUT, file, n->line, n->col,
				  "%s must be %s, not %s", what,
				  kind_name(want), kind_name(n->kind));
	return RM_OK;
}

rm_status rmi_y_keys(const rmi_ynode *map, const char *file, const char *what,
		     const char *const *allowed, rm_error *err)
{
	rm_status st = rmi_y_kind(map, file, what, RMI_Y_MAP, err);
	if (st)
		return st;
	for (size_t i = 0; i < map->n; i++) {
		const rmi_ynode *k = map->item[2 * i];
		bool ok = false;
		for (size_t j = 0; allowed[j] && !ok; j++)
			ok = strlen(allowed[j]) == k->len &&
			     memcmp(allowed[j], k->str, k->len) == 0;
		if (ok)
			continue;
		char known[512] = "", q[160];
		size_t o = 0;
		for (size_t j = 0; allowed[j] && o < sizeof(known); j++)
			o += (size_t)snprintf(known + o, sizeof(known) - o,
					      "%s%s", j ? ", " : "",
					      allowed[j]);
		return rmi_err_at(err, RM_EINPUT, file, k->line, k->col,
				  "unknown key %s in %s (known: %s)",
				  rm_quote(k->str, k->len, q, sizeof(q)), what,
				  known);
	}
	return RM_OK;
}

/* Scalars the typed getters accept: present, a single value, and for
 * numbers and booleans written plain - a quoted "8" is text, as it is for
 * every YAML loader that resolves types. */
static rm_status plain_scalar(const rmi_ynode *n, const char *file,
			      const char *what, const char *want, rm_error *err)
{
	rm_status st = rmi_y_kind(n, file, what, RMI_Y_SCALAR, err);
	if (st)
		return st;
	char q[160];
	if (n->quoted)
		return rmi_err_at(err, RM_EINPUT, file, n->line, n->col,
				  "%s must be %s, got the quoted string %s "
				  "(drop the quotes)",
				  what, want,
				  rm_quote(n->str, n->len, q, sizeof(q)));
	if (!n->len)
		return rmi_err_at(err, RM_EINPUT, file, n->line, n->col,
				  "%s has no value (expected %s)", what, want);
	return RM_OK;
}

rm_status rmi_y_u64(const rmi_ynode *n, const char *file, const char *what,
		    uint64_t min, uint64_t max, uint64_t *out, rm_error *err)
{
	rm_status st = plain_scalar(n, file, what, "a whole number", err);
	if (st)
		return st;
	char q[160];
	uint64_t v = 0;
	bool bad = n->len > 1 && n->str[0] == '0'; /* 010: octal to YAML 1.1 */
	bool over = false;
	for (size_t i = 0; i < n->len && !bad; i++) {
		unsigned char c = (unsigned char)n->str[i];
		if (c < '0' || c > '9') {
			bad = true;
			break;
		}
		if (v > (UINT64_MAX - (c - '0')) / 10)
			over = true;
		else
			v = v * 10 + (c - '0');
	}
	if (bad)
		return rmi_err_at(err, RM_EINPUT, file, n->line, n->col,
				  "%s must be a whole number (decimal digits, "
				  "no sign or leading zero), got %s",
				  what,
				  rm_quote(n->str, n->len, q, sizeof(q)));
	if (over || v < min || v > max)
		return rmi_err_at(err, RM_EINPUT, file, n->line, n->col,
				  "%s must be between %llu and %llu, got %s",
				  what, (unsigned long long)min,
				  (unsigned long long)max,
				  rm_quote(n->str, n->len, q, sizeof(q)));
	*out = v;
	return RM_OK;
}

rm_status rmi_y_double(const rmi_ynode *n, const char *file, const char *what,
		       double min, double max, double *out, rm_error *err)
{
	rm_status st = plain_scalar(n, file, what, "a number", err);
	if (st)
		return st;
	char q[160];
	/* strtod alone would take "inf", "nan" and hex floats. */
	bool ok = n->len < 64 && strspn(n->str, "0123456789.eE+-") == n->len;
	double v = 0;
	if (ok) {
		char *end;
		v = strtod(n->str, &end);
		ok = end == n->str + n->len && isfinite(v);
	}
	if (!ok)
		return rmi_err_at(err, RM_EINPUT, file, n->line, n->col,
				  "%s must be a number, got %s", what,
				  rm_quote(n->str, n->len, q, sizeof(q)));
	if (!(v >= min && v <= max))
		return rmi_err_at(err, RM_EINPUT, file, n->line, n->col,
				  "%s must be between %g and %g, got %s", what,
				  min, max,
				  rm_quote(n->str, n->len, q, sizeof(q)));
	*out = v;
	return RM_OK;
}

rm_status rmi_y_bool(const rmi_ynode *n, const char *file, const char *what,
		     bool *out, rm_error *err)
{
	rm_status st = plain_scalar(n, file, what, "true or false", err);
	if (st)
		return st;
	static const char *const yes[] = {"true", "True", "TRUE",
					  "yes",  "Yes",  "YES"};
	static const char *const no[] = {"false", "False", "FALSE",
					 "no",	  "No",	   "NO"};
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(n->str, yes[i]) == 0) {
			*out = true;
			return RM_OK;
		}
		if (strcmp(n->str, no[i]) == 0) {
			*out = false;
			return RM_OK;
		}
	}
	char q[160];
	return rmi_err_at(err, RM_EINPUT, file, n->line, n->col,
			  "%s must be true or false, got %s", what,
			  rm_quote(n->str, n->len, q, sizeof(q)));
}

rm_status rmi_y_str(const rmi_ynode *n, const char *file, const char *what,
		    const char **out, rm_error *err)
{
	rm_status st = rmi_y_kind(n, file, what, RMI_Y_SCALAR, err);
	if (st)
		return st;
	/* `key:` with nothing after it is null in YAML, not "". */
	if (!n->quoted && (n->len == 0 || strcmp(n->str, "~") == 0 ||
			   strcmp(n->str, "null") == 0))
		return rmi_err_at(err, RM_EINPUT, file, n->line, n->col,
				  "%s has no value", what);
	*out = n->str;
	return RM_OK;
}
