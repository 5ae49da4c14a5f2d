#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap check --baseline on the shipped Llama 3 RoCE fabric: both maps'
# PP pairs per tier (node, leaf, pod, spine), DP group spans and must-rules
# always, and with --model their seconds per step, priced as explain
# --baseline prices them. A fragmented allocation, where Slurm's order
# costs seconds, and the README's contiguous nodes, where it changes
# nothing; Megatron's numbering, whose baseline is twice its bound.
. "$(dirname "$0")/../lib.sh"
SUITE=cli/check_priced
need_rankmap
in_tmp
SITE=$RM_ROOT/site/llama3-roce/site.yaml
model=(--model llama3-405b --batch 16M --recompute full)
frag_nodes >frag.txt

# every PP pair on exactly one tier, in both columns
tiers_add_up='all(r["pp_same_node"]+r["pp_same_leaf"]+r["pp_same_rail"]+r["pp_cross_pod"]+r["pp_cross_spine"]==r["pp_pairs"] and r["pp_cross_pod"]+r["pp_cross_spine"]==r["pp_cross"] for r in (d["map"],d["baseline"]))'

run frag-map 0 "$RANKMAP" plan --layout 8x16x128 --site "$SITE" --nodes-file frag.txt --format json -o frag.json
run frag 0 "$RANKMAP" check --map frag.json --site "$SITE" --nodes-file frag.txt --baseline "${model[@]}"
has frag-priced-by "$OUT" "^compared with Slurm's block order over the same nodes, priced by llama3-405b on h100-sxm-80gb$"
has frag-seconds "$OUT" '^  seconds per step +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}$'
has frag-mfu "$OUT" '^  MFU, % +[0-9.]+ +[0-9.]+$'
for t in node 'leaf or rail' pod spine; do
	has "frag-tier-${t// /-}" "$OUT" "^  PP pairs per tier: $t +[0-9]+ +[0-9]+$"
done
has frag-dp-span "$OUT" '^  DP group top subtrees, mean +[0-9.]+ +[0-9.]+$'
has frag-must "$OUT" '^  all must-rules hold +yes +yes$'
has frag-verdict "$OUT" '^verdict: the baseline is [0-9.]+ % slower than the checked map: \+[0-9.]+ s per step'
hasnt frag-unchanged "$OUT" 'changes nothing'
# the pipeline Slurm's order sends over the 7:1 spine
has frag-spine "$OUT" '^  PP pairs per tier: spine +56 +13520$'

run frag-json 0 "$RANKMAP" check --map frag.json --site "$SITE" --nodes-file frag.txt --baseline "${model[@]}" --format json
cp "$OUT" check.json
json_holds frag-json-tiers "$tiers_add_up"
json_holds frag-json-priced 'd["priced"]["schema"]=="rankmap-explain-compare/1" and [m["name"] for m in d["priced"]["maps"]]==["checked","baseline"]'
# the seconds are those explain --baseline gives the same allocation
run frag-explain 0 "$RANKMAP" explain "${model[@]}" --layout 8x16x128 --site "$SITE" --nodes-file frag.txt --baseline --format json
OUT=check.json json_holds frag-same-as-explain "[m['step_s'] for m in d['priced']['maps']]==[m['step_s'] for m in json.load(open('$OUT'))['maps']]"

# The README's case: contiguous nodes, both maps alike.
run contiguous-map 0 "$RANKMAP" plan --layout 8x16x128 --site "$SITE" --nodes 'gpu[0001-2048]' --format json -o contiguous.json
run contiguous 0 "$RANKMAP" check --map contiguous.json --site "$SITE" --baseline "${model[@]}"
has contiguous-verdict "$OUT" '^verdict: the baseline is within 0\.00 % of the checked map here: rankmap changes nothing for this job'
has contiguous-tiers "$OUT" '^  PP pairs per tier: pod +7168 +7168$'
has contiguous-optimal "$OUT" '^  baseline PP crossings: optimal$'
run contiguous-json 0 "$RANKMAP" check --map contiguous.json --site "$SITE" --baseline --format json
json_holds contiguous-json-tiers "$tiers_add_up"
json_holds contiguous-json-unpriced '"priced" not in d'

# Without --model: the counts only; with it and no baseline, one price.
run unpriced 0 "$RANKMAP" check --map frag.json --site "$SITE" --nodes-file frag.txt --baseline
hasnt unpriced-no-seconds "$OUT" 'seconds per step|verdict'
has unpriced-tiers "$OUT" '^  PP pairs per tier: spine +56 +13520$'
run alone 0 "$RANKMAP" check --map frag.json --site "$SITE" "${model[@]}"
has alone-price "$OUT" '^priced by llama3-405b on h100-sxm-80gb: [0-9.]+ s per step, MFU [0-9.]+ %$'
has alone-tiers "$OUT" '^  pipeline tiers  0 in a node, 5648 in a leaf or rail, 9656 across leaves in a pod, 56 across pods \(spine\)$'

# Megatron's numbering on contiguous nodes: Slurm's order crosses every
# stage boundary, more than twice what these leaves need.
run megatron-map 0 "$RANKMAP" plan --layout 8x16x128 --order megatron --site "$SITE" --nodes 'gpu[0001-2048]' --format json -o megatron.json
run megatron 0 "$RANKMAP" check --map megatron.json --site "$SITE" --baseline
has megatron-twice "$OUT" '^  baseline PP crossings: at least twice its lower bound \(15360 vs bound 7168\)$'
has megatron-plan-optimal "$OUT" '^  checked PP crossings: optimal$'

# The picture: both headers carry the price and the tiers.
run svg 0 "$RANKMAP" check --map frag.json --site "$SITE" --nodes-file frag.txt --baseline "${model[@]}" --format svg -o p.svg
n=$(grep -cE '<text class="price"[^>]*>[0-9.]+ s per step, MFU' p.svg)
[ "$n" = 2 ] && pass svg-two-prices || fail svg-two-prices "$n priced headers"
has svg-baseline-difference p.svg '<text class="price"[^>]*>[0-9.]+ s per step, MFU [0-9.]+ % \(\+[0-9.]+ s, \+[0-9.]+ % against rankmap\)'
n=$(grep -cE '>PP pairs per tier: node [0-9]+, leaf [0-9]+, pod [0-9]+, spine [0-9]+<' p.svg)
[ "$n" = 2 ] && pass svg-two-tiers || fail svg-two-tiers "$n tier lines"

# Baselines by kind (issue 36): every one asked for, in text, JSON and
# both pictures, and the verdict against the strongest. The sorted
# hostfile's counts are those of Slurm's order over the sorted list.
sort frag.txt >sorted.txt
run kinds 0 "$RANKMAP" check --map frag.json --site "$SITE" --nodes-file frag.txt --baseline slurm,sorted "${model[@]}"
has kinds-slurm "$OUT" "^compared with Slurm's block order over the same nodes, priced by llama3-405b on h100-sxm-80gb$"
has kinds-sorted "$OUT" "^compared with Slurm's block order over the nodes sorted by pod, leaf, name \(a sorted hostfile\), priced by"
has kinds-sorted-column "$OUT" '^ +checked +sorted$'
has kinds-verdict "$OUT" "^verdict: a sorted hostfile is within 0\.[0-9]+ % of the checked map here: rankmap changes nothing beyond sorting .*; the strongest of 2 baselines \(Slurm's order \+[0-9.]+ %\)$"
run kinds-json 0 "$RANKMAP" check --map frag.json --site "$SITE" --nodes-file frag.txt --baseline slurm,sorted "${model[@]}" --format json
cp "$OUT" kinds.json
json_holds kinds-json-reports '[b["kind"] for b in d["baselines"]]==["slurm","sorted"] and d["baselines"][0]["report"]==d["baseline"] and d["priced"]["strongest"]=="sorted" and [m["name"] for m in d["priced"]["maps"]]==["checked","slurm","sorted"]'
run sorted-list 0 "$RANKMAP" check --map frag.json --site "$SITE" --nodes-file sorted.txt --baseline --format json
OUT=kinds.json json_holds kinds-sorted-counts "d['baselines'][1]['report']==json.load(open('$OUT'))['baseline']"
run kinds-svg 0 "$RANKMAP" check --map frag.json --site "$SITE" --nodes-file frag.txt --baseline slurm,sorted,switch-rank "${model[@]}" --format svg -o k.svg
n=$(grep -cE '<text class="price"[^>]*>[0-9.]+ s per step, MFU' k.svg)
[ "$n" = 4 ] && pass kinds-svg-four-prices || fail kinds-svg-four-prices "$n priced headers"
for v in 'baseline \(Slurm block order\)' 'baseline \(sorted hostfile\)' 'baseline \(Slurm switch ranks\)'; do
	has "kinds-svg-${v%% *}-$(echo "$v" | tr -dc a-z | tail -c 6)" k.svg ">$v<"
done
run kinds-html 0 "$RANKMAP" check --map frag.json --site "$SITE" --nodes-file frag.txt --baseline sorted,slurm --format html -o k.html
v=$(grep -oE '"name":"(rankmap|baseline \([a-zA-Z ]+\))"' k.html | tr '\n' '|')
[ "$v" = '"name":"rankmap"|"name":"baseline (sorted hostfile)"|"name":"baseline (Slurm block order)"|' ] &&
	pass kinds-html-views || fail kinds-html-views "views: $v"

# Refusals: one line naming the option.
run batch-no-model 2 "$RANKMAP" check --map frag.json --site "$SITE" --batch 16M
has batch-no-model-msg "$ERR" '^rankmap check: --batch prices the map with a model: give --model too'
run gpus 2 "$RANKMAP" check --map frag.json --site "$SITE" --model llama3-8b --gpus 8
has gpus-msg "$ERR" "^rankmap check: unknown option '--gpus'"
run bad-model 2 "$RANKMAP" check --map frag.json --site "$SITE" --model nosuch
finish
