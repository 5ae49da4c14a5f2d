#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap plan --topology topology.yaml [--partition P]: the partition's
# topology from slurm.conf beside the file (the cluster default without
# one), the same placement as the equivalent topology.conf, and clear
# refusals (file:line:col, topology/ring named).
source "$(dirname "$0")/../lib.sh"
need_rankmap
in_tmp
cat >topology.yaml <<'Y'
- topology: tree1
  cluster_default: true
  tree:
    switches:
    - switch: leaf1
      nodes: node[01-04]
    - switch: leaf2
      nodes: node[05-08]
    - switch: spine
      children: leaf[1-2]
- topology: block1
  block:
    block_sizes: [4, 8]
    blocks:
    - block: b1
      nodes: node[01-04]
    - block: b2
      nodes: node[05-08]
Y
printf 'PartitionName=train Nodes=node[01-08] Topology=block1\nPartitionName=debug Nodes=node[01-08]\n' >slurm.conf
printf 'BlockSizes=4,8\nBlockName=b1 Nodes=node[01-04]\nBlockName=b2 Nodes=node[05-08]\n' >blocks.conf
two_leaves 'node[01-04]' 'node[05-08]' >tree.conf
P=(plan --gpus-per-node 1 --nodes 'node[01-08]' --order tp-pp-dp --format json)

# TP=4 over nodes needs the blocks' NVLink domains: only block1 has them.
run block-partition 0 "$RANKMAP" "${P[@]}" --layout 4x2x1 --topology topology.yaml --partition train
cp "$OUT" yaml.json
run block-conf 0 "$RANKMAP" "${P[@]}" --layout 4x2x1 --topology blocks.conf
if [ -s "$OUT" ] && cmp -s yaml.json "$OUT"; then pass block-same-map; else fail block-same-map "topology.yaml's block1 and blocks.conf give different maps"; fi
run default-is-tree 1 "$RANKMAP" "${P[@]}" --layout 4x2x1 --topology topology.yaml
has default-is-tree-why "$ERR" 'TP=4 needs an NVLink domain'
run partition-without-topology 1 "$RANKMAP" "${P[@]}" --layout 4x2x1 --topology topology.yaml --partition debug
# The tree: the same map as the topology.conf with the same switches.
run tree-yaml 0 "$RANKMAP" "${P[@]}" --layout 1x2x4 --topology topology.yaml --partition debug
cp "$OUT" tree-yaml.json
run tree-conf 0 "$RANKMAP" "${P[@]}" --layout 1x2x4 --topology tree.conf
if [ -s "$OUT" ] && cmp -s tree-yaml.json "$OUT"; then pass tree-same-map; else fail tree-same-map "topology.yaml's tree1 and tree.conf give different maps"; fi

run unknown-partition 2 "$RANKMAP" "${P[@]}" --layout 1x2x4 --topology topology.yaml --partition nope
has unknown-partition-why "$ERR" '--partition nope: .*slurm.conf defines no such partition'
run partition-on-conf 2 "$RANKMAP" "${P[@]}" --layout 1x2x4 --topology tree.conf --partition train
has partition-on-conf-why "$ERR" 'is a topology.conf'

# Refusals name file:line:col.
printf -- '- topology: t\n  tree:\n    switches:\n    - switch: s1\n      nodes: node[5-1]\n' >bad.yaml
run bad-hostlist 2 "$RANKMAP" "${P[@]}" --layout 1x2x4 --topology bad.yaml
has bad-hostlist-where "$ERR" 'bad.yaml:5:[0-9]+: nodes: .*reversed range'
printf -- '- topology: t\n  ring:\n    rings:\n    - ring: r1\n      nodes: node[01-08]\n' >ring.yaml
run ring-yaml 2 "$RANKMAP" "${P[@]}" --layout 1x2x4 --topology ring.yaml
has ring-yaml-why "$ERR" "ring.yaml:2:3: topology 't' uses topology/ring.*supports topology/tree, topology/block and topology/flat"
mkdir ring && printf 'TopologyPlugin=topology/ring\n' >ring/slurm.conf && cp tree.conf ring/topology.conf
run ring-plugin 2 "$RANKMAP" "${P[@]}" --layout 1x2x4 --topology ring/topology.conf
has ring-plugin-why "$ERR" 'TopologyPlugin=topology/ring: rankmap cannot place on topology/ring'
printf 'RingName=r1 Nodes=node[01-08]\n' >ring.conf
run ring-conf 2 "$RANKMAP" "${P[@]}" --layout 1x2x4 --topology ring.conf
has ring-conf-why "$ERR" "ring.conf:1:1: RingName= is topology/ring's"
finish
