#!/usr/bin/env bash
# t_block.sh - topology/block (Slurm 23.11+) on the real slurmctld 24.11 of
# the Debian 13 root: tests/slurm24/block.sh run inside it.
. "$(dirname "$0")/../lib.sh"
SUITE=block
cd "$RM_ROOT" || exit 1
. tests/slurm24/lib24.sh
slurm24_ready quiet || exit 0  # t_slurm24.sh says why
exec slurm24/inroot.sh env RM_ROOT="$RM_ROOT" RM_BUILD="$B24" bash tests/slurm24/block.sh
