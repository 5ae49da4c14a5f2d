# SPDX-License-Identifier: Apache-2.0
# The SPANK plugin rankmap.so (needs Slurm's spank.h), its SPANK-free core
# (also linked by the benchmark and the unit test), `make demo`, and the
# plugin benchmark.
SPANK_CORE_SRC := spank/conf.c spank/plan.c spank/files.c spank/env.c spank/stamp.c \
		  spank/launcher.c spank/hwcache.c
SPANK_SRC      := $(wildcard spank/*.c)
SPANK_TEST_SRC := $(wildcard tests/slurm/test_spank_*.c)
# The Slurm the plugin is built for: SLURM_PREFIX=/opt/slurm (a site's own
# build), else pkg-config slurm's prefix (SchedMD's RPMs ship slurm.pc),
# else /usr (Debian's libslurm-dev).
SLURM_PREFIX   ?= $(or $(shell pkg-config --variable=prefix slurm 2>/dev/null),/usr)
SLURM_INC      := $(SLURM_PREFIX)/include
SPANK_H        := $(wildcard $(SLURM_INC)/slurm/spank.h)
ifneq ($(SLURM_PREFIX),/usr)
$(call obj,$(SPANK_SRC)) $(call aobj,$(SPANK_SRC)): CPPFLAGS += -I$(SLURM_INC)
endif

ifneq ($(SPANK_H),)
# librankmap's objects are PIC already; linked in whole and hidden behind
# the version script, so the plugin needs no librankmap.so on the nodes.
$(BUILD)/rankmap.so: $(call obj,$(SPANK_SRC)) $(call obj,$(LIB_SRC) $(PRIV_SRC)) spank/spank.map
	$(CC) -shared $(LDHARDEN) -Wl,--version-script=spank/spank.map \
		-o $@ $(call obj,$(SPANK_SRC)) $(call obj,$(LIB_SRC) $(PRIV_SRC)) $(LIBS)

ALL_TARGETS += $(BUILD)/rankmap.so

# The same plugin under its Slurm release's name (rankmap-slurm22.05.so): a
# SPANK plugin only loads in the major.minor it was built for, so packages
# and admins keep one file per release (roots/module.mk adds those of the other roots).
SLURM_RELEASE := $(shell v=$$(sed -n 's/^\#define SLURM_VERSION_NUMBER //p' \
	$(SLURM_INC)/slurm/slurm_version.h 2>/dev/null); printf '%d.%02d' $$((v >> 16)) $$(((v >> 8) & 255)))
$(BUILD)/rankmap-slurm$(SLURM_RELEASE).so: $(BUILD)/rankmap.so
	cp -p $< $@
# libslurm's API number (its soname) for release.c's load-time check.
SLURM_API := $(shell readlink -f "$$(ls $(SLURM_PREFIX)/lib64/libslurm.so $(SLURM_PREFIX)/lib/libslurm.so 2>/dev/null | head -1 || true)" "$$($(CC) -print-file-name=libslurm.so 2>/dev/null)" | head -1 | \
	sed -n 's/.*libslurm\.so\.\([0-9][0-9]*\).*/\1/p')
$(call obj,spank/release.c): CPPFLAGS += -DRMS_SLURM_API=$(SLURM_API)
.PHONY: slurm-release-plugin
slurm-release-plugin: $(BUILD)/rankmap-slurm$(SLURM_RELEASE).so
ALL_TARGETS += slurm-release-plugin

# A test-only SPANK plugin that holds one node back (t_abort.sh's late
# refusal); built for each release like the plugin, never installed.
$(BUILD)/rankmap-test-delay.so: tests/slurm/delay_spank.c
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -shared $(LDHARDEN) -o $@ $<
slurm-release-plugin: $(BUILD)/rankmap-test-delay.so
# Another: pyxis's import of the container's environment (t_container.sh).
$(BUILD)/rankmap-test-pyxis.so: tests/slurm/pyxis_sim_spank.c
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -shared $(LDHARDEN) -o $@ $<
slurm-release-plugin: $(BUILD)/rankmap-test-pyxis.so
else
ALL_TARGETS += spank-skipped
.PHONY: spank-skipped
spank-skipped:
	@echo "spank: $(SLURM_INC)/slurm/spank.h not found: rankmap.so not built (apt-get install libslurm-dev, or SLURM_PREFIX=the Slurm install)"
endif

# Unit test of the SPANK-free core, ASan+UBSan like the others.
$(BUILD)/asan/tests/test_spank_%: tests/slurm/test_spank_%.c tests/unit/test.h tests/slurm/spank_test.h \
		$(call aobj,$(SPANK_CORE_SRC)) $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) -Itests/unit -Ispank $(ASAN_CFLAGS) -o $@ $< \
		$(call aobj,$(SPANK_CORE_SRC)) $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a $(LIBS)

CHECK_TARGETS += $(patsubst tests/slurm/%.c,$(BUILD)/asan/tests/%,$(SPANK_TEST_SRC))

# Plugin cost for a 2,048-node step, through the plugin's own functions.
$(BUILD)/bench/bench_spank: bench/bench_spank.c $(BENCH_HDRS) $(call obj,$(SPANK_CORE_SRC)) $(BUILD)/librankmap-priv.a $(BUILD)/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) -Ispank $(ALL_CFLAGS) $(LDHARDEN) -o $@ $< \
		$(call obj,$(SPANK_CORE_SRC)) $(BUILD)/librankmap-priv.a $(BUILD)/librankmap.a $(LIBS)

BENCH_BINS += $(BUILD)/bench/bench_spank

.PHONY: demo
# deps first, then a make of its own: this one's pkg-config and Slurm
# probes ran before the packages were there
demo: deps-demo
	@$(MAKE) --no-print-directory -j2 build-all
	@BUILD=$(abspath $(BUILD)) tests/slurm/demo.sh
