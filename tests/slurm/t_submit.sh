#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_submit.sh - a layout that cannot fit is refused at submission (issue
# 37.3): templates/lua/cli_filter.lua (CliFilterPlugins=lua) asks
# `rankmap fit` - the plugin's own checks - before sbatch, salloc or srun
# submits, so the job does not wait in the queue to fail, and a refused
# step prints its reason once, not once per task.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
cluster_suite submit
[ -x "$CLI" ] || CLI=$RANKMAP
cluster_preflight
[ -f "$PLUGIN" ] || { fail plugin "$PLUGIN was not built"; exit 1; }
D=$(cluster_tmpdir rankmap-submit)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out"
printf '%s\n' "schema: rankmap-site/1" "name: rmsubmit" "gpus_per_node: 8" \
	"topology: topology.conf" >"$D/etc/site.yaml"
# the templates as an admin installs them, SITE.rankmap pointing at this
# build's CLI
cp "$RM_ROOT/templates/lua/cli_filter.lua" "$D/etc/"
sed "s|rankmap = \"/usr/bin/rankmap\"|rankmap = \"$CLI\"|" \
	"$RM_ROOT/templates/lua/rankmap_shape.lua" >"$D/etc/rankmap_shape.lua"
grep -q "rankmap = \"$CLI\"" "$D/etc/rankmap_shape.lua" || { fail template "SITE.rankmap not found in rankmap_shape.lua"; exit 1; }
CLUSTER_CONF_EXTRA="CliFilterPlugins=lua" cluster_up "$D" 4 "$PLUGIN" "site=$D/etc/site.yaml" "runtime_dir=$D/rt"
export SLURM_CONF=$D/etc/slurm.conf
M=$D/out/ran

has_text() {
	if grep -qF -- "$3" "$2"; then pass "$1"; else
		fail "$1" "no '$3' in: $(head -c 600 "$2")"
	fi
}
jobs_now() { squeue -h -o %i 2>/dev/null | wc -l; }
MSG="rankmap: --parallel-layout=8x2x3 does not fit the step's 32 tasks (4 nodes x 8): layout tp=8,pp=2,dp=3 needs 48 GPUs, 32 available"

# sbatch: refused before the queue, nothing queued
before=$(jobs_now)
run sbatch-refused 1 sbatch -N4 --ntasks-per-node=8 --parallel-layout=8x2x3 -o /dev/null --wrap "touch $M"
has_text sbatch-refused-msg "$ERR" "sbatch: error: lua: $MSG"
[ "$(jobs_now)" -eq "$before" ] && pass sbatch-refused-nothing-queued || fail sbatch-refused-nothing-queued "$(squeue 2>&1)"
# the same with -n instead of --ntasks-per-node, and from salloc
run sbatch-ntasks-refused 1 sbatch -N4 -n32 --parallel-layout=8x2x3 -o /dev/null --wrap "touch $M"
has_text sbatch-ntasks-refused-msg "$ERR" "$MSG"
run salloc-refused 1 salloc -N4 --ntasks-per-node=8 --parallel-layout=8x2x3 true
has_text salloc-refused-msg "$ERR" "salloc: error: lua: $MSG"
[ ! -e "$M" ] && pass refused-nothing-ran || fail refused-nothing-ran "$M exists"

# srun: the refused 32-task step says it once, in at most 3 lines, where
# the plugin's own refusal at launch printed 69
run srun-refused 1 srun -N4 --ntasks-per-node=8 --parallel-layout=8x2x4 touch "$M"
has_text srun-refused-msg "$ERR" "srun: error: lua: rankmap: --parallel-layout=8x2x4 does not fit the step's 32 tasks (4 nodes x 8)"
n=$(wc -l <"$ERR")
[ "$n" -le 3 ] && pass "srun-refused-at-most-3-lines ($n)" || fail srun-refused-at-most-3-lines "$n lines: $(head -c 600 "$ERR")"
[ ! -e "$M" ] && pass srun-refused-nothing-ran || fail srun-refused-nothing-ran "$M exists"
# one launcher per node given more ranks than the node's GPUs: the advice
# can be followed (2 nodes, not --gpus-per-node=16)
run srun-launcher-refused 1 srun -N1 -n1 --parallel-layout=8x2x1 touch "$M"
has_text srun-launcher-refused-msg "$ERR" "puts 16 ranks on each of the step's 1 node(s), but the nodes have 8 GPUs (site file): give the step 2 nodes (-N2 --ntasks-per-node=1)"

# what fits passes through and runs with its map
run sbatch-fits 0 sbatch -N4 --ntasks-per-node=8 --parallel-layout=8x2x2 --wait -o "$D/out/fit.out" \
	--wrap 'srun sh -c "[ \$SLURM_PROCID = 0 ] && echo RANK \$RANK WORLD \$WORLD_SIZE; true"'
has sbatch-fits-ran "$D/out/fit.out" '^RANK 0 WORLD 32$'
# a request whose shape is not known yet (no -N) is left to the plugin
run sbatch-unknown-shape 0 sbatch --parallel-layout=8x2x3 -o /dev/null --hold --wrap true
job=$(grep -o '[0-9]*' "$OUT" | head -1)
[ -n "$job" ] && scancel "$job"
# a rankmap that cannot run here (exit 2) does not block submissions
sed -i "s|rankmap = \"$CLI\"|rankmap = \"$D/nosuch-rankmap\"|" "$D/etc/rankmap_shape.lua"
run sbatch-no-cli 0 sbatch -N4 --ntasks-per-node=8 --parallel-layout=8x2x3 -o /dev/null --hold --wrap true
job=$(grep -o '[0-9]*' "$OUT" | head -1)
[ -n "$job" ] && scancel "$job"
finish
