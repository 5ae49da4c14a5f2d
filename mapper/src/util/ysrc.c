/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ysrc.c - the one event source for JSON and YAML: its input (text in
 * memory or a file read in blocks), the choice of JSON or YAML, and the
 * messages both halves share.
 *
 * The JSON half (ysrc_json.c) and the YAML half (ysrc_yaml.c) give the
 * same events and the same words for what they share (bad bytes, depth,
 * NUL in a value, duplicate keys), so a reader never knows which one it
 * had and a mistake reads the same in a map file and in a site file.
 */
#include "util/ysrc_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFSZ ((size_t)1 << 20)


rm_status rmi_ysrc_fail(rmi_ysrc *s, unsigned long line, unsigned long col,
			const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return rmi_err_at(s->err, RM_EINPUT, s->file, line, col, "%s", msg);
}

rm_status rmi_ysrc_oom(rmi_ysrc *s)
{
	return rmi_err(s->err, RM_ENOMEM, "%s: out of memory", s->file);
}

rm_status rmi_ysrc_dup(rmi_ysrc *s, const rmi_ynode *dup,
		       unsigned long first_line)
{
	char q[160];
	return rmi_ysrc_fail(s, dup->line, dup->col,
			     "duplicate key %s (first at line %lu)",
			     rm_quote(dup->str, dup->len, q, sizeof(q)),
			     first_line);
}

size_t rmi_utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t k = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2
		   : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (k == 0 || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return k;
}

/* The one message for a byte no reader takes, JSON or YAML. */
rm_status rmi_ysrc_bad_byte(rmi_ysrc *s, unsigned long line,
			    unsigned long col, const unsigned char *p,
			    size_t n)
{
	if (p[0] == 0)
		return rmi_ysrc_fail(s, line, col,
				     "NUL byte in the input (a binary file?)");
	if (p[0] < 0x80)
		return rmi_ysrc_fail(s, line, col, "control character 0x%02x",
				     p[0]);
	size_t k = rmi_utf8_len(p, n);
	if (!k)
		return rmi_ysrc_fail(s, line, col,
				     "byte 0x%02x is not valid UTF-8", p[0]);
	unsigned u = p[0] & (0x7f >> k);
	for (size_t i = 1; i < k; i++)
		u = u << 6 | (p[i] & 0x3f);
	return rmi_ysrc_fail(s, line, col, "character U+%04X is not allowed",
			     u);
}

/* ---- input ---- */

int rmi_ysrc_refill(rmi_ysrc *s)
{
	if (s->eof)
		return 0;
	size_t keep = s->blen - s->bpos;
	memmove(s->own, s->own + s->bpos, keep);
	if (s->vpos > s->bpos)
		s->vpos -= s->bpos;
	else
		s->vpos = 0;
	s->bpos = 0;
	s->blen = keep;
	ssize_t n;
	do
		n = read(s->fd, s->own + keep, BUFSZ - keep);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n == 0) {
		s->eof = true;
		return 0;
	}
	if (s->seen)
		s->seen(s->seen_ctx, s->own + keep, (size_t)n);
	s->blen += (size_t)n;
	return 1;
}

/* ---- the source ---- */

rm_status rmi_ysrc_skip(rmi_ysrc *s, const rmi_yevent *e)
{
	if (e->k == RMI_EV_SCALAR)
		return RM_OK;
	if (e->k != RMI_EV_MAP && e->k != RMI_EV_SEQ)
		return rmi_ysrc_fail(s, e->line, e->col, "expected a value");
	rmi_yevent x;
	for (unsigned long depth = 1; depth;) {
		rm_status st = rmi_ysrc_next(s, &x);
		if (st)
			return st;
		if (x.k == RMI_EV_EOF)
			return rmi_ysrc_fail(s, x.line, x.col,
					     "the file ends too early");
		if (x.k == RMI_EV_MAP || x.k == RMI_EV_SEQ)
			depth++;
		else if (x.k == RMI_EV_END)
			depth--;
	}
	return RM_OK;
}

/* JSON when the first non-blank byte opens an object or an array; only
 * the first block is looked at (a file of a megabyte of blanks is YAML). */
static rm_status start(rmi_ysrc *s)
{
	rmi_ysrc_json_start(s);
	size_t i = s->bpos;
	while (i < s->blen && (s->buf[i] == ' ' || s->buf[i] == '\t' ||
			       s->buf[i] == '\n' || s->buf[i] == '\r'))
		i++;
	s->yaml = i == s->blen || (s->buf[i] != '{' && s->buf[i] != '[');
	return s->yaml ? rmi_ysrc_yaml_start(s) : RM_OK;
}

static rm_status make(const char *file, rm_error *err, rmi_ysrc **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return rmi_err(err, RM_ENOMEM, "%s: out of memory",
			       file ? file : "<input>");
	(*out)->file = file ? file : "<input>";
	(*out)->err = err;
	(*out)->fd = -1;
	return RM_OK;
}

/* Frees a source that could not start. */
static rm_status give_up(rmi_ysrc **out, rm_status st)
{
	rmi_ysrc_free(*out);
	*out = NULL;
	return st;
}

rm_status rmi_ysrc_text(const char *text, size_t len, const char *file,
			rm_error *err, rmi_ysrc **out)
{
	rm_status st = make(file, err, out);
	if (st)
		return st;
	rmi_ysrc *s = *out;
	s->text = text ? text : "";
	s->tlen = text ? len : 0;
	s->buf = (const unsigned char *)s->text;
	s->blen = s->tlen;
	s->eof = true;
	return (st = start(s)) ? give_up(out, st) : RM_OK;
}

rm_status rmi_ysrc_fd(int fd, const char *file, rmi_ysrc_seen *seen,
		      void *ctx, rm_error *err, rmi_ysrc **out)
{
	rm_status st = make(file, err, out);
	if (st)
		return st;
	rmi_ysrc *s = *out;
	s->fd = fd;
	s->seen = seen;
	s->seen_ctx = ctx;
	if (!(s->own = malloc(BUFSZ)))
		return give_up(out, rmi_ysrc_oom(s));
	s->buf = s->own;
	if (rmi_ysrc_refill(s) < 0)
		return give_up(out, rmi_err(err, RM_EIO, "%s: read error: %s",
					    s->file, strerror(errno)));
	return (st = start(s)) ? give_up(out, st) : RM_OK;
}

rm_status rmi_ysrc_rewind(rmi_ysrc *s)
{
	rmi_ysrc_yaml_stop(s);
	s->seen = NULL;
	s->bpos = 0;
	if (s->fd >= 0) {
		if (lseek(s->fd, 0, SEEK_SET) != 0)
			return rmi_err(s->err, RM_EIO,
				       "%s: cannot read it again: %s", s->file,
				       strerror(errno));
		s->blen = 0;
		s->eof = false;
		if (rmi_ysrc_refill(s) < 0)
			return rmi_err(s->err, RM_EIO, "%s: read error: %s",
				       s->file, strerror(errno));
	}
	return start(s);
}

rm_status rmi_ysrc_drain(rmi_ysrc *s)
{
	int r = 1;
	/* the bytes are not wanted, only seen */
	for (s->bpos = s->blen; s->fd >= 0 && r > 0; s->bpos = s->blen)
		r = rmi_ysrc_refill(s);
	if (r < 0)
		return rmi_err(s->err, RM_EIO, "%s: read error: %s", s->file,
			       strerror(errno));
	return RM_OK;
}

void rmi_ysrc_free(rmi_ysrc *s)
{
	if (!s)
		return;
	rmi_ysrc_yaml_stop(s);
	free(s->tok);
	free(s->own);
	free(s);
}
