#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_topo_yaml.sh - rankmap's topology.yaml reading against slurmctld 26.05
# in the Debian unstable root: tests/slurm26/topo_yaml.sh.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../roots/libroot.sh"
SUITE=topo_yaml
root_exec slurm26 tests/slurm26/topo_yaml.sh
