/*
 * bench_model.c - how long the cost model takes: one explain estimate, and
 * a whole `suggest` over every layout of 16,384 and 131,072 GPUs (target:
 * about a second), next to the number of estimates each one runs.
 */
#include "rankmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RUNS 5

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(getenv("BENCH_WALL") ? CLOCK_MONOTONIC
					   : CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	rm_model m;
	rm_hw hw;
	rm_train t;
	rm_error e;
	rm_layout l;
	if (rm_model_preset("llama3-405b", &m, &e) ||
	    rm_hw_preset("h100-sxm-80gb", &hw, &e) ||
	    rm_layout_parse("8x16x128", &l, &e) ||
	    rm_layout_resolve(&l, 16384, true, &e)) {
		fprintf(stderr, "bench_model: %s\n", e.msg);
		return 1;
	}
	rm_train_init(&t);
	rm_train_set(&t, "batch", "16M", NULL);
	double ms[RUNS];
	rm_estimate est;
	for (int r = 0; r < RUNS; r++) {
		double t0 = now_ms();
		for (int i = 0; i < 1000; i++)
			if (rm_estimate_run(&m, &hw, &t, &l, &est, &e))
				return 1;
		ms[r] = (now_ms() - t0) / 1000;
	}
	qsort(ms, RUNS, sizeof(ms[0]), cmp);
	printf("estimate  llama3-405b 8x16x128            %8.4f ms each\n",
	       ms[RUNS / 2]);
	const uint64_t gpus[] = { 16384, 131072 };
	for (size_t g = 0; g < 2; g++) {
		rm_suggest_opts o = { .gpus = gpus[g], .top = 10 };
		size_t considered = 0;
		for (int r = 0; r < RUNS; r++) {
			rm_suggestion *s = NULL;
			double t0 = now_ms();
			if (rm_suggest(&m, &hw, &t, &o, &s, &e)) {
				fprintf(stderr, "bench_model: %s\n", e.msg);
				return 1;
			}
			ms[r] = now_ms() - t0;
			considered = s->considered;
			rm_suggestion_free(s);
		}
		qsort(ms, RUNS, sizeof(ms[0]), cmp);
		printf("suggest   llama3-405b on %6llu GPUs    %8.1f ms "
		       "(%zu layout x micro-batch pairs, every schedule; "
		       "target about 1000 ms)\n",
		       (unsigned long long)gpus[g], ms[RUNS / 2], considered);
	}
	return 0;
}
