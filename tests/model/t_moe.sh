#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mixture-of-experts models through the CLI: explain and suggest on every
# MoE preset and on a user's model file, and the expert-parallel
# all-to-all priced on the tier its group crosses: on the shipped GB200
# NVL72 site an EP=8 group inside one rack's NVLink domain (the plan) and
# the same layout with every EP group spread over 8 racks (a "rank host
# gpu" table given with --assignment), the difference in seconds per step.
. "$(dirname "$0")/../lib.sh"
SUITE=model/moe
need_rankmap
in_tmp
SITE=$RM_ROOT/site/gb200-nvl72/site.yaml
ds=(--model deepseek-v3 --hw gb200-nvl72 --layout tp=1,ep=8,pp=8,dp=auto
    --order megatron --batch 16M --site "$SITE" --nodes 'nvl0[1-8]n[01-16]')

# Megatron's order numbers ep fastest here (tp=1): ranks 8k..8k+7 form an
# EP group. rack.csv puts rank r on rack r % 8, so every group has one
# member per rack; the plan keeps each group on two trays of one rack.
{
	echo "rank,host,local_gpu"
	for r in $(seq 0 511); do
		q=$((r / 8))
		printf '%d,nvl%02dn%02d,%d\n' "$r" $((r % 8 + 1)) $((q / 4 + 1)) $((q % 4))
	done
} >rack.csv
run spread 0 "$RANKMAP" explain "${ds[@]}" --assignment rack.csv --format json
json_holds spread-plan-nvlink '[a for a in d["maps"][0]["axes"] if a["axis"]=="ep"][0]["link"]=="nvlink"'
json_holds spread-given-network '[a for a in d["maps"][1]["axes"] if a["axis"]=="ep"][0]["link"] not in ("nvlink",)'
# 4 all-to-alls x 4096 tokens x top 8 x 7168 x 2 B x 7/8 per MoE layer
# and micro-batch, 58 of 61 layers on the fullest of 8 stages (8 layers),
# 64 micro-batches: at 900 GB/s x 0.65 on NVLink, 50 x 0.9 on the rail
json_holds spread-ep-seconds '(lambda b, e: abs(e[0]["seconds"]-b/585e9)<1e-6*e[0]["seconds"] and abs(e[1]["seconds"]-b/45e9)<1e-6*e[1]["seconds"])(4*4096*8*7168*2*7/8*8*58/61*64, [[a for a in m["axes"] if a["axis"]=="ep"][0] for m in d["maps"]])'
json_holds spread-slower 'd["difference"]["step_s"]>10 and not d["difference"]["same"]'
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); e=[[a for a in m['axes'] if a['axis']=='ep'][0] for m in d['maps']]; print('# ep=8 inside a rack %.3f s (%s), across racks %.3f s (%s): step %+.3f s' % (e[0]['seconds'], e[0]['link'], e[1]['seconds'], e[1]['link'], d['difference']['step_s']))" "$OUT"
run spread-text 0 "$RANKMAP" explain "${ds[@]}" --assignment rack.csv
has spread-text-ep "$OUT" '^  ep exposed +[0-9.]+ nvlink +[0-9.]+ rail +\+[0-9.]+ s$'

# Plain explain: the ep line, its formula, one tier out, the assumption.
run explain 0 "$RANKMAP" explain --model deepseek-v3 --hw gb200-nvl72 \
	--layout tp=1,ep=8,pp=16,dp=auto --gpus 2048 --batch 15M
has explain-ep "$OUT" '^  ep +8 all-to-all dispatch\+combine x4 +[0-9.]+ GB +[0-9]+  nvlink +585 '
has explain-tier "$OUT" '^      one tier out \(every peer over the network, 45 GB/s\)'
has explain-assume "$OUT" 'moe: routed tokens on the busiest GPU x1\.00 the mean \(moe_imbalance, assumed\)'
has explain-active "$OUT" 'active N_a = 3\.755[0-9]e\+10 per token'
has explain-path "$OUT" '^  critical path: compute [0-9.]+ \+ tp 0\.000 \+ cp 0\.000 \+ pp [0-9.]+ \+ ep [0-9.]+ = '
run overlap 0 "$RANKMAP" explain --model deepseek-v3 --hw gb200-nvl72 \
	--layout tp=1,ep=8,pp=16,dp=auto --gpus 2048 --batch 15M --set moe_overlap=1
has overlap-hidden "$OUT" '^  ep +8 .* critical path$'
has overlap-zero "$OUT" '\+ ep 0\.000 = '

# Every MoE preset prices (fits or not), and a dense model still refuses ep.
for m in mixtral-8x7b mixtral-8x22b deepseek-v3 qwen3-235b-a22b llama4-maverick; do
	new_out
	"$RANKMAP" explain --model "$m" --hw gb200-nvl72 --layout tp=2,ep=8,pp=4,dp=auto \
		--gpus 512 --batch 16M >"$OUT" 2>"$ERR"
	rc=$?
	if [ "$rc" -le 1 ] && grep -qE '^  ep +8 ' "$OUT"; then pass "preset-$m"
	else fail "preset-$m" "exit $rc: $(head -c 300 "$ERR")"; fi
	run "suggest-$m" 0 "$RANKMAP" suggest --model "$m" --hw gb200-nvl72 --gpus 512 --batch 16M --top 3
done
# suggest names ep and etp per row; DeepSeek-V3's #1 on 2,048 GB200 is
# expert-parallel with its expert blocks inside the 72-GPU domain
run suggest-json 0 "$RANKMAP" suggest --model deepseek-v3 --hw gb200-nvl72 --gpus 2048 \
	--batch 60M --top 3 --format json
# every row's layout text names the degrees it was priced with
json_holds suggest-json-names 'all(("ep=%d" % r["ep"]) in r["layout"] for r in d["ranked"] if r["ep"]>1)'
json_holds suggest-json-ep '(lambda r: r["ep"]>1 and r["ep"]*r["etp"]<=72 and r["tp"]*r["pp"]*r["dp"]*r["cp"]==2048)(d["ranked"][0])'
# on H100 the best expert blocks fit inside tp x cp (ep placement axis of
# size 1): their text must still say ep
run suggest-h100 0 "$RANKMAP" suggest --model deepseek-v3 --gpus 2048 --batch 60M --top 5 --format json
json_holds suggest-h100-names 'any(r["ep"]>1 and "ep=%d" % r["ep"] in r["layout"] and r["ep"]*r["etp"]<=r["tp"]*r["cp"] for r in d["ranked"]) and all(("ep=%d" % r["ep"]) in r["layout"] for r in d["ranked"] if r["ep"]>1)'
run dense-ep 2 "$RANKMAP" explain --model llama3-8b --layout tp=1,ep=8,dp=8
has dense-ep-msg "$ERR" 'this model is dense'

# A user's MoE model file: the same figures as the preset it copies.
cat >mixtral.yaml <<'EOF'
name: my-mixtral
layers: 32
hidden: 4096
ffn: 14336
heads: 32
kv_heads: 8
vocab: 32000
seq_len: 4096
experts: 8
top_k: 2
expert_ffn: 14336
EOF
run file 0 "$RANKMAP" explain --model mixtral.yaml --layout tp=1,ep=8,pp=4,dp=auto --gpus 64 --format json
cp "$OUT" file.json
run preset 0 "$RANKMAP" explain --model mixtral-8x7b --layout tp=1,ep=8,pp=4,dp=auto --gpus 64 --format json
json_holds file-same "abs(d['step_seconds']-json.load(open('$PWD/file.json'))['step_seconds'])<1e-9"
printf 'experts: 8\ntop_k: 9\n' >>mixtral.yaml
run file-bad 2 "$RANKMAP" explain --model mixtral.yaml --layout tp=1,ep=8,dp=8
has file-bad-msg "$ERR" 'mixtral\.yaml'
finish
