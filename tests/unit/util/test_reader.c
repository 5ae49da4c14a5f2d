/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_reader.c - one reader: the same bad input gets the same message from
 * the map reader (from memory and streamed from a file), the site reader,
 * the model reader and the plain loader the importers use, in JSON and in
 * YAML; and the event source's own edges (blocks of a file, rewinding).
 */
#include "internal.h"
#include "map/mapio.h"
#include "model/model_int.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#define NAME "in.txt"

/* `text` written to a file named in.txt in a fresh directory (the name
 * must match the other readers' so the messages can be compared). */
static char dir[64];

static char *to_file(const char *text, size_t len)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/" NAME, dir);
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(fwrite(text, 1, len, f), len);
		fclose(f);
	}
	return path;
}

/* Every reader refuses `text` (len bytes) with the one message: the
 * loader's, which must hold `want`. */
static void same(const char *text, size_t len, const char *want)
{
	rm_error e0, e1, e2, e3, e4;
	memset(&e0, 0, sizeof(e0));
	rmi_ynode *root = NULL;
	CHECK_INT(rmi_yaml_load(text, len, NAME, &root, &e0), RM_EINPUT);
	rmi_yaml_free(root);
	CHECK_HAS(e0.msg, want);

	rm_map *m = NULL;
	memset(&e1, 0, sizeof(e1));
	CHECK_INT(rmi_map_stream_text(text, len, NAME, &m, &e1), RM_EINPUT);
	CHECK(m == NULL);
	CHECK_STR(e1.msg, e0.msg);

	/* the file reader names the path: compare what follows it */
	char *path = to_file(text, len);
	char digest[65];
	memset(&e2, 0, sizeof(e2));
	CHECK_INT(rm_map_read_digest(path, &m, digest, &e2), RM_EINPUT);
	CHECK(m == NULL);
	const char *tail = strstr(e2.msg, NAME);
	CHECK_STR(tail, e0.msg);
	unlink(path);

	rm_site site;
	memset(&e3, 0, sizeof(e3));
	CHECK_INT(rmi_site_parse(text, len, NAME, &site, &e3), RM_EINPUT);
	CHECK_STR(e3.msg, e0.msg);

	rm_model model;
	memset(&e4, 0, sizeof(e4));
	CHECK_INT(rm_model_parse_yaml(text, len, NAME, &model, &e4),
		  RM_EINPUT);
	CHECK_STR(e4.msg, e0.msg);
}

static void same_s(const char *text, const char *want)
{
	same(text, strlen(text), want);
}

static void duplicate_keys(void)
{
	same_s("a: 1\nb: 2\na: 3\n",
	       NAME ":3:1: duplicate key 'a' (first at line 1)");
	same_s("{\"a\": 1,\n \"a\": 2}",
	       NAME ":2:2: duplicate key 'a' (first at line 1)");
	/* nested, and in a mapping big enough for the hashed check */
	same_s("x: {n: 1, m: 2, n: 3}\n",
	       NAME ":1:17: duplicate key 'n' (first at line 1)");
	char big[2048];
	size_t o = (size_t)sprintf(big, "top:\n");
	for (int i = 0; i < 40; i++)
		o += (size_t)sprintf(big + o, "  k%d: 1\n", i == 30 ? 3 : i);
	same(big, o, NAME ":32:3: duplicate key 'k3' (first at line 5)");
	/* a repeat is named where it is read, before a later mistake */
	same_s("a: 1\na: 2\nb: [\n", NAME ":2:1: duplicate key 'a'");
}

static void tags_anchors_aliases(void)
{
	same_s("a: !!str x\n",
	       NAME ":1:4: explicit tags are not supported (tag "
	       "'tag:yaml.org,2002:str')");
	same_s("a: !!map {b: 1}\n", NAME ":1:4: explicit tags");
	same_s("a: &x 1\n",
	       NAME ":1:4: anchors and aliases are not allowed (anchor 'x')");
	same_s("a: &x [1]\n", NAME ":1:4: anchors and aliases");
	/* the same habit in a file read as JSON */
	same_s("{\"a\": [&x {\"b\": 1}, *x]}",
	       NAME ":1:8: anchors and aliases are not allowed (anchor 'x')");
	same_s("{\"a\": !!str 1}",
	       NAME ":1:7: explicit tags are not supported (tag '!!str')");
	same_s("a: [1]\nb: *x\n",
	       NAME ":2:4: anchors and aliases are not allowed (alias 'x')");
}

static void nesting(void)
{
	char deep[300];
	size_t o = (size_t)sprintf(deep, "{\"a\": ");
	for (int i = 0; i < 64; i++)
		deep[o++] = '[';
	deep[o] = '\0';
	/* the 65th open collection, JSON and YAML alike */
	same(deep, o, NAME ":1:70: nested deeper than 64 levels");
	o = (size_t)sprintf(deep, "a: ");
	for (int i = 0; i < 64; i++)
		deep[o++] = '[';
	deep[o] = '\0';
	same(deep, o, NAME ":1:67: nested deeper than 64 levels");
	same_s("? [1]\n: 2\n", NAME ":1:3: a mapping key must be a plain "
	       "value, not a sequence");
	same_s("{[1]: 2}", NAME ":1:2: a mapping key must be a string, "
	       "found '['");
	same_s("a: 1\n---\nb: 2\n",
	       NAME ":2:1: only one document is allowed per file");
}

/* Inputs with their length (NUL bytes inside) and the one message. */
typedef struct bad {
	const char *text;
	size_t len;
	const char *want;
} bad;

#define BAD(t, w) { t, sizeof(t) - 1, NAME w }

static void all_same(const bad *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		same(b[i].text, b[i].len, b[i].want);
}

static void bad_bytes(void)
{
	/* where the byte is, in both formats, and in or out of a string */
	static const bad b[] = {
		BAD("a: 1\nb: x\xff y\n", ":2:5: byte 0xff is not valid UTF-8"),
		BAD("{\"a\": 1,\n \"b\": \"x\xff y\"}",
		    ":2:9: byte 0xff is not valid UTF-8"),
		BAD("a: \xc0\xaf\n", ":1:4: byte 0xc0 is not valid UTF-8"),
		BAD("a: \xed\xa0\x80\n", ":1:4: byte 0xed is not valid UTF-8"),
		BAD("{\"a\": \"\xe2\x82\"}", ":1:8: byte 0xe2 is not valid UTF-8"),
		BAD("a: \xe2\x82", ":1:4: byte 0xe2 is not valid UTF-8"),
		BAD("a: x\x01y\n", ":1:5: control character 0x01"),
		BAD("{\"a\": \"x\x01y\"}", ":1:9: control character 0x01"),
		BAD("{\"a\": \"x\ty\"}", ":1:9: control character 0x09"),
		BAD("a: x\x7fy\n", ":1:5: control character 0x7f"),
		BAD("a: \xc2\x80\n", ":1:4: character U+0080 is not allowed"),
		/* columns count characters, as libyaml's do */
		BAD("a: caf\xc3\xa9 \x01\n", ":1:9: control character 0x01"),
		BAD("a: 1\nb: x\0y\n",
		    ":2:5: NUL byte in the input (a binary file?)"),
		BAD("{\"a\": \"x\0\"}",
		    ":1:9: NUL byte in the input (a binary file?)"),
		BAD("\0", ":1:1: NUL byte in the input (a binary file?)"),
		BAD("a: \"x\\0y\"\n", ":1:4: NUL byte in a value"),
		BAD("{\"a\": \"x\\u0000y\"}", ":1:15: NUL byte in a value"),
	};
	all_same(b, sizeof(b) / sizeof(b[0]));
}

static void truncated(void)
{
	static const bad b[] = {
		BAD("{\"a\": [1, 2",
		    ":1:12: expected ',' or ']', found the end of the file"),
		BAD("{\"a\": \"xy", ":1:10: the file ends inside a string"),
		BAD("{\"a\"", ":1:5: expected ':', found the end of the file"),
		BAD("a: [1, 2\n", ":2:1: did not find expected ',' or ']'"),
		BAD("a: \"xy\n", ":2:1: found unexpected end of stream"),
		BAD("{\"a\": 1} 2", ":1:10: a value after the document"),
		BAD("", ": empty document"),
		BAD("# nothing\n", ": empty document"),
	};
	all_same(b, sizeof(b) / sizeof(b[0]));
}

#define PIECES 700       /* "ab\xc3\xa9\\n" pieces in a string */

/* `o` bytes of `t` from a file, in blocks, twice (rewound): a mapping
 * of one key "a" whose value is a list of `strings` strings of PIECES. */
static void read_blocks(const char *t, size_t o, size_t strings)
{
	char *path = to_file(t, o);
	int fd = -1;
	uint64_t size = 0;
	rm_error e;
	memset(&e, 0, sizeof(e));
	CHECK_INT(rmi_open_file(path, &fd, &size, &e), RM_OK);
	rmi_ysrc *s = NULL;
	CHECK_INT(rmi_ysrc_fd(fd, NAME, NULL, NULL, &e, &s), RM_OK);
	for (int pass = 0; s && pass < 2; pass++) {
		rmi_yevent ev;
		size_t got = 0, wrong = 0;
		rm_status st;
		while (!(st = rmi_ysrc_next(s, &ev)) && ev.k != RMI_EV_EOF) {
			if (ev.k != RMI_EV_SCALAR || ev.len == 1)
				continue;
			got++;
			wrong += ev.len != 5 * PIECES ||
			       memcmp(ev.s + ev.len - 5, "ab\xc3\xa9\n", 5);
		}
		CHECK_INT(st, RM_OK);
		if (st)
			printf("  %s\n", e.msg);
		CHECK_INT(got, strings);
		CHECK_INT(wrong, 0);
		CHECK_INT(rmi_ysrc_rewind(s), RM_OK);
	}
	rmi_ysrc_free(s);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

/* A file read in 1 MiB blocks: strings, UTF-8 sequences and escapes
 * across the boundaries, JSON and YAML. */
static void blocks(void)
{
	size_t strings = (3u << 20) / (6 * PIECES + 4) + 1;
	char *t = malloc(strings * (6 * PIECES + 4) + 64);
	if (!t)
		return;
	for (int yaml = 0; yaml < 2; yaml++) {
		size_t o = (size_t)sprintf(t, yaml ? "a: [" : "{\"a\": [");
		/* a two-byte character and an escape in every 6 bytes, so
		 * some fall on the boundaries */
		for (size_t i = 0; i < strings; i++) {
			o += (size_t)sprintf(t + o, "%s\"", i ? ",\n" : "");
			for (int k = 0; k < PIECES; k++, o += 6)
				memcpy(t + o, "ab\xc3\xa9\\n", 6);
			t[o++] = '"';
		}
		o += (size_t)sprintf(t + o, yaml ? "]\n" : "]}");
		read_blocks(t, o, strings);
	}
	free(t);
}

int main(void)
{
	if (!t_tmpdir(dir, sizeof(dir), "/tmp/rankmap-reader-"))
		return 1;
	RUN("reader", duplicate_keys);
	RUN("reader", tags_anchors_aliases);
	RUN("reader", nesting);
	RUN("reader", bad_bytes);
	RUN("reader", truncated);
	RUN("reader", blocks);
	rmdir(dir);
	TEST_EXIT();
}
