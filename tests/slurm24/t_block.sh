#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_block.sh - topology/block (Slurm 23.11+) on the real slurmctld 24.11 of
# the Debian 13 root: tests/slurm24/block.sh run inside it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../roots/libroot.sh"
SUITE=block
root_exec slurm24 tests/slurm24/block.sh
