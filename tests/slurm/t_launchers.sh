#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_launchers.sh - launching the way frameworks launch, on a real local
# Slurm (4 nodes, 8 fake GPUs each): torchrun as one task per node (issue
# 23.1-2, with Debian's real torch), Lightning's Slurm variables under
# --parallel-export=slurm (23.4), and steps whose CUDA_VISIBLE_DEVICES
# Slurm narrows per task (21.4).
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
cluster_suite launchers
[ -x "$CLI" ] || CLI=$RANKMAP
cluster_preflight
if [ ! -f "$PLUGIN" ]; then
	fail plugin "$PLUGIN was not built"
	exit 1
fi
PY=/usr/bin/python3
D=$(cluster_tmpdir rankmap-launchers)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out" "$D/tr"
chmod 777 "$D/tr"
# Leaves that interleave Slurm's node order, so that the map's node order
# (and so a node's rank in torchrun's or Lightning's sense) is not Slurm's.
cat >"$D/topo.conf" <<EOT
SwitchName=s1 Nodes=node[2,4]
SwitchName=s2 Nodes=node[1,3]
SwitchName=top Switches=s[1-2]
EOT
cat >"$D/etc/site.yaml" <<EOT
schema: rankmap-site/1
name: rmlaunch
topology: $D/topo.conf
EOT
if ! CLUSTER_TOPOLOGY=$D/topo.conf cluster_start "$D" 4 "$PLUGIN" \
	"site=$D/etc/site.yaml" "runtime_dir=$D/rt" >"$D/out/start.log" 2>&1; then
	fail cluster-start "$(tail -5 "$D/out/start.log"; tail -5 "$D/log/slurmctld.log" 2>/dev/null)"
	exit 1
fi
pass cluster-start
export SLURM_CONF=$D/etc/slurm.conf
# cli NAME LAYOUT ORDER NODES GPN: the map `rankmap plan` gives the same inputs.
cli() {
	"$CLI" plan --layout "$2" --order "$3" --nodes "$4" --gpus-per-node "$5" \
		--site "$D/etc/site.yaml" --format json >"$D/out/$1.json" 2>"$D/out/$1.cli.err"
}
# has_text NAME FILE TEXT: TEXT, as it is (messages full of brackets), in FILE.
has_text() {
	if grep -qF -- "$3" "$2"; then pass "$1"; else
		fail "$1" "no '$3' in: $(head -c 600 "$2")"
	fi
}
no_steps_left() {
	if cluster_wait 30 eval '[ -z "$(squeue -h -s -o %i 2>/dev/null)" ]'; then
		pass "$1-no-step-left"
	else
		fail "$1-no-step-left" "$(squeue -h -s -o '%i %T' 2>&1)"
	fi
}

# ---- torchrun: one task per node, 2 nodes x 4 workers. pp-tp-dp numbers
# a node's ranks together but not in GPU order (rank 1 plays GPU 2), so
# CUDA_VISIBLE_DEVICES must be reordered for cuda:LOCAL_RANK to be the
# map's GPU. A plain `torchrun worker.py`: the rest comes from PET_*.
# Python 3.11 with torch 1.13 crashes at torchrun's default --redirects 0
# --tee 0 (and at 3: its Std.from_str finds only 1 and 2 on 3.11, where
# iterating an IntFlag skips 0 and combined values), hence 1: stdout
# copied to the console and a log.
TR=(-m torch.distributed.run --redirects 1 --tee 1 --log_dir "$D/tr")
# Debian's torch 2.14 (the 26.05 root) is built without libuv, and its
# static rendezvous creates its TCPStore without reading USE_LIBUV (only
# the c10d path does), so `torchrun --rdzv-backend static` cannot start
# there at all: a torch build problem, said as a SKIP, not a pass.
static_rdzv_broken() { # the TCPStore the static rendezvous makes, as it makes it
	$PY - <<'PY' 2>/dev/null
import datetime, sys
from torch.distributed import TCPStore
try:
    TCPStore("127.0.0.1", 0, 1, True, datetime.timedelta(seconds=5), multi_tenant=True)
except Exception as e:
    sys.exit(0 if "libuv" in str(e) else 1)
sys.exit(1)
PY
}
if ! $PY -c 'import torch.distributed.run' 2>/dev/null; then
	skip torchrun "no torch for $PY (apt-get install python3-torch)"
elif static_rdzv_broken; then
	skip torchrun "this torch ($($PY -c 'import torch; print(torch.__version__)')) is built without libuv and its static rendezvous ignores USE_LIBUV=0: torchrun --rdzv-backend static cannot start"
else
	run torchrun 0 srun -N2 -w node[1-2] --ntasks-per-node=1 --gres=gpu:4 \
		--parallel-layout=tp=2,pp=2,dp=2 --parallel-order=pp-tp-dp \
		$PY "${TR[@]}" "$RM_ROOT/tests/slurm/torchrun_worker.py"
	cp "$OUT" "$D/out/tr.txt"
	cli tr tp=2,pp=2,dp=2 pp-tp-dp "node[1-2]" 4
	$PY "$RM_ROOT/tests/slurm/check_torchrun.py" launchers/torchrun-ranks "$D/out/tr.txt" "$D/out/tr.json" || T_FAILS=$((T_FAILS + 1))
	# the same with every option spelled out (torch 1.13's underscores)
	WORKER=$RM_ROOT/tests/slurm/torchrun_worker.py run torchrun-flags 0 srun -N2 -w node[1-2] --ntasks-per-node=1 --gres=gpu:4 \
		--parallel-layout=tp=2,pp=2,dp=2 --parallel-order=pp-tp-dp sh -c \
		'exec "$0" "$@" --nnodes "$RANKMAP_NNODES" --nproc_per_node "$RANKMAP_NPROC_PER_NODE" --node_rank "$NODE_RANK" --master_addr "$MASTER_ADDR" --master_port "$MASTER_PORT" --rdzv_backend static "$WORKER"' \
		$PY "${TR[@]}"
	cp "$OUT" "$D/out/trf.txt"
	$PY "$RM_ROOT/tests/slurm/check_torchrun.py" launchers/torchrun-flags-ranks "$D/out/trf.txt" "$D/out/tr.json" || T_FAILS=$((T_FAILS + 1))
	# templates/torchrun.sbatch as shipped (issue 37.5: it crashed on
	# torch 1.13), its #SBATCH size overridden to this cluster's; the
	# torchrun on PATH, as a user's job finds it
	if command -v torchrun >/dev/null; then
		run torchrun-template 0 sbatch --wait -N2 -w 'node[1-2]' --gpus-per-node=4 \
			--parallel-layout=tp=2,pp=2,dp=2 --parallel-order=pp-tp-dp -o "$D/out/trt.txt" \
			"$RM_ROOT/templates/torchrun.sbatch" "$RM_ROOT/tests/slurm/torchrun_worker.py"
		$PY "$RM_ROOT/tests/slurm/check_torchrun.py" launchers/torchrun-template-ranks "$D/out/trt.txt" "$D/out/tr.json" ||
			{ T_FAILS=$((T_FAILS + 1)); tail -5 "$D/out/trt.txt"; }
	else
		skip torchrun-template "no torchrun on PATH"
	fi
fi

# ---- a map torchrun cannot number: megatron's order puts ranks 0,1,4,5
# on one node. srun refuses with one line before any process starts.
M=$D/out/started
run torchrun-refused 1 srun -N2 -w node[1-2] --ntasks-per-node=1 \
	--parallel-layout=tp=2,pp=2,dp=2 --parallel-order=megatron touch "$M"
# node2 holds ranks 0,1,4,5: the interleaved leaves put it first.
has_text torchrun-refused-msg "$ERR" "srun: error: rankmap: one task per node (torchrun) numbers RANK = node_rank x 4 + LOCAL_RANK, but the map puts ranks 0,1,4,5 on node2, not 4 consecutive ones: use an order that numbers a node's GPUs together (--parallel-order=nest), or start one task per GPU (--ntasks-per-node=4) without torchrun"
[ "$(grep -c 'error: rankmap:' "$ERR")" -eq 1 ] && pass torchrun-refused-one-line ||
	fail torchrun-refused-one-line "$(grep 'error: rankmap:' "$ERR")"
[ ! -e "$M" ] && pass torchrun-refused-nothing-ran || fail torchrun-refused-nothing-ran "$M exists"
no_steps_left torchrun-refused
# the order it suggests works
run torchrun-nest 0 srun -N2 -w node[1-2] --ntasks-per-node=1 \
	--parallel-layout=tp=2,pp=2,dp=2 --parallel-order=nest sh -c 'echo "N $NODE_RANK $CUDA_VISIBLE_DEVICES"'
has torchrun-nest-env "$OUT" "^N [01] 0,1,2,3$"

# ---- Slurm shows the launcher fewer GPUs than the map runs there
run torchrun-few-gpus 1 srun -N2 -w node[1-2] --ntasks-per-node=1 --gres=gpu:2 \
	--parallel-layout=tp=2,pp=2,dp=2 --parallel-order=nest touch "$M"
# the refusing node names itself and cancels the step (issue 21.1)
has torchrun-few-gpus-node "$ERR" 'rankmap: node node[0-9]+: Slurm made 2 GPU'
has_text torchrun-few-gpus-msg "$ERR" "Slurm made 2 GPU(s) visible to this node's launcher (CUDA_VISIBLE_DEVICES=0,1) but the map runs 4 ranks here: give the step the node's GPUs (--gpus-per-node=4 or --gres=gpu:4, no --gpus-per-task)"
[ ! -e "$M" ] && pass torchrun-few-gpus-nothing-ran || fail torchrun-few-gpus-nothing-ran "$M exists"
no_steps_left torchrun-few-gpus

# ---- issue 21.4: --gpus-per-task=1 narrows CUDA_VISIBLE_DEVICES to one GPU
# per task while LOCAL_RANK stays the local id: refused, saying what to
# change; with the node's GPUs the tasks run and cuda:LOCAL_RANK exists.
run gpus-per-task 1 srun -N1 -w node1 -n4 --gpus-per-task=1 --parallel-layout=tp=4 touch "$M"
# whichever task's check ran first names itself
has gpus-per-task-node "$ERR" 'rankmap: node node[0-9]+: Slurm made only CUDA_VISIBLE_DEVICES=[0-9] visible to local task [0-9] of 4'
has_text gpus-per-task-msg "$ERR" "of 4 (--gpus-per-task or --gpu-bind narrow it per task), so cuda:LOCAL_RANK is not the map's GPU: with --parallel-layout give the step its GPUs per node (--gpus-per-node=4) without --gpus-per-task or --gpu-bind"
[ ! -e "$M" ] && pass gpus-per-task-nothing-ran || fail gpus-per-task-nothing-ran "$M exists"
no_steps_left gpus-per-task
# every task finds it, but the node says it once and cancels once
# (issue 38.4: each of 16 tasks refused and cancelled on its own)
n=$(grep -c 'rankmap: node node[0-9]*: Slurm made only' "$ERR")
[ "$n" -eq 1 ] && pass gpus-per-task-once || fail gpus-per-task-once "$n lines: $(head -c 800 "$ERR")"
echo "# --gpus-per-task refusal, 4 tasks on 1 node: $(wc -l <"$ERR") stderr lines" >&2
# two nodes: one line each, and srun counts nodes, not tasks ("12 more
# node(s)" came from 2 nodes)
run gpus-per-task-2n 1 srun -N2 -w 'node[1-2]' --ntasks-per-node=4 --gpus-per-task=1 \
	--parallel-layout=tp=4,dp=2 touch "$M"
n=$(grep -c 'rankmap: node node[0-9]*: Slurm made only' "$ERR")
[ "$n" -ge 1 ] && [ "$n" -le 2 ] && ! grep -q 'more node' "$ERR" && pass gpus-per-task-2n-per-node ||
	fail gpus-per-task-2n-per-node "$n lines: $(head -c 800 "$ERR")"
echo "# --gpus-per-task refusal, 8 tasks on 2 nodes: $(wc -l <"$ERR") stderr lines" >&2
[ ! -e "$M" ] && pass gpus-per-task-2n-nothing-ran || fail gpus-per-task-2n-nothing-ran "$M exists"
no_steps_left gpus-per-task-2n
# --gpu-bind narrows it per task too (map_gpu: one GPU each), whatever
# the step was given
rm -f "$M"
run gpu-bind 1 srun -N1 -w node1 -n4 --gres=gpu:4 --gpu-bind=map_gpu:0,1,2,3 --parallel-layout=tp=4 touch "$M"
has gpu-bind-node "$ERR" 'rankmap: node node1: Slurm made only CUDA_VISIBLE_DEVICES=[0-9] visible to local task [0-9] of 4'
[ ! -e "$M" ] && pass gpu-bind-nothing-ran || fail gpu-bind-nothing-ran "$M exists"
no_steps_left gpu-bind
# --gpu-bind=none: Slurm 22.05 leaves CUDA_VISIBLE_DEVICES unset (every
# GPU of the node visible, docs/plugin.md); the step runs, each task with
# its LOCAL_RANK
run gpu-bind-none 0 srun -N1 -w node1 -n4 --gres=gpu:4 --gpu-bind=none --parallel-layout=tp=4 \
	sh -c 'echo "V $LOCAL_RANK ${CUDA_VISIBLE_DEVICES-unset}"'
[ "$(grep -cE '^V [0-3] (unset|0,1,2,3)$' "$OUT")" -eq 4 ] && [ "$(cut -d' ' -f2 "$OUT" | sort -u | wc -l)" -eq 4 ] &&
	pass "gpu-bind-none-runs ($(cut -d' ' -f3 "$OUT" | sort -u | tr '\n' ' '))" ||
	fail gpu-bind-none-runs "$(tr "\n" ";" <"$OUT") $(head -c 300 "$ERR")"
run gpus-per-node 0 srun -N1 -w node1 -n4 --gres=gpu:4 --parallel-layout=tp=4 \
	sh -c 'echo "V $LOCAL_RANK $CUDA_VISIBLE_DEVICES"'
[ "$(grep -c '^V [0-3] 0,1,2,3$' "$OUT")" -eq 4 ] && pass gpus-per-node-visible ||
	fail gpus-per-node-visible "$(cat "$OUT")"

# ---- Lightning / NeMo: every variable SLURMEnvironment reads, 4 nodes x 4
# tasks; the map's node order is not Slurm's here (leaves interleave).
LT=$RM_ROOT/tests/slurm/check_lightning.py
run lightning 0 srun -N4 --ntasks-per-node=4 --parallel-layout=tp=2,pp=2,dp=4 \
	--parallel-order=nest --parallel-export=slurm $PY "$LT" task
cp "$OUT" "$D/out/lt.txt"
cli lt tp=2,pp=2,dp=4 nest "node[1-4]" 4
$PY "$LT" check launchers/lightning-vars "$D/out/lt.txt" "$D/out/lt.json" || T_FAILS=$((T_FAILS + 1))

# ---- containers (issue 23.3): each task is `apptainer exec IMAGE ...`.
# The variables pass in (Apptainer keeps the environment); the map file is
# reached by binding the runtime directory, as docs/plugin.md says. The
# image is a sandbox directory whose /usr is the root's (no image to
# fetch here); --no-privs because this machine's root lacks
# CAP_SYS_RESOURCE, which Apptainer as root otherwise asks for; --contain
# so that the test's runtime directory (under /tmp, which Apptainer binds
# by default) is as hidden as /run/rankmap is on a real node.
if ! command -v apptainer >/dev/null; then
	skip apptainer "apptainer is not installed on this machine (only the Debian unstable root has it)"
else
	IMG=$D/img
	mkdir -p "$IMG"/{usr,etc,proc,dev,sys,tmp,run,var/tmp,root}
	for l in bin lib lib64 sbin; do ln -sfn usr/$l "$IMG/$l"; done
	run apptainer 0 srun -N2 --ntasks-per-node=2 --parallel-layout=tp=2,pp=2 \
		env PYTHONPATH="$RM_ROOT/python" apptainer -s exec --no-privs --contain \
		--bind /usr --bind "$D/rt" --bind "$RM_ROOT" "$IMG" \
		$PY "$RM_ROOT/tests/slurm/check_container.py"
	n=$(grep -c '^C [0-3] ok$' "$OUT")
	[ "$n" -eq 4 ] && pass apptainer-map-and-verify ||
		fail apptainer-map-and-verify "$n of 4 tasks: $(grep '^C ' "$OUT" | head -4)"
	no_steps_left apptainer
	# without the bind the map is not there: what the docs tell users to add
	run apptainer-no-bind 0 srun -N1 --ntasks-per-node=2 --parallel-layout=tp=2 \
		env PYTHONPATH="$RM_ROOT/python" apptainer -s exec --no-privs --contain \
		--bind /usr --bind "$RM_ROOT" "$IMG" \
		$PY "$RM_ROOT/tests/slurm/check_container.py"
	[ "$(grep -c 'unreadable in the container' "$OUT")" -eq 2 ] &&
		pass apptainer-needs-the-bind || fail apptainer-needs-the-bind "$(cat "$OUT")"
	no_steps_left apptainer-no-bind
fi

finish
