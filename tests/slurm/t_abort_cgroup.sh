#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_abort_cgroup.sh - t_abort.sh's refusals (a rank that is the task, a shell's
# child, a forking launcher's child; the other nodes held) with
# ProctrackType=proctrack/cgroup instead of linuxproc (issue 38.1).
ABORT_PROCTRACK=cgroup exec bash "$(dirname "$0")/t_abort.sh"
