#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap explain --baseline / --map / --assignment: one run priced on two
# maps by one model. On the shipped Llama 3 RoCE fabric a fragmented
# allocation makes Slurm's order cost seconds per step; a contiguous one
# (the README's case) changes nothing, and says so.
. "$(dirname "$0")/../lib.sh"
SUITE=cli/compare
need_rankmap
in_tmp
SITE=$RM_ROOT/site/llama3-roce/site.yaml
# gradients sharded as Meta ran it, so that the layout fits its memory
run405=(--model llama3-405b --batch 16M --sharding zero2 --layout 8x16x128 --site "$SITE")
# 2,088 of the fabric's 3,072 nodes, drawn at random: what a busy cluster
# hands a job. Slurm lists an allocation in hostname order; here the
# names follow the wiring, so sorted.txt is Slurm's order at its best.
# frag.txt lists the same nodes shuffled: Slurm's order where host names
# do not follow the wiring (renamed, repaired, numbered across racks).
frag_nodes >frag.txt
sort frag.txt >sorted.txt

run frag 0 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --baseline
has frag-columns "$OUT" '^ +plan +baseline +difference$'
has frag-step "$OUT" '^  step +[0-9.]+ s +[0-9.]+ s +\+[0-9.]+ s \(\+[0-9.]+ %\)$'
has frag-dp-tier "$OUT" '^  dp exposed +[0-9.]+ [a-z]+ +[0-9.]+ spine'
has frag-verdict "$OUT" '^verdict: the baseline is [0-9.]+ % slower than the plan: \+[0-9.]+ s per step, [0-9]+ GPU-hours more per 1,000 steps'
hasnt frag-not-same "$OUT" 'changes nothing'

run frag-json 0 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --baseline --format json
cp "$OUT" frag.json
# the schema, both maps, and a difference that is theirs
json_holds frag-json-schema 'd["schema"]=="rankmap-explain-compare/1" and [m["name"] for m in d["maps"]]==["plan","baseline"] and d["gpus"]==16384'
json_holds frag-json-diff 'abs(d["difference"]["step_s"]-(d["maps"][1]["step_s"]-d["maps"][0]["step_s"]))<1e-6 and d["difference"]["step_s"]>0.05*d["maps"][0]["step_s"] and not d["difference"]["same"]'
json_holds frag-json-hours 'abs(d["maps"][0]["gpu_hours_per_1000_steps"]-16384*d["maps"][0]["step_s"]*1000/3600)<1e-6*d["maps"][0]["gpu_hours_per_1000_steps"]'
json_holds frag-json-axes 'set(a["axis"] for a in d["maps"][1]["axes"])=={"tp","pp","dp"} and all(a["exposed_s"]<=a["seconds"]+1e-12 for m in d["maps"] for a in m["axes"])'

# The plan's column is what plain `explain` gives for the same inputs.
run plain-json 0 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --format json
cp "$OUT" plain.json
OUT=frag.json json_holds frag-plan-is-explain "abs(d['maps'][0]['step_s']-json.load(open('$PWD/plain.json'))['step_seconds'])<1e-6"

# --map prices a map file: the baseline written by `plan --baseline` and
# read back costs what --baseline says it costs.
run base-map 0 "$RANKMAP" plan --layout 8x16x128 --site "$SITE" --nodes-file frag.txt --baseline --format json -o base.json
run vs-map 0 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --map base.json --format json
json_holds vs-map-same-figures "[m['step_s'] for m in d['maps']]==[m['step_s'] for m in json.load(open('$PWD/frag.json'))['maps']] and d['maps'][1]['name']=='given map'"
# without --nodes the allocation is the map's own
run vs-map-nodes 0 "$RANKMAP" explain "${run405[@]}" --map base.json --format json
json_holds vs-map-nodes-same "abs(d['maps'][1]['step_s']-json.load(open('$PWD/frag.json'))['maps'][1]['step_s'])<1e-6"

# --assignment: the same baseline as a "rank host gpu" table
run base-csv 0 "$RANKMAP" plan --layout 8x16x128 --site "$SITE" --nodes-file frag.txt --baseline --format csv -o base.csv
run vs-assignment 0 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --assignment base.csv --format json
json_holds vs-assignment-same "abs(d['maps'][1]['step_s']-json.load(open('$PWD/frag.json'))['maps'][1]['step_s'])<1e-6"

# --map with --baseline: what a job's own map saved against Slurm's order.
# The plan written to a file is the plan: the same two columns as
# --baseline; the baseline's own file against the baseline changes nothing.
run plan-map 0 "$RANKMAP" plan --layout 8x16x128 --site "$SITE" --nodes-file frag.txt --format json -o plan.json
run job-vs-base 0 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --map plan.json --baseline --format json
json_holds job-vs-base-figures "[m['name'] for m in d['maps']]==['given map','baseline'] and [m['step_s'] for m in d['maps']]==[m['step_s'] for m in json.load(open('$PWD/frag.json'))['maps']]"
run base-vs-base 0 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --map base.json --baseline
has base-vs-base-verdict "$OUT" '^verdict: the baseline is within 0\.00 % of the given map here'

# Without --nodes the allocation is the map's hosts in Slurm's own
# (hostname) order, where these names follow the wiring: nothing to gain.
run job-vs-slurm 0 "$RANKMAP" explain "${run405[@]}" --map plan.json --baseline
has job-vs-slurm-verdict "$OUT" '^verdict: the baseline is within 0\.00 % of the given map here'
run sorted 0 "$RANKMAP" explain "${run405[@]}" --nodes-file sorted.txt --baseline
has sorted-verdict "$OUT" 'rankmap changes nothing for this job'

# The README's case: contiguous nodes, Slurm's order already as good.
run contiguous 0 "$RANKMAP" explain "${run405[@]}" --nodes 'gpu[0001-2048]' --baseline
has contiguous-verdict "$OUT" '^verdict: the baseline is within 0\.00 % of the plan here: rankmap changes nothing for this job'
run contiguous-json 0 "$RANKMAP" explain "${run405[@]}" --nodes 'gpu[0001-2048]' --baseline --format json
json_holds contiguous-json-same 'd["difference"]["same"] and abs(d["difference"]["relative"])<0.01'

# Baselines by kind (issue 36). A sorted hostfile is the strongest thing a
# user does without rankmap: the shuffled allocation sorted by pod, leaf,
# name. Here the names follow the wiring, so it is the same map as
# Slurm's order over the sorted list, and it is within the model's 1 % of
# the plan: the verdict says rankmap changes nothing beyond sorting.
run kinds 0 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --baseline slurm,sorted
has kinds-columns "$OUT" '^ +plan +slurm +sorted$'
has kinds-verdict "$OUT" "^verdict: a sorted hostfile is within 0\.[0-9]+ % of the plan here: rankmap changes nothing beyond sorting \(the model tells apart 1 %\); the strongest of 2 baselines \(Slurm's order \+[0-9.]+ %\)$"
run kinds-json 0 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --baseline sorted --baseline slurm --format json
cp "$OUT" kinds.json
json_holds kinds-json-maps 'd["schema"]=="rankmap-explain-compare/1" and [m["name"] for m in d["maps"]]==["plan","sorted","slurm"] and [b["kind"] for b in d["baselines"]]==["sorted","slurm"] and d["strongest"]=="sorted"'
json_holds kinds-json-diff 'all(abs(b["difference"]["step_s"]-(d["maps"][i+1]["step_s"]-d["maps"][0]["step_s"]))<1e-6 for i, b in enumerate(d["baselines"])) and d["difference"]==d["baselines"][0]["difference"] and d["difference"]["same"] and abs(d["difference"]["relative"])<0.01 and d["baselines"][1]["difference"]["relative"]>0.05'
# the sorted baseline of the shuffled list is Slurm's order of the sorted
# list, priced the same; Slurm's column is the plain --baseline's
run sorted-list-json 0 "$RANKMAP" explain "${run405[@]}" --nodes-file sorted.txt --baseline --format json
cp "$OUT" sortedlist.json
OUT=kinds.json json_holds kinds-sorted-is-sorted-list "abs(d['maps'][1]['step_s']-json.load(open('$PWD/sortedlist.json'))['maps'][1]['step_s'])<1e-9"
OUT=kinds.json json_holds kinds-slurm-is-plain "abs(d['maps'][2]['step_s']-json.load(open('$PWD/frag.json'))['maps'][1]['step_s'])<1e-9"
# In Megatron's order the sorted hostfile pays 0.9 % on the pipeline's
# leaf crossings: still within what the model tells apart.
run kinds-megatron 0 "$RANKMAP" explain --model llama3-405b --batch 16M --recompute full --layout 8x16x128 --order megatron --site "$SITE" --nodes-file frag.txt --baseline sorted --format json
json_holds kinds-megatron-within '0<=d["difference"]["relative"]<0.01 and d["strongest"]=="sorted" and "changes nothing beyond sorting" in d["verdict"]'
# Slurm's switch ranks: this topology.conf lists its ToRs in the order of
# their names and nodes, so they give the sorted hostfile's map.
run switch-rank 0 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --baseline switch-rank,sorted --format json
json_holds switch-rank-same 'd["maps"][1]["step_s"]==d["maps"][2]["step_s"] and d["strongest"]=="switch-rank" and d["verdict"].startswith("Slurm\x27s switch-rank order is within 0.00 % of the plan here: rankmap changes nothing beyond ranking nodes by switch")'
run bad-kind 2 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --baseline sortd
has bad-kind-msg "$ERR" "^rankmap explain: --baseline: unknown baseline 'sortd' \(known: slurm, sorted, switch-rank\)$"

# make demo's fabric (tests/slurm/demo.sh): NVLink racks node[1,3] and
# node[2,4], ToRs node[1-2] and node[3-4]. tp=16 needs a whole rack; block
# order over node1..4 (Slurm's, and sorted by ToR then name) makes node1
# and node2 one TP group, two racks apart, so both baselines run TP on
# the ToR and the plan, which pairs node1 with node3, on NVLink.
cat >demo-topo.conf <<'CONF'
SwitchName=tor1 Nodes=node[1-2]
SwitchName=tor2 Nodes=node[3-4]
SwitchName=spine Switches=tor[1-2]
CONF
cat >demo-site.yaml <<'YAML'
schema: rankmap-site/1
name: demo
gpus_per_node: 8
topology: demo-topo.conf
nvlink:
  domain: groups
  groups: ["node[1,3]", "node[2,4]"]
tiers:
  - {name: nvlink, bandwidth_gbs: 900}
  - {name: tor, bandwidth_gbs: 50}
  - {name: spine, bandwidth_gbs: 50, oversubscription: 4}
YAML
run demo-nvlink 0 "$RANKMAP" explain --model llama3-8b --layout 16x2x1 --order megatron \
	--site demo-site.yaml --nodes 'node[1-4]' --baseline slurm,sorted --format json
tp_link='[a["link"] for a in m["axes"] if a["axis"]=="tp"][0]'
json_holds demo-nvlink-tp "[$tp_link for m in d[\"maps\"]]==[\"nvlink\",\"tor\",\"tor\"]"
json_holds demo-nvlink-wins 'all(m["step_s"]>1.01*d["maps"][0]["step_s"] for m in d["maps"][1:]) and not d["verdict"].startswith("the plan")'

# Refusals: one line each, nothing written.
run two-files 2 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --map base.json --assignment base.csv
has two-files-msg "$ERR" '^rankmap explain: give one of --map, --assignment$'
run baseline-no-nodes 2 "$RANKMAP" explain --model llama3-405b --layout 8x16x128 --baseline
has baseline-no-nodes-msg "$ERR" '^rankmap explain: --baseline needs the allocation'
run other-layout-map 0 "$RANKMAP" plan --layout 8x8x256 --site "$SITE" --nodes-file frag.txt --format json -o other.json
run other-layout 2 "$RANKMAP" explain "${run405[@]}" --nodes-file frag.txt --map other.json
has other-layout-msg "$ERR" 'other\.json has layout tp=8,pp=8,dp=256, the plan tp=8,pp=16,dp=128: only maps of one layout compare'
run missing-map 2 "$RANKMAP" explain "${run405[@]}" --map nowhere.json
has missing-map-msg "$ERR" 'nowhere\.json'

# The other shipped sites: where their names follow the wiring, Slurm's
# order is as good and the verdict says so (issue 20: "changes nothing"
# where there is nothing to gain, on every shipped site).
SITES=$RM_ROOT/site
run lab 0 "$RANKMAP" explain --model llama3-8b --layout 8x4x4 --order megatron \
	--site "$SITES/lab/site.yaml" --nodes 'node[1-16]' --baseline
has lab-verdict "$OUT" '^verdict: the baseline is within 0\.[0-9]+ % of the plan here: rankmap changes nothing'
run superpod 0 "$RANKMAP" explain --model llama3-70b --layout 8x4x16 --order megatron \
	--site "$SITES/dgx-superpod-h100/site.yaml" --nodes 'dgx[001-064]' --baseline
has superpod-verdict "$OUT" '^verdict: the baseline is within 0\.00 % of the plan here: rankmap changes nothing'
run gb200 0 "$RANKMAP" explain --model llama3-70b --hw gb200-nvl72 --layout 4x16x8 --order megatron \
	--site "$SITES/gb200-nvl72/site.yaml" --nodes 'nvl0[1-8]n[01-16]' --baseline
has gb200-hw "$OUT" 'on 512 x gb200-nvl72'
has gb200-verdict "$OUT" '^verdict: the baseline is within 0\.[0-9]+ % of the plan here: rankmap changes nothing'
# One objective (issue 36, item 2): with a model the plan is the fastest
# of its candidates as priced. bench/bench_baselines.py's seed 20 (a bare
# three-tier topology.conf, 7:1 spine assumed, shuffled names, 8x8x2 in
# Megatron's order): the planner's map - what `rankmap plan` writes, fewest
# PP pairs leaving a leaf - spreads both DP groups over two pods and is
# priced more than 1 % slower than a sorted hostfile; explain's plan is
# now no slower than any baseline, and says which candidate won.
python3 -c "
import sys; sys.path.insert(0, '$RM_ROOT/bench')
import bench_baselines as b; print(*b.fabric(20, '.'))" >tree.txt
read -r ttopo tnodes _ tpp tdp <tree.txt
tree=(--model llama3-70b --batch $((tdp * 32 * 8192)) --layout "8x${tpp}x${tdp}" --order megatron --topology "$ttopo" --gpus-per-node 8 --nodes-file "$tnodes")
run tree-json 0 "$RANKMAP" explain "${tree[@]}" --baseline slurm,sorted,switch-rank --format json
cp "$OUT" tree.json
json_holds tree-plan-fastest 'all(m["step_s"] >= d["maps"][0]["step_s"] for m in d["maps"][1:])'
json_holds tree-plan-says 'd["maps"][0]["note"].endswith("; the plan is the fastest of 4 candidates as priced (sorted order)")'
run tree-planner 0 "$RANKMAP" plan --layout "8x${tpp}x${tdp}" --order megatron --topology "$ttopo" --gpus-per-node 8 --nodes-file "$tnodes" --format json -o planner.json
run tree-planner-priced 0 "$RANKMAP" explain "${tree[@]}" --map planner.json --format json
json_holds tree-planner-slower '[m["name"] for m in d["maps"]]==["plan","given map"] and d["maps"][1]["step_s"] > 1.01 * d["maps"][0]["step_s"]'
finish
