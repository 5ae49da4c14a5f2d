#!/usr/bin/env bash
# t_slurm.sh - the SPANK plugin on a real Slurm: one local cluster (4 nodes,
# 8 fake GPUs each, leaves of 3 and 1 nodes) started once for every case.
# The last node runs with its own plugstack.conf (CLUSTER_ODD) so that a
# node with a different topology.conf can be staged.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
SUITE=slurm
cd "$RM_ROOT" || exit 1

PLUGIN=$RM_BUILD/rankmap.so
CLI=$RM_BUILD/rankmap
[ -x "$CLI" ] || CLI=$RANKMAP
T=$RM_ROOT/tests/slurm/task_env.sh
CHECK="python3 $RM_ROOT/tests/slurm/check_env.py"

if [ ! -f /usr/include/slurm/spank.h ]; then
	skip plugin "Slurm's spank.h is not installed: no plugin to test"
	exit 0
fi
if ! why=$(cluster_tools); then
	skip cluster "$why"
	exit 0
fi
if [ ! -f "$PLUGIN" ]; then
	fail plugin "$PLUGIN was not built"
	exit 1
fi

D=$(cluster_tmpdir rankmap-slurm)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out"
cat >"$D/etc/site.yaml" <<EOF
schema: rankmap-site/1
name: rmtest
gpus_per_node: 8
topology: topology.conf
EOF
sed 's/^name: rmtest$/name: rmtest-limit\npolicy:\n  max_pp_crossings: 0/' \
	"$D/etc/site.yaml" >"$D/etc/site-limit.yaml"

# Map files go under $D (dir=), so that clusters others run at the same
# time can never meet in /tmp; one case below runs with the defaults.
mkdir -p "$D/maps" && chmod 1777 "$D/maps"
MAPS="dir=$D/maps"
if ! CLUSTER_ODD=1 cluster_start "$D" 4 "$PLUGIN" "site=$D/etc/site.yaml" "$MAPS" >"$D/out/start.log" 2>&1; then
	fail cluster-start "$(tail -5 "$D/out/start.log"; tail -5 "$D/log/slurmctld.log" 2>/dev/null)"
	exit 1
fi
pass cluster-start
export SLURM_CONF=$D/etc/slurm.conf
UIDDIR=$D/maps/rankmap-$(id -u)

# plugstack ARGS...: the same plugin arguments on every node and in srun.
plugstack() {
	echo "required $PLUGIN $*" >"$D/etc/plugstack.conf"
	echo "required $PLUGIN $*" >"$D/etc/plugstack-odd.conf"
}
# ... with the test's map directory
plugstack_maps() { plugstack "$@" "$MAPS"; }
# cli NAME LAYOUT ORDER NODES GPN [SITE]: `rankmap plan` on the same inputs.
cli() {
	local order=()
	[ -n "$3" ] && order=(--order "$3")
	"$CLI" plan --layout "$2" "${order[@]}" --nodes "$4" --gpus-per-node "$5" \
		--site "${6:-$D/etc/site.yaml}" --format json >"$D/out/$1.json" 2>"$D/out/$1.cli.err"
}
nodes_of() { sed -n 's/.*node=\([^ ]*\).*/\1/p' "$1" | sort -u | paste -sd, -; }

# ---- options are listed in --help everywhere
for c in srun sbatch salloc; do
	"$c" --help >"$D/out/help" 2>&1
	has "help-$c" "$D/out/help" '--parallel-layout=LAYOUT'
	has "help-$c-order" "$D/out/help" '--parallel-order=ORDER'
done

# ---- every task's environment, 4 nodes x 8
run env-srun 0 srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "$T"
cp "$OUT" "$D/out/a.txt"
cli a 8x2x2 "" "node[1-4]" 8
# Two pipelines of two full nodes over leaves of 3 and 1 nodes: one can stay
# in leaf1, the other must cross, 8 GPU pairs.
$CHECK env "$D/out/a.txt" "$D/out/a.json" "$D/etc/topology.conf" tp-pp-dp 8
gone=1
for t in $(seq 1 25); do
	gone=1
	for f in $(sed -n 's/.*map=\([^ ]*\).*/\1/p' "$D/out/a.txt" | sort -u); do
		[ -e "$f" ] && gone=0
	done
	[ "$gone" = 1 ] && break
	sleep 0.2
done
if [ "$gone" = 1 ]; then pass map-files-removed; else fail map-files-removed "still there after the step"; fi

# ---- Megatron numbering on 2 nodes x 4 tasks
run env-megatron 0 srun -N2 -n8 --ntasks-per-node=4 --parallel-layout=2x2x2 --parallel-order=megatron "$T"
cp "$OUT" "$D/out/b.txt"
cli b 2x2x2 megatron "$(nodes_of "$D/out/b.txt")" 4
$CHECK megatron "$D/out/b.txt" "$D/out/b.json" "$D/etc/topology.conf" tp-dp-pp -

# ---- the environment form (slurmrestd users have nothing else)
SLURM_SPANK__SLURM_SPANK_OPTION_rankmap_parallel_layout=8x4x1 \
	run env-variable 0 srun -N4 -n32 --ntasks-per-node=8 "$T"
cli e 8x4x1 "" "node[1-4]" 8
$CHECK envform "$OUT" "$D/out/e.json" "$D/etc/topology.conf" tp-pp-dp -

# ---- sbatch -> srun propagation, srun override, batch step untouched
cat >"$D/out/job.sh" <<EOF
#!/bin/sh
env >"$D/out/batch.env"
ls -d $UIDDIR/\$SLURM_JOB_ID.* >"$D/out/batch.dirs" 2>/dev/null
srun "$T" >"$D/out/s1.txt"
srun --parallel-layout=8x1x4 "$T" >"$D/out/s2.txt"
EOF
run sbatch 0 sbatch --wait -N4 --ntasks-per-node=8 --parallel-layout=8x2x2 \
	-o "$D/out/batch.out" "$D/out/job.sh"
$CHECK sbatch-inherit "$D/out/s1.txt" "$D/out/a.json" "$D/etc/topology.conf" tp-pp-dp 8
cli s2 8x1x4 "" "node[1-4]" 8
$CHECK sbatch-override "$D/out/s2.txt" "$D/out/s2.json" "$D/etc/topology.conf" tp-pp-dp 0
has sbatch-carries-option "$D/out/batch.env" '^SLURM_SPANK__SLURM_SPANK_OPTION_rankmap_parallel_layout=8x2x2$'
hasnt batch-step-untouched "$D/out/batch.env" '^(RANK|WORLD_SIZE|LOCAL_RANK|MASTER_ADDR|RANKMAP_[A-Z_]*)='
if [ -s "$D/out/batch.dirs" ]; then fail batch-step-no-files "$(cat "$D/out/batch.dirs")"; else pass batch-step-no-files; fi

# ---- salloc, and a step on a subset of the allocation (nodes 3 and 4)
run salloc 0 salloc -N4 --ntasks-per-node=8 --parallel-layout=8x2x1 \
	srun -N2 -r2 -n16 --ntasks-per-node=8 "$T"
cli c 8x2x1 "" "node[3-4]" 8
# node3 is in leaf1, node4 alone in leaf2: the one pipeline must cross.
$CHECK salloc-subset "$OUT" "$D/out/c.json" "$D/etc/topology.conf" tp-pp-dp 8

# ---- no option: nothing changes, no files
run no-option 0 srun -N4 -n32 --ntasks-per-node=8 sh -c \
	"env; ls -d $UIDDIR/\$SLURM_JOB_ID.* 2>/dev/null | sed 's/^/FILE /'"
hasnt no-option-env "$OUT" '^(RANK|WORLD_SIZE|LOCAL_RANK|MASTER_ADDR|MASTER_PORT|RANKMAP_[A-Z_]*)='
hasnt no-option-files "$OUT" '^FILE '

# ---- bad input: syntax in the option callback (255, nothing submitted)
run bad-layout-srun 255 srun -N1 --parallel-layout=8x2 true
has bad-layout-srun-msg "$ERR" "^srun: error: rankmap: --parallel-layout: layout '8x2'"
has bad-layout-srun-invalid "$ERR" 'Invalid --parallel-layout argument: 8x2'
run bad-layout-sbatch 255 sbatch -N1 --parallel-layout=8x2 --wrap true
has bad-layout-sbatch-msg "$ERR" "^sbatch: error: rankmap: --parallel-layout: layout '8x2'"
run bad-layout-salloc 255 salloc -N1 --parallel-layout=tp=8,xx=2 true
has bad-layout-salloc-msg "$ERR" "^salloc: error: rankmap: --parallel-layout: "
run bad-order 255 srun -N1 --parallel-order=tp-xx true
has bad-order-msg "$ERR" "^srun: error: rankmap: --parallel-order: "
# ... and in srun's local_user_init (1, the job is cancelled before launch)
run bad-product 1 srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x4 "$T"
has bad-product-msg "$ERR" "^srun: error: rankmap: --parallel-layout=8x2x4 does not fit the step's 32 tasks \\(4 nodes x 8\\)"
hasnt bad-product-no-task "$OUT" '^TASK'
run bad-uneven 1 srun -N2 -n3 --parallel-layout=3x1x1 "$T"
has bad-uneven-msg "$ERR" '^srun: error: rankmap: tasks per node are uneven \((2,1|1,2)\): every node must run the same number of tasks; use --ntasks-per-node'
run bad-tp 1 srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=16x1x2 "$T"
has bad-tp-msg "$ERR" '^srun: error: rankmap: TP=16 needs an NVLink domain of 16 GPUs; nodes here have 8'
run order-alone 1 srun -N1 --parallel-order=megatron true
has order-alone-msg "$ERR" '^srun: error: rankmap: --parallel-order=megatron needs --parallel-layout as well'
# A value that skipped srun's check is checked again on the node, and the
# tasks fail with the reason.
_SLURM_SPANK_OPTION_rankmap_parallel_layout=8x8x8 run node-side-check 1 srun -N1 -n8 "$T"
has node-side-check-msg "$ERR" 'error: rankmap: --parallel-layout=8x8x8 does not fit the step.s 8 tasks'
hasnt node-side-check-no-task "$OUT" '^TASK'

# ---- policy: strict refuses, warn runs and says so
plugstack_maps "site=$D/etc/site-limit.yaml" enforce=strict
run strict 1 srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "$T"
has strict-msg "$ERR" "^srun: error: rankmap: refused by the site policy: 8 pipeline neighbour pairs cross a leaf switch, above the site's max_pp_crossings of 0"
plugstack_maps "site=$D/etc/site-limit.yaml" enforce=warn
run warn 0 srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "$T"
has warn-msg "$ERR" "rankmap: warning: 8 pipeline neighbour pairs cross a leaf switch"
[ "$(grep -c '^TASK' "$OUT")" -eq 32 ] && pass warn-ran || fail warn-ran "$(head -3 "$ERR")"
plugstack_maps "site=$D/etc/site-limit.yaml" enforce=off
run enforce-off 0 srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "$T"
hasnt enforce-off-quiet "$ERR" 'rankmap'

# ---- a node whose topology.conf differs from srun's (node4, own plugstack)
echo "SwitchName=leaf1 Nodes=node[1-4]" >"$D/etc/topology-odd.conf"
plugstack_maps "site=$D/etc/site.yaml" enforce=strict
echo "required $PLUGIN site=$D/etc/site.yaml enforce=strict topology=$D/etc/topology-odd.conf $MAPS" >"$D/etc/plugstack-odd.conf"
run odd-strict 1 srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "$T"
has odd-strict-msg "$ERR" 'error: rankmap: node node4 planned from different inputs than srun .*refused under enforce=strict'
[ "$(grep -c '^TASK node=node4' "$OUT")" -eq 0 ] && pass odd-strict-node4-refused || fail odd-strict-node4-refused "node4 tasks ran"
plugstack_maps "site=$D/etc/site.yaml" enforce=warn
echo "required $PLUGIN site=$D/etc/site.yaml enforce=warn topology=$D/etc/topology-odd.conf $MAPS" >"$D/etc/plugstack-odd.conf"
run odd-warn 0 srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "$T"
has odd-warn-msg "$ERR" 'rankmap: warning: node node4 planned from different inputs than srun'
plugstack_maps "site=$D/etc/site.yaml"

# ---- no arguments at all: topology.conf beside slurm.conf, no site,
# map files in /tmp
plugstack
run default-topology 0 srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "$T"
"$CLI" plan --layout 8x2x2 --nodes "node[1-4]" --gpus-per-node 8 \
	--topology "$D/etc/topology.conf" --format json >"$D/out/d.json" 2>/dev/null
$CHECK default-topology "$OUT" "$D/out/d.json" "$D/etc/topology.conf" tp-pp-dp 8
has default-dir "$OUT" "map=/tmp/rankmap-$(id -u)/[0-9]+\\.[0-9]+\\.node[1-4]/map.json "
plugstack_maps "site=$D/etc/site.yaml"

# ---- the node's NCCL settings (hardware from a captured hwloc XML)
HWXML=/work/shared/fixtures/hwloc/model-dgx-h100.xml
if [ -f "$HWXML" ]; then
	{ cat "$D/etc/site.yaml"; echo "hwloc_xml: $HWXML"; } >"$D/etc/site-hw.yaml"
	plugstack_maps "site=$D/etc/site-hw.yaml"
	SHOW='echo "NCCL $SLURM_LOCALID ${NCCL_IB_HCA:-none} ${CUDA_DEVICE_ORDER:-none}"'
	run nccl-env 0 srun -N1 -n8 --parallel-layout=8x1x1 sh -c "$SHOW"
	[ "$(grep -cE '^NCCL [0-7] =?mlx5_[0-9]+.* PCI_BUS_ID$' "$OUT")" -eq 8 ] && pass nccl-env-set ||
		fail nccl-env-set "$(head -3 "$OUT")"
	NCCL_IB_HCA=mine run nccl-job-wins 0 srun -N1 -n8 --parallel-layout=8x1x1 sh -c "$SHOW"
	[ "$(grep -cE '^NCCL [0-7] mine PCI_BUS_ID$' "$OUT")" -eq 8 ] && pass nccl-job-value-kept ||
		fail nccl-job-value-kept "$(head -3 "$OUT")"
	run nccl-no-option 0 srun -N1 -n8 sh -c "$SHOW"
	[ "$(grep -cE '^NCCL [0-7] none none$' "$OUT")" -eq 8 ] && pass nccl-untouched-without-option ||
		fail nccl-untouched-without-option "$(head -3 "$OUT")"
	plugstack_maps "site=$D/etc/site.yaml"
else
	skip nccl-env "no hwloc capture at $HWXML (the project's shared fixtures)"
fi

# ---- unknown plugstack argument: logged, the plugin still works
plugstack_maps "site=$D/etc/site.yaml" colour=blue
run unknown-arg 0 srun -N1 -n8 --parallel-layout=8x1x1 "$T"
has unknown-arg-msg "$ERR" "rankmap: plugstack.conf: 'colour=blue': unknown argument"
plugstack_maps "site=$D/etc/site.yaml"

# ---- a job user other than root: the map is written as that user
if id nobody >/dev/null 2>&1; then
	NOBODY=$(id -u nobody)
	# srun --uid is gone from 23.11 on: run srun itself as that user.
	run other-user 0 runuser -u nobody -- srun -N1 -n8 --parallel-layout=8x1x1 "$T"
	has other-user-file "$OUT" "map=$D/maps/rankmap-$NOBODY/[0-9]+\\.[0-9]+\\.node[0-9]/map.json .* mode=600:$NOBODY,700:$NOBODY,"
fi

# ---- a real PyTorch job: gloo, env://, groups from the map file
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is None)'; then
	run torch 0 timeout 600 srun -N2 -n8 --ntasks-per-node=4 --parallel-layout=2x2x2 \
		--parallel-order=megatron /usr/bin/python3 templates/pytorch_groups.py
	[ "$(grep -c '^rank [0-7] OK' "$OUT")" -eq 8 ] && pass torch-all-ranks ||
		fail torch-all-ranks "$(cat "$OUT" "$ERR" | tail -20)"
else
	skip torch "/usr/bin/python3 with torch (Debian python3-torch) is not installed"
fi

finish
