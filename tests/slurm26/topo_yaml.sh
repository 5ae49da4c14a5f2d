#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# topo_yaml.sh - rankmap's topology.yaml against slurmctld 26.05's (run in
# the Debian unstable root by t_topo_yaml.sh). Eight nodes, one
# topology.yaml beside slurm.conf and no topology.conf: a tree "fat" (two
# leaves of two nodes) for partition "tree" (the cluster default) and a
# block topology "nvl" (two blocks of two) for partition "blk".
#  - each partition's step gets the placement of its own topology: in
#    "blk" TP=2 over two 1-task nodes sits inside one of slurmctld's blocks,
#    in "tree" the same layout is refused (no NVLink domain there), and a
#    PP=2 job's pipeline pairs stay inside a leaf;
#  - rankmap (rankmap plan --topology F --partition P) and slurmctld
#    accept and refuse the same topology.yaml files.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
. "$RM_ROOT/tests/slurm24/blocklib.sh"
cluster_suite topo_yaml

D=$(cluster_tmpdir rankmap-topoyaml)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/out" "$D/v"
TREE='- topology: fat
  cluster_default: true
  tree:
    switches:
      - switch: spine
        children: leaf[1-2]
      - switch: leaf1
        nodes: node[1-2]
      - switch: leaf2
        nodes: node[3-4]'
BLK='- topology: nvl
  block:
    block_sizes: [2]
    blocks:
      - block: b1
        nodes: node[5-6]
      - block: b2
        nodes: node[7-8]'
printf '%s\n%s\n' "$TREE" "$BLK" >"$D/topology.yaml"
P='State=UP MaxTime=INFINITE OverSubscribe=NO'
if ! CLUSTER_TOPOLOGY_YAML=$D/topology.yaml \
	CLUSTER_PARTITIONS="PartitionName=tree Nodes=node[1-4] Default=YES $P
PartitionName=blk Nodes=node[5-8] Topology=nvl $P" \
	cluster_start "$D" 8 "$PLUGIN" "runtime_dir=$D/rt" >"$D/out/start.log" 2>&1; then
	fail cluster-start "$(tail -5 "$D/out/start.log"; tail -5 "$D/log/slurmctld.log" 2>/dev/null)"
	exit 1
fi
pass cluster-start
export SLURM_CONF=$D/etc/slurm.conf
[ -f "$D/etc/topology.yaml" ] && [ ! -e "$D/etc/topology.conf" ] && pass yaml-only ||
	fail yaml-only "$(ls "$D/etc")"

# ---- each partition's step placed on its own topology
TASK='echo "T $SLURMD_NODENAME tp=$RANKMAP_TP_RANK ep=0 pp=$RANKMAP_PP_RANK dp=$RANKMAP_DP_RANK edp=0"'
scontrol show topology nvl >"$D/out/topo.txt" 2>&1
while read -r blk nodes; do
	for n in $(scontrol show hostnames "$nodes"); do echo "$n $blk"; done
done < <(sed -n 's/^BlockName=\([^ ]*\) .*Nodes=\([^ ]*\).*/\1 \2/p' "$D/out/topo.txt") >"$D/out/node-block.txt"
[ "$(wc -l <"$D/out/node-block.txt")" -eq 4 ] && pass slurm-blocks || fail slurm-blocks "$(cat "$D/out/topo.txt")"
run blk-tp2 0 timeout 60 srun -p blk -N4 --ntasks-per-node=1 --parallel-layout=2x1x2 sh -c "$TASK"
cp "$OUT" "$D/out/blk.txt"
inside blk-tp-in-block "$D/out/blk.txt" "pp dp" 4 2
run tree-tp2 1 timeout 60 srun -p tree -N4 --ntasks-per-node=1 --parallel-layout=2x1x2 sh -c "$TASK"
has tree-tp2-why "$ERR" 'rankmap: .*TP=2 needs an NVLink domain'
# PP pairs inside a leaf on the tree partition (the leaves of "fat")
run tree-pp2 0 timeout 60 srun -p tree -N4 --ntasks-per-node=1 --parallel-layout=1x2x2 sh -c "$TASK"
printf '%s\n' "node1 leaf1" "node2 leaf1" "node3 leaf2" "node4 leaf2" >"$D/out/node-block.txt"
cp "$OUT" "$D/out/tree.txt"
inside tree-pp-in-leaf "$D/out/tree.txt" "tp dp" 4 2
# What the CLI gives for the same partition and nodes is what the job got.
run cli-blk 0 "$CLI" plan --topology "$D/etc/topology.yaml" --partition blk --layout 2x1x2 \
	--gpus-per-node 1 --nodes 'node[5-8]' --format text
has cli-blk-in-domain "$OUT" 'PASS  TP groups inside one NVLink domain \(0 of 2 split\)'
run cli-tree 1 "$CLI" plan --topology "$D/etc/topology.yaml" --partition tree --layout 2x1x2 \
	--gpus-per-node 1 --nodes 'node[1-4]' --format text
has cli-tree-why "$ERR" 'TP=2 needs an NVLink domain'

# ---- the same topology.yaml files accepted and refused
CTLD_ERRORS='fatal:|error: '
# yvariant NAME CTLD_REASON RANKMAP_REASON TEXT: both accept (reasons
# empty), or both refuse, each saying why (grep -E); CTLD_REASON "accept":
# slurmctld runs it and rankmap refuses (topology/ring, which rankmap
# cannot place on: refused by design, for that partition only).
yvariant() {
	local name=$1 cr=$2 rr=$3 f verdict msg p
	f=$D/v/$name/topology.yaml
	mkdir -p "$D/v/$name"
	printf '%s\n' "$4" >"$f"
	cp "$SLURM_CONF" "$D/v/$name/slurm.conf"
	: $RANDOM
	verdict=$(ctld_verdict "$f" topology.yaml)
	msg=
	for p in tree:node[1-2] blk:node[5-6]; do
		[ -n "$msg" ] && break
		msg=$("$CLI" plan --layout 1x1x2 --nodes "${p#*:}" --gpus-per-node 1 --topology "$f" \
			--partition "${p%%:*}" --format json 2>&1 >/dev/null)
	done
	if [ "$cr" = accept ]; then
		if [ "$verdict" = ACCEPT ] && grep -qE -- "$rr" <<<"$msg"; then pass "yaml-$name"; else
			fail "yaml-$name" "slurmctld: $verdict (expected ACCEPT); rankmap: ${msg:-accepted}"
		fi
	elif [ -z "$cr" ]; then
		if [ "$verdict" = ACCEPT ] && [ -z "$msg" ]; then pass "yaml-$name"; else
			fail "yaml-$name" "slurmctld: $verdict; rankmap: ${msg:-accepted}"
		fi
	elif [[ $verdict == REFUSE* ]] && grep -qE -- "$cr" <<<"$verdict" && grep -qE -- "$rr" <<<"$msg"; then
		pass "yaml-$name"
	else
		fail "yaml-$name" "slurmctld: $verdict; rankmap: ${msg:-accepted}"
	fi
}
yvariant both "" "" "$TREE
$BLK"
yvariant one-mapping "" "" "topology: nvl
cluster_default: true
block:
  blocks:
    - {block: b1, nodes: 'node[1-4]'}
    - {block: b2, nodes: 'node[5-8]'}"
yvariant gap "" "" "$TREE
- topology: nvl
  block:
    block_sizes: [4]
    blocks:
      - {block: b1, nodes: 'node[5-7]'}
      - {block: b2, nodes: node8}"
yvariant flat "" "" "- topology: fat
  flat: true
- topology: nvl
  flat: true"
yvariant no-nvl 'topolog' "no topology named 'nvl'" "$TREE"
yvariant bad-sizes 'BlockSizes|block_sizes|Invalid' "block_sizes: '3' is not the base block size 2" "$TREE
- topology: nvl
  block:
    block_sizes: [2, 3]
    blocks:
      - {block: b1, nodes: 'node[5-6]'}"
yvariant unknown-child 'switch|leaf9|Switches' "children names 'leaf9'" "- topology: fat
  tree:
    switches:
      - {switch: spine, children: 'leaf[1-2],leaf9'}
      - {switch: leaf1, nodes: 'node[1-2]'}
      - {switch: leaf2, nodes: 'node[3-4]'}
$BLK"
yvariant two-types 'Failed to load topology.yaml' "both .* and .*exactly one" "- topology: fat
  flat: true
  tree:
    switches:
      - {switch: s1, nodes: 'node[1-4]'}
$BLK"
yvariant not-yaml 'yaml|YAML|parse|Parse' 'topology.yaml:[0-9]+:[0-9]+:' "- topology: fat
  tree: [
$BLK"
# keys slurmctld does not know: a warning there, ignored here too
yvariant unknown-key "" "" "$TREE
  future_option: 3
$BLK"
yvariant no-default "" "" "- topology: fat
  tree:
    switches:
      - {switch: s1, nodes: 'node[1-4]'}
$BLK"
yvariant ring accept "topology 'nvl' uses topology/ring, which rankmap cannot place on; rankmap supports topology/tree, topology/block and topology/flat" "$TREE
- topology: nvl
  ring:
    rings:
      - {ring: r1, nodes: 'node[5-8]'}"
# a name twice: slurmctld runs it (the first one counts), so does rankmap
yvariant dup-name "" "" "$TREE
$TREE
$BLK"
finish
