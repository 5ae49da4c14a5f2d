#!/usr/bin/env bash
# t_block.sh - topology/block (Slurm 23.11+) on the real slurmctld 24.11 of
# the Debian 13 root: tests/slurm24/block.sh run inside it.
. "$(dirname "$0")/../lib.sh"
SUITE=block
cd "$RM_ROOT" || exit 1
B24=$RM_BUILD/slurm24
if ! why=$(slurm24/inroot.sh true); then
	skip slurm24 "${why#slurm24: }"
	exit 0
fi
if [ ! -f "$B24/rankmap.so" ] || [ ! -x "$B24/rankmap" ]; then
	fail build "$B24/rankmap.so or $B24/rankmap was not built (make)"
	exit 1
fi
exec slurm24/inroot.sh env RM_ROOT="$RM_ROOT" RM_BUILD="$B24" bash tests/slurm24/block.sh
