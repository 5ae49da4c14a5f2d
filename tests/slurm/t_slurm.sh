#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_slurm.sh - the SPANK plugin on a real Slurm: one local cluster (4 nodes,
# 8 fake GPUs each, leaves of 3 and 1 nodes) started once for every case.
# The last node runs with its own plugstack.conf (CLUSTER_ODD) so that a
# node with a different topology.conf can be staged.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
cluster_suite slurm
[ -x "$CLI" ] || CLI=$RANKMAP
T=$RM_ROOT/tests/slurm/task_env.sh
CHECK="python3 $RM_ROOT/tests/slurm/check_env.py"

cluster_preflight
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

# The runtime directory is under $D (runtime_dir=), so that clusters others
# run at the same time never meet in /run/rankmap; one case below runs with
# the default. The plugin creates it (root's, 0755).
RT=$D/rt
MAPS="runtime_dir=$RT"
export CLUSTER_ODD=1
if ! cluster_start "$D" 4 "$PLUGIN" "site=$D/etc/site.yaml" "$MAPS" >"$D/out/start.log" 2>&1; then
	fail cluster-start "$(tail -5 "$D/out/start.log"; tail -5 "$D/log/slurmctld.log" 2>/dev/null)"
	exit 1
fi
pass cluster-start
export SLURM_CONF=$D/etc/slurm.conf
SLURM_RELEASE=$(srun --version | awk '{print $2}')

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
# run_rc NAME CMD...: like run, the exit status left in RC for the caller.
run_rc() {
	local name=$1
	shift
	new_out
	"$@" >"$OUT" 2>"$ERR"
	RC=$?
}
# no_steps_left NAME: no job step of this cluster remains (a refused or
# cancelled step must not keep an allocation busy); Slurm ends steps
# asynchronously, so wait for it (30 s at most).
no_steps_left() {
	if cluster_wait 30 eval '[ -z "$(squeue -h -s -o %i 2>/dev/null)" ]'; then
		pass "$1-no-step-left"
	else
		fail "$1-no-step-left" "$(squeue -h -s -o '%i %T' 2>&1)"
	fi
}
# files_gone FILE...: none of them exists (the plugin removes them when the
# step or the job ends, after srun or sbatch --wait has returned).
files_gone() {
	local f
	for f in "$@"; do [ ! -e "$f" ] || return 1; done
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
maps=$(sed -n 's/.*map=\([^ ]*\).*/\1/p' "$D/out/a.txt" | sort -u)
if [ -n "$maps" ] && cluster_wait 30 files_gone $maps; then pass map-files-removed; else
	fail map-files-removed "still there 30 s after the step: $(ls $maps 2>&1 | head -3)"; fi

# ---- Megatron numbering on 2 nodes x 4 tasks
run env-megatron 0 srun -N2 -n8 --ntasks-per-node=4 --parallel-layout=2x2x2 --parallel-order=megatron "$T"
cp "$OUT" "$D/out/b.txt"
cli b 2x2x2 megatron "$(nodes_of "$D/out/b.txt")" 4
$CHECK megatron "$D/out/b.txt" "$D/out/b.json" "$D/etc/topology.conf" tp-dp-pp -

# ---- the step's secret for librankmap-nccl's id exchange (issue 10): the
# same 64 hex digits in every task of a step, another one in the next step
for k in 1 2; do
	srun -N2 -n4 --ntasks-per-node=2 --parallel-layout=2x1x2 sh -c \
		'echo "SECRET ${RANKMAP_NCCL_SECRET:-none}"' >"$D/out/secret$k.txt" 2>&1
done
s1=$(sort -u "$D/out/secret1.txt")
s2=$(sort -u "$D/out/secret2.txt")
if [ "$(wc -l <"$D/out/secret1.txt")" = 4 ] && [ "$(printf '%s\n' "$s1" | wc -l)" = 1 ] &&
	grep -Eq '^SECRET [0-9a-f]{64}$' <<<"$s1" && grep -Eq '^SECRET [0-9a-f]{64}$' <<<"$s2" &&
	[ "$s1" != "$s2" ]; then
	pass nccl-secret-per-step
else
	fail nccl-secret-per-step "$(head -c 300 "$D/out/secret1.txt") / $(head -c 100 "$D/out/secret2.txt")"
fi

# ---- the authenticated id exchange of librankmap-nccl in a real step,
# with the plugin's MASTER_ADDR, port and secret (no GPU, no NCCL needed)
PROBE=$RM_ASAN/tests/probe_exchange
if [ -x "$PROBE" ]; then
	for mode in auto munge; do
		RANKMAP_NCCL_AUTH=$mode RANKMAP_NCCL_MUNGE_SOCKET=$D/munge/sock \
			RANKMAP_NCCL_TIMEOUT=20 srun -N2 -n4 --ntasks-per-node=2 \
			--parallel-layout=2x1x2 "$PROBE" >"$D/out/xchg-$mode.txt" 2>&1
		ok=$(grep -c '^EXCHANGE rank=[0-3] ok [0-9a-f]\{16\}$' "$D/out/xchg-$mode.txt")
		ids=$(sed -n 's/^EXCHANGE rank=[0-3] ok //p' "$D/out/xchg-$mode.txt" | sort -u | wc -l)
		if [ "$ok" = 4 ] && [ "$ids" = 1 ]; then
			pass "nccl-exchange-$mode"
		else
			fail "nccl-exchange-$mode" "$(head -c 600 "$D/out/xchg-$mode.txt")"
		fi
	done
	# Rank 1 with another step's secret: it gets nothing, and rank 0
	# times out naming it instead of handing the id to an impostor.
	srun -N2 -n4 --ntasks-per-node=2 --parallel-layout=2x1x2 sh -c \
		'[ "$RANK" = 1 ] && export RANKMAP_NCCL_SECRET=$(printf "%064d" 0); RANKMAP_NCCL_AUTH=hmac RANKMAP_NCCL_TIMEOUT=3 exec '"$PROBE" \
		>"$D/out/xchg-bad.txt" 2>&1
	has nccl-exchange-impostor-gets-nothing "$D/out/xchg-bad.txt" '^EXCHANGE rank=1 authentication failed: rank 1: no authentic rank 0'
	has nccl-exchange-root-names-it "$D/out/xchg-bad.txt" '^EXCHANGE rank=0 timed out: rank 1 \(1 of 4\) did not reach rank 0 .*HMAC does not match'
	hasnt nccl-exchange-no-id-for-impostor "$D/out/xchg-bad.txt" '^EXCHANGE rank=1 ok'
else
	skip nccl-exchange "no $PROBE (NCCL not found at build time)"
fi

# ---- the environment form (slurmrestd users have nothing else)
SLURM_SPANK__SLURM_SPANK_OPTION_rankmap_parallel_layout=8x4x1 \
	run env-variable 0 srun -N4 -n32 --ntasks-per-node=8 "$T"
cli e 8x4x1 "" "node[1-4]" 8
$CHECK envform "$OUT" "$D/out/e.json" "$D/etc/topology.conf" tp-pp-dp -

# ---- sbatch -> srun propagation, srun override, batch step untouched
cat >"$D/out/job.sh" <<EOF
#!/bin/sh
env >"$D/out/batch.env"
ls -d $RT/\$SLURM_JOB_ID/* >"$D/out/batch.dirs" 2>/dev/null
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
	"env; ls -d $RT/\$SLURM_JOB_ID 2>/dev/null | sed 's/^/FILE /'"
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
_SLURM_SPANK_OPTION_rankmap_parallel_layout=8x8x8 run_rc node-side-check srun -N1 -n8 "$T"
[ "$RC" -ne 0 ] && pass node-side-check || fail node-side-check "srun exited 0"
has node-side-check-msg "$ERR" 'error: rankmap: node node[1-4]: --parallel-layout=8x8x8 does not fit the step.s 8 tasks'
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

# ---- issue 9.2: one map per step. node4 reads its own plugstack.conf
# (CLUSTER_ODD); give it another topology.conf. Whatever the enforce mode
# the step is cancelled with one message naming node4 and the input, no
# task of node4 runs, and nothing of the step is left.
echo "SwitchName=leaf1 Nodes=node[1-4]" >"$D/etc/topology-odd.conf"
for mode in warn strict off; do
	plugstack_maps "site=$D/etc/site.yaml" enforce=$mode
	echo "required $PLUGIN site=$D/etc/site.yaml enforce=$mode topology=$D/etc/topology-odd.conf $MAPS" >"$D/etc/plugstack-odd.conf"
	run_rc odd-$mode srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "$T"
	[ "$RC" -ne 0 ] && pass odd-$mode-fails || fail odd-$mode-fails "srun exited 0"
	has odd-$mode-msg "$ERR" "error: rankmap: node node4 planned another map than srun: its plugstack.conf arguments, topology.conf differ from srun's; step cancelled \\(one map per step, enforce=$mode\\)"
	[ "$(grep -c 'rankmap: node node4' "$ERR")" -eq 1 ] && pass odd-$mode-one-msg ||
		fail odd-$mode-one-msg "$(grep -c 'rankmap: node node4' "$ERR") messages"
	hasnt odd-$mode-node4-no-task "$OUT" '^TASK node=node4'
	# No two tasks may ever claim one rank.
	dups=$(sed -n 's/.* rank=\([0-9]*\) .*/\1/p' "$OUT" | sort | uniq -d | head -3)
	[ -z "$dups" ] && pass odd-$mode-no-duplicate-rank || fail odd-$mode-no-duplicate-rank "ranks $dups twice"
	no_steps_left odd-$mode
done
# The same map from other inputs (node4 has one argument more, that changes
# nothing in the map): warn runs and says so, strict refuses.
plugstack_maps "site=$D/etc/site.yaml" enforce=warn
echo "required $PLUGIN site=$D/etc/site.yaml enforce=warn export=rank $MAPS" >"$D/etc/plugstack-odd.conf"
run same-map-warn 0 srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "$T"
has same-map-warn-msg "$ERR" "rankmap: warning: node node4: its plugstack.conf arguments differ from srun's \\(same map\\)"
[ "$(grep -c '^TASK' "$OUT")" -eq 32 ] && pass same-map-warn-ran || fail same-map-warn-ran "$(head -3 "$ERR")"
plugstack_maps "site=$D/etc/site.yaml" enforce=strict
echo "required $PLUGIN site=$D/etc/site.yaml enforce=strict export=rank $MAPS" >"$D/etc/plugstack-odd.conf"
run_rc same-map-strict srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "$T"
has same-map-strict-msg "$ERR" "rankmap: node node4: its plugstack.conf arguments differ from srun's \\(same map\\); step cancelled under enforce=strict"
hasnt same-map-strict-node4-no-task "$OUT" '^TASK node=node4'
no_steps_left same-map-strict
plugstack_maps "site=$D/etc/site.yaml"
# A layout that reached the nodes without srun's plan (set by hand) has no
# common map: refused.
_SLURM_SPANK_OPTION_rankmap_parallel_layout=8x1x1 run_rc no-srun-plan srun -N1 -n8 "$T"
[ "$RC" -ne 0 ] && pass no-srun-plan || fail no-srun-plan "srun exited 0"
has no-srun-plan-msg "$ERR" "error: rankmap: this step's layout did not come through srun's rankmap plugin"
hasnt no-srun-plan-no-task "$OUT" '^TASK'
# srun --export=NONE passes only SLURM_* variables: the plan still arrives.
run export-none 0 srun -N1 -n8 --export=NONE --parallel-layout=8x1x1 "$T"
[ "$(grep -c '^TASK .* rank=[0-7] ' "$OUT")" -eq 8 ] && pass export-none-ranks || fail export-none-ranks "$(head -3 "$ERR")"

# ---- no arguments at all: topology.conf beside slurm.conf, no site,
# the runtime directory /run/rankmap
plugstack
run default-topology 0 srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "$T"
"$CLI" plan --layout 8x2x2 --nodes "node[1-4]" --gpus-per-node 8 \
	--topology "$D/etc/topology.conf" --format json >"$D/out/d.json" 2>/dev/null
$CHECK default-topology "$OUT" "$D/out/d.json" "$D/etc/topology.conf" tp-pp-dp 8
# issue 9.6: the default runtime directory, root's.
has default-dir "$OUT" "map=/run/rankmap/[0-9]+/0\\.node[1-4]/map.json "
[ "$(stat -c %u:%a /run/rankmap 2>&1)" = 0:711 ] && pass default-dir-root || fail default-dir-root "$(stat -c %u:%a /run/rankmap 2>&1)"
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

# ---- issue 26.6: the node's topology, cached per boot in RUNTIME/.hwcache
HWC=$RT/.hwcache
rm -rf "$HWC"
# hwc_file: the one cache file (KEY-SHA256.xml), else empty.
hwc_file() { ls "$HWC"/*.xml 2>/dev/null | head -1; }
# hwc_sound FILE: its bytes are what its name says.
hwc_sound() { [ -n "$1" ] && [ "$(sha256sum <"$1" | cut -c1-64)" = "$(basename "$1" .xml | cut -c66-)" ]; }
run hwcache-first 0 srun -N1 -n8 --parallel-layout=8x1x1 true
F=$(hwc_file)
[ "$(ls "$HWC" | wc -l)" = 1 ] && hwc_sound "$F" && pass hwcache-written ||
	fail hwcache-written "$(ls -la "$HWC" 2>&1)"
# Root's alone: the job user can neither write nor replace it.
[ "$(stat -c %u:%a "$HWC" 2>&1) $(stat -c %u:%a:%F "$F" 2>&1)" = "0:700 0:600:regular file" ] &&
	pass hwcache-root-only || fail hwcache-root-only "$(ls -la "$HWC" 2>&1)"
WAS=$(stat -c '%i %y' "$F")
run hwcache-second 0 srun -N2 -n16 --ntasks-per-node=8 --parallel-layout=8x1x2 true
[ "$(hwc_file)" = "$F" ] && [ "$(stat -c '%i %y' "$F")" = "$WAS" ] && pass hwcache-used ||
	fail hwcache-used "$WAS -> $(stat -c '%i %y' "$(hwc_file)" 2>&1)"
# Corrupt (a truncated write, an edit): refused and written again.
head -c 100 "$F" >"$F.x" && cat "$F.x" >"$F" && rm -f "$F.x"
run hwcache-corrupt 0 srun -N1 -n8 --parallel-layout=8x1x1 true
# (new bytes, maybe: hwloc records the writing process's name and cgroup)
F=$(hwc_file)
[ "$(ls "$HWC" | wc -l)" = 1 ] && hwc_sound "$F" && pass hwcache-corrupt-replaced ||
	fail hwcache-corrupt-replaced "$(ls -la "$HWC" 2>&1)"
# Another key's file (another boot, device list or driver) is never read:
# it goes, and this key's is rebuilt.
OLD=$HWC/$(printf '%064d-%064d' 0 0).xml
mv "$F" "$OLD"
run hwcache-other-key 0 srun -N1 -n8 --parallel-layout=8x1x1 true
F=$(hwc_file)
[ ! -e "$OLD" ] && [ "$(ls "$HWC" | wc -l)" = 1 ] && hwc_sound "$F" && pass hwcache-other-key-rebuilt ||
	fail hwcache-other-key-rebuilt "$(ls -la "$HWC" 2>&1)"
# hwcache=off: a scan at every step, nothing written.
rm -rf "$HWC"
plugstack_maps "site=$D/etc/site.yaml" hwcache=off
run hwcache-off 0 srun -N1 -n8 --parallel-layout=8x1x1 true
[ ! -e "$HWC" ] && pass hwcache-off-nothing || fail hwcache-off-nothing "$(ls -la "$HWC" 2>&1)"
plugstack_maps "site=$D/etc/site.yaml"

# ---- a job user other than root: the map is written as that user
if ! id nobody >/dev/null 2>&1; then
	skip other-user "no user nobody"
elif ! runuser -u nobody -- test -r "$PLUGIN" -a -x "$T"; then
	# srun as nobody loads the plugin from this checkout: a clone under a
	# private directory (mktemp -d is 0700) cannot be read by it
	skip other-user "nobody cannot read $PLUGIN and run $T: clone where other users can read"
else
	NOBODY=$(id -u nobody)
	# srun --uid is gone from 23.11 on: run srun itself as that user.
	run other-user 0 runuser -u nobody -- srun -N1 -n8 --parallel-layout=8x1x1 "$T"
	has other-user-file "$OUT" "map=$RT/[0-9]+/0\\.node[0-9]/map.json .* mode=440:0,750:0,"
fi

# ---- issue 9.1: after any refusal no step remains; the next srun in the
# same allocation starts at once. Refusals by srun, by the nodes, and a
# cancelled (drifted) step, in one allocation.
LONG=$(printf 'x%.0s' $(seq 1 300))
echo "required $PLUGIN site=$D/etc/site.yaml topology=$D/etc/topology-odd.conf $MAPS" >"$D/etc/plugstack-odd.conf"
cat >"$D/out/refusals.sh" <<EOS
#!/bin/sh
srun --parallel-layout=8x2x2 true; echo "srun-refused=\$?"
timeout 20 srun -N2 -n2 true; echo "next1=\$?"
_SLURM_SPANK_OPTION_rankmap_parallel_layout=$LONG srun true; echo "node-refused=\$?"
timeout 20 srun -N2 -n2 true; echo "next2=\$?"
srun --parallel-layout=8x2x1 true; echo "cancelled=\$?"
timeout 20 srun -N2 -n2 true; echo "next3=\$?"
# slurmctld ends a step when slurmstepd reports it, after srun returned:
# wait for the steps to leave squeue (30 s at most), then show any left.
end=\$((\$(date +%s) + 30))
while [ -n "\$(squeue -h -s -j \$SLURM_JOB_ID -o %i)" ] && [ \$(date +%s) -lt \$end ]; do sleep 0.1; done
squeue -h -s -j \$SLURM_JOB_ID -o 'STEP %i'
EOS
run refusals 0 timeout 120 salloc -w node3,node4 -N2 --ntasks-per-node=8 sh "$D/out/refusals.sh"
has refusals-srun "$OUT" '^srun-refused=1$'
has refusals-node "$OUT" '^node-refused=[1-9]'
has refusals-cancelled "$OUT" '^cancelled=[1-9]'
for i in 1 2 3; do has refusals-next$i-starts "$OUT" "^next$i=0\$"; done
hasnt refusals-no-step-left "$OUT" '^STEP'
has refusals-srun-msg "$ERR" "^srun: error: rankmap: --parallel-layout=8x2x2 does not fit the step's 16 tasks"
[ "$(grep -c 'rankmap: --parallel-layout=8x2x2 does not fit' "$ERR")" -eq 1 ] && pass refusals-srun-one-msg ||
	fail refusals-srun-one-msg "$(grep -c 'rankmap:' "$ERR") rankmap messages"
has refusals-long-msg "$ERR" 'error: rankmap: node node[34]: a --parallel-\* value is longer than 256 bytes'
has refusals-drift-msg "$ERR" 'error: rankmap: node node4 planned another map than srun'
no_steps_left refusals
plugstack_maps "site=$D/etc/site.yaml"

# ---- issue 9.3: the order is checked against the real layout
run order-torchtitan 0 srun -N2 -n16 --ntasks-per-node=8 --parallel-layout=8x2x1 --parallel-order=torchtitan sh -c 'echo "ORDER $RANKMAP_ORDER"'
has order-torchtitan-used "$OUT" '^ORDER tp-dp-pp$'
run order-tp-pp 0 srun -N2 -n16 --ntasks-per-node=8 --parallel-layout=8x2x1 --parallel-order=tp-pp sh -c 'echo "ORDER $RANKMAP_ORDER"'
has order-tp-pp-used "$OUT" '^ORDER tp-pp$'
run order-torchtitan-sbatch 0 sbatch --wait -N1 --ntasks-per-node=8 --parallel-layout=8x1x1 \
	--parallel-order=torchtitan -o "$D/out/tt.out" --wrap 'srun sh -c "echo ORDER \$RANKMAP_ORDER"'
has order-torchtitan-sbatch-ran "$D/out/tt.out" '^ORDER '
run order-misfit-sbatch 1 sbatch -N1 --parallel-layout=tp=2,ep=2,dp=2 --parallel-order=torchtitan --wrap true
has order-misfit-sbatch-msg "$ERR" "^sbatch: error: rankmap: --parallel-order=torchtitan with --parallel-layout=tp=2,ep=2,dp=2: order 'torchtitan' with ep=2: "

# ---- issue 9.4: --parallel-layout=none, and its environment form
cat >"$D/out/helpers.sh" <<EOS
#!/bin/sh
srun -N1 -n1 --parallel-layout=none sh -c 'echo "OPT rank=\${RANK:-unset} map=\${RANKMAP_MAP:-unset}"'
SLURM_SPANK__SLURM_SPANK_OPTION_rankmap_parallel_layout=none srun -N1 -n1 sh -c 'echo "ENV rank=\${RANK:-unset}"'
srun -N2 -n2 --parallel-layout=none hostname >/dev/null && echo "ORDER-IGNORED ok"
EOS
run layout-none 0 sbatch --wait -N2 --ntasks-per-node=8 --parallel-layout=8x2x1 --parallel-order=megatron \
	-o "$D/out/helpers.out" "$D/out/helpers.sh"
has layout-none-option "$D/out/helpers.out" '^OPT rank=unset map=unset$'
has layout-none-env "$D/out/helpers.out" '^ENV rank=unset$'
has layout-none-with-order "$D/out/helpers.out" '^ORDER-IGNORED ok$'

# ---- issue 9.5: two concurrent steps with one first node, other ports
cat >"$D/out/exact.sh" <<EOS
#!/bin/sh
srun --exact -N1 -n4 --parallel-layout=4x1x1 sh -c 'echo "PORT \$MASTER_ADDR \$MASTER_PORT \$SLURM_STEP_ID"; sleep 1' &
srun --exact -N1 -n4 --parallel-layout=4x1x1 sh -c 'echo "PORT \$MASTER_ADDR \$MASTER_PORT \$SLURM_STEP_ID"; sleep 1' &
wait
EOS
run ports 0 salloc -N1 --ntasks-per-node=8 sh "$D/out/exact.sh"
[ "$(awk '/^PORT/ {print $2}' "$OUT" | sort -u | wc -l)" -eq 1 ] && pass ports-same-first-node || fail ports-same-first-node "$(cat "$OUT")"
[ "$(awk '/^PORT/ {print $4}' "$OUT" | sort -u | wc -l)" -eq 2 ] && [ "$(awk '/^PORT/ {print $3}' "$OUT" | sort -u | wc -l)" -eq 2 ] &&
	pass ports-per-step || fail ports-per-step "$(sort -u "$OUT")"

# ---- issue 9.6: the runtime directory. The job's directory lives as long
# as the job (the epilog removes it), even when slurmstepd is killed.
cat >"$D/out/rt.sh" <<EOS
#!/bin/sh
srun --parallel-layout=8x1x1 true
stat -c 'JOBDIR %u %a' $RT/\$SLURM_JOB_ID
# slurmstepd removes the step's directory in its exit callback, which runs
# after srun has returned (after the step's completion reaches slurmctld,
# seconds later on a loaded machine): wait for it, 30 s at most.
end=\$((\$(date +%s) + 30))
while [ -n "\$(ls $RT/\$SLURM_JOB_ID)" ] && [ \$(date +%s) -lt \$end ]; do sleep 0.1; done
ls $RT/\$SLURM_JOB_ID | sed 's/^/LEFT /'
EOS
run rt-job 0 sbatch --wait -N1 --ntasks-per-node=8 --parallel-layout=8x1x1 -o "$D/out/rt.out" "$D/out/rt.sh"
has rt-job-dir-during-job "$D/out/rt.out" "^JOBDIR 0 750\$"
hasnt rt-step-dir-removed "$D/out/rt.out" '^LEFT'
job=$(sed -n 's/^Submitted batch job //p' "$OUT")
gone() { cluster_wait 30 files_gone "$1"; }
[ -n "$job" ] && gone "$RT/$job" && pass rt-epilog-removes || fail rt-epilog-removes "$(ls -la "$RT/$job" 2>&1)"
# slurmstepd killed: nothing of the job's stays.
job=$(sbatch --parsable -o /dev/null -N1 --ntasks-per-node=8 --parallel-layout=8x1x1 --wrap 'srun sleep 60')
cluster_wait 30 eval 'ls -d "$RT/$job"/0.* >/dev/null 2>&1' && pass rt-killed-running || fail rt-killed-running "no step directory for job $job"
stepd=$(pgrep -f "^slurmstepd: \[$job\.0\]$")
[ -n "$stepd" ] && kill -KILL $stepd
scancel "$job"
[ -n "$job" ] && gone "$RT/$job" && pass rt-killed-stepd-cleaned || fail rt-killed-stepd-cleaned "$(ls -laR "$RT/$job" 2>&1 | head -5)"
# A squatted runtime directory (another owner, or a link) is refused.
mkdir "$D/squat" && chown 65534 "$D/squat"
ln -s "$RT" "$D/link"
plugstack "site=$D/etc/site.yaml" "runtime_dir=$D/squat"
run_rc rt-squatted srun -N1 -n8 --parallel-layout=8x1x1 "$T"
[ "$RC" -ne 0 ] && pass rt-squatted || fail rt-squatted "srun exited 0"
has rt-squatted-msg "$ERR" "error: rankmap: node node[1-4]: map file: runtime directory $D/squat belongs to uid 65534 with mode 0755; it must be root's"
hasnt rt-squatted-no-task "$OUT" '^TASK'
plugstack "site=$D/etc/site.yaml" "runtime_dir=$D/link"
run_rc rt-link srun -N1 -n8 --parallel-layout=8x1x1 "$T"
[ "$RC" -ne 0 ] && pass rt-link || fail rt-link "srun exited 0"
has rt-link-msg "$ERR" "error: rankmap: node node[1-4]: map file: cannot open the runtime directory $D/link: Not a directory"
plugstack_maps "site=$D/etc/site.yaml"

# ---- issue 9.7: plugstack typos fail closed, loudly, naming the key
for arg in enforse=strict enforce=strcit dir=/tmp; do
	plugstack_maps "site=$D/etc/site.yaml" "$arg"
	run "typo-$arg" 1 srun -N1 -n8 --parallel-layout=8x1x1 "$T"
	has "typo-$arg-msg" "$ERR" "^srun: error: rankmap: plugstack.conf: '$arg': "
	hasnt "typo-$arg-no-task" "$OUT" '^TASK'
	run "typo-$arg-other-steps" 0 srun -N1 -n1 true
done
# ... and on a node whose plugstack.conf alone has the typo.
plugstack_maps "site=$D/etc/site.yaml"
echo "required $PLUGIN site=$D/etc/site.yaml enforse=strict $MAPS" >"$D/etc/plugstack-odd.conf"
run_rc typo-node srun -w node4 -N1 -n8 --parallel-layout=8x1x1 "$T"
[ "$RC" -ne 0 ] && pass typo-node || fail typo-node "srun exited 0"
has typo-node-msg "$ERR" "^srun: error: rankmap: node node4: plugstack.conf: 'enforse=strict': unknown argument"
# ... and at slurmd start (issue 9.11: one line with version and config).
# slurmd's start also removes the maps of jobs that died with the node
# (issue 38.4: no epilog ran for them): an hour-old job directory with no
# slurmstepd goes, a fresh one (a step starting meanwhile) stays.
mkdir -p "$RT/999991/0.node4" "$RT/999992"
echo '{}' >"$RT/999991/0.node4/map.json"
touch -d '1 hour ago' "$RT/999991"
if cluster_restart_slurmd "$D" 4 >/dev/null 2>&1; then
	has slurmd-start-typo "$D/log/slurmd-node4.log" "error: rankmap: plugstack.conf: 'enforse=strict': unknown argument .*: every --parallel-layout step will be refused"
	[ ! -e "$RT/999991" ] && [ -d "$RT/999992" ] && pass slurmd-start-sweep ||
		fail slurmd-start-sweep "$(ls -la "$RT")"
	has slurmd-start-sweep-says "$D/log/slurmd-node4.log" "rankmap: removed the maps of [0-9]+ job\\(s\\) that ended while this node was down"
else
	fail slurmd-start-typo "node4's slurmd did not come back"
fi
rm -rf "$RT/999992"
has slurmd-start-line "$D/log/slurmd-node1.log" "rankmap: version [0-9.]+, built for Slurm $SLURM_RELEASE; site=$D/etc/site.yaml topology=.* enforce=.* export=rank runtime_dir=$RT hwcache=\(runtime_dir/\.hwcache\)\$"
plugstack_maps "site=$D/etc/site.yaml"

# ---- issue 9.8: refused in srun with one message, before anything runs
run hetjob 1 srun -N1 -n8 --parallel-layout=8x1x1 "$T" : -N1 -n1 true
has hetjob-msg "$ERR" '^srun: error: rankmap: --parallel-layout does not support heterogeneous jobs \(2 components\)'
[ "$(grep -c 'rankmap:' "$ERR")" -eq 1 ] && pass hetjob-one-msg || fail hetjob-one-msg "$(grep 'rankmap:' "$ERR" | head -3)"
hasnt hetjob-no-task "$OUT" '^TASK'
run overcommit 1 srun -N1 -n16 --overcommit --parallel-layout=16x1x1 "$T"
has overcommit-msg "$ERR" '^srun: error: rankmap: 16 tasks per node, but the nodes have 8 GPUs \(site file\)'
hasnt overcommit-no-task "$OUT" '^TASK'
# one launcher task per node: 8x2x1 is 16 ranks on one 8-GPU node (issue
# 37: it ran with LOCAL_WORLD_SIZE=16, or advised --gpus-per-node=16)
run launcher-over 1 srun -N1 -n1 --parallel-layout=8x2x1 "$T"
has launcher-over-msg "$ERR" 'rankmap: --parallel-layout=8x2x1 with one task per node \(a launcher\) puts 16 ranks on each of the step.s 1 node\(s\), but the nodes have 8 GPUs \(site file\): give the step 2 nodes \(-N2 --ntasks-per-node=1\)'
hasnt launcher-over-no-task "$OUT" '^TASK'
no_steps_left hetjob-overcommit

# ---- issue 9.9: --parallel-export=slurm (and the plugstack default)
SHOWID='echo "P $SLURM_PROCID $RANK $SLURM_LOCALID $LOCAL_RANK"'
run export-slurm 0 srun -N2 -n8 --ntasks-per-node=4 --parallel-layout=2x2x2 --parallel-order=megatron --parallel-export=slurm sh -c "$SHOWID"
[ "$(grep -c '^P ' "$OUT")" -eq 8 ] && [ "$(awk '$2 != $3 || $4 != $5' "$OUT" | wc -l)" -eq 0 ] &&
	pass export-slurm-procid || fail export-slurm-procid "$(head -3 "$OUT")"
# Without it Slurm's own numbering stays, and differs here: the test above
# would catch an export that did nothing.
run export-default 0 srun -N2 -n8 --ntasks-per-node=4 --parallel-layout=2x2x2 --parallel-order=megatron sh -c "$SHOWID"
[ "$(awk '$2 != $3' "$OUT" | wc -l)" -gt 0 ] && pass export-default-untouched || fail export-default-untouched "SLURM_PROCID equals RANK everywhere"
plugstack_maps "site=$D/etc/site.yaml" export=slurm
run export-plugstack 0 srun -N2 -n8 --ntasks-per-node=4 --parallel-layout=2x2x2 --parallel-order=megatron sh -c "$SHOWID"
[ "$(grep -c '^P ' "$OUT")" -eq 8 ] && [ "$(awk '$2 != $3' "$OUT" | wc -l)" -eq 0 ] && pass export-plugstack-procid || fail export-plugstack-procid "$(head -3 "$OUT")"
run export-optout 0 srun -N2 -n8 --ntasks-per-node=4 --parallel-layout=2x2x2 --parallel-order=megatron --parallel-export=rank sh -c "$SHOWID"
[ "$(awk '$2 != $3' "$OUT" | wc -l)" -gt 0 ] && pass export-optout-procid || fail export-optout-procid "$(head -3 "$OUT")"
plugstack_maps "site=$D/etc/site.yaml"

# ---- a real PyTorch job: gloo, env://, groups from the map file
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is None)'; then
	# Debian's torch 2.x (the 26.05 root's 2.14) is built without libuv,
	# which TCPStore asks for by default since 2.4; 1.13 ignores this.
	run torch 0 timeout 600 env USE_LIBUV=0 srun -N2 -n8 --ntasks-per-node=4 --parallel-layout=2x2x2 \
		--parallel-order=megatron /usr/bin/python3 templates/pytorch_groups.py
	[ "$(grep -c '^rank [0-7] OK' "$OUT")" -eq 8 ] && pass torch-all-ranks ||
		fail torch-all-ranks "$(cat "$OUT" "$ERR" | tail -20)"
else
	skip torch "/usr/bin/python3 with torch (Debian python3-torch) is not installed"
fi

# ---- issue 9.5: ports Slurm reserves per step (MpiParams=ports) win
echo "MpiParams=ports=30100-30199" >>"$D/etc/slurm.conf"
echo "MpiParams=ports=30100-30199" >>"$D/etc/slurm-odd.conf"
if scontrol reconfigure >/dev/null 2>&1; then
	run resv-ports 0 srun -N2 -n16 --ntasks-per-node=8 --parallel-layout=8x2x1 sh -c 'echo "RP $MASTER_PORT ${SLURM_STEP_RESV_PORTS:-none}"'
	bad=$(awk '$1 == "RP" { split($3, a, /[-,]/); if ($2 != a[1]) print }' "$OUT" | head -2)
	[ -z "$bad" ] && grep -q '^RP 301[0-9][0-9] ' "$OUT" && pass resv-ports-first || fail resv-ports-first "$bad $(head -2 "$OUT")"
else
	fail resv-ports "scontrol reconfigure failed"
fi
# issue 21.5: a step without reserved ports (--resv-ports=0) derives its
# port outside the reserved range too. With ports=20000-65535 reserved,
# the derived pool from 20000 up is empty, so every port it used to pick
# is reserved; it must come from 1024-19999 now, the same on every task
# and the same as `rankmap plan --format env` prints inside the step.
sed -i 's/^MpiParams=.*/MpiParams=ports=20000-65535/' "$D/etc/slurm.conf" "$D/etc/slurm-odd.conf"
if scontrol reconfigure >/dev/null 2>&1; then
	run resv-ports-none 0 srun -N2 -n16 --ntasks-per-node=8 --resv-ports=0 --parallel-layout=8x2x1 sh -c \
		'echo "NP $MASTER_PORT ${SLURM_STEP_RESV_PORTS:-none} $("$0" plan --layout 8x2x1 --format env --slurm-task | sed -n "s/^MASTER_PORT=//p")"' "$CLI"
	ports=$(awk '$1 == "NP" { print $2 }' "$OUT" | sort -u)
	if [ "$(grep -c '^NP ' "$OUT")" -eq 16 ] && [ "$(printf '%s\n' "$ports" | wc -l)" -eq 1 ] &&
		[ "$ports" -ge 1024 ] && [ "$ports" -lt 19999 ] && ! grep -qv "^NP $ports none $ports\$" "$OUT"; then
		pass "resv-ports-none-outside-reserved (MASTER_PORT=$ports)"
	else
		fail resv-ports-none-outside-reserved "$(sort -u "$OUT" | head -3) $(head -c 300 "$ERR")"
	fi
else
	fail resv-ports-none "scontrol reconfigure with MpiParams=ports=20000-65535 failed"
fi
sed -i 's/^MpiParams=.*/MpiParams=ports=30100-30199/' "$D/etc/slurm.conf" "$D/etc/slurm-odd.conf"
scontrol reconfigure >/dev/null 2>&1 || fail resv-ports-restore "scontrol reconfigure failed"

# ---- issue 38: another user trickling bytes into srun's notice port (a
# listener of srun's on every address, its owner visible in
# /proc/net/tcp6) holds srun's exit for at most its 1 s budget. One byte
# every 150 ms once held it 160 s.
step2s() { srun -N1 -n1 --parallel-layout=1x1x1 --gpus-per-node=1 sleep 2 >/dev/null 2>&1; }
t0=$(date +%s%3N); step2s; alone=$(($(date +%s%3N) - t0))
t0=$(date +%s%3N)
srun -N1 -n1 --parallel-layout=1x1x1 --gpus-per-node=1 sleep 2 >/dev/null 2>&1 &
spid=$!
# srun's own listeners are IPv4; the notice port is its one IPv6 (dual
# stack) listener: found from /proc, as the roots have no ss.
notice_port() { # PID
	local ino hex
	for ino in $(ls -l "/proc/$1/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p'); do
		hex=$(awk -v i="$ino" '$4 == "0A" && $10 == i { split($2, a, ":"); print a[2]; exit }' /proc/net/tcp6)
		[ -n "$hex" ] && { printf '%d\n' "0x$hex"; return; }
	done
}
port=
for _ in $(seq 60); do
	port=$(notice_port "$spid")
	[ -n "$port" ] && break
	sleep 0.05
done
if [ -n "$port" ]; then
	setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
end = time.time() + 20
while time.time() < end:
    try:
        s.send(b"a")
    except OSError:
        break
    time.sleep(0.15)' "$port" >/dev/null 2>&1 &
	trk=$!
fi
wait "$spid"
held=$(($(date +%s%3N) - t0))
[ -n "${trk:-}" ] && kill "$trk" 2>/dev/null
if [ -z "$port" ]; then
	fail notice-trickle "found no notice port of srun (pid $spid)"
elif [ "$held" -lt $((alone + 2000)) ]; then
	pass notice-trickle
else
	fail notice-trickle "srun took $held ms with a trickling stranger, $alone ms alone"
fi
echo "# srun with a stranger trickling into its notice port: $held ms, alone $alone ms" >&2

# ---- issue 37: inside a job, `rankmap plan` with no options plans what
# the plugin planned for the step: the job's layout and order from its map,
# the site file and topology from plugstack.conf and slurm.conf (found
# through SLURM_CONF, as slurmd finds them). Same digest, byte for byte.
run cli-in-job 0 srun -N2 --ntasks-per-node=8 --parallel-layout=8x2x1 --parallel-order=megatron sh -c \
	'[ "$SLURM_PROCID" = 0 ] || exit 0
	"$0" plan --format json -o "$1/cli-in-job.json" 2>"$1/cli-in-job.err" &&
	echo "DIGEST $RANKMAP_MAP_SHA256 $(sha256sum <"$1/cli-in-job.json" | cut -d" " -f1)"' "$CLI" "$D/out"
read -r _ plugin_sha cli_sha <<<"$(grep '^DIGEST' "$OUT")"
[ -n "$plugin_sha" ] && [ "$plugin_sha" = "$cli_sha" ] && pass cli-in-job-same-digest ||
	fail cli-in-job-same-digest "plugin $plugin_sha, CLI $cli_sha: $(cat "$D/out/cli-in-job.err" 2>/dev/null | head -5)"
has cli-in-job-says "$D/out/cli-in-job.err" "^rankmap plan: as the plugin: $D/etc/plugstack.conf:1 \\(site $D/etc/site.yaml, topology "
# --no-site-config: the flat plan of before, not the job's
run cli-in-job-off 0 srun -N2 --ntasks-per-node=8 --parallel-layout=8x2x1 --parallel-order=megatron sh -c \
	'[ "$SLURM_PROCID" = 0 ] || exit 0
	"$0" plan --no-site-config --format json 2>/dev/null | grep -c "\"leaf\":\"flat\""' "$CLI"
[ "$(head -1 "$OUT")" -gt 0 ] 2>/dev/null && pass cli-in-job-off-flat || fail cli-in-job-off-flat "$(head -3 "$OUT")"

# ---- issue 9.10: configless Slurm. slurmd fetches slurm.conf and
# topology.conf from slurmctld and caches them; slurmstepd's SLURM_CONF
# points into that cache, which is where the plugin looks for topology.conf:
# the nodes plan with the cluster's tree, like srun, and see no drift.
D2=$(cluster_tmpdir rankmap-cl)
trap 'cluster_stop "$D2" & cluster_stop "$D"; wait' EXIT
if CLUSTER_ODD=0 CLUSTER_CONFIGLESS=1 cluster_start "$D2" 3 "$PLUGIN" "runtime_dir=$D2/rt" >"$D/out/cl.log" 2>&1; then
	pass configless-start
	CL="env SLURM_CONF=$D2/etc/slurm.conf"
	# slurmd sets SLURM_CONF to its cache and slurmstepd inherits it, on
	# both releases. 24.11's slurmstepd writes its process title over its
	# initial environment, so /proc shows it on 22.05 only; the
	# configless-no-drift case below checks what the plugin read on both.
	if [ "${SLURM_RELEASE%%.*}" = 22 ]; then
		run configless-conf 0 $CL srun -w node3 -N1 -n1 sh -c 'tr "\0" "\n" </proc/$PPID/environ | grep ^SLURM_CONF='
		has configless-stepd-uses-cache "$OUT" "^SLURM_CONF=$D2/spool/node3/conf-cache/slurm.conf\$"
	fi
	[ -f "$D2/spool/node3/conf-cache/topology.conf" ] && pass configless-topology-cached ||
		fail configless-topology-cached "$(ls "$D2/spool/node3/conf-cache")"
	run configless-layout 0 $CL srun -w node2,node3 -N2 -n16 --ntasks-per-node=8 --parallel-layout=8x2x1 "$T"
	"$CLI" plan --layout 8x2x1 --nodes "node[2-3]" --gpus-per-node 8 \
		--topology "$D2/etc/topology.conf" --format json >"$D/out/cl.json" 2>/dev/null
	# node2 and node3 are in different leaves: the one pipeline crosses.
	$CHECK configless "$OUT" "$D/out/cl.json" "$D2/etc/topology.conf" tp-pp-dp 8
	hasnt configless-no-drift "$ERR" 'rankmap'
else
	fail configless-start "$(tail -5 "$D/out/cl.log" "$D2/log/start.log" "$D2"/log/slurmd-node*.log 2>/dev/null)"
fi

finish
