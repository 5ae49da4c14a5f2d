# SPDX-License-Identifier: Apache-2.0
# librankmap (static, shared, ASan) and the rankmap CLI.
LIB_SRC  := $(wildcard mapper/src/*/*.c)
# librankmap-priv.a: glue only librankmap's own programs share (the CLI,
# the plugin, nccl/, tests); never installed, declared in
# mapper/priv/rankmap_priv.h beside what librankmap.a keeps unexported.
PRIV_SRC := $(wildcard mapper/priv/*.c)
CLI_SRC  := $(wildcard mapper/cli/*.c)
FUZZ_SRC := $(wildcard mapper/fuzz/fuzz_*.c)

$(call obj,$(LIB_SRC) $(PRIV_SRC)) $(call aobj,$(LIB_SRC) $(PRIV_SRC)): CPPFLAGS += $(LIB_CPPFLAGS)

$(BUILD)/librankmap-priv.a: $(call obj,$(PRIV_SRC))
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/asan/librankmap-priv.a: $(call aobj,$(PRIV_SRC))
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/librankmap.a: $(call obj,$(LIB_SRC))
	@rm -f $@
	ar rcs $@ $^

# Exactly the names of rankmap.h, under the version node the map file
# gives (tests/api/t_exports.sh checks the three agree).
$(BUILD)/librankmap.so: $(call obj,$(LIB_SRC)) mapper/librankmap.map
	$(CC) -shared -Wl,-soname,librankmap.so.1 $(LDHARDEN) \
		-Wl,--version-script=mapper/librankmap.map -o $@ $(call obj,$(LIB_SRC)) $(LIBS)

$(BUILD)/rankmap: $(call obj,$(CLI_SRC)) $(BUILD)/librankmap-priv.a $(BUILD)/librankmap.a
	$(CC) $(LDHARDEN) -pie -o $@ $(call obj,$(CLI_SRC)) $(BUILD)/librankmap-priv.a $(BUILD)/librankmap.a $(LIBS)

$(BUILD)/asan/librankmap.a: $(call aobj,$(LIB_SRC))
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/asan/rankmap: $(call aobj,$(CLI_SRC)) $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a
	$(CC) -fsanitize=address,undefined -o $@ $(call aobj,$(CLI_SRC)) $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a $(LIBS)

# Fuzz targets: libFuzzer binaries with `make fuzz` (clang); in `make check`
# each runs under ASan through tests/fuzz_driver.c over its seeds plus
# bounded random mutations.
$(BUILD)/asan/fuzz/%: mapper/fuzz/%.c tests/fuzz_driver.c $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) $(ASAN_CFLAGS) -o $@ $< tests/fuzz_driver.c $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a $(LIBS)

$(BUILD)/fuzz/%: mapper/fuzz/%.c $(LIB_SRC)
	@mkdir -p $(@D)
	clang $(CPPFLAGS) $(LIB_CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -o $@ $< $(LIB_SRC) $(PRIV_SRC) $(LIBS)

FUZZ_BINS := $(patsubst mapper/fuzz/%.c,$(BUILD)/asan/fuzz/%,$(FUZZ_SRC))

fuzz: $(patsubst mapper/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))

# The picture's script and style sheet, compiled into pic_html.c.
PIC_ASSETS := $(BUILD)/gen/pic_assets.h
$(PIC_ASSETS): mapper/src/picture/embed.sh mapper/src/picture/picture.css mapper/src/picture/picture.js
	@mkdir -p $(@D)
	sh mapper/src/picture/embed.sh mapper/src/picture/picture.css mapper/src/picture/picture.js >$@.tmp && mv $@.tmp $@
$(call obj,mapper/src/picture/pic_html.c) $(call aobj,mapper/src/picture/pic_html.c): $(PIC_ASSETS)
$(patsubst mapper/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC)): $(PIC_ASSETS)

ALL_TARGETS   += $(BUILD)/librankmap.a $(BUILD)/librankmap-priv.a $(BUILD)/librankmap.so $(BUILD)/rankmap
CHECK_TARGETS += $(BUILD)/asan/librankmap.a $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/rankmap $(FUZZ_BINS)

# make bench: the picture drawn in headless Chromium (bench/bench_picture.py)
BENCH_BINS += bench/bench_picture.py
bench: $(BUILD)/rankmap

# The ASan build of the shared library, for tests/api's abi_caller: a
# program built against ABI 1's header (tests/api/v1) run
# against this tree's library.
$(BUILD)/asan/librankmap.so.1: $(call aobj,$(LIB_SRC)) mapper/librankmap.map
	$(CC) -shared -fsanitize=address,undefined -Wl,-soname,librankmap.so.1 \
		-Wl,--version-script=mapper/librankmap.map -o $@ $(call aobj,$(LIB_SRC)) $(LIBS)

$(BUILD)/asan/api/abi_caller: tests/api/abi_caller.c tests/api/v1/rankmap.h $(BUILD)/asan/librankmap.so.1
	@mkdir -p $(@D)
	$(CC) -Itests/api/v1 $(ASAN_CFLAGS) -o $@ $< -L$(BUILD)/asan -l:librankmap.so.1 \
		-Wl,-rpath,$(abspath $(BUILD)/asan)

CHECK_TARGETS += $(BUILD)/asan/librankmap.so.1 $(BUILD)/asan/api/abi_caller
