# SPDX-License-Identifier: Apache-2.0
# librankmap-nccl (.so, .a) and rankmap-nccl-check, where CUDA's NCCL is
# found (CUDA_HOME, default /usr/local/cuda; libraries in lib/ or lib64/).
# Unit tests of the GPU-free parts: tests/nccl/test_nccl_*.c, built with
# ASan as $(BUILD)/asan/tests/test_nccl_* so tests/run.sh runs them.
CUDA_HOME   ?= /usr/local/cuda
NCCL_INC    := $(CUDA_HOME)/include
NCCL_LIBDIR := $(firstword $(foreach d,lib64 lib targets/x86_64-linux/lib,\
		$(if $(wildcard $(CUDA_HOME)/$(d)/libnccl.so*),$(CUDA_HOME)/$(d))))

# libsodium (libsodium-dev) seals the id exchange in secret mode.
NCCL_SODIUM := $(wildcard /usr/include/sodium.h)

ifneq ($(and $(wildcard $(NCCL_INC)/nccl.h),$(NCCL_LIBDIR),$(NCCL_SODIUM)),)

NCCL_LIB_SRC   := nccl/errors.c nccl/exchange.c nccl/exchange_msg.c \
		  nccl/exchange_root.c nccl/exchange_peer.c nccl/auth.c \
		  nccl/groups.c nccl/groups_combined.c nccl/busbw.c nccl/comm.c \
		  nccl/comm_env.c
NCCL_CHECK_SRC := $(wildcard nccl/check_*.c)
NCCL_TEST_SRC  := $(wildcard tests/nccl/test_nccl_*.c)
NCCL_TEST_HDRS := $(wildcard tests/nccl/*.h)
NCCL_ALL_SRC   := $(NCCL_LIB_SRC) $(NCCL_CHECK_SRC)
NCCL_LINK      := -L$(NCCL_LIBDIR) -Wl,-rpath,$(NCCL_LIBDIR) -lnccl -lcudart \
		  -lsodium
# MUNGE authenticates the id exchange where the cluster runs it; without
# libmunge-dev the library still builds, with the secret's mode only.
ifneq ($(wildcard /usr/include/munge.h),)
NCCL_MUNGE     := -DRMN_HAVE_MUNGE
NCCL_LINK      += -lmunge
endif
# What the exchange's crypto needs where NCCL itself is not linked.
NCCL_CRYPTO    := -lsodium $(if $(NCCL_MUNGE),-lmunge)

$(call obj,$(NCCL_ALL_SRC)) $(call aobj,$(NCCL_ALL_SRC)): \
	CPPFLAGS += -Inccl -I$(NCCL_INC) $(NCCL_MUNGE)

$(BUILD)/librankmap-nccl.a: $(call obj,$(NCCL_LIB_SRC))
	@rm -f $@
	ar rcs $@ $^

# Self-contained: the librankmap pieces it needs are linked in and kept
# out of its symbol table, so it sits beside librankmap.so without clashes.
$(BUILD)/librankmap-nccl.so: $(call obj,$(NCCL_LIB_SRC)) $(BUILD)/librankmap-priv.a $(BUILD)/librankmap.a
	$(CC) -shared -Wl,-soname,librankmap-nccl.so $(LDHARDEN) -Wl,-z,defs \
		-Wl,--exclude-libs,ALL -o $@ $(call obj,$(NCCL_LIB_SRC)) \
		$(BUILD)/librankmap-priv.a $(BUILD)/librankmap.a $(LIBS) $(NCCL_LINK)

$(BUILD)/rankmap-nccl-check: $(call obj,$(NCCL_CHECK_SRC)) \
		$(BUILD)/librankmap-nccl.a $(BUILD)/librankmap-priv.a $(BUILD)/librankmap.a
	$(CC) $(LDHARDEN) -pie -o $@ $(call obj,$(NCCL_CHECK_SRC)) \
		$(BUILD)/librankmap-nccl.a $(BUILD)/librankmap-priv.a $(BUILD)/librankmap.a $(LIBS) \
		$(NCCL_LINK)

$(BUILD)/asan/librankmap-nccl.a: $(call aobj,$(NCCL_LIB_SRC))
	@rm -f $@
	ar rcs $@ $^

# The tests may use the check's GPU-free pieces too (options, report).
NCCL_TEST_OBJS := $(call aobj,$(filter-out nccl/check_main.c nccl/check_run.c,\
		  $(NCCL_CHECK_SRC)))

$(BUILD)/asan/tests/test_nccl_%: tests/nccl/test_nccl_%.c tests/unit/test.h $(NCCL_TEST_HDRS) \
		$(NCCL_TEST_OBJS) $(BUILD)/asan/librankmap-nccl.a \
		$(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) -Inccl -I$(NCCL_INC) -Itests/unit $(ASAN_CFLAGS) \
		-o $@ $< $(NCCL_TEST_OBJS) $(BUILD)/asan/librankmap-nccl.a \
		$(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a $(LIBS) -Wl,--as-needed $(NCCL_LINK)

# The check's GPU side, run by threads over host-memory CUDA and NCCL
# stand-ins instead of the real libraries.
$(BUILD)/asan/tests/test_nccl_run: tests/nccl/test_nccl_run.c \
		tests/nccl/fake_gpu.c tests/nccl/fake_gpu.h tests/unit/test.h $(NCCL_TEST_HDRS) \
		$(NCCL_TEST_OBJS) $(call aobj,nccl/check_run.c) \
		$(BUILD)/asan/librankmap-nccl.a $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) -Inccl -I$(NCCL_INC) -Itests/unit $(ASAN_CFLAGS) \
		-o $@ tests/nccl/test_nccl_run.c tests/nccl/fake_gpu.c \
		$(NCCL_TEST_OBJS) $(call aobj,nccl/check_run.c) \
		$(BUILD)/asan/librankmap-nccl.a $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a \
		$(LIBS) $(NCCL_CRYPTO) -lpthread

# The exchange's message parsers as a fuzz target: under ASan over its
# seeds (mapper/fuzz/seeds/exchange) in `make check`, libFuzzer with
# `make fuzz`.
NCCL_FUZZ_OBJ := nccl/exchange_msg.c nccl/auth.c nccl/errors.c
$(BUILD)/asan/fuzz/fuzz_exchange: nccl/fuzz/fuzz_exchange.c \
		tests/fuzz_driver.c $(call aobj,$(NCCL_FUZZ_OBJ)) \
		$(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) -Inccl -I$(NCCL_INC) $(NCCL_MUNGE) $(ASAN_CFLAGS) \
		-o $@ $< tests/fuzz_driver.c $(call aobj,$(NCCL_FUZZ_OBJ)) \
		$(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a $(LIBS) $(NCCL_CRYPTO)

$(BUILD)/fuzz/fuzz_exchange: nccl/fuzz/fuzz_exchange.c $(NCCL_FUZZ_OBJ) \
		$(LIB_SRC)
	@mkdir -p $(@D)
	clang $(CPPFLAGS) $(LIB_CPPFLAGS) -Inccl -I$(NCCL_INC) $(NCCL_MUNGE) -std=c11 -g -O1 \
		-fsanitize=fuzzer,address,undefined -o $@ $< $(NCCL_FUZZ_OBJ) \
		$(LIB_SRC) $(LIBS) $(NCCL_CRYPTO)

fuzz: $(BUILD)/fuzz/fuzz_exchange

# The communicators' set-up (comm.c) over the same stand-ins, with the
# real id exchange between threads.
$(BUILD)/asan/tests/test_nccl_init: tests/nccl/test_nccl_init.c \
		tests/nccl/fake_gpu.c tests/nccl/fake_gpu.h tests/unit/test.h $(NCCL_TEST_HDRS) \
		$(BUILD)/asan/librankmap-nccl.a $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) -Inccl -I$(NCCL_INC) -Itests/unit $(ASAN_CFLAGS) \
		-DNCCL_SO='"$(NCCL_LIBDIR)/libnccl.so.2"' \
		-o $@ tests/nccl/test_nccl_init.c tests/nccl/fake_gpu.c \
		$(BUILD)/asan/librankmap-nccl.a $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a \
		$(LIBS) $(NCCL_CRYPTO) -lpthread -ldl

# One task of the id exchange for the Slurm suite (tests/slurm/t_slurm.sh).
$(BUILD)/asan/tests/probe_exchange: tests/nccl/probe_exchange.c \
		$(BUILD)/asan/librankmap-nccl.a $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(LIB_CPPFLAGS) -Inccl -I$(NCCL_INC) $(ASAN_CFLAGS) -o $@ $< \
		$(BUILD)/asan/librankmap-nccl.a $(BUILD)/asan/librankmap-priv.a $(BUILD)/asan/librankmap.a \
		$(LIBS) $(NCCL_CRYPTO)

install-nccl: $(BUILD)/librankmap-nccl.so $(BUILD)/librankmap-nccl.a \
		$(BUILD)/rankmap-nccl-check
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR)
	install -m 755 $(BUILD)/rankmap-nccl-check $(DESTDIR)$(BINDIR)/
	install -m 644 $(BUILD)/librankmap-nccl.so $(DESTDIR)$(LIBDIR)/
	install -m 644 $(BUILD)/librankmap-nccl.a $(DESTDIR)$(LIBDIR)/
	install -m 644 nccl/rankmap_nccl.h $(DESTDIR)$(INCLUDEDIR)/
	$(call pc_file,pkg/rankmap-nccl.pc.in,$(DESTDIR)$(LIBDIR)/pkgconfig/rankmap-nccl.pc)

uninstall-nccl:
	rm -f $(DESTDIR)$(BINDIR)/rankmap-nccl-check \
		$(DESTDIR)$(LIBDIR)/librankmap-nccl.so \
		$(DESTDIR)$(LIBDIR)/librankmap-nccl.a \
		$(DESTDIR)$(INCLUDEDIR)/rankmap_nccl.h \
		$(DESTDIR)$(LIBDIR)/pkgconfig/rankmap-nccl.pc

.PHONY: install-nccl uninstall-nccl
ALL_TARGETS   += $(BUILD)/librankmap-nccl.a $(BUILD)/librankmap-nccl.so \
		 $(BUILD)/rankmap-nccl-check
CHECK_TARGETS += $(patsubst tests/nccl/%.c,$(BUILD)/asan/tests/%,$(NCCL_TEST_SRC)) \
		 $(BUILD)/asan/fuzz/fuzz_exchange $(BUILD)/asan/tests/probe_exchange
INSTALL_STEPS += install-nccl
UNINSTALL_STEPS += uninstall-nccl
# what the Slurm suites of a root (roots/module.mk) need built inside it
.PHONY: root-test-tools
root-test-tools: $(BUILD)/asan/tests/probe_exchange

else
.PHONY: root-test-tools
root-test-tools:

ifeq ($(and $(wildcard $(NCCL_INC)/nccl.h),$(NCCL_LIBDIR)),)
$(info rankmap: no NCCL under $(CUDA_HOME) (nccl.h, libnccl.so): librankmap-nccl and rankmap-nccl-check skipped)
else
$(info rankmap: no libsodium (sodium.h; apt-get install libsodium-dev): librankmap-nccl and rankmap-nccl-check skipped)
endif
endif
