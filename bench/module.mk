# SPDX-License-Identifier: Apache-2.0
# make bench: speed figures, each beside a baseline of the same run.
# Every binary in BENCH_BINS is built (optimised, from the normal build's
# librankmap.a) and run in turn; other modules append their own binaries.
#   bench_plan     plan, check and write at scale, and the shipped fabrics
#   bench_optimal  plan quality on a seeded random set of fabrics
#   bench_model    the cost model (explain, suggest)
#   bench_node     node hardware: live hwloc scan vs cached XML
#   bench_read     reading maps back, 8 to 1,048,576 GPUs, vs read() and,
#                  where libsimdjson-dev and g++ are installed (optional),
#                  vs simdjson (bench_read_simdjson, run by bench_read)
#   bench_import   site import of a 4,096-host, 8-rail ibnetdiscover capture
# then the planner's property test at 10 times make check's size and
# bench_baselines.py (the plan priced against the baselines on 20 trees).
BENCH_HDRS := bench/bench_clock.h bench/bench_map.h tests/unit/fixture.h tests/unit/xorshift.h \
	      tests/unit/model/suggest_exact.h

define bench_bin
BENCH_BINS += $(BUILD)/bench/$(1)
$(BUILD)/bench/$(1): bench/$(1).c $(BENCH_HDRS) $(BUILD)/librankmap-priv.a $(BUILD)/librankmap.a
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) $$(LIB_CPPFLAGS) $$(ALL_CFLAGS) -o $$@ $$< $(BUILD)/librankmap-priv.a $(BUILD)/librankmap.a $$(LIBS)
endef
$(foreach b,bench_plan bench_optimal bench_model bench_node bench_read bench_import,$(eval $(call bench_bin,$(b))))

# The simdjson baseline is C++ and optional: without the package
# bench_read prints one line saying the column is skipped.
ifneq ($(and $(wildcard /usr/include/simdjson.h),$(shell command -v $(CXX) 2>/dev/null)),)
$(BUILD)/bench/bench_read: $(BUILD)/bench/bench_read_simdjson
$(BUILD)/bench/bench_read_simdjson: bench/bench_read_simdjson.cc bench/bench_clock.h
	@mkdir -p $(@D)
	$(CXX) -std=c++17 -Wall -Wextra -Werror -Wformat=2 -Wshadow -O2 -g -o $@ $< -lsimdjson
endif

bench: $(BENCH_BINS) $(BUILD)/asan/tests/test_property $(BUILD)/rankmap
	@for b in $(BENCH_BINS); do \
		echo "== $$b"; \
		RM_ROOT=$(CURDIR) $$b || exit 1; \
	done
	@# the planner's property test: make check's 5,000 fabrics as the
	@# baseline of the same run, then ten times as many (ASan build)
	@echo "== property test, 5,000 fabrics (make check) vs 50,000"
	@for n in 5000 50000; do \
		t0=$$(date +%s.%N); \
		RM_PROPERTY_RUNS=$$n $(BUILD)/asan/tests/test_property | grep -E 'random inputs|FAIL' || exit 1; \
		awk -v a=$$t0 -v b=$$(date +%s.%N) -v n=$$n 'BEGIN { printf "  %d fabrics in %.1f s\n", n, b - a }'; \
	done
	@# plan against the baselines, priced, on 20 three-tier trees
	@echo "== bench/bench_baselines.py"; python3 bench/bench_baselines.py $(BUILD)/rankmap 20 1
	@# the plugin inside real slurmstepds, against steps without it
	@echo "== bench/bench_stepd.sh"; RM_BUILD=$(abspath $(BUILD)) bash bench/bench_stepd.sh 15
	@# rm_plan at 1M GPUs against commit e45650b's build, in this run
	@# (issue 26.5); needs a git checkout to build the old commit from.
	@if git -C $(CURDIR) cat-file -e e45650b 2>/dev/null; then \
		echo "== bench/bench_plan_vs.sh"; RM_LIBS="$(LIBS)" sh bench/bench_plan_vs.sh 5; \
	else echo "== bench/bench_plan_vs.sh: skipped (no git history here)"; fi
