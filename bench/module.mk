# make bench: speed figures next to their baselines and targets.
# Every binary in BENCH_BINS is built (optimised, from the normal build's
# librankmap.a) and run in turn; other modules append their own binaries.
BENCH_BINS += $(BUILD)/bench/bench_plan

$(BUILD)/bench/bench_plan: bench/bench_plan.c $(BUILD)/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(BUILD)/librankmap.a $(LIBS)

bench: $(BENCH_BINS)
	@for b in $(BENCH_BINS); do \
		echo "== $$b"; \
		RM_ROOT=$(CURDIR) $$b || exit 1; \
	done
