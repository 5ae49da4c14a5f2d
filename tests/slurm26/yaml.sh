#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# yaml.sh - the cluster harness runs slurmctld 26.05 from a topology.yaml
# (Slurm 25.05+) with one topology per partition (run inside the Debian
# unstable root by t_yaml.sh): CLUSTER_TOPOLOGY_YAML and CLUSTER_PARTITIONS
# of tests/slurm/cluster.sh, which the topology.yaml suites build on. A
# tree on partition "tree" (node[1-4], the cluster default) and a block
# topology on partition "blk" (node[5-8]); each partition's job gets its
# own topology's placement from slurmctld.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
cluster_suite yaml

D=$(cluster_tmpdir rankmap-yaml)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/out"
cat >"$D/topology.yaml" <<'EOF2'
---
- topology: fat
  cluster_default: true
  tree:
    switches:
      - switch: spine
        children: leaf[1-2]
      - switch: leaf1
        nodes: node[1-2]
      - switch: leaf2
        nodes: node[3-4]
- topology: nvl
  block:
    block_sizes:
      - 2
    blocks:
      - block: b1
        nodes: node[5-6]
      - block: b2
        nodes: node[7-8]
EOF2
P='State=UP MaxTime=INFINITE OverSubscribe=NO'
if ! CLUSTER_TOPOLOGY_YAML=$D/topology.yaml \
	CLUSTER_PARTITIONS="PartitionName=tree Nodes=node[1-4] Default=YES $P
PartitionName=blk Nodes=node[5-8] Topology=nvl $P" \
	cluster_start "$D" 8 >"$D/out/start.log" 2>&1; then
	fail cluster-start "$(tail -5 "$D/out/start.log"; tail -5 "$D/log/slurmctld.log" 2>/dev/null)"
	exit 1
fi
pass cluster-start
export SLURM_CONF=$D/etc/slurm.conf
hasnt no-topology-plugin "$SLURM_CONF" '^TopologyPlugin='
[ -f "$D/etc/topology.yaml" ] && [ ! -e "$D/etc/topology.conf" ] && pass yaml-only ||
	fail yaml-only "$(ls "$D/etc")"
run partitions 0 scontrol show partition
has partition-blk-topology "$OUT" 'Topology=nvl'
# scontrol shows the cluster default, or the topology named
run topology-default 0 scontrol show topology
has topology-default-tree "$OUT" 'SwitchName=leaf1 .*Nodes=node\[1-2\]'
run topology-nvl 0 scontrol show topology nvl
has topology-nvl-block "$OUT" 'BlockName=b2 .*Nodes=node\[7-8\]'
# whole nodes of one leaf / one block, each job in its partition
run tree-job 0 timeout 60 salloc -I10 -p tree -N2 --exclusive --switches=1 sh -c 'echo "$SLURM_JOB_NODELIST"'
has tree-job-one-leaf "$OUT" '^node\[(1-2|3-4)\]$'
run blk-job 0 timeout 60 salloc -I10 -p blk -N2 --exclusive --segment=2 sh -c 'echo "$SLURM_JOB_NODELIST"'
has blk-job-one-block "$OUT" '^node\[(5-6|7-8)\]$'
finish
