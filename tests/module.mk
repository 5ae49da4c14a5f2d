# Unit tests: tests/unit/test_<module>.c, one binary each, built with ASan.
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/asan/tests/%,$(UNIT_SRC))

$(BUILD)/asan/tests/%: tests/unit/%.c tests/unit/test.h $(BUILD)/asan/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/unit $(ASAN_CFLAGS) -o $@ $< $(BUILD)/asan/librankmap.a $(LIBS)

CHECK_TARGETS += $(UNIT_BINS)
