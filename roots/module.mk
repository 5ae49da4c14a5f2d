# SPDX-License-Identifier: Apache-2.0
# Slurm releases next to the host's Slurm, each in a Debian root of its own
# (roots/NAME.conf says which suite and packages): `make slurm24` makes the
# Debian 13 root (Slurm 24.11), `make slurm26` the Debian unstable one
# (Slurm 26.05), both with roots/mkroot.sh. Where a root exists, `make` also
# builds rankmap.so inside it against that release's headers
# (BUILD/NAME, copied out under its release name) and `make check` runs
# tests/NAME against a cluster of that release.
SLURM24_ROOT ?= /var/cache/rankmap/slurm24/root
SLURM26_ROOT ?= /var/cache/rankmap/slurm26/root

# rm_root NAME VAR: the targets of root NAME, found at $(VAR).
define rm_root
.PHONY: $(1) $(1)-build
$(1):
	@RM_$(2)=$$($(2)) roots/mkroot.sh $(1)

ifneq ($$(wildcard $$($(2))/.rankmap-$(1)),)
# The inner make sees no roots (both at /nonexistent) and builds only the
# plugin and the CLI the suites compare with; it tracks its own deps.
$(1)-build:
	@RM_$(2)=$$($(2)) roots/inroot.sh $(1) make --no-print-directory -j2 \
		SLURM24_ROOT=/nonexistent SLURM26_ROOT=/nonexistent BUILD=$$(BUILD)/$(1) \
		slurm-release-plugin root-test-tools $$(BUILD)/$(1)/rankmap
	@cp -p $$(BUILD)/$(1)/rankmap-slurm*.so $$(BUILD)/

ALL_TARGETS += $(1)-build
endif
endef

$(eval $(call rm_root,slurm24,SLURM24_ROOT))
$(eval $(call rm_root,slurm26,SLURM26_ROOT))
