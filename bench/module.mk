# make bench: speed figures next to their baselines and targets.
# Every binary in BENCH_BINS is built (optimised, from the normal build's
# librankmap.a) and run in turn; other modules append their own binaries.
BENCH_BINS += $(BUILD)/bench/bench_plan

$(BUILD)/bench/bench_plan: bench/bench_plan.c $(BUILD)/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(BUILD)/librankmap.a $(LIBS)

# plan quality on a seeded random set of fabrics
BENCH_BINS += $(BUILD)/bench/bench_optimal
$(BUILD)/bench/bench_optimal: bench/bench_optimal.c $(BUILD)/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(BUILD)/librankmap.a $(LIBS)

# the cost model (explain, suggest)
BENCH_BINS += $(BUILD)/bench/bench_model
$(BUILD)/bench/bench_model: bench/bench_model.c $(BUILD)/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(BUILD)/librankmap.a $(LIBS)

# node hardware: live hwloc scan vs cached XML
BENCH_BINS += $(BUILD)/bench/bench_node
$(BUILD)/bench/bench_node: bench/bench_node.c $(BUILD)/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(BUILD)/librankmap.a $(LIBS)

bench: $(BENCH_BINS)
	@for b in $(BENCH_BINS); do \
		echo "== $$b"; \
		RM_ROOT=$(CURDIR) $$b || exit 1; \
	done
