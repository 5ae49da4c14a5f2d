/* SPDX-License-Identifier: Apache-2.0 */
/*
 * map_stream.c - map files of any size in one pass with bounded memory.
 *
 * A map of a million GPUs is 145 MB of JSON: a whole-document tree would
 * be tens of millions of nodes, and libyaml alone takes seconds over it.
 * Here a small JSON lexer (or, for YAML, libyaml's event parser) feeds a
 * builder that keeps a tree of the top-level keys only; each rank record
 * and each axis of "groups" is built on its own, checked by the same code
 * as the tree reader (map_read.c, rmi_mr_*), and dropped. What stays is
 * the map itself. Records are checked as they arrive, so they need the
 * keys they depend on (layout, order, world_size, gpus_per_node, nodes)
 * first, and the group lists need the ranks. rankmap writes them in that
 * order; a file in another order (keys sorted by a JSON tool) is read in
 * up to three passes over the same bytes instead: each pass skips what it
 * cannot check yet, the next takes it up. Memory stays bounded either way.
 *
 * This is the only map reader: small maps go through it too, so a map
 * costs the same per byte at every size and every map meets one set of
 * checks and messages.
 */
#include "map/mapio.h"
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#define BUFSZ ((size_t)1 << 20)
#define MAX_STR ((size_t)1 << 20)    /* bytes in one string */
#define MAX_TOP 64                    /* top-level keys */
#define MAX_KEYS 4096                 /* keys in any other mapping */

typedef enum { EV_SCALAR, EV_MAP, EV_SEQ, EV_END, EV_EOF } evkind;

typedef struct ev {
	evkind k;
	const char *s;               /* EV_SCALAR: text (NUL-terminated) */
	size_t len;
	bool quoted;
	unsigned long line, col;
} ev;

/* JSON grammar positions, one per open container. */
enum { M_KEY_OR_END, M_KEY, M_COLON, M_VALUE, M_AFTER, S_VALUE_OR_END,
       S_VALUE, S_AFTER, R_VALUE, R_DONE };

typedef struct sr {
	const char *file;
	rm_error *err;
	/* input: a file descriptor, or text in memory */
	int fd;
	const char *text;
	size_t tlen, tpos;
	unsigned char *buf;
	size_t bpos, blen;
	bool eof;
	rm_sha256_ctx sha;
	bool hash;                   /* only when the caller wants it */
	char *hex;                   /* the digest, once the first pass ends */
	bool hex_done;
	unsigned long line, col;
	/* JSON */
	char *tok;
	size_t tcap;
	size_t bcap;                 /* buf's size: BUFSZ, less for short text */
	unsigned char state[RMI_YAML_MAX_DEPTH + 1];
	unsigned depth;
	/* YAML */
	bool yaml;
	yaml_parser_t yp;
	yaml_event_t ye;
	bool have_ye;
	int docs;
	bool nul;                    /* the YAML reader met a NUL byte */
	/* trees */
	rmi_chunk *arena;
	size_t nodes;
	rmi_ynode **stack[RMI_YAML_MAX_DEPTH];
	size_t scap[RMI_YAML_MAX_DEPTH];
} sr;

/* "file:line:col: message", RM_EINPUT. */
#define fail(S, line, col, ...)                                              \
	rmi_err_cut((S)->err, RM_EINPUT, (S)->file, line, col, 512,          \
		    __VA_ARGS__)

static rm_status oom(sr *S)
{
	return rmi_err(S->err, RM_ENOMEM, "%s: out of memory", S->file);
}

/* ---- input: every byte read is hashed ---- */

static int refill(sr *S)
{
	if (S->eof)
		return 0;
	ssize_t n;
	if (S->text) {
		size_t k = S->tlen - S->tpos < S->bcap ? S->tlen - S->tpos
						       : S->bcap;
		memcpy(S->buf, S->text + S->tpos, k);
		S->tpos += k;
		n = (ssize_t)k;
	} else {
		do
			n = read(S->fd, S->buf, S->bcap);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -1;
	}
	if (n == 0) {
		S->eof = true;
		return 0;
	}
	if (S->hash)
		rm_sha256_add(&S->sha, S->buf, (size_t)n);
	S->bpos = 0;
	S->blen = (size_t)n;
	return 1;
}

/* Next byte, or -1 at the end, -2 on a read error. */
static int peek(sr *S)
{
	if (S->bpos == S->blen) {
		int r = refill(S);
		if (r <= 0)
			return r < 0 ? -2 : -1;
	}
	return S->buf[S->bpos];
}

static int get(sr *S)
{
	int c = peek(S);
	if (c >= 0) {
		S->bpos++;
		if (c == '\n') {
			S->line++;
			S->col = 1;
		} else {
			S->col++;
		}
	}
	return c;
}

/* ---- arena for the trees ---- */

/* Fixed 256 KiB chunks: arena_reset drops each rank record's or group
 * list's tree once it is read, so the arena never grows large. */
static void *alloc(sr *S, size_t size)
{
	return rmi_arena_alloc(&S->arena, size, 256u << 10, 256u << 10);
}

typedef struct mark {
	rmi_chunk *c;
	size_t used, nodes;
} mark;

static mark arena_mark(const sr *S)
{
	return (mark){ S->arena, S->arena ? S->arena->used : 0, S->nodes };
}

/* Drop everything allocated since `m`. */
static void arena_reset(sr *S, mark m)
{
	while (S->arena && S->arena != m.c) {
		rmi_chunk *n = S->arena->next;
		free(S->arena);
		S->arena = n;
	}
	if (S->arena)
		S->arena->used = m.used;
	S->nodes = m.nodes;
}

/* ---- JSON lexer and grammar ---- */

static bool plain_char(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '-' || c == '+' || c == '.';
}

static rm_status tok_put(sr *S, size_t *n, char c)
{
	if (*n + 1 >= S->tcap) {
		if (S->tcap >= MAX_STR)
			return fail(S, S->line, S->col,
				    "a string longer than %zu bytes", MAX_STR);
		size_t cap = S->tcap ? 2 * S->tcap : 256;
		char *t = realloc(S->tok, cap);
		if (!t)
			return oom(S);
		S->tok = t;
		S->tcap = cap;
	}
	S->tok[(*n)++] = c;
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

static rm_status read_u4(sr *S, unsigned *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(get(S));
		if (h < 0)
			return fail(S, S->line, S->col,
				    "bad \\u escape: expected 4 hex digits");
		*u = *u * 16 + (unsigned)h;
	}
	return RM_OK;
}

static rm_status put_utf8(sr *S, size_t *n, unsigned u)
{
	rm_status st = RM_OK;
	if (u < 0x80)
		return tok_put(S, n, (char)u);
	if (u < 0x800)
		return (st = tok_put(S, n, (char)(0xc0 | u >> 6))) ? st
		       : tok_put(S, n, (char)(0x80 | (u & 0x3f)));
	if (u < 0x10000) {
		if ((st = tok_put(S, n, (char)(0xe0 | u >> 12))) ||
		    (st = tok_put(S, n, (char)(0x80 | ((u >> 6) & 0x3f)))))
			return st;
		return tok_put(S, n, (char)(0x80 | (u & 0x3f)));
	}
	if ((st = tok_put(S, n, (char)(0xf0 | u >> 18))) ||
	    (st = tok_put(S, n, (char)(0x80 | ((u >> 12) & 0x3f)))) ||
	    (st = tok_put(S, n, (char)(0x80 | ((u >> 6) & 0x3f)))))
		return st;
	return tok_put(S, n, (char)(0x80 | (u & 0x3f)));
}

/* Length of the UTF-8 sequence at p (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF), or 0 when it is not one. libyaml
 * refuses the same bytes, so a JSON map and its YAML rendering read alike. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t k = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2
		   : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (k == 0 || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
	    (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;
	return k;
}

static bool utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0, k; i < n; i += k)
		if (!(k = utf8_len(p + i, n - i)))
			return false;
	return true;
}

/* The string after its opening quote. */
static rm_status lex_string(sr *S, size_t *len)
{
	unsigned long line = S->line, col = S->col;
	size_t n = 0;
	rm_status st;
	for (;;) {
		int c = get(S);
		if (c < 0)
			return fail(S, S->line, S->col,
				    "the file ends inside a string");
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(S, S->line, S->col,
				    "control character 0x%02x in a string", c);
		if (c != '\\') {
			if ((st = tok_put(S, &n, (char)c)))
				return st;
			/* the common case: copy the run up to the next quote,
			 * escape or control byte at once (no newline in it) */
			size_t k = S->bpos;
			while (k < S->blen && S->buf[k] != '"' &&
			       S->buf[k] != '\\' && S->buf[k] >= 0x20)
				k++;
			size_t run = k - S->bpos;
			if (run && n + run + 1 >= S->tcap) {
				for (size_t i = 0; i < run && !st; i++)
					st = tok_put(S, &n, (char)get(S));
				if (st)
					return st;
				continue;
			}
			memcpy(S->tok + n, S->buf + S->bpos, run);
			n += run;
			S->bpos = k;
			S->col += run;
			continue;
		}
		c = get(S);
		unsigned u;
		switch (c) {
		case '"': case '\\': case '/':
			st = tok_put(S, &n, (char)c);
			break;
		case 'b': st = tok_put(S, &n, '\b'); break;
		case 'f': st = tok_put(S, &n, '\f'); break;
		case 'n': st = tok_put(S, &n, '\n'); break;
		case 'r': st = tok_put(S, &n, '\r'); break;
		case 't': st = tok_put(S, &n, '\t'); break;
		case 'u':
			if ((st = read_u4(S, &u)))
				return st;
			if (u >= 0xd800 && u < 0xdc00) {
				unsigned lo;
				if (get(S) != '\\' || get(S) != 'u' ||
				    (st = read_u4(S, &lo)) || lo < 0xdc00 ||
				    lo > 0xdfff)
					return st ? st
						  : fail(S, S->line, S->col,
							 "bad surrogate pair "
							 "in a \\u escape");
				u = 0x10000 + ((u - 0xd800) << 10) +
				    (lo - 0xdc00);
			} else if (u >= 0xdc00 && u < 0xe000) {
				return fail(S, S->line, S->col,
					    "lone low surrogate in a \\u escape");
			}
			if (u == 0)
				return fail(S, S->line, S->col,
					    "NUL byte in a value");
			st = put_utf8(S, &n, u);
			break;
		default:
			return fail(S, S->line, S->col,
				    "unknown escape in a string");
		}
		if (st)
			return st;
	}
	if (!utf8_valid(S->tok, n))
		return fail(S, line, col, "a string that is not valid UTF-8");
	*len = n;
	return tok_put(S, &n, '\0');
}

enum { T_EOF, T_LBRACE, T_RBRACE, T_LBRACKET, T_RBRACKET, T_COLON, T_COMMA,
       T_STRING, T_PLAIN };

static rm_status lex(sr *S, int *t, size_t *len, unsigned long *line,
		     unsigned long *col)
{
	int c;
	while ((c = peek(S)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		get(S);
	*line = S->line;
	*col = S->col;
	if (c == -2)
		return rmi_err_at(S->err, RM_EIO, S->file, 0, 0,
				  "read error: %s", strerror(errno));
	if (c == -1) {
		*t = T_EOF;
		return RM_OK;
	}
	get(S);
	switch (c) {
	case '{': *t = T_LBRACE; return RM_OK;
	case '}': *t = T_RBRACE; return RM_OK;
	case '[': *t = T_LBRACKET; return RM_OK;
	case ']': *t = T_RBRACKET; return RM_OK;
	case ':': *t = T_COLON; return RM_OK;
	case ',': *t = T_COMMA; return RM_OK;
	case '"': *t = T_STRING; return lex_string(S, len);
	default: break;
	}
	if (c == 0)
		return fail(S, *line, *col,
			    "NUL byte in the input (a binary file?)");
	if (!plain_char(c))
		return fail(S, *line, *col, "unexpected character 0x%02x",
			    (unsigned)c);
	size_t n = 0;
	rm_status st = tok_put(S, &n, (char)c);
	while (!st && plain_char(peek(S)))
		st = tok_put(S, &n, (char)get(S));
	if (st)
		return st;
	*len = n;
	S->tok[n] = '\0';
	bool num = S->tok[0] == '-' || (S->tok[0] >= '0' && S->tok[0] <= '9');
	if (!num && strcmp(S->tok, "true") && strcmp(S->tok, "false") &&
	    strcmp(S->tok, "null")) {
		char q[80];
		return fail(S, *line, *col, "%s is not a JSON value",
			    rm_quote(S->tok, n, q, sizeof(q)));
	}
	*t = T_PLAIN;
	return RM_OK;
}

static const char *tname(int t)
{
	static const char *const n[] = { "the end of the file", "'{'", "'}'",
					  "'['", "']'", "':'", "','",
					  "a string", "a value" };
	return n[t];
}

/* A value token at a value position: sets the event, opens containers. */
static rm_status json_value(sr *S, int t, ev *e)
{
	if (t == T_LBRACE || t == T_LBRACKET) {
		if (S->depth == RMI_YAML_MAX_DEPTH)
			return fail(S, e->line, e->col,
				    "nested deeper than %d levels",
				    RMI_YAML_MAX_DEPTH);
		S->state[++S->depth] = t == T_LBRACE ? M_KEY_OR_END
						     : S_VALUE_OR_END;
		e->k = t == T_LBRACE ? EV_MAP : EV_SEQ;
		return RM_OK;
	}
	if (t == T_STRING || t == T_PLAIN) {
		e->k = EV_SCALAR;
		e->quoted = t == T_STRING;
		return RM_OK;
	}
	return fail(S, e->line, e->col, "expected a value, found %s",
		    tname(t));
}

static rm_status json_next(sr *S, ev *e)
{
	for (;;) {
		int t;
		size_t len = 0;
		rm_status st = lex(S, &t, &len, &e->line, &e->col);
		if (st)
			return st;
		e->s = S->tok;
		e->len = len;
		unsigned char *sp = &S->state[S->depth];
		switch (*sp) {
		case R_VALUE:
			*sp = R_DONE;
			return json_value(S, t, e);
		case R_DONE:
			if (t != T_EOF)
				return fail(S, e->line, e->col,
					    "%s after the document", tname(t));
			e->k = EV_EOF;
			return RM_OK;
		case M_KEY_OR_END:
		case M_KEY:
			if (t == T_RBRACE && *sp == M_KEY_OR_END) {
				S->depth--;
				e->k = EV_END;
				return RM_OK;
			}
			if (t != T_STRING)
				return fail(S, e->line, e->col,
					    "expected a key (a string), found %s",
					    tname(t));
			*sp = M_COLON;
			e->k = EV_SCALAR;
			e->quoted = true;
			return RM_OK;
		case M_COLON:
			if (t != T_COLON)
				return fail(S, e->line, e->col,
					    "expected ':', found %s", tname(t));
			*sp = M_VALUE;
			continue;
		case M_VALUE:
			*sp = M_AFTER;
			return json_value(S, t, e);
		case M_AFTER:
		case S_AFTER:
			if (t == T_COMMA) {
				*sp = *sp == M_AFTER ? M_KEY : S_VALUE;
				continue;
			}
			if (t == (*sp == M_AFTER ? T_RBRACE : T_RBRACKET)) {
				S->depth--;
				e->k = EV_END;
				return RM_OK;
			}
			return fail(S, e->line, e->col, "expected ',' or %s, found %s",
				    *sp == M_AFTER ? "'}'" : "']'", tname(t));
		case S_VALUE_OR_END:
			if (t == T_RBRACKET) {
				S->depth--;
				e->k = EV_END;
				return RM_OK;
			}
			*sp = S_AFTER;
			return json_value(S, t, e);
		default: /* S_VALUE */
			*sp = S_AFTER;
			return json_value(S, t, e);
		}
	}
}

/* ---- YAML through libyaml's events ---- */

static int yaml_read(void *data, unsigned char *buf, size_t size,
		     size_t *got)
{
	sr *S = data;
	*got = 0;
	if (S->bpos == S->blen) {
		int r = refill(S);
		if (r < 0)
			return 0;
		if (r == 0)
			return 1;
	}
	size_t k = S->blen - S->bpos < size ? S->blen - S->bpos : size;
	if (memchr(S->buf + S->bpos, '\0', k)) {
		S->nul = true;
		return 0;
	}
	memcpy(buf, S->buf + S->bpos, k);
	S->bpos += k;
	*got = k;
	return 1;
}

static rm_status yaml_next(sr *S, ev *e)
{
	for (;;) {
		if (S->have_ye)
			yaml_event_delete(&S->ye);
		S->have_ye = false;
		if (!yaml_parser_parse(&S->yp, &S->ye)) {
			const char *p = S->nul ? "NUL byte in the input (a "
						 "binary file?)"
				      : S->yp.problem ? S->yp.problem
						      : "malformed YAML";
			return fail(S, S->yp.problem_mark.line + 1,
				    S->yp.problem_mark.column + 1, "%s", p);
		}
		S->have_ye = true;
		const yaml_event_t *y = &S->ye;
		e->line = y->start_mark.line + 1;
		e->col = y->start_mark.column + 1;
		switch (y->type) {
		case YAML_DOCUMENT_START_EVENT:
			if (++S->docs > 1)
				return fail(S, e->line, e->col,
					    "only one document is allowed per file");
			continue;
		case YAML_ALIAS_EVENT:
			return fail(S, e->line, e->col,
				    "anchors and aliases are not allowed");
		case YAML_SCALAR_EVENT:
			if (y->data.scalar.anchor || y->data.scalar.tag)
				return fail(S, e->line, e->col,
					    "anchors and tags are not allowed");
			e->k = EV_SCALAR;
			e->s = (const char *)y->data.scalar.value;
			e->len = y->data.scalar.length;
			e->quoted = y->data.scalar.style !=
				    YAML_PLAIN_SCALAR_STYLE;
			if (memchr(e->s, '\0', e->len))
				return fail(S, e->line, e->col,
					    "NUL byte in a value");
			return RM_OK;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			if (y->type == YAML_MAPPING_START_EVENT
				    ? y->data.mapping_start.anchor ||
					      y->data.mapping_start.tag
				    : y->data.sequence_start.anchor ||
					      y->data.sequence_start.tag)
				return fail(S, e->line, e->col,
					    "anchors and tags are not allowed");
			e->k = y->type == YAML_MAPPING_START_EVENT ? EV_MAP
								   : EV_SEQ;
			return RM_OK;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			e->k = EV_END;
			return RM_OK;
		case YAML_STREAM_END_EVENT:
			e->k = EV_EOF;
			return RM_OK;
		default:
			continue;
		}
	}
}

static rm_status next(sr *S, ev *e)
{
	return S->yaml ? yaml_next(S, e) : json_next(S, e);
}

/* ---- trees ---- */

static rm_status node(sr *S, const ev *e, rmi_ykind kind, rmi_ynode **out)
{
	if (++S->nodes > RMI_YAML_MAX_NODES)
		return fail(S, e->line, e->col,
			    "more than %u nodes in one part of the file",
			    RMI_YAML_MAX_NODES);
	size_t extra = kind == RMI_Y_SCALAR ? e->len + 1 : 0;
	rmi_ynode *n = alloc(S, sizeof(*n) + extra);
	if (!n)
		return oom(S);
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->line = e->line;
	n->col = e->col;
	if (kind == RMI_Y_SCALAR) {
		n->str = (char *)(n + 1);
		memcpy(n->str, e->s, e->len);
		n->str[e->len] = '\0';
		n->len = e->len;
		n->quoted = e->quoted;
	}
	*out = n;
	return RM_OK;
}

static rm_status dup_keys(sr *S, rmi_ynode *const *item, size_t pairs)
{
	for (size_t j = 1; j < pairs; j++)
		for (size_t i = 0; i < j; i++) {
			const rmi_ynode *a = item[2 * i], *b = item[2 * j];
			if (a->len == b->len && !memcmp(a->str, b->str, a->len)) {
				char q[160];
				return fail(S, b->line, b->col,
					    "duplicate key %s (first at line %lu)",
					    rm_quote(b->str, b->len, q,
						      sizeof(q)),
					    a->line);
			}
		}
	return RM_OK;
}

/* The whole value that starts with event `e`. */
static rm_status build(sr *S, const ev *e, unsigned depth, rmi_ynode **out)
{
	if (e->k == EV_SCALAR)
		return node(S, e, RMI_Y_SCALAR, out);
	if (e->k != EV_MAP && e->k != EV_SEQ)
		return fail(S, e->line, e->col, "expected a value");
	if (depth >= RMI_YAML_MAX_DEPTH)
		return fail(S, e->line, e->col, "nested deeper than %d levels",
			    RMI_YAML_MAX_DEPTH);
	bool map = e->k == EV_MAP;
	rmi_ynode *n;
	rm_status st = node(S, e, map ? RMI_Y_MAP : RMI_Y_SEQ, &n);
	size_t cnt = 0;
	while (!st) {
		ev x;
		if ((st = next(S, &x)))
			break;
		if (x.k == EV_END)
			break;
		if (x.k == EV_EOF) {
			st = fail(S, x.line, x.col, "the file ends too early");
			break;
		}
		if (map && cnt % 2 == 0) {
			if (x.k != EV_SCALAR) {
				st = fail(S, x.line, x.col,
					  "a mapping key must be a plain value");
				break;
			}
			if (cnt / 2 >= MAX_KEYS) {
				st = fail(S, x.line, x.col,
					  "more than %d keys in one mapping",
					  MAX_KEYS);
				break;
			}
		}
		rmi_ynode *child;
		if ((st = build(S, &x, depth + 1, &child)))
			break;
		if (cnt == S->scap[depth]) {
			size_t cap = cnt ? 2 * cnt : 16;
			rmi_ynode **p = realloc(S->stack[depth],
						cap * sizeof(*p));
			if (!p) {
				st = oom(S);
				break;
			}
			S->stack[depth] = p;
			S->scap[depth] = cap;
		}
		S->stack[depth][cnt++] = child;
	}
	if (st)
		return st;
	n->n = map ? cnt / 2 : cnt;
	if (cnt) {
		if (!(n->item = alloc(S, cnt * sizeof(*n->item))))
			return oom(S);
		memcpy(n->item, S->stack[depth], cnt * sizeof(*n->item));
	}
	if (map && (st = dup_keys(S, n->item, n->n)))
		return st;
	*out = n;
	return RM_OK;
}

/* ---- the map ---- */

typedef struct top {
	rmi_ynode root;
	rmi_ynode *item[2 * MAX_TOP];
} top;

static const rmi_ynode *top_get(const top *t, const char *key)
{
	return rmi_y_get(&t->root, key);
}

static rm_status top_add(sr *S, top *t, rmi_ynode *k, rmi_ynode *v)
{
	if (t->root.n >= MAX_TOP)
		return fail(S, k->line, k->col,
			    "more than %d keys in the map file", MAX_TOP);
	t->item[2 * t->root.n] = k;
	t->item[2 * t->root.n + 1] = v;
	t->root.n++;
	return dup_keys(S, t->item, t->root.n);
}

/* "ranks": the records one by one. */
static rm_status stream_ranks(sr *S, rmi_mapread *mr, top *t,
			      const rmi_ynode *key)
{
	ev e;
	rm_status st = next(S, &e);
	if (st)
		return st;
	rmi_ynode *v;
	/* the list itself, with no items, stands in the top-level tree */
	if ((st = node(S, &e, e.k == EV_SEQ ? RMI_Y_SEQ
				 : e.k == EV_MAP ? RMI_Y_MAP
						 : RMI_Y_SCALAR, &v)) ||
	    (st = top_add(S, t, (rmi_ynode *)key, v)) ||
	    (st = rmi_mr_head(mr, &t->root)))
		return st;
	mark m = arena_mark(S);
	while (!(st = next(S, &e)) && e.k != EV_END) {
		rmi_ynode *rec;
		if (e.k == EV_EOF)
			return fail(S, e.line, e.col, "the file ends too early");
		if ((st = build(S, &e, 2, &rec)) ||
		    (st = rmi_mr_rank(mr, rec)))
			return st;
		arena_reset(S, m);
	}
	return st ? st : rmi_mr_ranks_end(mr);
}

/* "groups" or "expert_groups": one kind's lists at a time. */
static rm_status stream_groups(sr *S, rmi_mapread *mr, top *t,
			       const rmi_ynode *key, bool expert)
{
	ev e;
	rm_status st = next(S, &e);
	if (st)
		return st;
	if (e.k != EV_MAP)
		return fail(S, e.line, e.col, "%s must be a mapping", key->str);
	rmi_ynode *v;
	if ((st = node(S, &e, RMI_Y_MAP, &v)) ||
	    (st = top_add(S, t, (rmi_ynode *)key, v)))
		return st;
	mark m = arena_mark(S);
	char seen[16][16];
	size_t nseen = 0;
	while (!(st = next(S, &e)) && e.k != EV_END) {
		rmi_ynode *k, *list;
		ev x;
		if (e.k != EV_SCALAR)
			return fail(S, e.line, e.col,
				    "a mapping key must be a plain value");
		if ((st = build(S, &e, 2, &k)))
			return st;
		for (size_t i = 0; i < nseen; i++)
			if (!strcmp(seen[i], k->str))
				return fail(S, k->line, k->col,
					    "duplicate key '%s' in %s",
					    k->str, key->str);
		if (nseen < 16 && k->len < sizeof(seen[0]))
			memcpy(seen[nseen++], k->str, k->len + 1);
		if ((st = next(S, &x)) || (st = build(S, &x, 2, &list)) ||
		    (st = rmi_mr_groups(mr, k, list, expert)))
			return st;
		arena_reset(S, m);
	}
	return st;
}

/* One value, read and dropped: a pass that cannot check it yet. */
static rm_status skip_value(sr *S)
{
	ev e;
	rm_status st = next(S, &e);
	if (st || e.k == EV_SCALAR)
		return st;
	if (e.k != EV_MAP && e.k != EV_SEQ)
		return fail(S, e.line, e.col, "expected a value");
	for (unsigned long depth = 1; depth;) {
		if ((st = next(S, &e)))
			return st;
		if (e.k == EV_EOF)
			return fail(S, e.line, e.col, "the file ends too early");
		if (e.k == EV_MAP || e.k == EV_SEQ)
			depth++;
		else if (e.k == EV_END)
			depth--;
	}
	return RM_OK;
}

/* Back to the first byte for another pass; the digest is already taken. */
static rm_status rewind_input(sr *S)
{
	if (S->text) {
		S->tpos = 0;
	} else if (lseek(S->fd, 0, SEEK_SET) != 0) {
		return rmi_err(S->err, RM_EIO, "%s: cannot read it again: %s",
			       S->file, strerror(errno));
	}
	S->bpos = S->blen = 0;
	S->eof = false;
	S->hash = false;
	S->line = S->col = 1;
	S->depth = 0;
	S->state[0] = R_VALUE;
	if (!S->yaml)
		return RM_OK;
	if (S->have_ye)
		yaml_event_delete(&S->ye);
	S->have_ye = false;
	S->docs = 0;
	yaml_parser_delete(&S->yp);
	if (!yaml_parser_initialize(&S->yp)) {
		S->yaml = false;
		return oom(S);
	}
	yaml_parser_set_input(&S->yp, yaml_read, S);
	return RM_OK;
}

/* What the passes have done so far. */
typedef struct progress {
	bool ranks, groups[2];       /* checked */
	unsigned long skipped[3];    /* line of a key skipped in pass 0 */
	bool pending;                /* this pass skipped something */
} progress;

static bool head_ready(const top *t)
{
	static const char *const need[] = { "layout", "order", "world_size",
					    "gpus_per_node", "nodes", NULL };
	for (int i = 0; need[i]; i++)
		if (!top_get(t, need[i]))
			return false;
	return true;
}

/* "ranks", "groups" or "expert_groups", in whichever pass can check it. */
static rm_status streamed_key(sr *S, rmi_mapread *mr, top *t, rmi_ynode *k,
			      int which, int pass, progress *p)
{
	bool done = which == 0 ? p->ranks : p->groups[which - 1];
	if (pass == 0 && (done || p->skipped[which])) {
		const rmi_ynode *first = top_get(t, k->str);
		char q[160];
		return fail(S, k->line, k->col, "duplicate key %s (first at "
			    "line %lu)", rm_quote(k->str, k->len, q, sizeof(q)),
			    first ? first->line : p->skipped[which]);
	}
	if (done)
		return skip_value(S);
	/* after pass 0 every head key there is has been seen */
	bool ready = which == 0 ? pass > 0 || head_ready(t) : p->ranks;
	if (!ready) {
		if (pass == 0)
			p->skipped[which] = k->line;
		p->pending = true;
		return skip_value(S);
	}
	rm_status st = which == 0 ? stream_ranks(S, mr, t, k)
				  : stream_groups(S, mr, t, k, which == 2);
	if (!st && which == 0)
		p->ranks = true;
	else if (!st)
		p->groups[which - 1] = true;
	return st;
}

static rm_status one_pass(sr *S, rmi_mapread *mr, top *t, int pass,
			  progress *p)
{
	ev e;
	rm_status st = next(S, &e);
	if (st)
		return st;
	if (e.k != EV_MAP)
		return fail(S, e.line, e.col, "a map file is one mapping "
			    "(a JSON object)");
	if (pass == 0) {
		t->root.line = e.line;
		t->root.col = e.col;
	}
	p->pending = false;
	while (!(st = next(S, &e)) && e.k != EV_END) {
		rmi_ynode *k, *v;
		if (e.k != EV_SCALAR)
			return fail(S, e.line, e.col,
				    e.k == EV_EOF ? "the file ends too early"
						  : "a mapping key must be a plain value");
		if ((st = build(S, &e, 1, &k)))
			return st;
		int which = !strcmp(k->str, "ranks") ? 0
			    : !strcmp(k->str, "groups") ? 1
			    : !strcmp(k->str, "expert_groups") ? 2 : -1;
		if (which >= 0) {
			st = streamed_key(S, mr, t, k, which, pass, p);
		} else if (pass > 0) {
			st = skip_value(S);
		} else {
			ev x;
			if (!(st = next(S, &x)) && !(st = build(S, &x, 1, &v)))
				st = top_add(S, t, k, v);
		}
		if (st)
			return st;
	}
	if (!st && (st = next(S, &e)) == RM_OK && e.k != EV_EOF)
		st = fail(S, e.line, e.col, "more after the document");
	return st;
}

static rm_status stream(sr *S, rm_map **out)
{
	rmi_mapread *mr = rmi_mr_new(S->file, S->err);
	top *t = calloc(1, sizeof(*t));
	if (!mr || !t) {
		rmi_mr_free(mr, false);
		free(t);
		return oom(S);
	}
	t->root.kind = RMI_Y_MAP;
	t->root.item = t->item;
	progress p = { 0 };
	rm_status st = RM_OK;
	/* ranks wait for the head (pass 1), groups for the ranks (pass 2) */
	for (int pass = 0; pass < 3 && !st; pass++) {
		if (pass && (st = rewind_input(S)))
			break;
		if ((st = one_pass(S, mr, t, pass, &p)) || !p.pending)
			break;
		if (pass == 0 && S->hex) {
			while (refill(S) > 0)
				;
			rm_sha256_end_hex(&S->sha, S->hex);
			S->hex_done = true;
		}
	}
	if (!st && !p.ranks)
		st = rmi_mr_head(mr, &t->root);   /* says what is missing */
	if (!st)
		st = rmi_mr_tail(mr, &t->root);
	free(t);
	*out = rmi_mr_free(mr, st == RM_OK);
	return st;
}

static void sr_free(sr *S)
{
	arena_reset(S, (mark){ NULL, 0, 0 });
	for (int i = 0; i < RMI_YAML_MAX_DEPTH; i++)
		free(S->stack[i]);
	free(S->tok);
	free(S->buf);
	if (S->have_ye)
		yaml_event_delete(&S->ye);
	if (S->yaml)
		yaml_parser_delete(&S->yp);
}

/* Stream from fd (or text); JSON unless the first byte says otherwise. */
static rm_status stream_from(sr *S, rm_map **out, char *hex)
{
	rm_status st = RM_OK;
	S->line = S->col = 1;
	S->state[0] = R_VALUE;
	/* A map given as text needs no more buffer than its length: small
	 * maps (the plugin's, every fuzz input) then cost no 1 MiB block. */
	S->bcap = S->text && S->tlen < BUFSZ ? S->tlen + 1 : BUFSZ;
	if (!(S->buf = malloc(S->bcap)))
		return oom(S);
	int c;
	while ((c = peek(S)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		get(S);
	if (c == 0) {
		sr_free(S);
		return fail(S, S->line, S->col,
			    "NUL byte in the input (a binary file?)");
	}
	if (c != '{') {
		S->yaml = true;
		if (!yaml_parser_initialize(&S->yp)) {
			sr_free(S);
			return oom(S);
		}
		yaml_parser_set_input(&S->yp, yaml_read, S);
	}
	S->hex = hex;
	if (!st)
		st = stream(S, out);
	if (!st && hex && !S->hex_done) {
		/* the rest of the file counts too (trailing space) */
		while (refill(S) > 0)
			;
		rm_sha256_end_hex(&S->sha, hex);
	}
	sr_free(S);
	return st;
}

rm_status rmi_map_stream_text(const char *text, size_t len, const char *name,
			      rm_map **out, rm_error *err)
{
	*out = NULL;
	sr S;
	memset(&S, 0, sizeof(S));
	S.file = name ? name : "<input>";
	S.err = err;
	S.fd = -1;
	S.text = text ? text : "";
	S.tlen = text ? len : 0;
	rm_sha256_init(&S.sha);
	return stream_from(&S, out, NULL);
}

rm_status rmi_map_read_file(const char *path, rm_map **out, char *hex,
			    rm_error *err)
{
	*out = NULL;
	int fd;
	uint64_t size;
	rm_status st = rmi_open_file(path, &fd, &size, err);
	if (st)
		return st;
	(void)size;
	sr S;
	memset(&S, 0, sizeof(S));
	S.file = path;
	S.err = err;
	S.fd = fd;
	S.hash = hex != NULL;
	rm_sha256_init(&S.sha);
	st = stream_from(&S, out, hex);
	close(fd);
	return st;
}

rm_status rm_map_read_digest(const char *path, rm_map **out,
			     char sha256_hex[65], rm_error *err)
{
	if (out)
		*out = NULL;
	if (!path || !out || !sha256_hex)
		return rmi_err(err, RM_EINPUT, "map read: no path or output");
	return rmi_map_read_file(path, out, sha256_hex, err);
}
