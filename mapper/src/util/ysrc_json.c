/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ysrc_json.c - the event source's JSON half: a lexer and a grammar of one
 * state per open container.
 *
 * JSON is lexed here rather than by libyaml because map files are JSON and
 * large (145 MB at a million GPUs): copying a string's run of plain bytes
 * at once reads them several times faster than libyaml's per-character
 * reader. Bytes no reader takes are named by rmi_ysrc_bad_byte, as the
 * YAML half names them.
 */
#include "util/ysrc_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STR ((size_t)1 << 20)    /* bytes in one string */

/* JSON grammar positions, one per open container. */
enum { M_KEY_OR_END, M_KEY, M_COLON, M_VALUE, M_AFTER, S_VALUE_OR_END,
       S_VALUE, S_AFTER, R_VALUE, R_DONE };

/* Next byte, or -1 at the end, -2 on a read error. */
static inline int peek(rmi_ysrc *s)
{
	if (s->bpos == s->blen) {
		int r = rmi_ysrc_refill(s);
		if (r <= 0)
			return r < 0 ? -2 : -1;
	}
	return s->buf[s->bpos];
}

static inline int get(rmi_ysrc *s)
{
	int c = peek(s);
	if (c >= 0) {
		s->bpos++;
		if (c == '\n') {
			s->line++;
			s->col = 1;
		} else {
			s->col++;
		}
	}
	return c;
}

/* At least `k` bytes after bpos unless the input ends first. */
static void ensure(rmi_ysrc *s, size_t k)
{
	while (s->blen - s->bpos < k && rmi_ysrc_refill(s) > 0)
		;
}

/* ---- JSON lexer ---- */

static bool plain_char(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '-' || c == '+' || c == '.';
}

static rm_status tok_room(rmi_ysrc *s, size_t n, size_t more)
{
	if (n + more < s->tcap)
		return RM_OK;
	if (n + more > MAX_STR)
		return rmi_ysrc_fail(s, s->line, s->col,
				     "a string longer than %zu bytes", MAX_STR);
	size_t cap = s->tcap ? s->tcap : 256;
	while (cap <= n + more)
		cap *= 2;
	char *t = realloc(s->tok, cap);
	if (!t)
		return rmi_ysrc_oom(s);
	s->tok = t;
	s->tcap = cap;
	return RM_OK;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static rm_status read_u4(rmi_ysrc *s, unsigned *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(get(s));
		if (h < 0)
			return rmi_ysrc_fail(s, s->line, s->col, "bad \\u escape: "
					     "expected 4 hex digits");
		*u = *u * 16 + (unsigned)h;
	}
	return RM_OK;
}

/* Code point `u` as UTF-8 at tok[*n] (room for 4 bytes is there). */
static void put_utf8(rmi_ysrc *s, size_t *n, unsigned u)
{
	char *t = s->tok + *n;
	if (u < 0x80) {
		t[0] = (char)u;
		*n += 1;
	} else if (u < 0x800) {
		t[0] = (char)(0xc0 | u >> 6);
		t[1] = (char)(0x80 | (u & 0x3f));
		*n += 2;
	} else if (u < 0x10000) {
		t[0] = (char)(0xe0 | u >> 12);
		t[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		t[2] = (char)(0x80 | (u & 0x3f));
		*n += 3;
	} else {
		t[0] = (char)(0xf0 | u >> 18);
		t[1] = (char)(0x80 | ((u >> 12) & 0x3f));
		t[2] = (char)(0x80 | ((u >> 6) & 0x3f));
		t[3] = (char)(0x80 | (u & 0x3f));
		*n += 4;
	}
}

/* A \u escape after its 'u'; surrogate pairs joined, NUL refused. */
static rm_status escape_u(rmi_ysrc *s, size_t *n)
{
	unsigned u;
	rm_status st = read_u4(s, &u);
	if (st)
		return st;
	if (u >= 0xd800 && u < 0xdc00) {
		unsigned lo;
		if (get(s) != '\\' || get(s) != 'u' || (st = read_u4(s, &lo)) ||
		    lo < 0xdc00 || lo > 0xdfff)
			return st ? st : rmi_ysrc_fail(s, s->line, s->col,
						       "bad surrogate pair in a "
						       "\\u escape");
		u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
	} else if (u >= 0xdc00 && u < 0xe000) {
		return rmi_ysrc_fail(s, s->line, s->col,
				     "lone low surrogate in a \\u escape");
	}
	if (u == 0)
		return rmi_ysrc_fail(s, s->line, s->col, "NUL byte in a value");
	put_utf8(s, n, u);
	return RM_OK;
}

/* Bytes of a string that are not ASCII: one whole UTF-8 sequence. */
static rm_status string_utf8(rmi_ysrc *s, size_t *n)
{
	ensure(s, 4);
	size_t k = rmi_utf8_len(s->buf + s->bpos, s->blen - s->bpos);
	if (!k)
		return rmi_ysrc_bad_byte(s, s->line, s->col, s->buf + s->bpos,
					 s->blen - s->bpos);
	memcpy(s->tok + *n, s->buf + s->bpos, k);
	*n += k;
	s->bpos += k;
	s->col++;
	return RM_OK;
}

/* The string after its opening quote, into tok. */
static rm_status lex_string(rmi_ysrc *s, size_t *len)
{
	size_t n = 0;
	rm_status st;
	for (;;) {
		/* the common case: the run of plain ASCII up to the next
		 * quote, escape or other byte, at once (no newline in it) */
		size_t k = s->bpos;
		while (k < s->blen && s->buf[k] != '"' && s->buf[k] != '\\' &&
		       s->buf[k] >= 0x20 && s->buf[k] < 0x80)
			k++;
		size_t run = k - s->bpos;
		if ((st = tok_room(s, n, run + 4)))
			return st;
		memcpy(s->tok + n, s->buf + s->bpos, run);
		n += run;
		s->bpos = k;
		s->col += run;
		int c = peek(s);
		if (c == -2)
			return rmi_err_at(s->err, RM_EIO, s->file, 0, 0,
					  "read error: %s", strerror(errno));
		if (c < 0)
			return rmi_ysrc_fail(s, s->line, s->col,
					     "the file ends inside a string");
		if (c >= 0x80) {
			if ((st = string_utf8(s, &n)))
				return st;
			continue;
		}
		if (c < 0x20)
			return rmi_ysrc_bad_byte(s, s->line, s->col,
						 s->buf + s->bpos, 1);
		if (c != '"' && c != '\\')
			continue;    /* the run goes on in the next block */
		get(s);
		if (c == '"')
			break;
		if ((c = get(s)) == 'u') {
			st = escape_u(s, &n);
		} else {
			const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
			const char *at = c > 0 ? strchr(from, c) : NULL;
			if (!at)
				return rmi_ysrc_fail(s, s->line, s->col,
						     "unknown escape in a "
						     "string");
			s->tok[n++] = to[at - from];
		}
		if (st)
			return st;
	}
	*len = n;
	s->tok[n] = '\0';
	return RM_OK;
}

enum { T_EOF, T_LBRACE, T_RBRACE, T_LBRACKET, T_RBRACKET, T_COLON, T_COMMA,
       T_STRING, T_PLAIN };

static const char *tname(int t)
{
	static const char *const n[] = { "the end of the file", "'{'", "'}'",
					  "'['", "']'", "':'", "','",
					  "a string", "a value" };
	return n[t];
}

/* A number, true, false or null, into tok. */
static rm_status lex_plain(rmi_ysrc *s, int c, size_t *len,
			   unsigned long line, unsigned long col)
{
	size_t n = 0;
	rm_status st = tok_room(s, 0, 1);
	if (!st)
		s->tok[n++] = (char)c;
	while (!st && plain_char(peek(s)) && !(st = tok_room(s, n, 1)))
		s->tok[n++] = (char)get(s);
	if (st)
		return st;
	*len = n;
	s->tok[n] = '\0';
	bool num = s->tok[0] == '-' || (s->tok[0] >= '0' && s->tok[0] <= '9');
	if (!num && strcmp(s->tok, "true") && strcmp(s->tok, "false") &&
	    strcmp(s->tok, "null")) {
		char q[80];
		return rmi_ysrc_fail(s, line, col, "%s is not a JSON value",
				     rm_quote(s->tok, n, q, sizeof(q)));
	}
	return RM_OK;
}

/* An anchor, alias or tag in a file read as JSON (a YAML habit in flow
 * style): the YAML half's words for it, not "unexpected character". */
static rm_status yaml_only(rmi_ysrc *s, int c, unsigned long line,
			   unsigned long col)
{
	char name[64];
	size_t n = 0;
	get(s);
	if (c == '!')
		name[n++] = '!';
	for (int d; n + 1 < sizeof(name) && (d = peek(s)) > ' ' && d < 0x7f &&
		    !strchr(",[]{}:", d);)
		name[n++] = (char)get(s);
	char q[96];
	rm_quote(name, n, q, sizeof(q));
	if (c == '!')
		return rmi_ysrc_fail(s, line, col, "explicit tags are not "
				     "supported (tag %s)", q);
	return rmi_ysrc_fail(s, line, col, "anchors and aliases are not "
			     "allowed (%s %s)", c == '&' ? "anchor" : "alias",
			     q);
}

static rm_status lex(rmi_ysrc *s, int *t, size_t *len, unsigned long *line,
		     unsigned long *col)
{
	int c;
	while ((c = peek(s)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		get(s);
	*line = s->line;
	*col = s->col;
	if (c == -2)
		return rmi_err_at(s->err, RM_EIO, s->file, 0, 0,
				  "read error: %s", strerror(errno));
	*t = T_EOF;
	switch (c) {
	case -1: return RM_OK;
	case '{': *t = T_LBRACE; break;
	case '}': *t = T_RBRACE; break;
	case '[': *t = T_LBRACKET; break;
	case ']': *t = T_RBRACKET; break;
	case ':': *t = T_COLON; break;
	case ',': *t = T_COMMA; break;
	case '"': *t = T_STRING; break;
	default: break;
	}
	if (*t != T_EOF) {
		get(s);
		return *t == T_STRING ? lex_string(s, len) : RM_OK;
	}
	if (plain_char(c)) {
		get(s);
		*t = T_PLAIN;
		return lex_plain(s, c, len, *line, *col);
	}
	if (c < 0x20 || c >= 0x80) {
		ensure(s, 4);
		size_t k = rmi_utf8_len(s->buf + s->bpos, s->blen - s->bpos);
		if (c < 0x20 || !k)
			return rmi_ysrc_bad_byte(s, *line, *col,
						 s->buf + s->bpos,
						 s->blen - s->bpos);
	}
	if (c == '&' || c == '*' || c == '!')
		return yaml_only(s, c, *line, *col);
	return rmi_ysrc_fail(s, *line, *col, "unexpected character 0x%02x",
			     (unsigned)c);
}

/* A value token at a value position: sets the event, opens containers. */
static rm_status json_value(rmi_ysrc *s, int t, rmi_yevent *e)
{
	if (t == T_LBRACE || t == T_LBRACKET) {
		if (s->depth == RMI_YAML_MAX_DEPTH)
			return rmi_ysrc_fail(s, e->line, e->col,
					     "nested deeper than %d levels",
					     RMI_YAML_MAX_DEPTH);
		s->state[++s->depth] = t == T_LBRACE ? M_KEY_OR_END
						     : S_VALUE_OR_END;
		e->k = t == T_LBRACE ? RMI_EV_MAP : RMI_EV_SEQ;
		return RM_OK;
	}
	if (t == T_STRING || t == T_PLAIN) {
		e->k = RMI_EV_SCALAR;
		e->quoted = t == T_STRING;
		return RM_OK;
	}
	return rmi_ysrc_fail(s, e->line, e->col, "expected a value, found %s",
			     tname(t));
}

static rm_status json_end(rmi_ysrc *s, rmi_yevent *e)
{
	s->depth--;
	e->k = RMI_EV_END;
	return RM_OK;
}

static rm_status json_next(rmi_ysrc *s, rmi_yevent *e)
{
	for (;;) {
		int t = T_EOF;
		size_t len = 0;
		rm_status st = lex(s, &t, &len, &e->line, &e->col);
		if (st)
			return st;
		e->s = s->tok;
		e->len = len;
		unsigned char *sp = &s->state[s->depth];
		switch (*sp) {
		case R_VALUE:
			*sp = R_DONE;
			return json_value(s, t, e);
		case R_DONE:
			if (t != T_EOF)
				return rmi_ysrc_fail(s, e->line, e->col,
						     "%s after the document",
						     tname(t));
			e->k = RMI_EV_EOF;
			return RM_OK;
		case M_KEY_OR_END:
		case M_KEY:
			if (t == T_RBRACE && *sp == M_KEY_OR_END)
				return json_end(s, e);
			if (t != T_STRING)
				return rmi_ysrc_fail(s, e->line, e->col,
						     "a mapping key must be a "
						     "string, found %s",
						     tname(t));
			*sp = M_COLON;
			e->k = RMI_EV_SCALAR;
			e->quoted = true;
			return RM_OK;
		case M_COLON:
			if (t != T_COLON)
				return rmi_ysrc_fail(s, e->line, e->col,
						     "expected ':', found %s",
						     tname(t));
			*sp = M_VALUE;
			continue;
		case M_AFTER:
		case S_AFTER:
			if (t == T_COMMA) {
				*sp = *sp == M_AFTER ? M_KEY : S_VALUE;
				continue;
			}
			if (t == (*sp == M_AFTER ? T_RBRACE : T_RBRACKET))
				return json_end(s, e);
			return rmi_ysrc_fail(s, e->line, e->col,
					     "expected ',' or %s, found %s",
					     *sp == M_AFTER ? "'}'" : "']'",
					     tname(t));
		case S_VALUE_OR_END:
			if (t == T_RBRACKET)
				return json_end(s, e);
			*sp = S_AFTER;
			return json_value(s, t, e);
		default: /* M_VALUE, S_VALUE */
			*sp = *sp == M_VALUE ? M_AFTER : S_AFTER;
			return json_value(s, t, e);
		}
	}
}

void rmi_ysrc_json_start(rmi_ysrc *s)
{
	s->line = s->col = 1;
	s->depth = 0;
	s->state[0] = R_VALUE;
}

/* Every event of either half passes here: the JSON half's are made in
 * this file, so the hot path of a large map is one call deep. */
rm_status rmi_ysrc_next(rmi_ysrc *s, rmi_yevent *e)
{
	return s->yaml ? rmi_ysrc_yaml_next(s, e) : json_next(s, e);
}
