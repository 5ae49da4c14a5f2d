# SPDX-License-Identifier: Apache-2.0
# make bench: speed figures next to their baselines and targets.
# Every binary in BENCH_BINS is built (optimised, from the normal build's
# librankmap.a) and run in turn; other modules append their own binaries.
#   bench_plan     plan, check and write at scale, and the shipped fabrics
#   bench_optimal  plan quality on a seeded random set of fabrics
#   bench_model    the cost model (explain, suggest)
#   bench_node     node hardware: live hwloc scan vs cached XML
#   bench_read     reading maps back, 8 to 1,048,576 GPUs, vs read()
#   bench_import   site import of a 4,096-host, 8-rail ibnetdiscover capture
BENCH_HDRS := bench/bench_clock.h tests/unit/fixture.h tests/unit/xorshift.h

define bench_bin
BENCH_BINS += $(BUILD)/bench/$(1)
$(BUILD)/bench/$(1): bench/$(1).c $(BENCH_HDRS) $(BUILD)/librankmap.a
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) $$(LIB_CPPFLAGS) $$(ALL_CFLAGS) -o $$@ $$< $(BUILD)/librankmap.a $$(LIBS)
endef
$(foreach b,bench_plan bench_optimal bench_model bench_node bench_read bench_import,$(eval $(call bench_bin,$(b))))

bench: $(BENCH_BINS)
	@for b in $(BENCH_BINS); do \
		echo "== $$b"; \
		RM_ROOT=$(CURDIR) $$b || exit 1; \
	done
	@# rm_plan at 1M GPUs against commit e45650b's build, in this run
	@# (issue 26.5); needs a git checkout to build the old commit from.
	@if git -C $(CURDIR) cat-file -e e45650b 2>/dev/null; then \
		echo "== bench/bench_plan_vs.sh"; sh bench/bench_plan_vs.sh 5; \
	else echo "== bench/bench_plan_vs.sh: skipped (no git history here)"; fi
