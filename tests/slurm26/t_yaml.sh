#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_yaml.sh - slurmctld 26.05 of the Debian unstable root run from a
# topology.yaml with a topology per partition: tests/slurm26/yaml.sh.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../roots/libroot.sh"
SUITE=yaml
root_exec slurm26 tests/slurm26/yaml.sh
