/* SPDX-License-Identifier: Apache-2.0 */
/* test_yaml.c - the checked YAML/JSON tree: what loads, what is refused and
 * where the messages point. */
#include "internal.h"
#include "test.h"

#include <stdlib.h>
#include <time.h>

static rm_error E;

static rmi_ynode *load(const char *text)
{
	rmi_ynode *r = NULL;
	memset(&E, 0, sizeof(E));
	if (rmi_yaml_load(text, strlen(text), "t.yaml", &r, &E) != RM_OK)
		return NULL;
	return r;
}

/* load(text), which must give a tree (checked). */
static rmi_ynode *loaded(const char *text)
{
	rmi_ynode *r = load(text);
	CHECK(r != NULL);
	return r;
}

/* Load must fail with RM_EINPUT and the message must hold `where`. */
static void refused(const char *text, const char *where, const char *why)
{
	rmi_ynode *r = load(text);
	CHECK(r == NULL);
	CHECK_INT(E.code, RM_EINPUT);
	CHECK_HAS(E.msg, where);
	CHECK_HAS(E.msg, why);
	rmi_yaml_free(r);
}

static void block_mapping(void)
{
	rmi_ynode *r = loaded("name: lab\n"
			      "gpus: 8\n"
			      "tiers:\n"
			      "  - {name: leaf, bw: 50}\n"
			      "  - name: spine\n"
			      "    bw: 25.5\n"
			      "quoted: '8'\n");
	if (!r)
		return;
	CHECK_INT(r->kind, RMI_Y_MAP);
	CHECK_INT(r->n, 4);
	const rmi_ynode *name = rmi_y_get(r, "name");
	CHECK(name && name->kind == RMI_Y_SCALAR);
	CHECK_STR(name ? name->str : NULL, "lab");
	CHECK_INT(name ? name->line : 0, 1);
	CHECK_INT(name ? name->col : 0, 7);
	const rmi_ynode *tiers = rmi_y_get(r, "tiers");
	CHECK(tiers && tiers->kind == RMI_Y_SEQ && tiers->n == 2);
	if (tiers && tiers->n == 2) {
		const rmi_ynode *t1 = tiers->item[1];
		CHECK_INT(t1->line, 5);
		CHECK_INT(t1->col, 5);
		double bw = 0;
		CHECK_INT(rmi_y_double(rmi_y_get(t1, "bw"), "t.yaml", "bw", 0,
				       1e6, &bw, &E), RM_OK);
		CHECK(bw == 25.5);
	}
	const rmi_ynode *q = rmi_y_get(r, "quoted");
	CHECK(q && q->quoted);
	CHECK(!name || !name->quoted);
	CHECK(rmi_y_get(r, "absent") == NULL);
	rmi_yaml_free(r);
}

static void json_input(void)
{
	rmi_ynode *r = loaded("{\"schema\": \"rankmap-map/1\", \"world\": 16,\n"
			      " \"ranks\": [[0, \"n1\", 0], [1, \"n1\", 1]],\n"
			      " \"ok\": true, \"esc\": \"a\\u00e9\\n\"}");
	if (!r)
		return;
	uint64_t w = 0;
	CHECK_INT(rmi_y_u64(rmi_y_get(r, "world"), "t", "world", 1, 100, &w,
			    &E), RM_OK);
	CHECK_INT(w, 16);
	const rmi_ynode *ranks = rmi_y_get(r, "ranks");
	CHECK(ranks && ranks->kind == RMI_Y_SEQ && ranks->n == 2);
	if (ranks && ranks->n == 2) {
		CHECK_STR(ranks->item[1]->item[1]->str, "n1");
		CHECK_INT(ranks->item[1]->line, 2);
	}
	bool ok = false;
	CHECK_INT(rmi_y_bool(rmi_y_get(r, "ok"), "t", "ok", &ok, &E), RM_OK);
	CHECK(ok);
	const rmi_ynode *esc = rmi_y_get(r, "esc");
	CHECK_STR(esc ? esc->str : NULL, "a\xc3\xa9\n");
	CHECK_INT(esc ? esc->len : 0, 4);
	/* JSON strings are quoted: never numbers. */
	const rmi_ynode *schema = rmi_y_get(r, "schema");
	CHECK(schema && schema->quoted);
	rmi_yaml_free(r);
}

static void libyaml_errors(void)
{
	/* libyaml's marks are 0-based; ours are 1-based. */
	refused("a: 1\nb: [1, 2\n", "t.yaml:3:1:", "flow sequence");
	refused("a: 1\n b: 2\n", "t.yaml:2:3:", "mapping values are not allowed");
	refused("key: \"unterminated\n", "t.yaml:2:1:", "quoted scalar");
	refused("a: \xff\xfe bad\n", "t.yaml:1:4:",
		"byte 0xff is not valid UTF-8");
	refused("{\"a\": 1,, \"b\": 2}", "t.yaml:1:9:", "");
}

static void aliases(void)
{
	refused("a: &x [1, 2]\nb: *x\n", "t.yaml:1:4:", "anchor");
	refused("a: [1]\nb: *x\n", "t.yaml:2:4:", "alias");
	/* The billion-laughs shape stops at the first anchor, whatever the
	 * size it would expand to. */
	refused("a: &a [\"lol\",\"lol\"]\nb: &b [*a,*a,*a,*a]\n"
		"c: &c [*b,*b,*b,*b]\nd: [*c,*c,*c,*c]\n",
		"t.yaml:1:4:", "anchors and aliases are not allowed");
	refused("a: !!python/object foo\n", "t.yaml:1:4:", "tags");
}

static void duplicates(void)
{
	refused("a: 1\nb: 2\na: 3\n", "t.yaml:3:1:",
		"duplicate key 'a' (first at line 1)");
	refused("x:\n  - {n: 1, m: 2, n: 3}\n", "t.yaml:2:18:",
		"duplicate key 'n'");
	/* Big mappings use the sorted check: same message. */
	char *big = malloc(40 * 1000 + 64);
	size_t o = 0;
	for (int i = 0; i < 1000; i++)
		o += (size_t)sprintf(big + o, "k%d: %d\n", i == 700 ? 5 : i, i);
	big[o] = '\0';
	refused(big, "t.yaml:701:1:", "duplicate key 'k5' (first at line 6)");
	free(big);
	/* A key repeated three times names the second occurrence. */
	refused("{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,"
		"\"i\":9,\"j\":1,\"k\":1,\"l\":1,\"m\":1,\"n\":1,\"o\":1,\"p\":1,"
		"\"q\":1,\"r\":1,\"s\":1,\"z\":1,\"q\":2,\"q\":3}",
		"t.yaml:1:", "duplicate key 'q' (first at line 1)");
	/* The same text in different keys of different mappings is fine. */
	rmi_ynode *r = loaded("a: {x: 1}\nb: {x: 2}\n");
	rmi_yaml_free(r);
}

static void keys_and_documents(void)
{
	refused("? [1, 2]\n: v\n", "t.yaml:1:3:", "mapping key must be");
	refused("{[1]: 2}\n", "t.yaml:1:2:", "mapping key must be");
	refused("a: 1\n---\nb: 2\n", "t.yaml:2:1:", "only one document");
	refused("", "t.yaml:", "empty document");
	refused("# only a comment\n", "t.yaml:", "empty document");
}

static void size_limits(void)
{
	/* 64 nested lists load, 65 do not. */
	char deep[200];
	memset(deep, '[', 64);
	memset(deep + 64, ']', 64);
	deep[128] = '\0';
	rmi_ynode *r = loaded(deep);
	rmi_yaml_free(r);
	memset(deep, '[', 65);
	memset(deep + 65, ']', 65);
	deep[130] = '\0';
	refused(deep, "t.yaml:1:65:", "nested deeper than 64");
	/* Deep block nesting, too. */
	char blk[64 * 70];
	size_t o = 0;
	for (int i = 0; i < 70; i++)
		o += (size_t)sprintf(blk + o, "%*sk:\n", i, "");
	refused(blk, "t.yaml:65:", "nested deeper");
	/* NUL bytes, with the place they are at. */
	r = NULL;
	CHECK_INT(rmi_yaml_load("a: 1\nb: x\0y\n", 11, "t.yaml", &r, &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "t.yaml:2:5:");
	CHECK_HAS(E.msg, "NUL");
	refused("a: \"x\\0y\"\n", "t.yaml:1:4:", "NUL");
	/* Oversized: refused from the length alone. */
	CHECK_INT(rmi_yaml_load("a", (size_t)RM_MAX_INPUT + 1, "t.yaml", &r,
				&E), RM_EINPUT);
	CHECK_HAS(E.msg, "more than");
}

static void typed_getters(void)
{
	rmi_ynode *r = loaded("n: 8\nq: '8'\nneg: -1\n"
			      "big: 99999999999999999999\n"
			      "oct: 010\nf: 1.5e3\ninf: .inf\nnan: nan\n"
			      "hex: 0x10\n"
			      "b: yes\nbb: maybe\ns: text\nnul: ~\nempty:\n"
			      "m: {a: 1}\nmax: 18446744073709551615\n");
	if (!r)
		return;
	uint64_t u = 0;
	double d = 0;
	bool b = false;
	const char *s = NULL;
	CHECK_INT(rmi_y_u64(rmi_y_get(r, "n"), "t.yaml", "gpus", 1, 1024, &u,
			    &E), RM_OK);
	CHECK_INT(u, 8);
	CHECK_INT(rmi_y_u64(rmi_y_get(r, "n"), "t.yaml", "gpus", 9, 1024, &u,
			    &E), RM_EINPUT);
	CHECK_HAS(E.msg, "t.yaml:1:4: gpus must be between 9 and 1024, got '8'");
	CHECK_INT(rmi_y_u64(rmi_y_get(r, "q"), "t.yaml", "gpus", 1, 9, &u, &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "t.yaml:2:4:");
	CHECK_HAS(E.msg, "quoted");
	CHECK_INT(rmi_y_u64(rmi_y_get(r, "neg"), "t.yaml", "n", 0, 9, &u, &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "t.yaml:3:6:");
	CHECK_HAS(E.msg, "'-1'");
	CHECK_INT(rmi_y_u64(rmi_y_get(r, "big"), "t.yaml", "n", 0, UINT64_MAX,
			    &u, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "t.yaml:4:6:");
	CHECK_INT(rmi_y_u64(rmi_y_get(r, "max"), "t.yaml", "n", 0, UINT64_MAX,
			    &u, &E), RM_OK);
	CHECK(u == UINT64_MAX);
	CHECK_INT(rmi_y_u64(rmi_y_get(r, "oct"), "t.yaml", "n", 0, 99, &u, &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "leading zero");
	CHECK_INT(rmi_y_double(rmi_y_get(r, "f"), "t.yaml", "bw", 0, 1e6, &d,
			       &E), RM_OK);
	CHECK(d == 1500.0);
	CHECK_INT(rmi_y_double(rmi_y_get(r, "f"), "t.yaml", "bw", 0, 1000, &d,
			       &E), RM_EINPUT);
	CHECK_HAS(E.msg, "t.yaml:6:4:");
	CHECK_INT(rmi_y_double(rmi_y_get(r, "n"), "t.yaml", "bw", 0, 1000, &d,
			       &E), RM_OK);
	CHECK(d == 8.0);
	CHECK_INT(rmi_y_double(rmi_y_get(r, "inf"), "t.yaml", "bw", 0, 1e308,
			       &d, &E), RM_EINPUT);
	CHECK_INT(rmi_y_double(rmi_y_get(r, "nan"), "t.yaml", "bw", 0, 1e308,
			       &d, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "t.yaml:8:6:");
	CHECK_INT(rmi_y_double(rmi_y_get(r, "hex"), "t.yaml", "bw", 0, 1e308,
			       &d, &E), RM_EINPUT);
	CHECK_INT(rmi_y_bool(rmi_y_get(r, "b"), "t.yaml", "flag", &b, &E),
		  RM_OK);
	CHECK(b);
	CHECK_INT(rmi_y_bool(rmi_y_get(r, "bb"), "t.yaml", "flag", &b, &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "t.yaml:11:5: flag must be true or false, got 'maybe'");
	CHECK_INT(rmi_y_str(rmi_y_get(r, "s"), "t.yaml", "name", &s, &E),
		  RM_OK);
	CHECK_STR(s, "text");
	CHECK_INT(rmi_y_str(rmi_y_get(r, "q"), "t.yaml", "name", &s, &E),
		  RM_OK);
	CHECK_STR(s, "8");
	CHECK_INT(rmi_y_str(rmi_y_get(r, "nul"), "t.yaml", "name", &s, &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "t.yaml:13:6: name has no value");
	CHECK_INT(rmi_y_str(rmi_y_get(r, "empty"), "t.yaml", "name", &s, &E),
		  RM_EINPUT);
	CHECK_INT(rmi_y_str(rmi_y_get(r, "m"), "t.yaml", "name", &s, &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "t.yaml:15:4: name must be a single value, not a mapping");
	CHECK_INT(rmi_y_u64(rmi_y_get(r, "absent"), "t.yaml", "rails", 1, 9,
			    &u, &E), RM_EINPUT);
	CHECK_HAS(E.msg, "rails is missing");
	CHECK_INT(rmi_y_kind(rmi_y_get(r, "m"), "t.yaml", "units", RMI_Y_SEQ,
			     &E), RM_EINPUT);
	CHECK_HAS(E.msg, "units must be a list, not a mapping");
	rmi_yaml_free(r);
}

static void unknown_keys(void)
{
	rmi_ynode *r = loaded("name: a\ngpus: 8\nrials: 4\n");
	static const char *const known[] = { "name", "gpus", "rails", NULL };
	CHECK_INT(rmi_y_keys(r, "t.yaml", "the site file", known, &E),
		  RM_EINPUT);
	CHECK_HAS(E.msg, "t.yaml:3:1: unknown key 'rials' in the site file "
			 "(known: name, gpus, rails)");
	static const char *const all[] = { "name", "gpus", "rials", NULL };
	CHECK_INT(rmi_y_keys(r, "t.yaml", "the site file", all, &E), RM_OK);
	rmi_yaml_free(r);
}

/* A map-file-sized JSON document: 100k keys. Loading
 * it must stay linear; the figure goes to the log, `make bench` owns
 * speed targets. */
static void large_json(void)
{
	size_t cap = 100000 * 32 + 64, o = 0;
	char *j = malloc(cap);
	o += (size_t)sprintf(j + o, "{");
	for (int i = 0; i < 100000; i++)
		o += (size_t)sprintf(j + o, "%s\"r%d\": \"gpu%05d\"",
				     i ? ",\n" : "", i, i / 8);
	o += (size_t)sprintf(j + o, "}");
	rmi_ynode *r = NULL;
	clock_t t0 = clock();
	CHECK_INT(rmi_yaml_load(j, o, "big.json", &r, &E), RM_OK);
	double ms = (double)(clock() - t0) * 1000.0 / CLOCKS_PER_SEC;
	printf("  loaded %zu bytes, 100000 keys in %.0f ms (ASan build)\n", o,
	       ms);
	CHECK(r && r->n == 100000);
	if (r && r->n == 100000) {
		const rmi_ynode *v = r->item[2 * 99999 + 1];
		CHECK_STR(v->str, "gpu12499");
		CHECK_INT(v->line, 100000);
	}
	rmi_yaml_free(r);
	/* The same document with one repeated key near the end. */
	char *p = strstr(j, "\"r99998\"");
	CHECK(p != NULL);
	if (p) {
		memcpy(p, "\"r12345\"", 8);
		CHECK_INT(rmi_yaml_load(j, o, "big.json", &r, &E), RM_EINPUT);
		CHECK_HAS(E.msg, "big.json:99999:1: duplicate key 'r12345' "
				 "(first at line 12346)");
	}
	free(j);
}

int main(void)
{
	RUN("yaml", block_mapping);
	RUN("yaml", json_input);
	RUN("yaml", libyaml_errors);
	RUN("yaml", aliases);
	RUN("yaml", duplicates);
	RUN("yaml", keys_and_documents);
	RUN("yaml", size_limits);
	RUN("yaml", typed_getters);
	RUN("yaml", unknown_keys);
	RUN("yaml", large_json);
	TEST_EXIT();
}
