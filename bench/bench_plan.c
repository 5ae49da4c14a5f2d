/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_plan.c - how long rankmap takes to plan, check and write the map
 * for 16,384 and 131,072 GPUs on generated tree fabrics, next to what it
 * costs merely to print the same number of rank records, and how much
 * memory it needs (peak RSS growth, which should grow linearly).
 * Then crossings vs lower bound for the fabrics shipped in site/.
 */
#include "internal.h"
#include "bench_clock.h"
#include "../tests/unit/xorshift.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS 7

/* kB from /proc/self/status ("VmHWM" peak or "VmRSS" now). */
static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t k = strlen(key);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, k) && line[k] == ':')
			v = atol(line + k + 1);
	if (f)
		fclose(f);
	return v;
}

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t next(void)
{
	return xorshift_next(&rng);
}

typedef struct shape {
	const char *name;
	uint32_t per_leaf, leaves_per_pod;
} shape;

/*
 * A fabric 1/8 larger than the job, of which the job gets a random subset
 * in random order: real allocations are fragmented and unsorted.
 */
static rm_fabric *make_fabric(const shape *s, uint32_t job_nodes,
			      char ***alloc)
{
	uint32_t total = job_nodes + job_nodes / 8;
	uint32_t leaves = (total + s->per_leaf - 1) / s->per_leaf;
	uint32_t pods = (leaves + s->leaves_per_pod - 1) / s->leaves_per_pod;
	rm_buf t;
	rm_buf_init(&t);
	for (uint32_t l = 0; l < leaves; l++) {
		uint32_t first = l * s->per_leaf + 1;
		uint32_t last = first + s->per_leaf - 1;
		if (last > total)
			last = total;
		rm_buf_printf(&t, "SwitchName=leaf%05u Nodes=gpu[%05u-%05u]\n",
			       l, first, last);
	}
	for (uint32_t p = 0; p < pods; p++) {
		uint32_t a = p * s->leaves_per_pod, b = a + s->leaves_per_pod - 1;
		if (b >= leaves)
			b = leaves - 1;
		rm_buf_printf(&t, "SwitchName=pod%03u Switches=leaf[%05u-%05u]\n",
			       p, a, b);
	}
	rm_buf_printf(&t, "SwitchName=spine Switches=pod[000-%03u]\n",
		       pods - 1);
	rm_fabric *f = NULL;
	rm_error e;
	if (t.oom || rm_fabric_new(&f, &e) ||
	    rm_fabric_parse_topology(f, t.data, t.len, "generated", &e)) {
		fprintf(stderr, "bench: fabric: %s\n", e.msg);
		exit(1);
	}
	rm_buf_free(&t);
	char **all = malloc(total * sizeof(char *));
	for (uint32_t i = 0; i < total; i++) {
		char name[32];
		snprintf(name, sizeof(name), "gpu%05u", i + 1);
		all[i] = strdup(name);
	}
	for (uint32_t i = total - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(next() % (i + 1));
		char *x = all[i];
		all[i] = all[j];
		all[j] = x;
	}
	for (uint32_t i = job_nodes; i < total; i++)
		free(all[i]);
	*alloc = all;
	return f;
}

/* The bench cannot go on past a step that failed (st nonzero). */
static void must(int st, const char *what, const rm_error *e)
{
	if (st) {
		fprintf(stderr, "bench: %s: %s\n", what, e->msg);
		exit(1);
	}
}

/* What writing the records costs without rankmap: one snprintf each. */
static double baseline_write(const rm_map *m, size_t *bytes)
{
	size_t cap = (size_t)m->world * 128 + 64;
	char *buf = malloc(cap);
	double t0 = now_ms();
	size_t n = 0;
	for (uint32_t r = 0; r < m->world; r++) {
		const rm_rank *k = &m->rank[r];
		n += (size_t)snprintf(buf + n, cap - n,
				      "{\"rank\":%u,\"host\":\"%s\",\"node\":%u,"
				      "\"local_gpu\":%u,\"tp\":%u,\"pp\":%u,"
				      "\"dp\":%u,\"leaf\":\"%s\"},\n",
				      r, m->host[k->node], k->node, k->local_gpu,
				      k->coord[RM_AXIS_TP], k->coord[RM_AXIS_PP],
				      k->coord[RM_AXIS_DP],
				      m->host_leaf[k->node] ? m->host_leaf[k->node]
							    : "");
	}
	double t = now_ms() - t0;
	*bytes = n;
	free(buf);
	return t;
}

static void one(const shape *s, uint32_t gpus, const char *layout,
		double target)
{
	char **alloc = NULL;
	uint32_t nodes = gpus / 8;
	rm_fabric *f = make_fabric(s, nodes, &alloc);
	rm_layout l;
	rm_order o;
	rm_error e;
	if (rm_layout_parse(layout, &l, &e) ||
	    rm_order_parse("megatron", &l, &o, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		exit(1);
	}
	rm_plan_opts po = { .layout = &l, .order = &o,
			    .nodes = (const char *const *)alloc,
			    .nnodes = nodes, .gpus_per_node = 8, .fabric = f };
	long rss0 = status_kb("VmRSS");
	double tp[RUNS], tc[RUNS], tw[RUNS], tt[RUNS], tb[RUNS];
	size_t map_bytes = 0, base_bytes = 0;
	rm_report rep;
	memset(&rep, 0, sizeof(rep));
	for (int i = 0; i < RUNS; i++) {
		rm_map *m = NULL;
		char *out = NULL;
		double t0 = now_ms();
		must(rm_plan(&po, &m, &e), "plan", &e);
		double t1 = now_ms();
		must(rm_check(m, f, &e), "check", &e);
		double t2 = now_ms();
		must(rm_map_write(m, RM_FMT_JSON, &out, &map_bytes, &e), "write",
		     &e);
		double t3 = now_ms();
		tp[i] = t1 - t0;
		tc[i] = t2 - t1;
		tw[i] = t3 - t2;
		tt[i] = t3 - t0;
		tb[i] = baseline_write(m, &base_bytes);
		rep = m->report;
		rep.warning = NULL;
		rep.nwarning = 0;
		free(out);
		rm_map_free(m);
	}
	long grow = status_kb("VmHWM") - rss0;
	double total = median(tt, RUNS);
	printf("%-26s %7u %6u %7.1f %7.1f %7.1f %8.1f  <=%-4.0f %-4s %9.1f %7.1f %8.1f %6.0f\n",
	       s->name, gpus, nodes, median(tp, RUNS), median(tc, RUNS),
	       median(tw, RUNS), total, target, total <= target ? "ok" : "SLOW",
	       median(tb, RUNS), map_bytes / 1e6, grow / 1024.0,
	       grow * 1024.0 / gpus);
	printf("%-26s   PP crossings %llu (lower bound %llu), TP split %llu, "
	       "all must-rules %s\n", "",
	       (unsigned long long)rep.pp_cross,
	       (unsigned long long)rep.pp_cross_lower_bound,
	       (unsigned long long)rep.tp_split, rep.must_ok ? "hold" : "FAIL");
	(void)base_bytes;
	for (uint32_t i = 0; i < nodes; i++)
		free(alloc[i]);
	free(alloc);
	rm_fabric_free(f);
}

/* Each size in a child of its own, so its peak RSS is its own. */
static void run_child(const shape *s, uint32_t gpus, const char *layout,
		      double target)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		one(s, gpus, layout, target);
		fflush(stdout);
		_exit(0);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		fprintf(stderr, "bench: %s %u GPUs failed\n", s->name, gpus);
		exit(1);
	}
}

/*
 * 1,048,576 GPUs end to end, once (a child process, so that ru_maxrss is
 * this run's peak): plan, write the JSON map to a file, read it back
 * (past 64 MiB: the one-pass reader) and check what was read. The
 * baseline is one snprintf per rank record, as above.
 */
static void million(void)
{
	const shape s = { "32/leaf, 16 leaves/pod", 32, 16 };
	const uint32_t gpus = 1u << 20, nodes = gpus / 8;
	char **alloc = NULL;
	rm_fabric *f = make_fabric(&s, nodes, &alloc);
	rm_layout l;
	rm_order o;
	rm_error e;
	rm_map *m = NULL, *back = NULL;
	char *out = NULL;
	size_t bytes = 0, base_bytes = 0;
	char path[] = "/tmp/rankmap-bench-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || rm_layout_parse("8x16x8192", &l, &e) ||
	    rm_order_parse("megatron", &l, &o, &e)) {
		fprintf(stderr, "bench: 1M setup failed\n");
		exit(1);
	}
	rm_plan_opts po = { .layout = &l, .order = &o,
			    .nodes = (const char *const *)alloc,
			    .nnodes = nodes, .gpus_per_node = 8, .fabric = f };
	double t0 = now_ms();
	must(rm_plan(&po, &m, &e) ||
	    rm_map_write(m, RM_FMT_JSON, &out, &bytes, &e), "1M", &e);
	double t1 = now_ms();
	size_t w = 0;
	while (w < bytes) {
		ssize_t k = write(fd, out + w, bytes - w);
		if (k <= 0) {
			fprintf(stderr, "bench: 1M: cannot write %s\n", path);
			exit(1);
		}
		w += (size_t)k;
	}
	close(fd);
	double tb = baseline_write(m, &base_bytes);
	uint64_t cross = m->report.pp_cross, bound = m->report.pp_cross_lower_bound;
	free(out);
	rm_map_free(m);
	double t2 = now_ms();
	must(rm_map_read(path, &back, &e), "1M read", &e);
	double t3 = now_ms();
	must(rm_check(back, f, &e), "1M check", &e);
	double t4 = now_ms();
	unlink(path);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("\n1,048,576 GPUs (131,072 nodes of a fabric 1/8 larger, %s), "
	       "once, %s ms\n", s.name,
	       getenv("BENCH_WALL") ? "wall-clock" : "CPU-time");
	printf("%10s %10s %10s %10s %12s %9s %11s\n", "plan+write",
	       "read", "check", "read+check", "target", "map MB",
	       "peak RSS MB");
	printf("%10.0f %10.0f %10.0f %10.0f %12s %9.1f %11.0f\n", t1 - t0,
	       t3 - t2, t4 - t3, t4 - t2,
	       t4 - t2 <= 2000 ? "<=2000 ok" : "<=2000 SLOW", bytes / 1e6,
	       ru.ru_maxrss / 1024.0);
	printf("baseline: one snprintf per rank record %.0f ms (%.1f MB); "
	       "PP crossings %llu, lower bound %llu, read back: %s\n",
	       tb, base_bytes / 1e6, (unsigned long long)cross,
	       (unsigned long long)bound,
	       back->report.pp_cross == cross ? "same crossings" : "DIFFERS");
	rm_map_free(back);
	for (uint32_t i = 0; i < nodes; i++)
		free(alloc[i]);
	free(alloc);
	rm_fabric_free(f);
}

/* Crossings vs lower bound on the fabrics in site/, all nodes and a
 * fragmented three quarters of them. */
static void shipped(const char *root)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/site", root);
	DIR *d = opendir(dir);
	if (!d) {
		printf("\n(no site/ directory under %s: shipped fabrics skipped)\n",
		       root);
		return;
	}
	char *names[64];
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < 64)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof(char *), (int (*)(const void *, const void *))strcmp);
	printf("\nshipped fabrics (site/*/site.yaml): PP crossings vs lower bound\n");
	printf("%-20s %-22s %6s %7s %9s %11s %8s %s\n", "site", "layout",
	       "nodes", "GPUs", "crossings", "lower bound", "TP split",
	       "must-rules");
	for (int i = 0; i < n; i++) {
		char path[4200];
		snprintf(path, sizeof(path), "%s/%s/site.yaml", dir, names[i]);
		rm_site site;
		rm_fabric *f = NULL;
		rm_error e;
		rm_site_init(&site);
		if (access(path, R_OK) != 0) {
			free(names[i]);
			continue;
		}
		if (rm_site_load(path, &site, &e) || rm_fabric_new(&f, &e) ||
		    (site.topology &&
		     rm_fabric_load_topology(f, site.topology, &e)) ||
		    rm_fabric_apply_site(f, &site, &e)) {
			printf("%-20s error: %s\n", names[i], e.msg);
			goto next;
		}
		uint32_t g = site.gpus_per_node ? site.gpus_per_node : 8;
		for (int frag = 0; frag < 2; frag++) {
			const char **nodes = malloc((f->nnode + 1) * sizeof(char *));
			uint32_t k = 0;
			for (uint32_t j = 0; j < f->nnode; j++)
				if (!frag || next() % 4 != 0)
					nodes[k++] = f->node[j].name;
			uint32_t tp = g >= 8 ? 8 : g;
			uint32_t pp = (uint64_t)k * g >= (uint64_t)tp * 16 * 4 ? 16 : 2;
			char text[96];
			snprintf(text, sizeof(text), "tp=%u,pp=%u,dp=auto", tp, pp);
			rm_layout l;
			rm_order o;
			rm_map *m = NULL;
			if (rm_layout_parse(text, &l, &e) ||
			    rm_order_parse(site.order[0] ? site.order : NULL, &l,
					   &o, &e)) {
				printf("%-20s error: %s\n", names[i], e.msg);
				free(nodes);
				break;
			}
			rm_plan_opts po = { .layout = &l, .order = &o,
					    .nodes = nodes, .nnodes = k,
					    .gpus_per_node = g, .fabric = f,
					    .allow_missing = site.allow_missing_nodes };
			if (rm_plan(&po, &m, &e)) {
				printf("%-20s %s: %s\n", names[i], text, e.msg);
			} else {
				rm_layout_format(&m->layout, text, sizeof(text));
				printf("%-20s %-22s %6u %7u %9llu %11llu %8llu %s%s\n",
				       names[i], text, k, m->world,
				       (unsigned long long)m->report.pp_cross,
				       (unsigned long long)m->report.pp_cross_lower_bound,
				       (unsigned long long)m->report.tp_split,
				       m->report.must_ok ? "hold" : "FAIL",
				       frag ? " (3/4 of nodes)" : "");
			}
			rm_map_free(m);
			free(nodes);
		}
next:
		rm_fabric_free(f);
		rm_site_free(&site);
		free(names[i]);
	}
}

int main(void)
{
	static const shape shapes[] = {
		{ "2/ToR, 192 ToR/pod", 2, 192 },
		{ "32/leaf, 16 leaves/pod", 32, 16 },
	};
	printf("rankmap bench: rm_plan + rm_check + rm_map_write(JSON), median "
	       "of %d runs, %s milliseconds\nbaseline = one snprintf per rank "
	       "record into a buffer (the cost of writing the records at all)\n"
	       "RSS+ = peak RSS growth while planning; B/GPU constant = linear "
	       "memory\n\n", RUNS, getenv("BENCH_WALL") ? "wall-clock" :
	       "CPU-time (BENCH_WALL=1: wall clock)");
	printf("%-26s %7s %6s %7s %7s %7s %8s  %-9s %9s %7s %8s %6s\n",
	       "fabric", "GPUs", "nodes", "plan", "check", "write", "total",
	       "target ms", "baseline", "map MB", "RSS+ MB", "B/GPU");
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		run_child(&shapes[s], 16384, "8x16x128", 10);
		run_child(&shapes[s], 131072, "8x16x1024", 100);
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		million();
		fflush(stdout);
		_exit(0);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		fprintf(stderr, "bench: 1,048,576 GPUs failed\n");
		return 1;
	}
	const char *root = getenv("RM_ROOT");
	shipped(root ? root : ".");
	return 0;
}
