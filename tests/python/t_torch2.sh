#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap.torch.device_mesh against the real DeviceMesh of torch 2.x: the
# Debian unstable root of `make slurm26` carries python3-torch 2.x (Debian
# 12's 1.13 has no DeviceMesh). Maps come from this build's CLI; gloo
# processes on CPU inside the root build the mesh and compare every
# dimension's group with the map's.
. "$(dirname "$0")/../lib.sh"
SUITE=torch2
IN=$RM_ROOT/roots/inroot.sh
ROOT=$("$IN" --path slurm26)
if [ ! -f "$ROOT/.rankmap-slurm26" ]; then
	# quiet: t_slurm26.sh prints the one SKIP line naming `make slurm26`
	exit 0
fi
need_rankmap
# In the checkout (bound into the root at the same path), not /tmp: the
# root has a /tmp of its own.
W=$RM_BUILD/torch2
rm -rf "$W"
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
T_FAILS=0
for spec in "megatron tp=2,cp=2,pp=2 megatron" \
	"torchtitan-hsdp tp=2,dp_replicate=2,dp_shard=2 torchtitan"; do
	set -- $spec
	if ! "$RANKMAP" plan --layout "$2" --order "$3" --nodes "n[1-2]" \
		--gpus-per-node 4 --format json -o "$W/$1.json" 2>"$W/$1.err"; then
		fail "$1-plan" "$(cat "$W/$1.err")"
		continue
	fi
	out=$("$IN" slurm26 env PYTHONPATH="$RM_ROOT/python" python3 \
		"$RM_ROOT/tests/python/mesh_workers.py" "torch2/$1" "$W/$1.json" 2>&1)
	echo "$out" | grep -E '^(PASS|FAIL|SKIP): ' || fail "$1" "$(echo "$out" | tail -5)"
	echo "$out" | grep -q '^PASS: ' || T_FAILS=$((T_FAILS + 1))
done
# A worker that hangs (here: a limit shorter than any start-up) is
# reported, and no worker of the run is left behind in the root.
out=$(RM_MESH_TIMEOUT=0.2 "$IN" slurm26 env RM_MESH_TIMEOUT=0.2 \
	PYTHONPATH="$RM_ROOT/python" python3 "$RM_ROOT/tests/python/mesh_workers.py" \
	"torch2/hang" "$W/megatron.json" 2>&1)
if echo "$out" | grep -q '^FAIL: torch2/hang: .*a worker hung past 0.2 s'; then
	pass hang-reported
else
	fail hang-reported "$(echo "$out" | tail -3)"
fi
left=$(pgrep -f "mesh_workers.py --worker .* $W/megatron.json" || true)
[ -z "$left" ] && pass hang-nothing-left || fail hang-nothing-left "workers still running: $left"
finish
