#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# segments.sh - --consolidate-segments and --spread-segments (Slurm 25.11+)
# on the real slurmctld 26.05 (run inside the Debian unstable root by
# t_segments.sh), and templates/lua choosing consolidate for a layout whose
# TP groups fit a block but whose pipeline does not.
#
# Eight nodes of 8 GPUs in four NVLink blocks of two (b1 node[1-2] ...
# b4 node[7-8]), BlockSizes=2,4,8: the aggregated blocks of 4 nodes are
# b1+b2 and b3+b4. Node states are set by jobs that hold nodes
# (sbatch --exclusive -w), so every placement below has one right answer.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
. "$RM_ROOT/tests/slurm24/blocklib.sh"
cluster_suite segments

D=$(cluster_tmpdir rankmap-seg)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out"
printf '%s\n' "# four NVLink blocks of 2 nodes x 8 GPUs" "BlockName=b1 Nodes=node[1-2]" \
	"BlockName=b2 Nodes=node[3-4]" "BlockName=b3 Nodes=node[5-6]" \
	"BlockName=b4 Nodes=node[7-8]" "BlockSizes=2,4,8" >"$D/blocks.conf"
# the site: blocks of 2 nodes, NVLink of 16 GPUs, pipelines may cross blocks
block_cluster 16 2 's/^\(\tmax_pipeline_domains = \).*/\1nil,/'
block_map 8

# hold NODES...: nothing else runs, then one job holds each node list
hold() {
	local n
	scancel --quiet --full -u "$(id -un)" 2>/dev/null
	cluster_wait 30 eval '[ -z "$(squeue -h -o %i)" ]'
	for n in "$@"; do
		sbatch --exclusive -w "$n" -N"$(scontrol show hostnames "$n" | wc -l)" -o /dev/null \
			--wrap 'sleep 300' >/dev/null
	done
	HELD=$#
	cluster_wait 30 eval '[ "$(squeue -h -t R | wc -l)" -eq "$HELD" ]' ||
		fail "hold-$*" "$(squeue)"

}
# alloc NAME RC ARGS...: salloc -I ARGS (refused at once when Slurm finds
# no nodes); $OUT holds the allocation's node list
alloc() {
	local name=$1 rc=$2
	shift 2
	run "$name" "$rc" timeout 60 salloc -I10 "$@" sh -c 'echo "$SLURM_JOB_NODELIST"'
}
# blocks_are NAME WANT: the blocks of the last allocation
blocks_are() {
	local got
	got=$(blocks_of "$(tail -1 "$OUT")")
	[ "$got" = "$2" ] && pass "$1" || fail "$1" "nodes $(tail -1 "$OUT"): blocks '$got', expected '$2'"
}

# ---- Slurm's rules. --spread-segments: no base block gives nodes to two
# segments, so 2 segments of 1 node take 2 blocks even on an idle cluster.
hold
alloc spread 0 -N2 --segment=1 --spread-segments
[ "$(blocks_of "$(tail -1 "$OUT")" | wc -w)" -eq 2 ] && pass spread-two-blocks ||
	fail spread-two-blocks "$(tail -1 "$OUT")"
sp=$(tail -1 "$OUT")
alloc no-spread 0 -N2 --segment=1
echo "# measured: -N2 --segment=1 on an idle cluster: $(tail -1 "$OUT") ($(blocks_of "$(tail -1 "$OUT")")); with --spread-segments: $sp ($(blocks_of "$sp"))"

# --consolidate-segments: all segments in one aggregated block. With node1
# and node5 busy each aggregate has one whole free base block: 2 segments
# of 2 nodes fit (b2 + b4) only across aggregates.
hold node1 node5
alloc across 0 -N4 --segment=2
blocks_are across-b2-b4 "b2 b4"
alloc consolidated-none 1 -N4 --segment=2 --consolidate-segments
# ... with only node1 busy, b3+b4 is the one aggregate with 4 free nodes
hold node1
alloc consolidated 0 -N4 --segment=2 --consolidate-segments
blocks_are consolidated-b3-b4 "b3 b4"

# ---- the templates: tp=16 (one block) x pp=2: each stage a segment of a
# block, the pipeline across two blocks of one aggregate
cat >"$D/out/job.sh" <<EOF2
#!/bin/sh
scontrol show job \$SLURM_JOB_ID >"$D/out/job.txt"
srun sh -c '$BLOCK_TASK'
EOF2
run lua-pp-across 0 timeout 90 sbatch --wait --parallel-layout=tp=16,pp=2,dp=1 \
	-o "$D/out/pp.out" "$D/out/job.sh"
has lua-pp-across-flags "$D/out/job.txt" '^ *SegmentSize=2 ConsolidateSegments=Yes$'
has lua-pp-across-nodes "$D/out/job.txt" ' NodeList=node\[5-8\]$'
inside lua-pp-across-tp-in-block "$D/out/pp.out" "pp dp ep" 32 16
has lua-pp-across-ctld-log "$D/log/slurmctld.log" 'rankmap: job of uid 0, layout tp=16,pp=2,dp=1: 4 nodes x 8 tasks, segment=2 consolidated'
# no aggregate with two free blocks: the layout job is not started across
hold node1 node5
run lua-pp-across-none 1 timeout 60 salloc -I10 --parallel-layout=tp=16,pp=2,dp=1 true
# a replica that fits a block is its own segment; nothing to consolidate
run lua-pp-inside 0 sbatch --parsable --hold -o /dev/null --parallel-layout=tp=8,pp=2,dp=2 --wrap true
scontrol show job "$(head -1 "$OUT")" >"$D/out/inside.txt"
has lua-pp-inside-segment "$D/out/inside.txt" '^ *SegmentSize=2$'
finish
