#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_block.sh - topology/block on the real slurmctld 26.05 of the Debian
# unstable root: tests/slurm24/block.sh (the same files, jobs and
# --segment cases as on 24.11) run inside it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../roots/libroot.sh"
SUITE=block
root_exec slurm26 tests/slurm24/block.sh
