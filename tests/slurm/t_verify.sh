#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_verify.sh - rankmap.verify in real Slurm jobs (plugin + gloo): a job
# whose framework numbers ranks as planned passes step 0; one that numbers
# them differently stops there with the first differing group.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
cluster_suite verify

cluster_preflight
if ! /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; then
	skip torch "/usr/bin/python3 with torch (Debian python3-torch) is not installed"
	exit 0
fi
[ -f "$PLUGIN" ] || { fail plugin "$PLUGIN was not built"; exit 1; }

D=$(cluster_tmpdir rankmap-verify)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out"
cat >"$D/etc/site.yaml" <<EOS
schema: rankmap-site/1
name: rmverify
gpus_per_node: 8
topology: topology.conf
EOS
if ! cluster_start "$D" 2 "$PLUGIN" "site=$D/etc/site.yaml" "runtime_dir=$D/rt" >"$D/out/start.log" 2>&1; then
	fail cluster-start "$(tail -5 "$D/out/start.log"; tail -5 "$D/log/slurmctld.log" 2>/dev/null)"
	exit 1
fi
pass cluster-start
export SLURM_CONF=$D/etc/slurm.conf
J=(srun -N2 -n4 --ntasks-per-node=2 --kill-on-bad-exit=1 --parallel-layout=1x2x2
	--parallel-order=megatron /usr/bin/python3 tests/slurm/verify_job.py)

# The framework numbers as Megatron's default: every rank passes step 0.
run same-order 0 timeout 300 env FRAMEWORK_ORDER=tp-cp-ep-dp-pp "${J[@]}"
[ "$(grep -c '^rank [0-3] STEP 1$' "$OUT")" -eq 4 ] && pass same-order-all-ranks ||
	fail same-order-all-ranks "$(cat "$OUT" "$ERR" | tail -20)"

# The framework was started with --use-tp-pp-dp-mapping, the plan was not:
# tp agrees, dp is the first group that differs, and no rank reaches step 1.
rm -f "$OUT" "$ERR"
OUT=$D/out/other.out ERR=$D/out/other.err
timeout 300 env FRAMEWORK_ORDER=tp-cp-ep-pp-dp "${J[@]}" >"$OUT" 2>"$ERR"
rc=$?
# srun ends with the failing task's 3 or, once it killed the rest, 143.
[ $rc -ne 0 ] && [ $rc -ne 124 ] && pass other-order-fails ||
	fail other-order-fails "exit $rc: $(tail -5 "$ERR")"
has other-order-stops "$OUT" '^rank [0-3] STOP rankmap: dp group of rank [0-3] is \[[0-9, ]+\], but the map \(tp=1,pp=2,dp=2, order megatron = tp-dp-pp\) has \[[0-9, ]+\]'
if grep -q 'STEP 1' "$OUT"; then fail other-order-no-step "$(grep 'STEP 1' "$OUT" | head -3)"
else pass other-order-no-step; fi
if grep -q 'STOP.*\btp group' "$OUT"; then fail other-order-tp-agrees "$(grep STOP "$OUT" | head -2)"
else pass other-order-tp-agrees; fi

# Another job's map (the same layout and order on other nodes): the groups
# agree, the hosts do not, and no rank reaches step 1 (issue 37).
"$RANKMAP" plan --no-site-config --layout 1x2x2 --order megatron --nodes 'other[1-2]' --gpus-per-node 2 \
	--format json -o "$D/out/foreign.json" 2>/dev/null
OUT=$D/out/foreign.out ERR=$D/out/foreign.err
timeout 300 env FRAMEWORK_ORDER=tp-cp-ep-dp-pp FOREIGN_MAP="$D/out/foreign.json" "${J[@]}" >"$OUT" 2>"$ERR"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && pass foreign-map-fails ||
	fail foreign-map-fails "exit $rc: $(tail -5 "$ERR")"
has foreign-map-stops "$OUT" '^rank [0-3] STOP rankmap: rank [0-3] runs on host node[12], but the map puts it on other[12]'
if grep -q 'STEP 1' "$OUT"; then fail foreign-map-no-step "$(grep 'STEP 1' "$OUT" | head -3)"
else pass foreign-map-no-step; fi
exit 0
