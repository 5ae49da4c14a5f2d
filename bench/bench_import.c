/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_import.c - `rankmap site import` of a generated 4,096-host,
 * 8-rail capture (128 rail units of 32 hosts, 8 pods, 3 tiers; 12 MB of
 * ibnetdiscover text), whole: parse, wiring, the three outputs. Beside it
 * the baseline of the same run: reading the file and counting its lines,
 * the floor any import of that text pays. Both are medians of RUNS with
 * min and max. The verdict is the import's ratio to that floor, at most
 * 50x: the parse looks at every byte once more, the wiring is linear in
 * the links, and three outputs are written, a few passes over the text
 * at memchr speed each (about 13x here when it was added); a quadratic
 * step on a 287,000-line capture would be hundreds of times the floor.
 */
#include "rankmap.h"
#include "rankmap_priv.h"
#include "bench_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUNS 5
#define MAX_X 50

int main(void)
{
	const char *root = getenv("RM_ROOT");
	char path[] = "/tmp/rm-bench-import.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/gen/gen_ibnd.py' --units 128 "
		 "--hosts 32 --rails 8 --spines 8 --pods 8 --cores 16 >'%s'",
		 root ? root : ".", path);
	if (system(cmd)) {
		fprintf(stderr, "bench_import: the generator failed\n");
		unlink(path);
		return 1;
	}
	double base[RUNS], imp[RUNS];
	size_t lines = 0, units = 0;
	for (int r = 0; r < RUNS; r++) {
		rm_error e;
		char *text;
		size_t len;
		double t0 = now_ms();
		if (rm_file_read(path, &text, &len, &e)) {
			fprintf(stderr, "bench_import: %s\n", e.msg);
			unlink(path);
			return 1;
		}
		lines = 0;
		for (const char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text)));
		     p++)
			lines++;
		base[r] = now_ms() - t0;
		free(text);
		t0 = now_ms();
		if (rm_file_read(path, &text, &len, &e)) {
			unlink(path);
			return 1;
		}
		rm_import *im = NULL;
		rm_import_options o = RM_IMPORT_OPTIONS_INIT;
		o.gpus_per_node = 8;
		if (rm_import_ibnetdiscover(text, len, path, &o, &im, &e)) {
			fprintf(stderr, "bench_import: %s\n", e.msg);
			free(text);
			unlink(path);
			return 1;
		}
		char *out;
		for (int part = 0; part < 3; part++) {
			if (rm_import_write(im, (rm_import_part)part, &out, NULL, &e))
				continue;
			if (part == RM_IMPORT_SITE) {   /* one "{name:" a unit */
				units = 0;
				for (const char *p = out; (p = strstr(p, "{name: ")); p++)
					units++;
			}
			free(out);
		}
		rm_import_free(im);
		free(text);
		imp[r] = now_ms() - t0;
	}
	unlink(path);
	char b1[64], b2[64];
	mmm(b1, sizeof(b1), base, RUNS, 1);
	mmm(b2, sizeof(b2), imp, RUNS, 1);
	double x = median(imp, RUNS) / median(base, RUNS);
	printf("site import: 4096 hosts, 8 rails, %zu lines of ibnetdiscover; "
	       "median (min-max) of %d, %s ms; verdict: import at most %dx "
	       "its floor\n", lines, RUNS,
	       getenv("BENCH_WALL") ? "wall-clock" : "CPU-time", MAX_X);
	printf("  %-44s %20s ms\n", "floor: read the file, count its lines", b1);
	printf("  %-44s %20s ms  %zu rail units, %.1fx the floor  %s\n",
	       "import: parse, wiring, topology+site+report", b2, units, x,
	       x <= MAX_X ? "ok" : "SLOW");
	return 0;
}
