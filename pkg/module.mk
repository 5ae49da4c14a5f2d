# SPDX-License-Identifier: Apache-2.0
# Installing and packaging: `make install` / `make uninstall` (PREFIX,
# DESTDIR, BINDIR, LIBDIR, INCLUDEDIR, MANDIR, SYSCONFDIR, SLURM_PLUGIN_DIR),
# the man pages (pkg/man/*.scd, scdoc), pkg-config files, bash completion,
# the plugstack.conf.d example, `make deb` / `make deb-check` (debian/) and
# `make rpm` / `make rpm-check` (pkg/rpm/).
VERSION := $(shell sed -n 's/^\#define RM_VERSION_STRING "\(.*\)"/\1/p' \
	mapper/include/rankmap.h)

# Where slurmd looks for plugins: Slurm's pkg-config file where it has one,
# else the directory holding Slurm's own plugins (Debian:
# /usr/lib/<multiarch>/slurm-wlm), else LIBDIR/slurm.
SLURM_PLUGIN_DIR ?= $(or \
	$(shell pkg-config --variable=libdir slurm 2>/dev/null | sed 's|$$|/slurm|'),\
	$(patsubst %/,%,$(dir $(firstword $(wildcard \
		/usr/lib/*/slurm-wlm/auth_munge.so /usr/lib64/slurm/auth_munge.so \
		/usr/lib/slurm/auth_munge.so /usr/local/lib/slurm/auth_munge.so)))),\
	$(LIBDIR)/slurm)

# pc_file IN,OUT: a pkg-config file with this install's directories.
pc_file = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	$(1) >$(2) && chmod 644 $(2)

# Man pages: one scdoc source each. rankmap-nccl-check(1) only where the
# check is built; rankmap.so(8) is a link to rankmap-spank(8).
MAN_SRC   := pkg/man/rankmap.1.scd pkg/man/rankmap-site.5.scd \
	     pkg/man/rankmap-spank.8.scd \
	     $(if $(NCCL_LIB_SRC),pkg/man/rankmap-nccl-check.1.scd)
MAN_PAGES := $(patsubst pkg/man/%.scd,$(BUILD)/man/%,$(MAN_SRC))

$(BUILD)/man/%: pkg/man/%.scd
	@mkdir -p $(@D)
	scdoc <$< >$@.tmp || { rm -f $@.tmp; exit 1; }
	mv $@.tmp $@

ifneq ($(shell command -v scdoc 2>/dev/null),)
ALL_TARGETS += $(MAN_PAGES)
else
$(info rankmap: scdoc not found: man pages not built (apt-get install scdoc))
endif

# librankmap's ABI (mapper/librankmap.map's version node), not the release.
ABI   := $(shell sed -n 's/^\#define RM_ABI_VERSION \([0-9]*\)/\1/p' \
	mapper/include/rankmap.h)
SOLIB := librankmap.so.$(ABI).$(VERSION)
# Templates and example sites, installed read-only for admins to copy.
SHAREDIR := $(DATADIR)/rankmap
EXAMPLE_SITES := $(notdir $(patsubst %/site.yaml,%,$(wildcard site/*/site.yaml)))

install-core: $(BUILD)/rankmap $(BUILD)/librankmap.a $(BUILD)/librankmap.so \
		$(MAN_PAGES)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions
	install -m 755 $(BUILD)/rankmap $(DESTDIR)$(BINDIR)/rankmap
	install -m 644 $(BUILD)/librankmap.a $(DESTDIR)$(LIBDIR)/
	install -m 644 $(BUILD)/librankmap.so $(DESTDIR)$(LIBDIR)/$(SOLIB)
	ln -sf $(SOLIB) $(DESTDIR)$(LIBDIR)/librankmap.so.$(ABI)
	ln -sf librankmap.so.$(ABI) $(DESTDIR)$(LIBDIR)/librankmap.so
	install -m 644 mapper/include/rankmap.h $(DESTDIR)$(INCLUDEDIR)/
	$(call pc_file,pkg/rankmap.pc.in,$(DESTDIR)$(LIBDIR)/pkgconfig/rankmap.pc)
	install -m 644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(filter %.5,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man5/
	install -m 644 $(filter %.8,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man8/
	echo '.so man8/rankmap-spank.8' >$(DESTDIR)$(MANDIR)/man8/rankmap.so.8
	install -m 644 pkg/rankmap.bash \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/rankmap
	@# what an admin starts from: job scripts, the site file, the Lua
	@# filters, and the example sites of docs/site.md
	install -d $(DESTDIR)$(SHAREDIR)/templates/lua
	install -m 644 $(filter-out templates/lua,$(wildcard templates/*)) \
		$(DESTDIR)$(SHAREDIR)/templates/
	install -m 644 templates/lua/*.lua $(DESTDIR)$(SHAREDIR)/templates/lua/
	for s in $(EXAMPLE_SITES); do \
		install -d $(DESTDIR)$(SHAREDIR)/examples/site/$$s && \
		install -m 644 site/$$s/* $(DESTDIR)$(SHAREDIR)/examples/site/$$s/ || exit 1; \
	done
	@# without this a program linked with -lrankmap finds no librankmap.so.$(ABI)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then \
		echo ldconfig; ldconfig; fi

uninstall-core:
	rm -f $(DESTDIR)$(BINDIR)/rankmap $(DESTDIR)$(LIBDIR)/librankmap.a \
		$(DESTDIR)$(LIBDIR)/$(SOLIB) $(DESTDIR)$(LIBDIR)/librankmap.so.$(ABI) \
		$(DESTDIR)$(LIBDIR)/librankmap.so \
		$(DESTDIR)$(INCLUDEDIR)/rankmap.h \
		$(DESTDIR)$(LIBDIR)/pkgconfig/rankmap.pc \
		$(DESTDIR)$(MANDIR)/man1/rankmap.1 \
		$(DESTDIR)$(MANDIR)/man1/rankmap-nccl-check.1 \
		$(DESTDIR)$(MANDIR)/man5/rankmap-site.5 \
		$(DESTDIR)$(MANDIR)/man8/rankmap-spank.8 \
		$(DESTDIR)$(MANDIR)/man8/rankmap.so.8 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/rankmap
	rm -rf $(DESTDIR)$(SHAREDIR)

INSTALL_STEPS   += install-core
UNINSTALL_STEPS += uninstall-core

# The plugin, into Slurm's plugin directory, and an inactive example for
# plugstack.conf.d (Debian's plugstack.conf includes plugstack.conf.d/*.conf;
# rename it to rankmap.conf once the site file is in place).
ifneq ($(SPANK_H),)
PLUGSTACK_D := $(SYSCONFDIR)/slurm/plugstack.conf.d
install-plugin: $(BUILD)/rankmap.so
	install -d $(DESTDIR)$(SLURM_PLUGIN_DIR) $(DESTDIR)$(PLUGSTACK_D)
	install -m 644 $(BUILD)/rankmap.so $(DESTDIR)$(SLURM_PLUGIN_DIR)/rankmap.so
	sed -e 's|@PLUGIN@|$(SLURM_PLUGIN_DIR)/rankmap.so|' \
		-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|' pkg/plugstack-rankmap.conf \
		>$(DESTDIR)$(PLUGSTACK_D)/rankmap.conf.example
	chmod 644 $(DESTDIR)$(PLUGSTACK_D)/rankmap.conf.example

uninstall-plugin:
	rm -f $(DESTDIR)$(SLURM_PLUGIN_DIR)/rankmap.so \
		$(DESTDIR)$(PLUGSTACK_D)/rankmap.conf.example

INSTALL_STEPS   += install-plugin
UNINSTALL_STEPS += uninstall-plugin
endif

# Debian packages, built from a copy of the tracked sources (so the build
# never sees this tree's build/ and nothing lands outside build/deb).
deb:
	@BUILD=$(abspath $(BUILD)) pkg/deb.sh

deb-check: deb
	@BUILD=$(abspath $(BUILD)) tests/pkg/deb_check.sh

# RPM packages (pkg/rpm/rankmap.spec), the same way; RPMBUILD_ARGS pass
# through (--define 'slurm_prefix /opt/slurm').
rpm:
	@BUILD=$(abspath $(BUILD)) pkg/rpm.sh $(RPMBUILD_ARGS)

rpm-check: rpm
	@BUILD=$(abspath $(BUILD)) tests/pkg/rpm_check.sh

.PHONY: install-core uninstall-core install-plugin uninstall-plugin deb deb-check rpm rpm-check
