# SPDX-License-Identifier: Apache-2.0
# rankmap - one Makefile for the library, the CLI, the SPANK plugin and the
# NCCL parts. Components add themselves through */module.mk.
#   make            build everything this machine can build
#   make check      install/verify deps, build (also with ASan+UBSan), run all tests
#   make bench      speed figures, side by side with a baseline
#   make demo       a real local Slurm cluster running a --parallel-layout job
#   make install PREFIX=/usr/local [DESTDIR=...] [LIBDIR=...]; make uninstall
#   make deb        Debian packages into build/deb (make deb-check tests them)
#   make deps       apt-get the Debian 12 packages (as root)

# make's own default CC is "cc", which a minimal Debian lacks until gcc
# is installed (make deps); a CC given on the command line or in the
# environment is kept.
ifeq ($(origin CC),default)
CC := gcc
endif
PREFIX  ?= /usr/local
# Install directories (Debian: LIBDIR=/usr/lib/x86_64-linux-gnu); the
# plugin goes to Slurm's own plugin directory, SLURM_PLUGIN_DIR (pkg/module.mk).
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
BUILD   ?= build
PKGS    := yaml-0.1 hwloc libcrypto

WARN     := -std=c11 -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wvla
HARDEN   := -fstack-protector-strong -fstack-clash-protection -fPIC
CPPFLAGS += -D_GNU_SOURCE -D_FORTIFY_SOURCE=2 -Imapper/include -Imapper/priv \
            $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# librankmap's internal headers (mapper/src/*/...h, named from mapper/src):
# for the library itself and its white-box tests, fuzz targets and
# benchmarks only. The CLI, the plugin and nccl/ build with the public
# headers in mapper/include alone (tests/layers/t_layers.sh checks it).
LIB_CPPFLAGS := -Imapper/src -I$(BUILD)/gen
CFLAGS   ?= -O2 -g
ALL_CFLAGS  = $(WARN) $(HARDEN) $(CFLAGS)
ASAN_CFLAGS = $(WARN) $(HARDEN) -O1 -g -fno-omit-frame-pointer \
              -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDHARDEN := -Wl,-z,relro,-z,now -Wl,--as-needed
LIBS     := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lyaml -lhwloc -lcrypto) -lm

# Object paths: $(call obj,src...) for the normal build, $(call aobj,...) for ASan.
obj  = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
aobj = $(patsubst %.c,$(BUILD)/asan/obj/%.o,$(1))

ALL_TARGETS   :=
CHECK_TARGETS :=
INSTALL_STEPS :=
UNINSTALL_STEPS :=

.PHONY: all check check-all build-check bench demo install uninstall deps deps-demo clean fuzz
all: build-all

include mapper/module.mk
include tests/module.mk
-include spank/module.mk
-include nccl/module.mk
-include bench/module.mk
-include pkg/module.mk
-include python/module.mk
-include roots/module.mk

build-all: $(ALL_TARGETS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/asan/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ASAN_CFLAGS) -MMD -MP -c $< -o $@

# Dependency files of this build only: build/deb and build/rpm hold the
# package builds' own trees (with directories such as plugstack.conf.d),
# which a concurrent make must not read.
-include $(shell find $(BUILD) \( -path '$(BUILD)/deb' -o -path '$(BUILD)/rpm' \) -prune -o -name '*.d' -type f -print 2>/dev/null)

deps:
	@tests/deps.sh install
# what make demo needs, no more (no torch, chromium, packaging tools)
deps-demo:
	@tests/deps.sh install demo

# Everything `make check` runs, without installing deps or running it.
build-check: build-all $(CHECK_TARGETS)

check: deps
	@$(MAKE) --no-print-directory -j2 build-check
	@RM_BUILD=$(abspath $(BUILD)) tests/run.sh

# check-all: make check with the suites too slow for every run (the RPM
# build and its test, tests/pkg/t_rpm.sh).
check-all: deps
	@$(MAKE) --no-print-directory -j2 build-check
	@RM_CHECK_ALL=1 RM_BUILD=$(abspath $(BUILD)) tests/run.sh

# Each part installs itself (INSTALL_STEPS: pkg/module.mk, nccl/module.mk).
install: build-all $(INSTALL_STEPS)
uninstall: $(UNINSTALL_STEPS)

clean:
	rm -rf $(BUILD)
