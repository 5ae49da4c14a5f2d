/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ysrc_yaml.c - the event source's YAML half: libyaml's event parser fed
 * from the source's input, every byte checked on the way in.
 *
 * libyaml reports a bad byte as a byte offset in its own read-ahead
 * buffer, which a streamed file no longer has; checking the bytes before
 * libyaml sees them names the byte at its line and column, in the words
 * the JSON lexer uses for the same byte. libyaml is handed only checked
 * bytes; at a bad one its read fails and that message is given instead of
 * libyaml's.
 */
#include "util/ysrc_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { Y_MAP = 1, Y_KEY = 2 };

/* What YAML 1.1 allows beyond ASCII: no C1 controls but NEL, no U+FFFE,
 * U+FFFF (libyaml refuses them with only an offset). */
static bool printable(const unsigned char *p, size_t k)
{
	if (k == 2 && p[0] == 0xc2)
		return p[1] >= 0xa0 || p[1] == 0x85;
	return !(k == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe);
}

/* Checks bytes from vpos on, as far as whole characters go, keeping
 * vline:vcol where libyaml's marks would be (a column is a character;
 * "\r\n" and a lone '\r' are one line break). */
static void check_bytes(rmi_ysrc *s)
{
	const unsigned char *b = s->buf;
	size_t i = s->vpos;
	while (i < s->blen) {
		unsigned c = b[i];
		if ((c >= 0x20 && c < 0x7f) || c == '\t') {
			s->vcol++;
		} else if (c == '\n' || c == '\r') {
			if (c == '\r' || !s->cr)
				s->vline++;
			s->vcol = 1;
		} else if (c >= 0x80) {
			size_t k = rmi_utf8_len(b + i, s->blen - i);
			if (!k && !s->eof && s->blen - i < 4)
				break;          /* cut by the block's end */
			if (!k || !printable(b + i, k))
				goto bad;
			/* a byte order mark opening the file is no column */
			bool bom = i == 0 && s->vline == 1 && s->vcol == 1 &&
				   k == 3 && b[1] == 0xbb;
			s->vcol += !bom;
			s->cr = false;
			i += k;
			continue;
		} else {
			goto bad;
		}
		s->cr = c == '\r';
		i++;
	}
	s->vpos = i;
	return;
bad:
	s->vpos = i;
	s->bad = true;
	s->bad_n = s->blen - i < sizeof(s->bad_at) ? s->blen - i
						    : sizeof(s->bad_at);
	memcpy(s->bad_at, b + i, s->bad_n);
	s->bad_line = s->vline;
	s->bad_col = s->vcol;
}

/* libyaml's read handler: checked bytes only; 0 (an error) at a bad one
 * or a failed read, *got 0 at the end. */
static int yaml_read(void *data, unsigned char *out, size_t size,
		     size_t *got)
{
	rmi_ysrc *s = data;
	*got = 0;
	for (;;) {
		if (!s->bad && s->vpos < s->blen)
			check_bytes(s);
		if (s->vpos > s->bpos)
			break;
		if (s->bad)
			return 0;
		int r = rmi_ysrc_refill(s);
		if (r < 0) {
			s->read_errno = errno ? errno : EIO;
			return 0;
		}
		if (r == 0 && s->vpos == s->blen)
			return 1;
		/* at the end, a cut sequence left over is checked as bad */
	}
	size_t k = s->vpos - s->bpos < size ? s->vpos - s->bpos : size;
	memcpy(out, s->buf + s->bpos, k);
	s->bpos += k;
	*got = k;
	return 1;
}

rm_status rmi_ysrc_yaml_start(rmi_ysrc *s)
{
	s->vpos = s->bpos;
	s->vline = s->vcol = 1;
	s->cr = s->bad = false;
	s->read_errno = 0;
	s->docs = 0;
	s->ydepth = 0;
	s->ystate[0] = 0;
	if (!yaml_parser_initialize(&s->yp))
		return rmi_ysrc_oom(s);
	s->parser = true;
	yaml_parser_set_input(&s->yp, yaml_read, s);
	return RM_OK;
}

void rmi_ysrc_yaml_stop(rmi_ysrc *s)
{
	if (s->have_ye)
		yaml_event_delete(&s->ye);
	s->have_ye = false;
	if (s->parser)
		yaml_parser_delete(&s->yp);
	s->parser = false;
}

static rm_status parse_error(rmi_ysrc *s)
{
	const yaml_parser_t *p = &s->yp;
	const char *problem = p->problem ? p->problem : "malformed YAML";
	if (s->bad)
		return rmi_ysrc_bad_byte(s, s->bad_line, s->bad_col, s->bad_at,
					 s->bad_n);
	if (s->read_errno)
		return rmi_err(s->err, RM_EIO, "%s: read error: %s", s->file,
			       strerror(s->read_errno));
	if (p->error == YAML_MEMORY_ERROR)
		return rmi_ysrc_oom(s);
	if (p->error == YAML_READER_ERROR)  /* the check above missed it */
		return rmi_ysrc_fail(s, 0, 0, "%s (byte offset %zu)", problem,
				     p->problem_offset);
	unsigned long line = p->problem_mark.line + 1,
		      col = p->problem_mark.column + 1;
	if (p->context)
		return rmi_ysrc_fail(s, line, col, "%s (%s at %lu:%lu)",
				     problem, p->context,
				     (unsigned long)p->context_mark.line + 1,
				     (unsigned long)p->context_mark.column + 1);
	return rmi_ysrc_fail(s, line, col, "%s", problem);
}

/* rule, then which property (kind) and its value, quoted. */
static rm_status refuse(rmi_ysrc *s, const rmi_yevent *e, const char *rule,
			const char *kind, const yaml_char_t *value)
{
	char q[96];
	const char *v = (const char *)value;
	return rmi_ysrc_fail(s, e->line, e->col, "%s (%s %s)", rule, kind,
			     rm_quote(v, strlen(v), q, sizeof(q)));
}

static rm_status props(rmi_ysrc *s, const rmi_yevent *e,
		       const yaml_char_t *anchor, const yaml_char_t *tag)
{
	if (anchor)
		return refuse(s, e, "anchors and aliases are not allowed",
			      "anchor", anchor);
	if (tag)
		return refuse(s, e, "explicit tags are not supported", "tag",
			      tag);
	return RM_OK;
}

/* A whole value ended: in a mapping, a key is due next or no more. */
static void item_done(rmi_ysrc *s)
{
	if (s->ystate[s->ydepth] & Y_MAP)
		s->ystate[s->ydepth] ^= Y_KEY;
}

static rm_status scalar(rmi_ysrc *s, const yaml_event_t *y, rmi_yevent *e)
{
	rm_status st = props(s, e, y->data.scalar.anchor, y->data.scalar.tag);
	if (st)
		return st;
	e->k = RMI_EV_SCALAR;
	e->s = (const char *)y->data.scalar.value;
	e->len = y->data.scalar.length;
	e->quoted = y->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
	/* a "\0" escape would make C strings lie about their length */
	if (memchr(e->s, '\0', e->len))
		return rmi_ysrc_fail(s, e->line, e->col, "NUL byte in a value");
	item_done(s);
	return RM_OK;
}

static rm_status open_one(rmi_ysrc *s, const yaml_event_t *y, rmi_yevent *e)
{
	bool map = y->type == YAML_MAPPING_START_EVENT;
	rm_status st = map ? props(s, e, y->data.mapping_start.anchor,
				   y->data.mapping_start.tag)
			   : props(s, e, y->data.sequence_start.anchor,
				   y->data.sequence_start.tag);
	if (st)
		return st;
	if (s->ystate[s->ydepth] == (Y_MAP | Y_KEY))
		return rmi_ysrc_fail(s, e->line, e->col, "a mapping key must "
				     "be a plain value, not a %s",
				     map ? "mapping" : "sequence");
	if (s->ydepth == RMI_YAML_MAX_DEPTH)
		return rmi_ysrc_fail(s, e->line, e->col,
				     "nested deeper than %d levels",
				     RMI_YAML_MAX_DEPTH);
	s->ystate[++s->ydepth] = map ? Y_MAP | Y_KEY : 0;
	e->k = map ? RMI_EV_MAP : RMI_EV_SEQ;
	return RM_OK;
}

rm_status rmi_ysrc_yaml_next(rmi_ysrc *s, rmi_yevent *e)
{
	for (;;) {
		if (s->have_ye)
			yaml_event_delete(&s->ye);
		s->have_ye = false;
		if (!yaml_parser_parse(&s->yp, &s->ye))
			return parse_error(s);
		s->have_ye = true;
		const yaml_event_t *y = &s->ye;
		e->line = y->start_mark.line + 1;
		e->col = y->start_mark.column + 1;
		switch (y->type) {
		case YAML_DOCUMENT_START_EVENT:
			if (++s->docs > 1)
				return rmi_ysrc_fail(s, e->line, e->col,
						     "only one document is "
						     "allowed per file");
			continue;
		case YAML_ALIAS_EVENT: {
			char q[96];
			const char *a = (const char *)y->data.alias.anchor;
			return rmi_ysrc_fail(s, e->line, e->col, "anchors and "
					     "aliases are not allowed (alias %s)",
					     rm_quote(a, a ? strlen(a) : 0, q,
						      sizeof(q)));
		}
		case YAML_SCALAR_EVENT:
			return scalar(s, y, e);
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			return open_one(s, y, e);
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			s->ydepth--;
			item_done(s);
			e->k = RMI_EV_END;
			return RM_OK;
		case YAML_STREAM_END_EVENT:
			e->k = RMI_EV_EOF;
			return RM_OK;
		default:
			continue;
		}
	}
}
