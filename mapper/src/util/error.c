/* SPDX-License-Identifier: Apache-2.0 */
/* error.c - errors as values: a status and one message line. */
#include "util/util.h"

#include <string.h>

const char *rm_status_name(rm_status s)
{
	switch (s) {
	case RM_OK: return "ok";
	case RM_EINPUT: return "invalid input";
	case RM_ENOMEM: return "out of memory";
	case RM_EIO: return "i/o error";
	case RM_ERULE: return "placement rule cannot be met";
	case RM_ENOTFOUND: return "not found";
	case RM_EUNSUPPORTED: return "unsupported";
	}
	return "unknown status";
}

static void set(rm_error *err, rm_status code, const char *prefix,
		const char *fmt, va_list ap)
{
	if (!err)
		return;
	err->code = code;
	size_t off = 0;
	if (prefix) {
		size_t n = strlen(prefix);
		if (n >= sizeof(err->msg))
			n = sizeof(err->msg) - 1;
		memcpy(err->msg, prefix, n);
		off = n;
	}
	vsnprintf(err->msg + off, sizeof(err->msg) - off, fmt, ap);
}

rm_status rmi_err(rm_error *err, rm_status code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set(err, code, NULL, fmt, ap);
	va_end(ap);
	return code;
}

rm_status rmi_err_at(rm_error *err, rm_status code, const char *file,
		     unsigned long line, unsigned long col, const char *fmt, ...)
{
	char prefix[384];
	if (line && col)
		snprintf(prefix, sizeof(prefix), "%.300s:%lu:%lu: ",
			 file ? file : "<input>", line, col);
	else if (line)
		snprintf(prefix, sizeof(prefix), "%.300s:%lu: ",
			 file ? file : "<input>", line);
	else
		snprintf(prefix, sizeof(prefix), "%.300s: ",
			 file ? file : "<input>");
	va_list ap;
	va_start(ap, fmt);
	set(err, code, prefix, fmt, ap);
	va_end(ap);
	return code;
}

const char *rm_quote(const char *s, size_t len, char *buf, size_t bufsz)
{
	/* Values come from users and files: never echo control bytes or
	 * unbounded text into a log line. */
	size_t o = 0;
	if (bufsz < 8)
		return "";
	buf[o++] = '\'';
	for (size_t i = 0; i < len && s && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (o + 6 >= bufsz) {
			buf[o++] = '.';
			buf[o++] = '.';
			buf[o++] = '.';
			break;
		}
		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
			buf[o++] = (char)c;
		} else {
			o += (size_t)snprintf(buf + o, bufsz - o, "\\x%02x", c);
		}
	}
	if (o + 2 > bufsz)
		o = bufsz - 2;
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}

rm_status rmi_err_cut(rm_error *err, rm_status code, const char *file,
		      unsigned long line, unsigned long col, size_t max,
		      const char *fmt, ...)
{
	char msg[sizeof(((rm_error *)0)->msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, max < sizeof(msg) ? max : sizeof(msg), fmt, ap);
	va_end(ap);
	return rmi_err_at(err, code, file, line, col, "%s", msg);
}
