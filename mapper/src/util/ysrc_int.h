/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util/ysrc_int.h - the event source's state, shared by its input
 * (ysrc.c), its JSON half (ysrc_json.c) and its YAML half (ysrc_yaml.c).
 * Only those three include it.
 */
#ifndef RANKMAP_YSRC_INT_H
#define RANKMAP_YSRC_INT_H

#include "util/yaml.h"

#include <yaml.h>

struct rmi_ysrc {
	const char *file;
	rm_error *err;
	/* Input: the caller's text, or blocks of a file in `own`. Bytes
	 * [bpos, blen) of buf are not consumed yet. */
	int fd;                      /* -1 for text */
	const char *text;
	size_t tlen;
	const unsigned char *buf;
	unsigned char *own;
	size_t bpos, blen;
	bool eof;                    /* nothing after blen */
	int read_errno;              /* a read for libyaml failed */
	rmi_ysrc_seen *seen;
	void *seen_ctx;
	/* JSON: the lexer's place, its token, one grammar state per open
	 * container */
	unsigned long line, col;
	char *tok;
	size_t tcap;
	unsigned char state[RMI_YAML_MAX_DEPTH + 1];
	unsigned depth;
	/* YAML */
	bool yaml;
	bool parser;                 /* yp is initialised */
	yaml_parser_t yp;
	yaml_event_t ye;
	bool have_ye;
	int docs;
	/* bytes before vpos are checked; vline:vcol is where vpos is */
	size_t vpos;
	unsigned long vline, vcol;
	bool cr;                     /* the last byte checked was '\r' */
	bool bad;                    /* a bad byte stops the check at vpos */
	unsigned char bad_at[4];     /* it and what follows, for the message */
	size_t bad_n;
	unsigned long bad_line, bad_col;
	/* open collections: bit 0 a mapping, bit 1 its next item is a key */
	unsigned char ystate[RMI_YAML_MAX_DEPTH + 1];
	unsigned ydepth;
};

/* One more block of a file: keeps [bpos, blen), moved to the front.
 * 1 read, 0 at the end, -1 on a read error (errno set). */
RMI_HIDDEN int rmi_ysrc_refill(rmi_ysrc *s);
/* Length of the UTF-8 sequence at p (RFC 3629), 0 if it is not one. */
RMI_HIDDEN size_t rmi_utf8_len(const unsigned char *p, size_t n);
RMI_HIDDEN rm_status rmi_ysrc_bad_byte(rmi_ysrc *s, unsigned long line,
				       unsigned long col,
				       const unsigned char *p, size_t n);

/* The JSON half (ysrc_json.c): back to the first byte's state. */
RMI_HIDDEN void rmi_ysrc_json_start(rmi_ysrc *s);
/* The YAML half (ysrc_yaml.c). */
RMI_HIDDEN rm_status rmi_ysrc_yaml_start(rmi_ysrc *s);
RMI_HIDDEN void rmi_ysrc_yaml_stop(rmi_ysrc *s);
RMI_HIDDEN rm_status rmi_ysrc_yaml_next(rmi_ysrc *s, rmi_yevent *e);

#endif
