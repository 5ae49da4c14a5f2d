/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_read.c - reading a map back, from a few kB to a million GPUs:
 * rm_map_read beside the floor of any reader, a plain read() of the same
 * file into memory, and, for JSON, beside a fast parser: simdjson's DOM
 * parser walking every rank record (bench_read_simdjson, built only where
 * Debian's libsimdjson-dev is installed; optional, the column is skipped
 * with one line otherwise). Each figure is measured in a fresh process (this
 * binary run again), so its peak RSS is that read's alone; each is the
 * median of RUNS runs, with min and max. The verdicts are ratios taken in
 * this run: memory over the file's size, and time per MB at each size
 * against time per MB at 16,384 GPUs (linear growth keeps it flat).
 * The JSON files go from 2 kB (8 GPUs) to 139 MB (1,048,576 GPUs).
 * BENCH_READ_BASE=path names another build's bench_read (an older
 * commit's): its reader is then timed on the same files in the same run,
 * and "x base" is this reader's time (and RSS) over that one's.
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rankmap.h"
#include "bench_clock.h"
#include "bench_map.h"

#define RUNS 5
/* What any read costs before the file counts: the reader's 1 MiB input
 * buffer, its token and record scratch, libyaml's state. */
#define FIXED_MB 2.0

/* --child MODE PATH: one read, prints "ms" on stdout; the parent takes the
 * peak RSS from wait4. */
static int child(const char *mode, const char *path)
{
	double t0 = now_ms();
	if (!strcmp(mode, "raw")) {
		int fd = open(path, O_RDONLY);
		struct stat sb;
		if (fd < 0 || fstat(fd, &sb))
			return 1;
		char *buf = malloc((size_t)sb.st_size + 1);
		size_t got = 0;
		while (buf && got < (size_t)sb.st_size) {
			ssize_t k = read(fd, buf + got, (size_t)sb.st_size - got);
			if (k <= 0)
				return 1;
			got += (size_t)k;
		}
		close(fd);
		if (!buf)
			return 1;
		free(buf);
	} else if (!strcmp(mode, "map")) {
		rm_map *m = NULL;
		rm_error e;
		if (rm_map_read(path, &m, &e)) {
			fprintf(stderr, "bench_read: %s\n", e.msg);
			return 1;
		}
		rm_map_free(m);
	}
	printf("%.3f\n", now_ms() - t0);
	return 0;
}

typedef struct fig {
	double ms[RUNS], rss_mb[RUNS];
	double med, min, max, rss;
} fig;

/* The simdjson baseline's binary, next to this one; "" when absent. */
static char simdjson_bin[4200];
/* Another build's bench_read (BENCH_READ_BASE); "" when not given. */
static char base_bin[4200];

static void run_child(const char *self, const char *mode, const char *path,
		      double *ms, double *rss_mb)
{
	int p[2];
	if (pipe(p)) {
		perror("bench_read: pipe");
		exit(1);
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		if (!strcmp(mode, "simdjson"))
			execl(simdjson_bin, simdjson_bin, path, (char *)NULL);
		else if (!strcmp(mode, "base"))
			execl(base_bin, base_bin, "--child", "map", path,
			      (char *)NULL);
		else
			execl(self, self, "--child", mode, path, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char out[64] = "";
	ssize_t k = read(p[0], out, sizeof(out) - 1);
	close(p[0]);
	int status;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || k <= 0 ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench_read: %s read of %s failed\n", mode, path);
		exit(1);
	}
	*ms = atof(out);
	*rss_mb = ru.ru_maxrss / 1024.0;
}

static fig measure(const char *self, const char *mode, const char *path)
{
	fig f;
	for (int i = 0; i < RUNS; i++)
		run_child(self, mode, path, &f.ms[i], &f.rss_mb[i]);
	f.rss = median(f.rss_mb, RUNS);
	f.med = median(f.ms, RUNS);     /* sorts: min first, max last */
	f.min = f.ms[0];
	f.max = f.ms[RUNS - 1];
	return f;
}

/* A flat map of `gpus` GPUs, 8 per node, written in `fmt` to `path`. */
static size_t write_map(uint32_t gpus, const char *layout, rm_format fmt,
			const char *path)
{
	uint32_t nodes = gpus / 8;
	char **names = calloc(nodes, sizeof(*names));
	rm_error e;
	rm_map *m = NULL;
	char *out = NULL;
	size_t bytes = 0;
	for (uint32_t i = 0; i < nodes; i++) {
		names[i] = malloc(16);
		snprintf(names[i], 16, "gpu%06u", i + 1);
	}
	if (!bench_plan_render(layout, (const char *const *)names, nodes, 8,
			       NULL, fmt, &m, &out, &bytes, &e)) {
		fprintf(stderr, "bench_read: %s: %s\n", layout, e.msg);
		exit(1);
	}
	FILE *fp = fopen(path, "wb");
	if (!fp || fwrite(out, 1, bytes, fp) != bytes || fclose(fp)) {
		fprintf(stderr, "bench_read: cannot write %s\n", path);
		exit(1);
	}
	free(out);
	rm_map_free(m);
	for (uint32_t i = 0; i < nodes; i++)
		free(names[i]);
	free(names);
	return bytes;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--child"))
		return child(argv[2], argv[3]);
	static const struct { uint32_t gpus; const char *layout; bool yaml; }
	sizes[] = {
		{ 8, "8x1x1", true },
		{ 1024, "8x4x32", true },
		{ 16384, "8x16x128", true },
		{ 131072, "8x16x1024", true },
		{ 1048576, "8x16x8192", false },
	};
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		perror("bench_read: /proc/self/exe");
		return 1;
	}
	self[n] = '\0';
	snprintf(simdjson_bin, sizeof(simdjson_bin), "%.*s/bench_read_simdjson",
		 (int)(strrchr(self, '/') - self), self);
	if (access(simdjson_bin, X_OK))
		simdjson_bin[0] = '\0';
	const char *base = getenv("BENCH_READ_BASE");
	if (base && !access(base, X_OK))
		snprintf(base_bin, sizeof(base_bin), "%s", base);
	char dir[] = "/tmp/rankmap-bench-read-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("bench_read: mkdtemp");
		return 1;
	}
	char none[4200];
	snprintf(none, sizeof(none), "%s/none", dir);
	double base_ms, base_rss;
	run_child(self, "none", none, &base_ms, &base_rss);
	printf("reading a map back: rm_map_read against a plain read() of the "
	       "file (the floor) and a fast JSON parser; median of %d fresh "
	       "processes (min-max), %s ms; RSS is the process's peak less an "
	       "idle one's (%.1f MB)\n", RUNS,
	       getenv("BENCH_WALL") ? "wall-clock" : "CPU-time", base_rss);
	if (simdjson_bin[0])
		printf("simdjson: its DOM parser on the same JSON file, every "
		       "rank record walked, the parser warmed by an untimed "
		       "parse (a floor: no page faults of its own); x simd = "
		       "rm_map_read / simdjson\n");
	else
		printf("simdjson column skipped: bench_read_simdjson not built "
		       "(needs g++ and Debian's libsimdjson-dev)\n");
	printf("%9s %4s %9s %18s %20s %7s %18s %6s %7s %7s %8s %10s\n", "GPUs",
	       "fmt", "file MB", "read() ms", "rm_map_read ms", "x read",
	       "simdjson ms", "x simd", "ms/MB", "RSS MB", "RSS/file",
	       "verdict");
	double per_mb_16k[2] = { 0, 0 };
	int bad = 0;
	/* against the base build: products of the ratios, for a geomean */
	double base_t = 1, base_m = 1;
	int base_n = 0;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (int y = 0; y < 2; y++) {
			if (y && !sizes[i].yaml)
				continue;
			char path[4200];
			snprintf(path, sizeof(path), "%s/map-%u.%s", dir,
				 sizes[i].gpus, y ? "yaml" : "json");
			size_t bytes = write_map(sizes[i].gpus, sizes[i].layout,
						 y ? RM_FMT_YAML : RM_FMT_JSON,
						 path);
			fig raw = measure(self, "raw", path);
			fig map = measure(self, "map", path);
			fig sj = { .med = 0 }, bs = { .med = 0 };
			if (!y && simdjson_bin[0])
				sj = measure(self, "simdjson", path);
			if (base_bin[0])
				bs = measure(self, "base", path);
			unlink(path);
			double mb = bytes / 1e6, per_mb = map.med / mb;
			double rss = map.rss - base_rss;
			if (sizes[i].gpus == 16384)
				per_mb_16k[y] = per_mb;
			/* small files are all fixed cost: judge from 1 MB up */
			const char *v = "-";
			if (mb >= 1) {
				bool mem_ok = rss <= 2 * mb + FIXED_MB;
				bool lin_ok = !per_mb_16k[y] ||
					      per_mb <= 2 * per_mb_16k[y];
				v = mem_ok && lin_ok ? "ok" : !mem_ok ? "MEMORY" : "NONLINEAR";
				bad += !(mem_ok && lin_ok);
			}
			char rs[48], ms[48], ss[48] = "-", sx[16] = "-";
			snprintf(rs, sizeof(rs), "%.2f (%.2f-%.2f)", raw.med,
				 raw.min, raw.max);
			snprintf(ms, sizeof(ms), "%.1f (%.1f-%.1f)", map.med,
				 map.min, map.max);
			if (sj.med > 0) {
				snprintf(ss, sizeof(ss), "%.2f (%.2f-%.2f)",
					 sj.med, sj.min, sj.max);
				snprintf(sx, sizeof(sx), "%.1f", map.med / sj.med);
			}
			printf("%9u %4s %9.3f %18s %20s %7.1f %18s %6s %7.1f %7.1f %8.2f %10s\n",
			       sizes[i].gpus, y ? "yaml" : "json", mb, rs, ms,
			       raw.med > 0 ? map.med / raw.med : 0, ss, sx,
			       per_mb, rss, rss / mb, v);
			if (bs.med > 0 && mb >= 1) {
				double bt = map.med / bs.med;
				double bm = rss / (bs.rss - base_rss);
				printf("%9s %4s x base: time %.2f (%.1f vs %.1f ms), "
				       "RSS %.2f (%.1f vs %.1f MB)\n", "",
				       y ? "yaml" : "json", bt, map.med, bs.med,
				       bm, rss, bs.rss - base_rss);
				base_t *= bt;
				base_m *= bm;
				base_n++;
			}
		}
	rmdir(dir);
	if (base_n)
		printf("against %s (files of 1 MB and up, geometric mean): "
		       "time x %.2f, RSS x %.2f\n", base_bin,
		       pow(base_t, 1.0 / base_n), pow(base_m, 1.0 / base_n));
	printf("verdicts (files of 1 MB and up): RSS at most 2x the file + "
	       "%.0f MB fixed, ms/MB at most 2x the 16,384-GPU figure of the "
	       "same format: %s\n", FIXED_MB, bad ? "MISSED" : "met");
	return 0;
}
