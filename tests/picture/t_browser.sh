#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The HTML picture in a real browser (Debian's chromium, headless, driven
# over the DevTools protocol by cdp.py): a 4-node fabric (the cluster of
# make demo, on leaves of 3 and 1 nodes, 8x2x2) and 16,384 GPUs on the Llama 3 fabric
# (2,300 shuffled nodes of 3,072, so the baseline crosses and has spares,
# drawn by `check --model`, so priced), each drawn beside its baseline; and
# two small pages with expert and HSDP axes. Screenshots and pages are kept in
# $RM_BUILD/artifacts/picture/.
source "$(dirname "$0")/../lib.sh"
if ! command -v chromium >/dev/null 2>&1; then
	skip chromium "Debian's chromium is not installed (make deps installs it)"
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ART=$RM_BUILD/artifacts/picture
mkdir -p "$ART"
cd "$T" || exit 1

# maps NAME PLAN-ARGS...: the plan and its baseline as map files.
maps() {
	local name=$1
	shift
	run "$name/plan-json" 0 "$RANKMAP" plan "$@" --format json -o map.json
	run "$name/baseline-json" 0 "$RANKMAP" plan "$@" --baseline --format json -o base.json
}
# browser NAME [CDP-ARGS...]: the browser checks of $ART/NAME.html.
browser() {
	local name=$1
	shift
	SUITE=$SUITE timeout 120 python3 "$RM_ROOT/tests/picture/cdp.py" "$ART/$name.html" \
		map.json base.json --shot "$ART/$name.png" --name "$name" "$@" ||
		fail "$name/browser" "cdp.py exited $?"
}
# page NAME PLAN-ARGS...: the page and both maps, then the browser checks.
page() {
	local name=$1
	shift
	run "$name/plan-html" 0 "$RANKMAP" plan "$@" --baseline --format html -o "$ART/$name.html"
	maps "$name" "$@"
	browser "$name"
}

cat >demo-topo.conf <<'CONF'
# the 4 nodes of tests/slurm/cluster.sh (make demo) on leaves of 3 and 1
SwitchName=leaf1 Nodes=node[1-3]
SwitchName=leaf2 Nodes=node4
SwitchName=spine1 Switches=leaf[1-2]
CONF
page demo --layout 8x2x2 --order megatron --gpus-per-node 8 \
	--topology demo-topo.conf --nodes 'node[4,1-3]'

# Expert parallelism (carved out of DP, Megatron's numbering) and HSDP:
# the clicked rank must show the map file's ep/etp/edp and dp_replicate/
# dp_shard coordinates.
page experts --layout tp=2,cp=2,ep=2,pp=2,dp=auto --order megatron --gpus-per-node 8 \
	--topology demo-topo.conf --nodes 'node[1-4]'
page hsdp --layout tp=2,pp=2,dp_replicate=2,dp_shard=4 --order torchtitan --gpus-per-node 8 \
	--topology demo-topo.conf --nodes 'node[1-4]'

python3 - >nodes.txt <<'PY'
import random
hosts = ["gpu%04d" % i for i in range(1, 3073)]
print("\n".join(random.Random(7).sample(hosts, 2300)))
PY
# The 16k page is the one `check --model` draws of the plan read back, so
# both headers also carry the seconds per step one model gives each map.
site=(--site "$RM_ROOT/site/llama3-roce/site.yaml" --nodes-file nodes.txt)
priced=(--map map.json "${site[@]}" --baseline --model llama3-405b --batch 16M --recompute full)
maps 16k --layout 8x16x128 "${site[@]}"
run 16k/check-html 0 "$RANKMAP" check "${priced[@]}" --format html -o "$ART/16k.html"
run 16k/check-json 0 "$RANKMAP" check "${priced[@]}" --format json -o priced.json
browser 16k --priced priced.json
finish
