#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The in-job recipe without the plugin (--task, --slurm-task, hostfile)
# and the rank order being said in every output.
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
P=(--layout tp=4,pp=2,dp=4 --nodes 'n[1-5]' --gpus-per-node 8)

# No --order, no site: numbered by nesting, and a warning says so.
run nest 0 "$RANKMAP" plan --layout tp=4,pp=2,dp=2 --nodes 'n[1-2]' --gpus-per-node 8 --format json
has nest-warning "$ERR" "warning: no --order and no site default: .*nesting order tp-pp-dp.*--order megatron"
run megatron 0 "$RANKMAP" plan --layout tp=4,pp=2,dp=2 --nodes 'n[1-2]' --gpus-per-node 8 --order megatron
if grep -q "no --order" "$ERR"; then fail no-warning-with-order "$(cat "$ERR")"; else pass no-warning-with-order; fi
has text-order "$OUT" "rank order megatron \(tp-dp-pp\)"
run env-order 0 "$RANKMAP" plan --layout tp=4,pp=2,dp=2 --nodes 'n[1-2]' --gpus-per-node 8 --order megatron --format env
has env-order-name "$OUT" "^RANKMAP_ORDER_NAME=megatron$"

# tp=4 on 8-GPU nodes, megatron order, 4 of 5 nodes used: every task
# (host, local id) gets the rank of the GPU it drives, each rank once.
run json 0 "$RANKMAP" plan "${P[@]}" --order megatron --format json
cp "$OUT" map.json
python3 -c "import json
m=json.load(open('map.json'))
at={(x['host'],x['local_gpu']):x['rank'] for x in m['ranks']}
for h in range(1,6):
    for l in range(8):
        print('n%d' % h, l, at.get(('n%d' % h, l), 'idle'))" >want.txt
ok=1 seen=""
while read -r h l want; do
	env -i SLURMD_NODENAME=$h SLURM_LOCALID=$l "$RANKMAP" plan "${P[@]}" \
		--order megatron --format env --slurm-task >t.env 2>t.err
	rc=$?
	if [ "$want" = idle ]; then
		[ $rc -eq 3 ] || { ok=0; echo "$h:$l rc=$rc, expected 3 (idle)"; }
		continue
	fi
	grep -qx "RANK=$want" t.env && grep -qx "LOCAL_RANK=$l" t.env &&
		grep -qx "RANKMAP_HOST=$h" t.env || { ok=0; echo "$h:$l: $(head -3 t.env)"; }
	seen="$seen $want"
done <want.txt
n=$(echo $seen | tr ' ' '\n' | sort -un | wc -l)
[ $ok = 1 ] && [ "$n" = 32 ] && pass slurm-task-every-gpu || fail slurm-task-every-gpu "ok=$ok distinct=$n"
run task 0 "$RANKMAP" plan "${P[@]}" --order megatron --format env --task n2:5
want=$(python3 -c "import json
m=json.load(open('map.json'))
print([x['rank'] for x in m['ranks'] if x['host']=='n2' and x['local_gpu']==5][0])")
has task-rank "$OUT" "^RANK=$want$"
run task-bad 2 "$RANKMAP" plan "${P[@]}" --format env --task n2
has task-bad-msg "$ERR" "expected HOST:LOCALID"
run task-unknown 2 "$RANKMAP" plan "${P[@]}" --format env --task zz:1
has task-unknown-msg "$ERR" "not in the allocation"
run task-two 2 "$RANKMAP" plan "${P[@]}" --format env --task n1:0 --rank 3
run task-json 2 "$RANKMAP" plan "${P[@]}" --format json --task n1:0
run slurm-task-noenv 2 env -i "$RANKMAP" plan "${P[@]}" --format env --slurm-task
has slurm-task-noenv-msg "$ERR" "SLURMD_NODENAME and SLURM_LOCALID"

# hostfile: line i is the host of rank i (srun --distribution=arbitrary).
run hostfile 0 "$RANKMAP" plan "${P[@]}" --order megatron --format hostfile
if python3 - map.json "$OUT" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
assert lines[-1] == "" and len(lines) == m["world_size"] + 1
assert lines[:-1] == [r["host"] for r in m["ranks"]]
PY
then pass hostfile-lines; else fail hostfile-lines; fi
# Placement: expert groups inside the NVLink domain (here a node), HSDP
# shard groups inside a leaf, whatever order the nodes come in.
cat >topo.conf <<'EOT'
SwitchName=leaf1 Nodes=n[1-4]
SwitchName=leaf2 Nodes=n[5-8]
SwitchName=spine Switches=leaf[1-2]
EOT
N='n8,n1,n6,n3,n5,n2,n7,n4'
run ep-plan 0 "$RANKMAP" plan --layout tp=2,ep=4,pp=2,dp=auto --order megatron \
	--nodes "$N" --gpus-per-node 8 --topology topo.conf --format json -o ep.json
run hsdp-plan 0 "$RANKMAP" plan --layout tp=8,dp_replicate=2,dp_shard=4 --order torchtitan \
	--nodes "$N" --gpus-per-node 8 --topology topo.conf --format json -o hsdp.json
if python3 - ep.json hsdp.json <<'PY'
import json, sys
ep, hs = (json.load(open(p)) for p in sys.argv[1:3])
host = [r["host"] for r in ep["ranks"]]
assert all(len({host[r] for r in g}) == 1 for g in ep["expert_groups"]["ep"])
assert ep["validation"]["ep_split"] == 0 and ep["validation"]["must_ok"]
leaf = [r["leaf"] for r in hs["ranks"]]
assert all(len({leaf[r] for r in g}) == 1 for g in hs["groups"]["dp_shard"])
assert all(len({leaf[r] for r in g}) == 2 for g in hs["groups"]["dp_replicate"])
PY
then pass ep-in-node-shard-in-leaf; else fail ep-in-node-shard-in-leaf; fi
exit 0
