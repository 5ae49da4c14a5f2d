#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# block.sh - topology/block on the real slurmctld 24.11 and 26.05 (run
# inside the Debian 13 and unstable roots by tests/slurm24/t_block.sh and
# tests/slurm26/t_block.sh). Eight nodes of 8 GPUs in two NVLink blocks
# of four (GB200 NVL72's 18 nodes x 4 GPUs, scaled down), BlockSizes=4,8.
#  - topology.conf variants: slurmctld and rankmap accept and refuse the
#    same files, for the same reason;
#  - rankmap's blocks are the ones slurmctld reports (scontrol show
#    topology), and TP (and TPxEP where it fits) never leaves one;
#  - --segment: a job split over two blocks gets TP groups inside each, and
#    a TP that cannot fit the job's share of a block is refused under
#    strict, naming the blocks and their sizes;
#  - templates/lua/cli_filter.lua sizes --segment from the layout.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
. "$RM_ROOT/tests/slurm24/blocklib.sh"
cluster_suite block

D=$(cluster_tmpdir rankmap-block)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out" "$D/v"
printf '%s\n' "# two NVLink blocks of 4 nodes x 8 GPUs" "BlockName=nvl1 Nodes=node[1-4]" \
	"BlockName=nvl2 Nodes=node[5-8]" "BlockSizes=4,8" >"$D/blocks.conf"
# templates/lua shapes --parallel-layout jobs: this site's blocks
block_cluster 32 4
has topology-block "$SLURM_CONF" '^TopologyPlugin=topology/block$'

# ---- the same files accepted and refused, for the same reason
# variant NAME CTLD_REASON RANKMAP_REASON LINES...: both accept (reasons
# empty) or both refuse, slurmctld's log and rankmap's error saying why.
variant() {
	local name=$1 cr=$2 rr=$3 f verdict msg
	shift 3
	f=$D/v/$name.conf
	printf '%s\n' "$@" >"$f"
	# $(...) copies $RANDOM's state: advance it here, or every variant's
	# slurmctld draws the same port.
	: $RANDOM
	verdict=$(ctld_verdict "$f")
	msg=$("$CLI" plan --layout 8x1x1 --nodes node1 --gpus-per-node 8 --topology "$f" \
		--format json 2>&1 >/dev/null)
	if [ "$cr" = gap ]; then
		# 25.05+ slurmctld: a gap in a block, accepted; rankmap still
		# refuses it (not yet read as a block with missing nodes)
		if [ "$verdict" = ACCEPT ] && grep -qE -- "$rr" <<<"$msg"; then pass "file-$name"; else
			fail "file-$name" "slurmctld: $verdict (expected ACCEPT: gaps, 25.05+); rankmap: ${msg:-accepted}"
		fi
		return
	fi
	if [ -z "$cr" ]; then
		if [ "$verdict" = ACCEPT ] && [ -z "$msg" ]; then pass "file-$name"; else
			fail "file-$name" "slurmctld: $verdict; rankmap: $msg"
		fi
		return
	fi
	if [[ $verdict == REFUSE* ]] && grep -qE -- "$cr" <<<"$verdict" &&
		grep -qE -- "$rr" <<<"$msg"; then
		pass "file-$name"
	else
		fail "file-$name" "slurmctld: $verdict; rankmap: ${msg:-accepted}"
	fi
}
B1="BlockName=b1 Nodes=node[1-4]"
B2="BlockName=b2 Nodes=node[5-8]"
# gap REASON: slurmctld's reason where it refuses a block smaller than the
# base size or without nodes (24.11), "gap" where it takes it as a block
# with missing nodes (25.05+: "gaps in block definitions")
REL=$(slurmctld -V | sed -n 's/^slurm[-a-z]* \([0-9]*\.[0-9]*\).*/\1/p')
[ -n "$REL" ] || fail slurm-release "cannot read the release from slurmctld -V: $(slurmctld -V 2>&1)"
gap() {
	if [ "$(printf '%s\n' 25.05 "$REL" | sort -V | head -1)" = 25.05 ]; then echo gap; else echo "$1"; fi
}
variant sizes-ok "" "" "$B1" "$B2" "BlockSizes=2,4"
variant sizes-many "" "" "$B1" "$B2" "BlockSizes=4,8,16,32,64"
variant sizes-default "" "" "BlockName=b1 Nodes=node[1-2]" "BlockName=b2 Nodes=node[3-8]"
variant sizes-not-pow2 'Invalid BlockSizes value: 3' \
	":3:14: BlockSizes: '3' is not the base block size 2 times a power of two.*Invalid BlockSizes value" \
	"$B1" "$B2" "BlockSizes=2,3"
variant sizes-not-multiple 'Invalid BlockSizes value: 12' "'12' is not the base block size 4" \
	"$B1" "$B2" "BlockSizes=4,12"
variant sizes-word 'Invalid BlockSizes value: x' "BlockSizes: 'x' is not a block size" \
	"$B1" "$B2" "BlockSizes=x"
variant below-given-base "$(gap 'Block configuration \(b1\) children count lower than bblock_node_cnt')" \
	":1:1: block 'b1' has 4 nodes, fewer than the base block size of 8 .BlockSizes' first value" \
	"$B1" "$B2" "BlockSizes=8"
variant below-first-block "$(gap 'Block configuration \(b2\) children count lower than bblock_node_cnt')" \
	":2:1: block 'b2' has 3 nodes, fewer than the base block size of 4 .the first block's" \
	"$B1" "BlockName=b2 Nodes=node[5-7]"
variant no-nodes "$(gap "block b1 hasn't got nodes")" ":1:1: block 'b1' has no Nodes=" \
	"BlockName=b1" "$B2"
variant twice 'Block \(b1\) has already been defined' ":2:11: block 'b1' defined twice" \
	"$B1" "BlockName=b1 Nodes=node[5-8]"
variant unknown-key 'Parse error .* line 1: " Color=red"' ":1:30: unknown key 'Color'" \
	"$B1 Color=red" "$B2"
variant sizes-twice "$(gap 'children count lower than bblock_node_cnt')" ':4:1: BlockSizes given twice' \
	"$B1" "$B2" "BlockSizes=4" "BlockSizes=8"

# ---- rankmap's blocks are slurmctld's
block_map 8
S=$BLOCK_TASK

run tp16 0 srun -N8 --ntasks-per-node=8 --parallel-layout=tp=16,pp=2,dp=2 sh -c "$S"
inside tp16-in-block "$OUT" "pp dp ep" 64 16
# EP is carved out of DP: one expert block (ETP x EP = 16 ranks) shares
# pp and edp
run tp8-ep2 0 srun -N8 --ntasks-per-node=8 --parallel-layout=tp=8,ep=2,pp=2,dp=4 sh -c "$S"
inside tp8-ep2-tpxep-in-block "$OUT" "pp edp" 64 16

# ---- a drained tray in each block (issue 35): node4 and node8 out, six
# nodes left, three per block. tp=8,ep=2,dp=6 makes three expert blocks
# of two nodes: two fit whole, one must be cut; TP never leaves a block.
# EP becomes a scored goal here (the domains cannot hold every expert
# block), so the step runs and the map says what was cut.
scontrol update NodeName=node4,node8 State=DRAIN Reason=tray >/dev/null 2>&1
for t in $(seq 1 50); do
	[ "$(sinfo -h -N -t drain -o %N | sort -u | wc -l)" -eq 2 ] && break
	sleep 0.2
done
cat >"$D/out/drained.sh" <<EOF2
#!/bin/sh
$S
if [ "\$SLURM_PROCID" -eq 0 ]; then grep -o '"ep_split": *[0-9]*' "\$RANKMAP_MAP" || echo "no ep_split in \$RANKMAP_MAP"; fi
exit 0
EOF2
run drained-tp8-ep2 0 srun -N6 --ntasks-per-node=8 --parallel-layout=tp=8,ep=2,pp=1,dp=6 \
	sh "$D/out/drained.sh"
inside drained-tp8-in-block "$OUT" "pp dp" 48 8
# the expert blocks (tasks agreeing on pp and edp) that span two blocks
cut=$(awk 'NR == FNR { blk[$1] = $2; next }
	$1 == "T" { split($5, p, "="); split($7, e, "="); k = p[2] "," e[2]
		if (!(k in b)) { b[k] = blk[$2]; n++ } else if (b[k] != blk[$2]) c[k] = 1 }
	END { m = 0; for (k in c) m++; print m " of " n }' "$D/out/node-block.txt" "$OUT")
[ "$cut" = "1 of 3" ] && pass drained-ep-cut-1-of-3 || fail drained-ep-cut-1-of-3 "cut $cut: $(head -c 400 "$OUT")"
# the map counts EP groups (one per TP rank: 8 in a cut expert block)
has drained-map-says-8-cut "$OUT" '"ep_split": *8$'
scontrol update NodeName=node4,node8 State=RESUME >/dev/null 2>&1
for t in $(seq 1 50); do
	[ -z "$(sinfo -h -N -t drain -o %N)" ] && break
	sleep 0.2
done

# ---- --segment over two half-busy blocks: node1-2 and node5-6 are taken
sbatch -w 'node[1-2]' -N2 -o /dev/null --wrap 'sleep 300' >/dev/null
sbatch -w 'node[5-6]' -N2 -o /dev/null --wrap 'sleep 300' >/dev/null
for t in $(seq 1 100); do
	[ "$(squeue -h -t R | wc -l)" -eq 2 ] && break
	sleep 0.2
done
cat >"$D/out/seg.sh" <<EOF2
#!/bin/sh
scontrol show job \$SLURM_JOB_ID >"$D/out/seg.job"
srun --parallel-layout=tp=16,pp=1,dp=2 sh -c '$S'
EOF2
run segment 0 sbatch --wait -N4 --segment=2 --ntasks-per-node=8 -o "$D/out/seg.out" "$D/out/seg.sh"
has segment-job-nodes "$D/out/seg.job" 'NodeList=node\[3-4,7-8\]'
inside segment-tp16-in-block "$D/out/seg.out" "pp dp ep" 32
run segment-tp32 1 srun -N4 --segment=2 --ntasks-per-node=8 --parallel-layout=tp=32,pp=1,dp=1 true
has segment-tp32-msg "$ERR" "^srun: error: rankmap: layout tp=32,pp=1,dp=1 needs 32 GPUs in whole TP blocks of 4 nodes of one NVLink domain.*the allocation's NVLink domains: nvl1 2 nodes, nvl2 2 nodes"
# without --segment slurmctld itself finds no block for 4 nodes
run no-segment 1 srun -N4 --immediate=3 --ntasks-per-node=8 true
# ... but cli_filter.lua gives a layout job one pipeline (2 nodes) per
# segment, so the same 4 nodes serve it, each pipeline inside a block
cat >"$D/out/lua.sh" <<EOF2
#!/bin/sh
scontrol show job \$SLURM_JOB_ID >"$D/out/lua.job"
srun sh -c '$S'
EOF2
run lua-segment 0 timeout 60 sbatch --wait --parallel-layout=tp=8,pp=2,dp=2 -o "$D/out/lua.out" "$D/out/lua.sh"
has lua-segment-nodes "$D/out/lua.job" 'NodeList=node\[3-4,7-8\]'
has lua-segment-shaped "$D/out/lua.job" 'NumNodes=4 NumCPUs=[0-9]+ NumTasks=32 '
inside lua-segment-pipeline-in-block "$D/out/lua.out" "tp dp ep" 32
finish
