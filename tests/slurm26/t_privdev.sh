#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_privdev.sh - issue 21.8 in the Slurm 26.05 root: its chroot cannot change
# this machine's /dev (tests/roots/privdev_suite.sh).
. "$(dirname "$0")/../lib.sh"
PRIVDEV_ROOT=slurm26
. "$RM_ROOT/tests/roots/privdev_suite.sh"
