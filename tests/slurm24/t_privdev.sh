#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_privdev.sh - issue 21.8 in the Slurm 24.11 root: its chroot cannot change
# this machine's /dev (tests/roots/privdev_suite.sh).
. "$(dirname "$0")/../lib.sh"
PRIVDEV_ROOT=slurm24
. "$RM_ROOT/tests/roots/privdev_suite.sh"
