#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_slurm24.sh - the Slurm integration suite (tests/slurm/t_slurm.sh, as it
# is in this checkout) once more against Slurm 24.11: a cluster started
# inside the Debian 13 root of `make slurm24` (roots/inroot.sh: own mount
# namespace; the cluster picks its own ports and munge key as usual), with
# the rankmap.so and CLI built inside that root; then the release checks
# (tests/roots/libroot.sh). Its lines read slurm24/... .
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../roots/libroot.sh"
root_release_suite slurm24
