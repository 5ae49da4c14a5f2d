#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_inputs.sh - what a step is given and what it may be given, on a real
# Slurm (issue 21, points 5 and 6): MASTER_PORT without reserved ports
# lies outside the nodes' ephemeral port range, and the plugin refuses the
# option values it used to take silently (a layout with a blank at its
# start or end, an empty --parallel-order=, a heterogeneous step srun did
# not see as one), each with a line naming the value, no step left; and
# (point 7) a peer written from docs/nccl.md over libsodium opens rank
# 0's sealed answer in a real step.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
cluster_suite inputs
[ -x "$CLI" ] || CLI=$RANKMAP
T=$RM_ROOT/tests/slurm/task_env.sh
PORT_RULE=$RM_ROOT/tests/slurm/port_rule.py

cluster_preflight
[ -f "$PLUGIN" ] || { fail plugin "$PLUGIN was not built"; exit 1; }
D=$(cluster_tmpdir rankmap-inputs)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out"
printf '%s\n' "schema: rankmap-site/1" "name: rminputs" "gpus_per_node: 8" \
	"topology: topology.conf" >"$D/etc/site.yaml"
# Job 5130's first step had 20000 + (5130 * 101) % 20000 = 38130 under the
# old rule: inside Linux's default ephemeral range (32768-60999).
FIRST=5130
export CLUSTER_CONF_EXTRA="FirstJobId=$FIRST"
if ! cluster_start "$D" 2 "$PLUGIN" "site=$D/etc/site.yaml" "runtime_dir=$D/rt" >"$D/out/start.log" 2>&1; then
	fail cluster-start "$(tail -5 "$D/out/start.log"; tail -5 "$D/log/slurmctld.log" 2>/dev/null)"
	exit 1
fi
pass cluster-start
export SLURM_CONF=$D/etc/slurm.conf

no_steps_left() {
	if cluster_wait 30 eval '[ -z "$(squeue -h -s -o %i 2>/dev/null)" ]'; then
		pass "$1-no-step-left"
	else
		fail "$1-no-step-left" "$(squeue -h -s -o '%i %T' 2>&1)"
	fi
}

# ---- point 5: MASTER_PORT outside ip_local_port_range
read -r lo hi < /proc/sys/net/ipv4/ip_local_port_range
# Three steps in one job: the rule's port for each, outside [lo, hi] with
# the next port too (the NCCL id exchange's), and what `rankmap plan
# --format env` prints in the same step.
cat >"$D/out/ports.sh" <<EOS
#!/bin/sh
for s in 0 1 2; do
	srun -N2 -n16 --ntasks-per-node=8 --parallel-layout=8x1x2 sh -c \
		'[ "\$SLURM_PROCID" = 0 ] || [ "\$SLURM_PROCID" = 8 ] || exit 0
		 echo "PORT \$SLURM_JOB_ID \$SLURM_STEP_ID \$SLURMD_NODENAME \$MASTER_PORT \$("$CLI" plan --layout 8x1x2 --nodes "\$SLURM_JOB_NODELIST" --gpus-per-node 8 --site "$D/etc/site.yaml" --format env | sed -n "s/^MASTER_PORT=//p")"'
done
EOS
run ports 0 sbatch -N2 -n16 --ntasks-per-node=8 --wait -o "$D/out/ports.txt" "$D/out/ports.sh"
grep '^PORT ' "$D/out/ports.txt" >"$D/out/ports.lines"
job=$(awk '{print $2; exit}' "$D/out/ports.lines")
if [ "$(wc -l <"$D/out/ports.lines")" = 6 ]; then pass ports-steps; else
	fail ports-steps "$(head -c 400 "$D/out/ports.txt")"; fi
bad=$(while read -r _ j s node port cliport; do
	want=$(python3 "$PORT_RULE" "$j" "$s")
	[ "$port" = "$want" ] || echo "step $j.$s on $node: MASTER_PORT=$port, rule says $want"
	[ "$cliport" = "$port" ] || echo "step $j.$s on $node: plan --format env says $cliport, the plugin $port"
	if [ "$port" -ge "$lo" ] && [ "$port" -le "$hi" ] || [ $((port + 1)) -ge "$lo" ] && [ $((port + 1)) -le "$hi" ]; then
		echo "step $j.$s on $node: MASTER_PORT=$port or the next is in the ephemeral range $lo-$hi"
	fi
done <"$D/out/ports.lines")
if [ -z "$bad" ] && [ -s "$D/out/ports.lines" ]; then pass ports-outside-ephemeral; else
	fail ports-outside-ephemeral "$bad"; fi
# The old rule's port for this job: inside the range here, as the issue saw.
old=$((20000 + (job * 101) % 20000))
if [ "$job" = "$FIRST" ] && [ "$old" -ge "$lo" ] && [ "$old" -le "$hi" ]; then
	pass ports-old-rule-was-inside
else
	skip ports-old-rule-was-inside "job $job (FirstJobId=$FIRST not taken?) or range $lo-$hi: the old rule's port $old is not in the range here"
fi
# Consecutive steps differ.
if [ "$(awk '{print $5}' "$D/out/ports.lines" | sort -u | wc -l)" = 3 ]; then pass ports-per-step; else
	fail ports-per-step "$(cat "$D/out/ports.lines")"; fi
# A listener can take the port on the node (nobody else holds it).
run port-listen 0 srun -N1 -n1 --parallel-layout=1x1x1 python3 -c \
	'import os, socket; s = socket.socket(); s.bind(("", int(os.environ["MASTER_PORT"]))); s.listen(); print("LISTEN", os.environ["MASTER_PORT"])'
has port-listen-ok "$OUT" '^LISTEN [0-9]+$'

# ---- point 7: the NCCL id exchange in secret mode is libsodium's AEAD, as
# docs/nccl.md says: rank 1 is tests/slurm/xchg_peer.py, written from the
# docs over libsodium, beside probe_exchange's ranks 0, 2, 3; it must open
# rank 0's sealed answer and get the id the others got.
PROBE=$RM_ASAN/tests/probe_exchange
if [ -x "$PROBE" ]; then
	RANKMAP_NCCL_AUTH=hmac RANKMAP_NCCL_TIMEOUT=20 srun -N2 -n4 --ntasks-per-node=2 \
		--parallel-layout=2x1x2 sh -c '[ "$RANK" = 1 ] && exec python3 '"$RM_ROOT/tests/slurm/xchg_peer.py"'; exec '"$PROBE" \
		>"$D/out/xchg.txt" 2>&1
	ok=$(grep -c '^EXCHANGE rank=[0-3] ok [0-9a-f]\{16\}$' "$D/out/xchg.txt")
	ids=$(sed -n 's/^EXCHANGE rank=[0-3] ok //p' "$D/out/xchg.txt" | sort -u | wc -l)
	if [ "$ok" = 4 ] && [ "$ids" = 1 ]; then pass nccl-aead-peer-from-docs; else
		fail nccl-aead-peer-from-docs "$(head -c 600 "$D/out/xchg.txt")"; fi
else
	skip nccl-aead-peer-from-docs "no $PROBE (NCCL or libsodium not found at build time)"
fi

# ---- point 6: values taken silently before, refused now, nothing started
refused() { # NAME PATTERN CMD...: exit != 0, PATTERN on stderr, no task ran
	local name=$1 pat=$2
	shift 2
	new_out
	"$@" >"$OUT" 2>"$ERR"
	if [ $? -ne 0 ]; then pass "$name-refused"; else fail "$name-refused" "exit 0: $(head -c 200 "$OUT")"; fi
	has "$name-says" "$ERR" "$pat"
	hasnt "$name-no-task" "$OUT" '^TASK '
	no_steps_left "$name"
}
refused layout-leading-blank "rankmap: --parallel-layout: layout ' 8x1x2': blank at its start or end" \
	srun -N2 -n16 --ntasks-per-node=8 "--parallel-layout= 8x1x2" "$T"
refused layout-trailing-newline "rankmap: --parallel-layout: layout '8x1x2\\\\x0a': blank at its start or end" \
	srun -N2 -n16 --ntasks-per-node=8 "--parallel-layout=8x1x2
" "$T"
refused order-trailing-blank "rankmap: --parallel-order: order 'megatron ': blank at its start or end" \
	srun -N2 -n16 --ntasks-per-node=8 --parallel-layout=8x1x2 "--parallel-order=megatron " "$T"
refused order-empty "rankmap: --parallel-order= is empty: name an order .* or leave the option out for the site's" \
	srun -N2 -n16 --ntasks-per-node=8 --parallel-layout=8x1x2 --parallel-order= "$T"
# The same value without the blank still runs.
run layout-clean 0 srun -N2 -n16 --ntasks-per-node=8 --parallel-layout=8x1x2 "$T"
if [ "$(grep -c '^TASK .*world=16 ' "$OUT")" = 16 ]; then pass layout-clean-runs; else fail layout-clean-runs "$(head -c 300 "$ERR")"; fi

# A heterogeneous step whose srun does not see SLURM_HET_SIZE (a wrapper
# that cleaned it; the tasks then lack it too): refused as one, not for
# not fitting one component.
new_out
timeout 60 salloc -N1 -n8 : -N1 -n1 sh -c \
	'env -u SLURM_HET_SIZE srun --het-group=0,1 --parallel-layout=8x1x1 '"$T" >"$OUT" 2>"$ERR"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; then pass het-unseen-refused; else fail het-unseen-refused "exit $rc"; fi
has het-unseen-says "$ERR" "rankmap: --parallel-layout does not support heterogeneous jobs \\(SLURM_JOB_ID_HET_GROUP_1 is set, SLURM_HET_SIZE is not\\)"
hasnt het-unseen-not-misleading "$ERR" "does not fit the step"
hasnt het-unseen-no-task "$OUT" '^TASK '
no_steps_left het-unseen
finish
