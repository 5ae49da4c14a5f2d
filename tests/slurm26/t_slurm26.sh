#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_slurm26.sh - the Slurm integration suite (tests/slurm/t_slurm.sh, as it
# is in this checkout) once more against Slurm 26.05: a cluster started
# inside the Debian unstable root of `make slurm26` (roots/inroot.sh), with
# the rankmap.so and CLI built inside that root; then the release checks
# (tests/roots/libroot.sh). Its lines read slurm26/... .
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../roots/libroot.sh"
root_release_suite slurm26
