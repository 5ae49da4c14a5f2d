#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap plan: the output formats agree with each other, parse in Python,
# do not depend on the order nodes are given in, and obey the hard rules.
source "$(dirname "$0")/../lib.sh"
in_tmp
# Two leaves of 4 nodes under one spine, 4 GPUs per node; the comment line
# stays so that every plan here also reads past a comment.
{ echo '# a small tree'; two_leaves 'n[1-4]' 'n[5-8]'; } >topo.conf
P=(--layout 4x2x3 --gpus-per-node 4 --topology topo.conf)

run json 0 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format json
cp "$OUT" a.json
run yaml 0 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format yaml
cp "$OUT" a.yaml
run csv 0 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format csv
cp "$OUT" a.csv
run text 0 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]'
has text-rules "$OUT" 'PASS  TP groups inside one NVLink domain \(0 of 6 split\)'
has text-spares "$OUT" '2 spare: n\[[0-9],[0-9]\]|2 spare: n\[[0-9]-[0-9]\]'

# JSON and YAML are the same document; csv rows are the rank records.
if python3 - a.json a.yaml a.csv >py.out 2>&1 <<'PY'
import csv, json, sys, yaml
j = json.load(open(sys.argv[1]))
y = yaml.safe_load(open(sys.argv[2]))
assert j == y, "json and yaml differ"
rows = list(csv.DictReader(open(sys.argv[3])))
assert len(rows) == j["world_size"] == 24
for r, row in zip(j["ranks"], rows):
    for k in ("rank", "local_gpu", "tp", "pp", "dp"):
        assert int(row[k]) == r[k], (k, row, r)
    assert row["host"] == r["host"] and row["leaf"] == r["leaf"]
assert j["schema"] == "rankmap-map/1" and j["axes"] == {"tp": 4, "pp": 2, "dp": 3}
# Bijection: every rank once, every (host, GPU) once, hosts as listed.
assert [r["rank"] for r in j["ranks"]] == list(range(24))
assert len({(r["host"], r["local_gpu"]) for r in j["ranks"]}) == 24
hosts = [n["host"] for n in j["nodes"]]
for r in j["ranks"]:
    assert hosts[r["node"]] == r["host"] and 0 <= r["local_gpu"] < 4
# TP groups on one node; groups agree with the coordinates.
for g in j["groups"]["tp"]:
    assert len({j["ranks"][x]["host"] for x in g}) == 1, g
for axis in ("tp", "pp", "dp"):
    for g in j["groups"][axis]:
        assert [j["ranks"][x][axis] for x in g] == list(range(len(g)))
        others = {tuple(j["ranks"][x][a] for a in ("tp", "pp", "dp") if a != axis) for x in g}
        assert len(others) == 1, (axis, g)
# Whole replicas fit a leaf here: consecutive stages never cross.
v = j["validation"]
assert v["must_ok"] is True and v["pp_cross"] == 0, v
assert len(j["spares"]) == 2
print("ok")
PY
then pass formats-agree; else fail formats-agree "$(tail -5 py.out)"; fi

# Same nodes, other order, other spelling: byte-identical output.
run shuffled 0 "$RANKMAP" plan "${P[@]}" --nodes 'n7,n2,n5,n1,n8,n4,n3,n6' --format json
if cmp -s "$OUT" a.json; then pass shuffled-identical; else fail shuffled-identical "maps differ"; fi
printf '# allocation\nn[5-8]\n\n n[1-2] # two\nn3,n4\n' >nodes.txt
run nodes-file 0 "$RANKMAP" plan "${P[@]}" --nodes-file nodes.txt --format json
if cmp -s "$OUT" a.json; then pass nodes-file-identical; else fail nodes-file-identical "maps differ"; fi
run slurm-env 0 env SLURM_JOB_NODELIST='n[1-8]' "$RANKMAP" plan "${P[@]}" --format json
if cmp -s "$OUT" a.json; then pass slurm-env-identical; else fail slurm-env-identical "maps differ"; fi

# -o: written whole, readable by all (umask respected), no temp left.
run out-file 0 bash -c 'umask 022; "$0" plan "$@" -o map.json --format json' "$RANKMAP" "${P[@]}" --nodes 'n[1-8]'
if cmp -s map.json a.json && [ "$(stat -c %a map.json)" = 644 ]; then pass out-mode; else fail out-mode "$(stat -c %a map.json)"; fi
run out-umask 0 bash -c 'umask 077; "$0" plan "$@" -o map2.json --format json' "$RANKMAP" "${P[@]}" --nodes 'n[1-8]'
if [ "$(stat -c %a map2.json)" = 600 ]; then pass out-umask-mode; else fail out-umask-mode "$(stat -c %a map2.json)"; fi
if ls | grep -q '\.tmp\.'; then fail no-temp-left "$(ls)"; else pass no-temp-left; fi
# -o onto a FIFO (as onto /dev/null or /dev/stdout): written through, the
# FIFO left in place; a rename over it, done as root on /dev/null, once
# turned the host's /dev/null into a regular file.
mkfifo fifo
cat fifo >fifo.out &
run out-fifo 0 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format json -o fifo
wait
if [ -p fifo ] && cmp -s fifo.out a.json; then pass out-fifo-kept; else
	fail out-fifo-kept "$(ls -l fifo) $(wc -c <fifo.out) bytes"; fi
mkdir outdir
run out-dir 2 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' -o outdir
has out-dir-says "$ERR" 'outdir: is a directory'

# env --rank N: the variables of task N agree with the map.
run env-rank 0 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format env --rank 13
cp "$OUT" env13
if python3 - a.json env13 >py.out 2>&1 <<'PY'
import json, shlex, sys
j = json.load(open(sys.argv[1]))
env = dict(l.split("=", 1) for l in open(sys.argv[2]).read().split("\n") if l)
r = j["ranks"][13]
assert env["RANK"] == "13" and env["WORLD_SIZE"] == "24"
assert env["LOCAL_RANK"] == str(r["local_gpu"]) and env["LOCAL_WORLD_SIZE"] == "4"
assert env["RANKMAP_HOST"] == r["host"]
assert env["MASTER_ADDR"] == j["ranks"][0]["host"]
for a in ("tp", "pp", "dp"):
    assert env["RANKMAP_%s_RANK" % a.upper()] == str(r[a])
    assert env["RANKMAP_%s_SIZE" % a.upper()] == str(j["axes"][a])
assert env["RANKMAP_LAYOUT"] == j["layout"] and env["RANKMAP_ORDER"] == j["order"]["permutation"]
print("ok")
PY
then pass env-agrees; else fail env-agrees "$(tail -5 py.out)"; fi
if sha256sum a.json | grep -q "$(sed -n 's/^RANKMAP_MAP_SHA256=//p' env13)"; then pass env-map-sha; else fail env-map-sha "digest differs"; fi

# MASTER_PORT beside MASTER_ADDR: --master-port, else the plugin's rule
# for the step in the environment (docs/plugin.md: outside this machine's
# ephemeral port range), else job 0 step 0.
NOSTEP=(env -u SLURM_JOB_ID -u SLURM_STEP_ID -u SLURM_STEP_RESV_PORTS)
PORT_RULE="python3 $RM_ROOT/tests/slurm/port_rule.py"
run port-none 0 "${NOSTEP[@]}" "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format env
if grep -A1 '^MASTER_ADDR=' "$OUT" | grep -qx "MASTER_PORT=$($PORT_RULE 0 0)"; then
	pass port-none-job0; else fail port-none-job0 "$(grep MASTER "$OUT")"; fi
run port-rule 0 "${NOSTEP[@]}" SLURM_JOB_ID=4242 SLURM_STEP_ID=2 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format env --rank 3
has port-rule-value "$OUT" "^MASTER_PORT=$($PORT_RULE 4242 2)$"
# Linux's default range 32768-60999: (mix(4242) + 2) % 17302 =
# (2996607471 + 2) % 17302 = 4885 of the pool 20000-32766 (12767 ports),
# 61000-65534.
if [ "$(cat /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null | tr -s '\t ' ' ')" = "32768 60999" ]; then
	has port-rule-default-range "$OUT" '^MASTER_PORT=24885$'
fi
run port-resv 0 "${NOSTEP[@]}" SLURM_JOB_ID=4242 SLURM_STEP_ID=2 SLURM_STEP_RESV_PORTS=12007,12009 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format env
has port-resv-value "$OUT" '^MASTER_PORT=12007$'
run port-option 0 env SLURM_JOB_ID=4242 SLURM_STEP_RESV_PORTS=12007 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format env --master-port 29500
has port-option-value "$OUT" '^MASTER_PORT=29500$'
if [ "$(grep -c '^MASTER_PORT=' "$OUT")" = 1 ]; then pass port-once; else fail port-once "$(grep MASTER "$OUT")"; fi

# A numbering that makes Slurm's block order split TP groups: the
# baseline fails the must-rule (exit 1), rankmap's own plan does not.
run order-ok 0 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --order dp-pp-tp
run baseline-breaks-tp 1 "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --order dp-pp-tp --baseline
has baseline-says-why "$OUT" 'FAIL  TP groups inside one NVLink domain'

# Impossible layouts are refused with the reason.
run tp-too-big 1 "$RANKMAP" plan --layout 8x1x1 --gpus-per-node 4 --topology topo.conf --nodes 'n[1-2]'
has tp-too-big-msg "$ERR" '^rankmap plan: .*(8|NVLink)'
run too-few-gpus 2 "$RANKMAP" plan --layout 4x2x8 --gpus-per-node 4 --topology topo.conf --nodes 'n[1-2]'
has too-few-msg "$ERR" '^rankmap plan: '

# The site file supplies GPUs per node, the topology (relative to the site
# file) and the default order.
mkdir -p site
cp topo.conf site/topology.conf
cat >site/site.yaml <<'YAML'
schema: rankmap-site/1
name: test
gpus_per_node: 4
topology: topology.conf
defaults:
  order: megatron
YAML
run site 0 "$RANKMAP" plan --layout 4x2x3 --site site/site.yaml --nodes 'n[1-8]' --format json
if python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["order"]["name"]=="megatron" and j["gpus_per_node"]==4 and j["nodes"][0]["leaf"].startswith("leaf")' "$OUT" 2>py.out; then
	pass site-defaults; else fail site-defaults "$(tail -3 py.out)"; fi

# --baseline KIND (issue 36): the sorted kind of a shuffled list is
# Slurm's order of the sorted list, rank for rank; switch-rank follows
# topology.conf's leaf order (tor0001, tor0002, ... here, the names'
# order too); a text map takes one kind.
RSITE=$RM_ROOT/site/llama3-roce/site.yaml
printf '%s\n' gpu0007 gpu0002 gpu0005 gpu0003 gpu0008 gpu0001 gpu0006 gpu0004 >shuf.txt
sort shuf.txt >sort.txt
run base-sorted 0 "$RANKMAP" plan --layout 8x4x2 --site "$RSITE" --nodes-file shuf.txt --baseline sorted --format hostfile -o bs.txt
run base-sort-list 0 "$RANKMAP" plan --layout 8x4x2 --site "$RSITE" --nodes-file sort.txt --baseline --format hostfile -o bl.txt
cmp -s bs.txt bl.txt && pass base-sorted-same || fail base-sorted-same "$(diff bs.txt bl.txt | head -3)"
run base-switch 0 "$RANKMAP" plan --layout 8x4x2 --site "$RSITE" --nodes-file shuf.txt --baseline=switch-rank --format hostfile -o bw.txt
cmp -s bs.txt bw.txt && pass base-switch-same || fail base-switch-same "$(diff bs.txt bw.txt | head -3)"
run base-slurm 0 "$RANKMAP" plan --layout 8x4x2 --site "$RSITE" --nodes-file shuf.txt --baseline slurm --format hostfile -o bg.txt
[ "$(uniq bg.txt | tr '\n' ' ')" = "$(tr '\n' ' ' <shuf.txt)" ] && pass base-slurm-as-given || fail base-slurm-as-given "$(uniq bg.txt | head -3)"
run base-two-text 2 "$RANKMAP" plan --layout 8x4x2 --site "$RSITE" --nodes-file shuf.txt --baseline slurm,sorted
has base-two-text-msg "$ERR" '^rankmap plan: --baseline: plan writes one map; give one kind'
run base-empty 2 "$RANKMAP" plan --layout 8x4x2 --site "$RSITE" --nodes-file shuf.txt --baseline=
has base-empty-msg "$ERR" "^rankmap plan: --baseline '': expected kinds like slurm,sorted"

# No topology: planned on one flat switch, with a warning.
run flat 0 "$RANKMAP" plan --layout 4x2x3 --gpus-per-node 4 --nodes 'n[1-6]'
has flat-warning "$ERR" 'flat'
finish
