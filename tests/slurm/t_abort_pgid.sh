#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_abort_pgid.sh - t_abort.sh's refusals (a rank that is the task, a shell's
# child, a forking launcher's child; the other nodes held) with
# ProctrackType=proctrack/pgid instead of linuxproc (issue 38.1).
ABORT_PROCTRACK=pgid exec bash "$(dirname "$0")/t_abort.sh"
