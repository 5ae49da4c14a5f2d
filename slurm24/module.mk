# Slurm 24.11 next to the host's Slurm: `make slurm24` makes the Debian 13
# root (slurm24/mkroot.sh); when it exists, `make` also builds rankmap.so
# inside it against 24.11's headers (BUILD/slurm24, copied out under its
# release name), and `make check` runs tests/slurm24 against a 24.11 cluster.
SLURM24_ROOT ?= /var/cache/rankmap/slurm24/root

.PHONY: slurm24 slurm24-build
slurm24:
	@RM_SLURM24_ROOT=$(SLURM24_ROOT) slurm24/mkroot.sh

ifneq ($(wildcard $(SLURM24_ROOT)/.rankmap-slurm24),)
# The inner make sees no root (SLURM24_ROOT=/nonexistent) and builds only
# the plugin and the CLI the suite compares with; it tracks its own deps.
slurm24-build:
	@RM_SLURM24_ROOT=$(SLURM24_ROOT) slurm24/inroot.sh make --no-print-directory -j2 \
		SLURM24_ROOT=/nonexistent BUILD=$(BUILD)/slurm24 slurm-release-plugin $(BUILD)/slurm24/rankmap
	@cp -p $(BUILD)/slurm24/rankmap-slurm*.so $(BUILD)/

ALL_TARGETS += slurm24-build
endif
