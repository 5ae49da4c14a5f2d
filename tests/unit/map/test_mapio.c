/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_mapio.c - map files: write/read round trips in JSON and YAML, strict
 * reading of hand-edited maps, users' assignment files, csv/env output and
 * the fabric digest.
 */
#include "map/mapio.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		abort();
	return p;
}

/* tp=2,pp=2,dp=2 on two 4-GPU hosts, rank r on host r/4, GPU r%4. */
static rm_map *small_map(const char *order)
{
	rm_map *m = calloc(1, sizeof(*m));
	if (!m)
		abort();
	CHECK_INT(rm_layout_parse("tp=2,pp=2,dp=2", &m->layout, NULL), RM_OK);
	CHECK_INT(rm_order_parse(order, &m->layout, &m->order, NULL), RM_OK);
	m->world = 8;
	m->gpus_per_node = 4;
	m->nhost = 2;
	m->host = calloc(2, sizeof(char *));
	m->host_leaf = calloc(2, sizeof(char *));
	m->host_unit = calloc(2, sizeof(char *));
	m->host[0] = xstrdup("yes");         /* YAML 1.1 would read a bool */
	m->host[1] = xstrdup("n\"2");
	m->host_leaf[0] = xstrdup("leafA");
	m->host_leaf[1] = xstrdup("leafA");
	m->nspare = 1;
	m->spare = calloc(1, sizeof(char *));
	m->spare[0] = xstrdup("n3");
	m->rank = calloc(8, sizeof(rm_rank));
	for (uint32_t r = 0; r < 8; r++) {
		m->rank[r].node = r / 4;
		m->rank[r].local_gpu = r % 4;
		rm_rank_decode(&m->layout, &m->order, r, m->rank[r].coord);
	}
	m->report.world = 8;
	m->report.must_ok = true;
	m->report.tp_groups = 4;
	m->report.pp_pairs = 4;
	m->report.pp_same_node = 4;
	m->report.dp_groups = 4;
	m->report.dp_leaves_max = 1;
	m->report.dp_leaves_mean = 1.0 / 3.0;
	/* the per-tier fields come back too (the writes must be equal) */
	m->report.pp_cross_pod = 3;
	m->report.pp_cross_spine = 1;
	m->report.ep_groups = 2;
	m->report.ep_tops_max = 2;
	m->report.ep_tops_mean = 1.5;
	m->report.nwarning = 1;
	m->report.warning = calloc(1, sizeof(char *));
	m->report.warning[0] = xstrdup("a \"quoted\"\twarning");
	memset(m->inputs_sha256, 'a', 64);
	return m;
}

static char *tmpfile_with(const char *text, size_t len)
{
	char *path = xstrdup("/tmp/rankmap-test-......");
	memset(path + strlen(path) - 6, 'X', 6);      /* mkstemp template */
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(write(fd, text, len) == (ssize_t)len);
		close(fd);
	}
	return path;
}

static void roundtrip_fmt(rm_format fmt)
{
	rm_map *m = small_map("megatron");
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	rm_error e;
	CHECK_INT(rm_map_write(m, fmt, &a, &alen, &e), RM_OK);
	char *path = tmpfile_with(a, alen);
	rm_map *back = NULL;
	rm_status st = rm_map_read(path, &back, &e);
	CHECK_INT(st, RM_OK);
	if (st)
		printf("  %s\n", e.msg);
	if (back) {
		CHECK_INT(back->world, 8);
		CHECK_STR(back->host[1], "n\"2");
		CHECK_STR(back->order.name, "megatron");
		CHECK_INT(back->rank[5].node, 1);
		CHECK_INT(back->rank[5].local_gpu, 1);
		CHECK_STR(back->report.warning[0], "a \"quoted\"\twarning");
		CHECK_INT(back->report.pp_cross_spine, 1);
		CHECK_INT(back->report.ep_groups, 2);
		CHECK_INT(rm_map_write(back, fmt, &b, &blen, &e), RM_OK);
		CHECK(b && blen == alen && memcmp(a, b, alen) == 0);
	}
	/* the one-pass reader for big files reads the same map */
	rm_map *s = NULL;
	char *c = NULL;
	size_t clen = 0;
	st = rmi_map_stream_text(a, alen, "s", &s, &e);
	CHECK_INT(st, RM_OK);
	if (st)
		printf("  stream: %s\n", e.msg);
	if (s) {
		CHECK_INT(rm_map_write(s, fmt, &c, &clen, &e), RM_OK);
		CHECK(c && clen == alen && memcmp(a, c, alen) == 0);
	}
	free(c);
	rm_map_free(s);
	unlink(path);
	free(path);
	free(a);
	free(b);
	rm_map_free(m);
	rm_map_free(back);
}

static void roundtrip_json(void)
{
	roundtrip_fmt(RM_FMT_JSON);
}

static void roundtrip_yaml(void)
{
	roundtrip_fmt(RM_FMT_YAML);
}

static void json_shape(void)
{
	rm_map *m = small_map(NULL);
	char *j = NULL;
	CHECK_INT(rm_map_write(m, RM_FMT_JSON, &j, NULL, NULL), RM_OK);
	/* One rank per line, fields in the documented order. */
	CHECK_HAS(j, "\n    {\"rank\":5,\"host\":\"n\\\"2\",\"node\":1,"
		     "\"local_gpu\":1,\"tp\":1,\"pp\":0,\"dp\":1,"
		     "\"leaf\":\"leafA\"}");
	CHECK_HAS(j, "\"schema\": \"rankmap-map/1\"");
	CHECK_HAS(j, "\"dp_leaves_mean\": 0.3333");
	/* Nesting order tp,pp,dp: pp groups are {0,2}, dp groups {0,4}. */
	CHECK_HAS(j, "\"pp\": [\n      [0,2],\n      [1,3],");
	CHECK_HAS(j, "\"dp\": [\n      [0,4],");
	free(j);
	rm_map_free(m);
}

/* `text` with the first `from` replaced by `to` (malloc'd), or NULL. */
static char *edited(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	CHECK(at != NULL);
	if (!at)
		return NULL;
	size_t n = strlen(text), fl = strlen(from), tl = strlen(to);
	char *edit = malloc(n - fl + tl + 1);
	memcpy(edit, text, (size_t)(at - text));
	memcpy(edit + (at - text), to, tl);
	strcpy(edit + (at - text) + tl, at + fl);
	return edit;
}

/* The one-pass reader for big files must fail on `text`, saying `want`. */
static void bad_streamed(const char *text, const char *want)
{
	rm_map *m = NULL;
	rm_error e;
	memset(&e, 0, sizeof(e));
	CHECK(rmi_map_stream_text(text, strlen(text), "s.json", &m, &e) ==
	      RM_EINPUT);
	CHECK(m == NULL);
	CHECK_HAS(e.msg, "s.json");
	CHECK_HAS(e.msg, want);
	rm_map_free(m);
}

/* Replace the first `from` in `text` and read the result: must fail with
 * a message containing `want`, in both readers. */
static void bad_edit(const char *text, const char *from, const char *to,
		     const char *want)
{
	char *edit = edited(text, from, to);
	if (!edit)
		return;
	char *path = tmpfile_with(edit, strlen(edit));
	rm_map *m = NULL;
	rm_error e;
	memset(&e, 0, sizeof(e));
	CHECK_INT(rm_map_read(path, &m, &e), RM_EINPUT);
	CHECK(m == NULL);
	CHECK_HAS(e.msg, path);
	CHECK_HAS(e.msg, want);
	rm_map_free(m);
	bad_streamed(edit, want);
	unlink(path);
	free(path);
	free(edit);
}

/* Only the one-pass reader's JSON lexer: libyaml reads these as YAML. */
static void bad_stream(const char *text, const char *from, const char *to,
		       const char *want)
{
	char *edit = edited(text, from, to);
	if (edit)
		bad_streamed(edit, want);
	free(edit);
}

/* The reader checks records as they come, so a file whose keys come in
 * another order than rankmap's (a key the records need after them) takes
 * another pass over the same bytes and gives the same map. */
static void stream_order(void)
{
	rm_map *m = small_map(NULL);
	char *j = NULL;
	CHECK_INT(rm_map_write(m, RM_FMT_JSON, &j, NULL, NULL), RM_OK);
	char *at = j ? strstr(j, "  \"gpus_per_node\": 4,\n") : NULL;
	CHECK(at != NULL);
	if (at) {
		/* move gpus_per_node to the end */
		size_t n = strlen(j), k = strlen("  \"gpus_per_node\": 4,\n");
		char *t = malloc(n + 32);
		memcpy(t, j, (size_t)(at - j));
		strcpy(t + (at - j), at + k);
		char *end = strrchr(t, '}');
		strcpy(end - 1, ",\n  \"gpus_per_node\": 4\n}\n");
		rm_map *x = NULL;
		rm_error e;
		memset(&e, 0, sizeof(e));
		/* a key the records need, after them: a second pass */
		CHECK_INT(rmi_map_stream_text(t, strlen(t), "t", &x, &e),
			  RM_OK);
		CHECK(x && x->gpus_per_node == 4 && x->world == m->world);
		rm_map_free(x);
		free(t);
	}
	if (j) {
		/* a "ranks" skipped by the first pass still counts once */
		char *d = edited(j, "{\n", "{\n  \"ranks\": [],\n");
		if (d)
			bad_streamed(d, "duplicate key 'ranks' (first at line 2)");
		free(d);
		/* JSON strings are UTF-8, as libyaml wants them in YAML */
		bad_edit(j, "rankmap 0.1.0", "rankmap \xff", "not valid UTF-8");
		bad_edit(j, "rankmap 0.1.0", "rankmap \xc0\xaf", "not valid UTF-8");
		bad_edit(j, "rankmap 0.1.0", "rankmap \xed\xa0\x80", "not valid UTF-8");
	}
	free(j);
	rm_map_free(m);
}

static void read_rejects(void)
{
	rm_map *m = small_map(NULL);
	char *j = NULL;
	CHECK_INT(rm_map_write(m, RM_FMT_JSON, &j, NULL, NULL), RM_OK);
	bad_edit(j, "rankmap-map/1", "rankmap-map/2", "schema");
	bad_edit(j, "\"world_size\": 8", "\"world_size\": 9", "world_size");
	bad_edit(j, "{\"rank\":5,", "{\"rank\":4,", "rank 4 appears twice");
	bad_edit(j, "\"local_gpu\":1,\"tp\":1,\"pp\":0,\"dp\":1",
		 "\"local_gpu\":1,\"tp\":0,\"pp\":0,\"dp\":1", "tp is 0");
	bad_edit(j, "\"node\":1,\"local_gpu\":1", "\"node\":1,\"local_gpu\":0",
		 "share GPU 0");
	bad_edit(j, "\"node\":1,\"local_gpu\":1", "\"node\":1,\"local_gpu\":4",
		 "local_gpu");
	bad_edit(j, "\"node\":1,", "\"node\":7,", "node");
	bad_edit(j, "\"schema\"", "\"schemo\"", "unknown key");
	bad_edit(j, "[0,4]", "[4,0]", "dp group 0");
	bad_edit(j, "\"layout\": \"tp=2,pp=2,dp=2\"",
		 "\"layout\": \"tp=2,pp=2,dp=0\"", "layout");
	bad_edit(j, "\"n3\"", "\"yes\"", "listed twice");
	bad_edit(j, "\"inputs_sha256\": \"a", "\"inputs_sha256\": \"A",
		 "inputs_sha256");
	bad_edit(j, "\"must_ok\": true", "\"must_ok\": 3", "must_ok");
	bad_edit(j, "{\n", "[\n", ":1:");
	/* JSON syntax (the one-pass reader has its own lexer) */
	bad_edit(j, "\"gpus_per_node\": 4,", "\"gpus_per_node\": 4",
		 "expected");
	bad_edit(j, "\"gpus_per_node\"", "\"gpus_per_node\\q\"", "escape");
	bad_stream(j, "\"gpus_per_node\": 4", "\"gpus_per_node\": 4 4",
		   "expected ',' or '}', found a value");
	bad_edit(j, "\"gpus_per_node\": 4", "\"gpus_per_node\": nope", "nope");
	bad_edit(j, "\"yes\"", "\"y\\u0000s\"", "NUL");
	bad_stream(j, "\n}\n", "\n}\n}", "after the document");
	free(j);
	rm_map_free(m);
	/* Not a map at all. */
	char *path = tmpfile_with("\x7f" "ELF\x01\x02", 6);
	rm_map *x = NULL;
	rm_error e;
	memset(&e, 0, sizeof(e));
	CHECK(rm_map_read(path, &x, &e) != RM_OK);
	CHECK_HAS(e.msg, path);
	unlink(path);
	free(path);
	CHECK(rm_map_read("/nonexistent/map.json", &x, &e) == RM_EIO);
	CHECK_HAS(e.msg, "/nonexistent/map.json");
}

static rm_status assign(const char *text, const char *layout, rm_map **m,
			rm_error *e, char **pathout)
{
	rm_layout l;
	rm_order o;
	CHECK_INT(rm_layout_parse(layout, &l, NULL), RM_OK);
	CHECK_INT(rm_order_parse(NULL, &l, &o, NULL), RM_OK);
	char *path = tmpfile_with(text, strlen(text));
	memset(e, 0, sizeof(*e));
	rm_status st = rm_map_read_assignment(path, &l, &o, 4, m, e);
	unlink(path);
	if (pathout)
		*pathout = path;
	else
		free(path);
	return st;
}

static void assignment_ok(void)
{
	rm_map *m = NULL;
	rm_error e;
	const char *text = "# what my launcher does\n"
			   "rank,host,local_gpu,extra\n"
			   "3, b1, 1, x\n"
			   "0 a1 0   # first\n"
			   "1\ta1\t1\n"
			   "2,b1,0\n";
	rm_status st = assign(text, "tp=2,dp=auto", &m, &e, NULL);
	CHECK_INT(st, RM_OK);
	if (st) {
		printf("  %s\n", e.msg);
		return;
	}
	CHECK_INT(m->world, 4);
	CHECK_INT(m->layout.size[RM_AXIS_DP], 2);
	CHECK_INT(m->nhost, 2);
	CHECK_STR(m->host[0], "b1");             /* first seen */
	CHECK_STR(m->host[1], "a1");
	CHECK_INT(m->rank[3].node, 0);
	CHECK_INT(m->rank[3].local_gpu, 1);
	CHECK_INT(m->rank[3].coord[RM_AXIS_TP], 1);
	CHECK_INT(m->rank[3].coord[RM_AXIS_DP], 1);
	CHECK_INT(m->rank[0].node, 1);
	rm_map_free(m);
}

static void assignment_bad_one(const char *text, const char *want)
{
	rm_map *m = NULL;
	rm_error e;
	char *path = NULL;
	CHECK_INT(assign(text, "tp=2,dp=2", &m, &e, &path), RM_EINPUT);
	CHECK(m == NULL);
	CHECK_HAS(e.msg, path);
	CHECK_HAS(e.msg, want);
	free(path);
	rm_map_free(m);
}

static void assignment_bad(void)
{
	assignment_bad_one("0 a 0\n1 a 1\n1 b 0\n3 b 1\n",
			   ":3:1: rank 1 again (first on line 2)");
	assignment_bad_one("0 a 0\n1 a 1\n2 b 0\n", "rank 3 is missing");
	assignment_bad_one("0 a 0\n1 a 4\n2 b 0\n3 b 1\n", ":2:5: local_gpu 4");
	assignment_bad_one("0 a 0\n1 a 0\n2 b 0\n3 b 1\n",
			   "both on GPU 0 of a");
	assignment_bad_one("0 a 0\nx1 a 1\n", ":2:1: rank 'x1' is not a whole");
	assignment_bad_one("0 a 0\n-1 a 1\n", ":2:1: rank '-1'");
	assignment_bad_one("0 a 0\n9 a 1\n2 b 0\n3 b 1\n",
			   "rank 9 is outside the world of 4");
	assignment_bad_one("0 a 0 7\n", ":1:1: expected 3 fields");
	assignment_bad_one("0,,a,0\n", ":1:2: empty field");
	assignment_bad_one("0 a\x01 0\n", "control byte 0x01");
	assignment_bad_one("# nothing\n\n", "no rank records");
	assignment_bad_one("0 a 99999999999\n", "local_gpu");
}

static void csv_env(void)
{
	rm_map *m = small_map(NULL);
	char *c = NULL, *v = NULL;
	CHECK_INT(rm_map_write(m, RM_FMT_CSV, &c, NULL, NULL), RM_OK);
	CHECK(c && !strncmp(c, "rank,host,local_gpu,tp,pp,dp,leaf\n0,yes,0,"
			       "0,0,0,leafA\n", 43));
	CHECK_HAS(c, "\n5,\"n\"\"2\",1,1,0,1,leafA\n");
	CHECK_INT(rm_map_write(m, RM_FMT_ENV, &v, NULL, NULL), RM_OK);
	CHECK_HAS(v, "WORLD_SIZE=8\n");
	CHECK_HAS(v, "MASTER_ADDR=yes\n");
	CHECK_HAS(v, "RANKMAP_LAYOUT=tp=2,pp=2,dp=2\n");
	CHECK_HAS(v, "RANKMAP_PP_SIZE=2\n");
	CHECK(!strstr(v, "MASTER_PORT"));
	free(v);
	rm_buf b;
	rm_buf_init(&b);
	CHECK_INT(rmi_map_env(m, 6, 0, &b, NULL), RM_OK);
	CHECK_HAS(b.data, "RANK=6\nLOCAL_RANK=2\nLOCAL_WORLD_SIZE=4\n"
			  "RANKMAP_NODE_INDEX=1\nRANKMAP_HOST='n\"2'\n");
	CHECK_HAS(b.data, "RANKMAP_TP_RANK=0\nRANKMAP_PP_RANK=1\n"
			  "RANKMAP_DP_RANK=1\n");
	CHECK_INT(rmi_map_env(m, 8, 0, &b, NULL), RM_EINPUT);
	rm_buf_clear(&b);
	char *t = NULL;
	CHECK_INT(rm_map_write(m, RM_FMT_TEXT, &t, NULL, NULL), RM_OK);
	CHECK_HAS(t, "1 spare: n3");
	CHECK_HAS(t, "PASS  TP groups inside one NVLink domain");
	CHECK_HAS(t, "2 (one per DP index): 2 whole in one leaf");
	free(t);
	free(c);
	rm_map_free(m);
	rm_format f;
	CHECK_INT(rm_format_parse("yaml", &f, NULL), RM_OK);
	CHECK_INT(f, RM_FMT_YAML);
	rm_error e;
	CHECK_INT(rm_format_parse("xml\n", &f, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "'xml\\x0a'");
}

/* The port rule written the slow way, for comparison: the ports P from
 * `floor` up with P and P + 1 outside [lo, hi] and off 6817-6819 (P + 1
 * at most 65535), in order. */
static uint32_t slow_pool(uint32_t floor, uint32_t lo, uint32_t hi,
			  uint32_t *pool)
{
	uint32_t n = 0;
	for (uint32_t p = floor; p < 65535; p++) {
		bool in = (p >= lo && p <= hi) || (p + 1 >= lo && p + 1 <= hi);
		bool slurm = p + 1 >= 6817 && p <= 6819;
		if (!in && !slurm)
			pool[n++] = p;
	}
	return n;
}

static uint32_t t_fmix32(uint32_t h);

/* The plugin's port rule against the slow one over many job and step ids
 * and several ephemeral ranges: never inside the range (nor its next
 * port), never privileged or Slurm's, the same for the same inputs, and
 * spread over the whole pool. */
static void master_port_ranges(void)
{
	static const uint32_t ranges[][2] = {
		{ 32768, 60999 },  /* Linux's default */
		{ 1024, 65535 },   /* everything: the old rule */
		{ 49152, 65535 },  /* IANA's dynamic ports (Windows, BSDs) */
		{ 20000, 39999 },  /* right on the old span */
		{ 10000, 65000 },  /* fewer than 1,000 from 20000: from 1024 */
		{ 1025, 65535 },   /* one low port; P + 1 is inside */
		{ 15000, 25000 },
		{ 30000, 30000 },
		{ 1, 65535 },
	};
	static uint32_t pool[65536];
	uint64_t bucket[16];
	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
		uint32_t lo = ranges[r][0], hi = ranges[r][1];
		uint32_t n = slow_pool(20000, lo, hi, pool);
		if (n < 1000)
			n = slow_pool(1024, lo, hi, pool);
		memset(bucket, 0, sizeof(bucket));
		uint32_t checked = 0;
		for (uint32_t job = 1; job < 300000; job += 7) {
			for (uint32_t step = 0; step < 3; step++) {
				uint32_t p = rm_master_port(job, step, NULL, lo,
							    hi);
				uint64_t mix = (uint64_t)t_fmix32(job) + step;
				uint32_t want = n ? pool[mix % n]
						  : 20000 + (uint32_t)(mix % 20000);
				if (p != want) {
					CHECK_INT(p, want);
					break;
				}
				if (n) {
					CHECK(p >= 1024 && p < 65535);
					CHECK(p + 1 < lo || p > hi);
				}
				CHECK_INT(rm_master_port(job, step, NULL, lo,
							 hi), p);
				/* consecutive steps: different ports */
				if (step && n > 1)
					CHECK(p != rm_master_port(job, step - 1,
								  NULL, lo, hi));
				checked++;
			}
		}
		CHECK(checked > 100000);
		/* Spread: 1,000 jobs in a row land in every sixteenth of the
		 * pool, none holding more than twice its share. */
		if (n >= 1000) {
			for (uint32_t job = 5000; job < 6000; job++) {
				uint32_t p = rm_master_port(job, 0, NULL, lo, hi);
				uint32_t i = 0;
				while (pool[i] != p)
					i++;
				bucket[(uint64_t)i * 16 / n]++;
			}
			for (int b = 0; b < 16; b++)
				CHECK(bucket[b] >= 1000 / 16 / 2 &&
				      bucket[b] <= 1000 / 16 * 2);
		}
	}
	/* The pools, as documented (plugin.md): from 20000 up, or from 1024
	 * when the range leaves fewer than 1,000 ports there. */
	CHECK_INT(rm_master_port(0, 0, NULL, 32768, 60999), 20000);
	CHECK_INT(rm_master_port(0, 0, NULL, 10000, 65000), 1024);
	CHECK_INT(rm_master_port(0, 0, NULL, 1024, 19999), 20000);
	CHECK_INT(rm_master_port(0, 0, NULL, 20000, 39999), 40000);
	/* After 32766 (32767 + 1 is ephemeral) comes 61000. */
	CHECK_INT(rm_master_port(0, 12766, NULL, 32768, 60999), 32766);
	CHECK_INT(rm_master_port(0, 12767, NULL, 32768, 60999), 61000);
	CHECK_INT(rm_master_port(0, 17301, NULL, 32768, 60999), 65534);
	CHECK_INT(rm_master_port(0, 17302, NULL, 32768, 60999), 20000);
	/* Around Slurm's 6817-6819 in the low pool. */
	CHECK_INT(rm_master_port(0, 6815 - 1024, NULL, 10000, 65000), 6815);
	CHECK_INT(rm_master_port(0, 6816 - 1024, NULL, 10000, 65000), 6820);
	/* An unusable range is Linux's default. */
	CHECK_INT(rm_master_port(77, 3, NULL, 0, 0),
		  rm_master_port(77, 3, NULL, 32768, 60999));
	CHECK_INT(rm_master_port(77, 3, NULL, 60999, 32768),
		  rm_master_port(77, 3, NULL, 32768, 60999));
	CHECK_INT(rm_master_port(77, 3, NULL, 32768, 70000),
		  rm_master_port(77, 3, NULL, 32768, 60999));
}

static void port_range_parse(void)
{
	uint32_t lo = 1, hi = 2;
	rm_error e;
	CHECK_INT(rm_port_range_parse("32768\t60999\n", &lo, &hi, &e), RM_OK);
	CHECK_INT(lo, 32768);
	CHECK_INT(hi, 60999);
	CHECK_INT(rm_port_range_parse("1024 1024", &lo, &hi, &e), RM_OK);
	CHECK_INT(lo, 1024);
	CHECK_INT(hi, 1024);
	static const char *const bad[] = {
		"", "32768", "32768\t", "60999 32768", "0 100", "1 65536",
		"32768 60999 1", "-1 5", "a b", "32768\t60999x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		lo = hi = 7;
		CHECK_INT(rm_port_range_parse(bad[i], &lo, &hi, &e), RM_EINPUT);
		CHECK_HAS(e.msg, "ephemeral port range '");
		CHECK_INT(lo, 7);
	}
	CHECK_INT(rm_port_range_parse(NULL, &lo, &hi, &e), RM_EINPUT);
	/* The value is named, control bytes escaped. */
	CHECK_INT(rm_port_range_parse("1\t2x", &lo, &hi, &e), RM_EINPUT);
	CHECK_HAS(e.msg, "'1\\x092x'");
}

/* MurmurHash3's 32-bit finaliser, as docs/plugin.md states it. */
static uint32_t t_fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* Ports shared by steps of neighbouring jobs (J and J+1..J+3, S steps
 * each), against the same count for ports drawn at random from a pool of
 * the same size: the old rule (job * 101 + step) gave S - 101 shared
 * ports for every J, J+1 with S > 101. */
static void port_collisions(void)
{
	const uint32_t L = RM_EPHEMERAL_LO, H = RM_EPHEMERAL_HI;
	enum { JOBS = 300, S = 128, NEAR = 3 };
	static uint32_t port[JOBS + NEAR][S];
	uint64_t seed = 42;
	static uint32_t rnd[JOBS + NEAR][S];
	for (uint32_t j = 0; j < JOBS + NEAR; j++)
		for (uint32_t s = 0; s < S; s++) {
			port[j][s] = rm_master_port(j + 1000, s, NULL, L, H);
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			rnd[j][s] = (uint32_t)((seed >> 33) % 17302);
		}
	uint64_t ours = 0, random = 0;
	static unsigned char seen[65536], seen_r[17302];
	for (uint32_t j = 0; j < JOBS; j++)
		for (uint32_t d = 1; d <= NEAR; d++) {
			memset(seen, 0, sizeof(seen));
			memset(seen_r, 0, sizeof(seen_r));
			for (uint32_t s = 0; s < S; s++) {
				seen[port[j][s]] = 1;
				seen_r[rnd[j][s]] = 1;
			}
			for (uint32_t s = 0; s < S; s++) {
				ours += seen[port[j + d][s]];
				random += seen_r[rnd[j + d][s]];
			}
		}
	/* expected for random: JOBS * NEAR * S * S / 17302 = 852 */
	printf("  port collisions between neighbouring jobs: %llu (random: %llu, the old rule: %u)\n",
	       (unsigned long long)ours, (unsigned long long)random,
	       JOBS * (S - 101) + 0u);
	CHECK(ours < 2 * random + 50);
	CHECK(random > 600 && random < 1100);
	/* steps of one job never share a port */
	for (uint32_t j = 0; j < JOBS; j++) {
		memset(seen, 0, sizeof(seen));
		for (uint32_t s = 0; s < S; s++) {
			CHECK(!seen[port[j][s]]);
			seen[port[j][s]] = 1;
		}
	}
}

/* The plugin's port rule, and MASTER_PORT beside MASTER_ADDR only when
 * the caller has one. */
static void master_port(void)
{
	const uint32_t L = RM_EPHEMERAL_LO, H = RM_EPHEMERAL_HI;
	/* docs/plugin.md's example, and consecutive steps next to it */
	CHECK_INT(rm_master_port(100, 0, NULL, L, H), 64769);
	CHECK_INT(rm_master_port(100, 1, NULL, L, H), 64770);
	/* the rule written again here: pool index -> port */
	for (uint32_t job = 0; job < 300; job += 37)
		for (uint32_t step = 0; step < 300; step += 61) {
			uint64_t k = ((uint64_t)t_fmix32(job) + step) % 17302;
			CHECK_INT(rm_master_port(job, step, NULL, L, H),
				  k < 12767 ? 20000 + k : 61000 + (k - 12767));
		}
	/* No overflow at the largest ids. */
	uint64_t k = ((uint64_t)t_fmix32(UINT32_MAX) + UINT32_MAX) % 17302;
	CHECK_INT(rm_master_port(UINT32_MAX, UINT32_MAX, NULL, L, H),
		  k < 12767 ? 20000 + k : 61000 + (k - 12767));
	/* Slurm's reserved ports win where they can be ours. */
	const uint32_t own = rm_master_port(100, 0, NULL, L, H);
	CHECK_INT(rm_master_port(100, 0, "12000-12003", L, H), 12000);
	CHECK_INT(rm_master_port(100, 0, "12007,12009", L, H), 12007);
	CHECK_INT(rm_master_port(100, 0, "65000-65010", L, H), 65000);
	/* A value set by hand is checked like a derived port (issue 38):
	 * privileged, past 65535, backwards, in the ephemeral range, on
	 * Slurm's ports or malformed: the derived port instead. */
	static const char *const bad[] = {
		"", "x", "0", "80-81", "1023", "65535", "65535-65536", "70000",
		"40000-40010", "32767", "6817", "6816-6820", "13000-12000",
		"12000:1", "-5", "12000-", " 12000",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(rm_master_port(100, 0, bad[i], L, H), own);
	rm_map *m = small_map(NULL);
	char *v = NULL;
	CHECK_INT(rm_map_write_env(m, -1, 29500, &v, NULL, NULL), RM_OK);
	CHECK_HAS(v, "\nMASTER_ADDR=yes\nMASTER_PORT=29500\n");
	free(v);
	v = NULL;
	CHECK_INT(rm_map_write_env(m, 6, 65535, &v, NULL, NULL), RM_OK);
	CHECK_HAS(v, "RANK=6\n");
	CHECK_HAS(v, "\nMASTER_PORT=65535\n");
	free(v);
	v = NULL;
	CHECK_INT(rm_map_write_env(m, 6, 0, &v, NULL, NULL), RM_OK);
	CHECK(v && !strstr(v, "MASTER_PORT"));
	free(v);
	v = NULL;
	rm_error e;
	memset(&e, 0, sizeof(e));
	CHECK_INT(rm_map_write_env(m, -1, 65536, &v, NULL, &e), RM_EINPUT);
	CHECK(v == NULL);
	CHECK_HAS(e.msg, "master port 65536");
	rm_map_free(m);
}

static void digest_of(const char *topo, char hex[65])
{
	rm_fabric *f = NULL;
	rm_error e;
	memset(&e, 0, sizeof(e));
	CHECK_INT(rm_fabric_new(&f, &e), RM_OK);
	rm_status st = rm_fabric_parse_topology(f, topo, strlen(topo), "t.conf",
						&e);
	CHECK_INT(st, RM_OK);
	if (st)
		printf("  %s\n", e.msg);
	rm_fabric_digest(f, hex);
	rm_fabric_free(f);
}

static void digest(void)
{
	char a[65], b[65], c[65], d[65];
	digest_of("SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Nodes=n[5-8]\n"
		  "SwitchName=top Switches=s[1-2]\n", a);
	digest_of("# same fabric, other order\nSwitchName=top Switches=s[1-2]\n"
		  "SwitchName=s2 Nodes=n[5-8]\n"
		  "SwitchName=s1 Nodes=n[4,3,1-2]  # shuffled\n", b);
	digest_of("SwitchName=s1 Nodes=n[1-3]\nSwitchName=s2 Nodes=n[4-8]\n"
		  "SwitchName=top Switches=s[1-2]\n", c);
	digest_of("SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Nodes=n[5-8]\n"
		  "SwitchName=top2 Switches=s[1-2]\n", d);
	CHECK_STR(a, b);
	CHECK(strcmp(a, c) != 0);                 /* n4 moved to s2 */
	CHECK(strcmp(a, d) != 0);                 /* parent renamed */
	char flat[65];
	rm_fabric_digest(NULL, flat);
	CHECK(strcmp(flat, a) != 0 && strlen(flat) == 64);
}

/* MpiParams=ports: a derived port (and the next, the id exchange's) stays
 * out of the range Slurm reserves for steps (issue 21.5); reserved ports
 * of the step itself still win. */
static void master_port_mpi(void)
{
	const uint32_t L = RM_EPHEMERAL_LO, H = RM_EPHEMERAL_HI;
	uint32_t moved = 0, same = 0;
	for (uint32_t job = 0; job < 400; job++)
		for (uint32_t step = 0; step < 4; step++) {
			uint32_t p = rm_master_port_avoiding(job, step, NULL, L,
							     H, 30000, 30999);
			CHECK(p + 1 < 30000 || p > 30999);
			CHECK(p + 1 < L || p > H);
			uint32_t q = rm_master_port(job, step, NULL, L, H);
			moved += p != q;
			same += p == q;
		}
	CHECK(moved > 0 && same > 0);
	CHECK_INT(rm_master_port_avoiding(77, 3, NULL, L, H, 0, 0),
		  rm_master_port(77, 3, NULL, L, H));
	CHECK_INT(rm_master_port_avoiding(100, 0, "30100-30103", L, H, 30000,
					  30999), 30100);

	char path[] = "/tmp/rankmap-mpi-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	static const struct { const char *text; uint32_t lo, hi; int st; } c[] = {
		{ "ClusterName=x\nMpiParams=ports=12000-12999\n", 12000, 12999, RM_OK },
		{ "mpiparams=\"ports=12000-12999\"  # comment\n", 12000, 12999, RM_OK },
		{ "MpiParams=other=1,ports=20000-20009\n", 20000, 20009, RM_OK },
		{ "ClusterName=x \\\n MpiParams=ports=5-6\n", 5, 6, RM_OK },
		{ "ClusterName=x\n", 0, 0, RM_OK },
		{ "MpiParams=ports=12999-12000\n", 0, 0, RM_EINPUT },
		{ "MpiParams=ports=12000\n", 0, 0, RM_EINPUT },
		{ "MpiParams=ports=1-70000\n", 0, 0, RM_EINPUT },
		{ "MpiParams=ports=a-b\n", 0, 0, RM_EINPUT },
		{ "MpiParams=ports=1-2x\n", 0, 0, RM_EINPUT },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		FILE *f = fopen(path, "w");
		CHECK(f && fputs(c[i].text, f) >= 0 && fclose(f) == 0);
		uint32_t lo = 1, hi = 1;
		rm_error e;
		memset(&e, 0, sizeof(e));
		CHECK_INT(rm_slurm_mpi_ports(path, &lo, &hi, &e), c[i].st);
		if (c[i].st == RM_OK) {
			CHECK_INT(lo, c[i].lo);
			CHECK_INT(hi, c[i].hi);
		} else {
			CHECK_HAS(e.msg, path);
			CHECK_HAS(e.msg, "MpiParams=");
		}
	}
	unlink(path);
	uint32_t lo = 1, hi = 1;
	rm_error e;
	CHECK_INT(rm_slurm_mpi_ports(path, &lo, &hi, &e), RM_OK);
	CHECK(lo == 0 && hi == 0);
	if (fd >= 0)
		close(fd);
}

/* The tracker the plugin reads to decide on adopting orphans (issue 38):
 * set, unset (Slurm's default), continued lines, a missing file. */
static void slurm_proctrack(void)
{
	char path[] = "/tmp/rankmap-pt-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	static const struct { const char *text, *want; } c[] = {
		{ "ProctrackType=proctrack/linuxproc\n", "proctrack/linuxproc" },
		{ "proctracktype=proctrack/pgid # a comment\n", "proctrack/pgid" },
		{ "ClusterName=x \\\n ProctrackType=proctrack/cgroup\n", "proctrack/cgroup" },
		{ "ClusterName=x\n", "" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		FILE *f = fopen(path, "w");
		CHECK(f && fputs(c[i].text, f) >= 0 && fclose(f) == 0);
		char out[64] = "junk";
		CHECK(rm_slurm_proctrack(path, out, sizeof(out)));
		CHECK_STR(out, c[i].want);
	}
	unlink(path);
	char out[64] = "junk";
	CHECK(!rm_slurm_proctrack(path, out, sizeof(out)));
	CHECK_STR(out, "");
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	RUN("mapio", roundtrip_json);
	RUN("mapio", roundtrip_yaml);
	RUN("mapio", json_shape);
	RUN("mapio", read_rejects);
	RUN("mapio", stream_order);
	RUN("mapio", assignment_ok);
	RUN("mapio", assignment_bad);
	RUN("mapio", csv_env);
	RUN("mapio", master_port);
	RUN("mapio", port_collisions);
	RUN("mapio", master_port_ranges);
	RUN("mapio", master_port_mpi);
	RUN("mapio", slurm_proctrack);
	RUN("mapio", port_range_parse);
	RUN("mapio", digest);
	TEST_EXIT();
}
