#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_segments.sh - --consolidate-segments / --spread-segments (Slurm 25.11+)
# and the lua templates that set them, on the real slurmctld 26.05 of the
# Debian unstable root: tests/slurm26/segments.sh run inside it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../roots/libroot.sh"
SUITE=segments
root_exec slurm26 tests/slurm26/segments.sh
