# SPDX-License-Identifier: Apache-2.0
# librankmap (static, shared, ASan) and the rankmap CLI.
LIB_SRC  := $(wildcard mapper/src/*/*.c)
CLI_SRC  := $(wildcard mapper/cli/*.c)
FUZZ_SRC := $(wildcard mapper/fuzz/fuzz_*.c)

$(call obj,$(LIB_SRC)) $(call aobj,$(LIB_SRC)): CPPFLAGS += $(LIB_CPPFLAGS)

$(BUILD)/librankmap.a: $(call obj,$(LIB_SRC))
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/librankmap.so: $(call obj,$(LIB_SRC))
	$(CC) -shared -Wl,-soname,librankmap.so.0 $(LDHARDEN) -o $@ $^ $(LIBS)

$(BUILD)/rankmap: $(call obj,$(CLI_SRC)) $(BUILD)/librankmap.a
	$(CC) $(LDHARDEN) -pie -o $@ $(call obj,$(CLI_SRC)) $(BUILD)/librankmap.a $(LIBS)

$(BUILD)/asan/librankmap.a: $(call aobj,$(LIB_SRC))
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/asan/rankmap: $(call aobj,$(CLI_SRC)) $(BUILD)/asan/librankmap.a
	$(CC) -fsanitize=address,undefined -o $@ $(call aobj,$(CLI_SRC)) $(BUILD)/asan/librankmap.a $(LIBS)

# Fuzz targets: libFuzzer binaries with `make fuzz` (clang); in `make check`
# each runs under ASan through tests/fuzz_driver.c over its seeds plus
# bounded random mutations.
$(BUILD)/asan/fuzz/%: mapper/fuzz/%.c tests/fuzz_driver.c $(BUILD)/asan/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) $(ASAN_CFLAGS) -o $@ $< tests/fuzz_driver.c $(BUILD)/asan/librankmap.a $(LIBS)

$(BUILD)/fuzz/%: mapper/fuzz/%.c $(LIB_SRC)
	@mkdir -p $(@D)
	clang $(CPPFLAGS) $(LIB_CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -o $@ $< $(LIB_SRC) $(LIBS)

FUZZ_BINS := $(patsubst mapper/fuzz/%.c,$(BUILD)/asan/fuzz/%,$(FUZZ_SRC))

fuzz: $(patsubst mapper/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))

# The picture's script and style sheet, compiled into pic_html.c.
PIC_ASSETS := $(BUILD)/gen/pic_assets.h
$(PIC_ASSETS): mapper/src/picture/embed.sh mapper/src/picture/picture.css mapper/src/picture/picture.js
	@mkdir -p $(@D)
	sh mapper/src/picture/embed.sh mapper/src/picture/picture.css mapper/src/picture/picture.js >$@.tmp && mv $@.tmp $@
$(call obj,mapper/src/picture/pic_html.c) $(call aobj,mapper/src/picture/pic_html.c): $(PIC_ASSETS)
$(patsubst mapper/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC)): $(PIC_ASSETS)

ALL_TARGETS   += $(BUILD)/librankmap.a $(BUILD)/librankmap.so $(BUILD)/rankmap
CHECK_TARGETS += $(BUILD)/asan/librankmap.a $(BUILD)/asan/rankmap $(FUZZ_BINS)

# make bench: the picture drawn in headless Chromium (bench/bench_picture.py)
BENCH_BINS += bench/bench_picture.py
bench: $(BUILD)/rankmap
