/*
 * bench_model.c - how long the cost model takes: one explain estimate, and
 * a whole `suggest` as the CLI runs it (selective and full recomputation,
 * CP as far as the sequence allows) over every layout of 16,384 and
 * 131,072 GPUs, with Megatron's schedules (the baseline) and with every
 * schedule; target under 100 ms each.
 */
#include "rankmap.h"
#include "bench_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RUNS 5

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
	printf("estimate  llama3-405b 8x16x128            %8.4f ms each\n",
	       median(ms, RUNS));
	const struct { uint64_t gpus; const char *seq; unsigned sched; } c[] = {
		{ 16384, "8192", 0 }, { 16384, "8192", ~0u },
		{ 131072, "8192", 0 }, { 131072, "8192", ~0u },
		{ 16384, "131072", 0 }, { 16384, "131072", ~0u },
	};
	for (size_t g = 0; g < sizeof(c) / sizeof(c[0]); g++) {
		rm_suggest_opts o = { .gpus = c[g].gpus, .top = 10,
				      .schedules = c[g].sched,
				      .recomputes = (1u << RM_RECOMPUTE_SELECTIVE) |
						    (1u << RM_RECOMPUTE_FULL) };
		rm_train ts = t;
		rm_train_set(&ts, "seq", c[g].seq, NULL);
		size_t considered = 0;
		for (int r = 0; r < RUNS; r++) {
			rm_suggestion *s = NULL;
			double t0 = now_ms();
			if (rm_suggest(&m, &hw, &ts, &o, &s, &e)) {
				fprintf(stderr, "bench_model: %s\n", e.msg);
				return 1;
			}
			ms[r] = now_ms() - t0;
			considered = s->considered;
			rm_suggestion_free(s);
		}
		printf("suggest   llama3-405b on %6llu GPUs, seq %6s, %-9s %7.1f ms "
		       "(%zu layout x micro-batch pairs; target < 100 ms)\n",
		       (unsigned long long)c[g].gpus, c[g].seq,
		       c[g].sched ? "all sched" : "megatron", median(ms, RUNS),
		       considered);
	}
	return 0;
}
