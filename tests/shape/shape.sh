#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shape.sh RELEASE - templates/lua/job_submit.lua on the real slurmctld of
# this Slurm (run by t_shape.sh on the host and inside the 24.11 and 26.05
# roots): jobs with --parallel-layout are shaped (scontrol show job), bad
# ones refused with the site policy's reason, others untouched. Cluster: 4 nodes of 8
# GPUs, leaves of 3 and 1 nodes (cluster.sh).
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
cluster_suite "shape-$1"
T=$RM_ROOT/tests/slurm/task_env.sh

D=$(cluster_tmpdir rankmap-shape)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out"
cp templates/lua/job_submit.lua "$D/etc/"
# the site: this cluster's leaves hold 3 nodes; wait 60 s for switches
sed -e 's/^\(\tleaf_nodes = \).*/\13,/' -e 's/^\(\tswitch_wait = \).*/\160,/' \
	templates/lua/rankmap_shape.lua >"$D/etc/rankmap_shape.lua"
if ! CLUSTER_CONF_EXTRA="JobSubmitPlugins=lua" cluster_start "$D" 4 "$PLUGIN" \
	"runtime_dir=$D/rt" >"$D/out/start.log" 2>&1; then
	fail cluster-start "$(tail -5 "$D/out/start.log"; tail -5 "$D/log/slurmctld.log" 2>/dev/null)"
	exit 1
fi
pass cluster-start
export SLURM_CONF=$D/etc/slurm.conf

# held NAME ARGS...: submit held, keep `scontrol show job` in $JOB
held() {
	local name=$1 id
	shift
	run "$name" 0 sbatch --parsable --hold -o /dev/null "$@" --wrap true
	id=$(head -1 "$OUT")
	JOB=$D/out/$name.job
	scontrol show job "$id" >"$JOB" 2>&1
	scancel "$id" 2>/dev/null
}

held two-nodes --parallel-layout=8x2x1
has two-nodes-count "$JOB" 'NumNodes=2(-2)? NumCPUs=[0-9]+ NumTasks=16 '
has two-nodes-per-node "$JOB" 'NtasksPerN:B:S:C=8:'
has two-nodes-whole "$JOB" 'OverSubscribe=NO'
has two-nodes-gpus "$JOB" 'TresPerNode=gres[:/]gpu:8'
has two-nodes-one-leaf "$JOB" 'Switches=1@00:01:00'

# dp=auto from the user's -N; replicas of 2 nodes, 1 per 3-node leaf
held auto --parallel-layout=tp=8,pp=2,dp=auto -N4
has auto-count "$JOB" 'NumNodes=4(-4)? NumCPUs=[0-9]+ NumTasks=32 '
has auto-leaves "$JOB" 'Switches=2@00:01:00'

# the layout wins over a node count that cannot hold it
held overridden --parallel-layout=8x1x2 -N1
has overridden-count "$JOB" 'NumNodes=2(-2)? NumCPUs=[0-9]+ NumTasks=16 '

held untouched -N1
has untouched-count "$JOB" 'NumNodes=1(-1)? '
hasnt untouched-no-switches "$JOB" 'Switches=[1-9]'
hasnt untouched-no-gpus "$JOB" 'TresPerNode=.*gpu'

# the site policy refuses, saying why
run tp-beyond-nvlink 1 sbatch --hold --parallel-layout=16x1x1 --wrap true
has tp-beyond-nvlink-msg "$ERR" 'rankmap: --parallel-layout=16x1x1 refused by the site policy: TP=16 needs an NVLink domain of 16 GPUs; this site.s have 8'
run long-pipeline 1 sbatch --hold --parallel-layout=8x8x1 --wrap true
has long-pipeline-msg "$ERR" 'refused by the site policy: one pipeline replica needs 8 nodes, more than 1 leaf switch\(s\) of 3 nodes hold'
run auto-needs-nodes 1 sbatch --hold --parallel-layout=tp=8,dp=auto --wrap true
has auto-needs-nodes-msg "$ERR" 'dp=auto needs a node count \(-N\)'

# a shaped job runs, and the plugin maps its ranks: 2 nodes x 8, one leaf
cat >"$D/out/job.sh" <<EOF2
#!/bin/sh
srun "$T"
EOF2
run runs 0 sbatch --wait --parallel-layout=8x2x1 -o "$D/out/run.out" "$D/out/job.sh"
[ "$(grep -c '^TASK .* world=16 ' "$D/out/run.out")" -eq 16 ] && pass runs-16-ranks ||
	fail runs-16-ranks "$(head -3 "$D/out/run.out")"
nodes=$(sed -n 's/^TASK node=\(node[0-9]*\) .*/\1/p' "$D/out/run.out" | sort -u | paste -sd, -)
case $nodes in
node1,node2 | node1,node3 | node2,node3) pass runs-one-leaf ;;
*) fail runs-one-leaf "ran on $nodes" ;;
esac
finish
