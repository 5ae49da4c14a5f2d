# SPDX-License-Identifier: Apache-2.0
# Unit tests: tests/unit/<folder>/test_<module>.c, one binary each, built
# with ASan; the folders follow mapper/src/.
UNIT_SRC  := $(wildcard tests/unit/*/test_*.c)
UNIT_BINS := $(patsubst %.c,$(BUILD)/asan/tests/%,$(notdir $(UNIT_SRC)))

define unit_test
$(BUILD)/asan/tests/$(basename $(notdir $(1))): $(1) $(wildcard tests/unit/*.h) $(wildcard $(dir $(1))*.h) $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) $$(LIB_CPPFLAGS) -Itests/unit -I$(dir $(1)) $$(ASAN_CFLAGS) -o $$@ $$< $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a $$(LIBS)
endef
$(foreach t,$(UNIT_SRC),$(eval $(call unit_test,$(t))))

CHECK_TARGETS += $(UNIT_BINS)
