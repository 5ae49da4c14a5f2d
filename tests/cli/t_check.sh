#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap check: our own maps pass, a user's assignment is scored the same
# way, a broken one fails naming the rule, and --baseline compares.
source "$(dirname "$0")/../lib.sh"
in_tmp
two_leaves 'n[1-4]' 'n[5-8]' >topo.conf
P=(--layout 4x2x4 --gpus-per-node 4 --topology topo.conf)
"$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format json -o map.json
"$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format yaml -o map.yaml
"$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]' --format csv -o map.csv

run own-json 0 "$RANKMAP" check --map map.json --topology topo.conf
has own-json-ok "$OUT" 'all must-rules hold: yes'
run own-yaml 0 "$RANKMAP" check --map map.yaml --topology topo.conf
run own-json-report 0 "$RANKMAP" check --map map.json --topology topo.conf --format json
cp "$OUT" report.json
if python3 - map.json report.json >py.out 2>&1 <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
assert r["schema"] == "rankmap-check/1"
# Scoring the written map again gives the numbers written in it.
assert r["map"] == m["validation"], (r["map"], m["validation"])
assert r["map"]["must_ok"] is True and r["map"]["tp_split"] == 0
print("ok")
PY
then pass check-matches-plan; else fail check-matches-plan "$(tail -5 py.out)"; fi

# The csv from plan is a valid assignment file: same scores.
run csv-as-assignment 0 "$RANKMAP" check --assignment map.csv --layout 4x2x4 --gpus-per-node 4 --topology topo.conf --format json
if python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["map"]; b=json.load(open(sys.argv[2]))["map"]; assert a==b, (a,b)' "$OUT" report.json 2>py.out; then
	pass assignment-same-scores; else fail assignment-same-scores "$(tail -3 py.out)"; fi

# A user's launcher that spreads each TP group over two nodes.
{
	echo "# rank host gpu: TP pairs split across nodes"
	for r in $(seq 0 31); do
		n=$(( (r % 2) * 4 + (r / 8) % 4 + 1 ))
		echo "$r n$n $(( (r / 2) % 4 ))"
	done
} >split.txt
run tp-split 1 "$RANKMAP" check --assignment split.txt --layout 4x2x4 --gpus-per-node 4 --topology topo.conf
has tp-split-named "$OUT" 'FAIL  TP groups inside one NVLink domain \(8 of 8 split\)'
has tp-split-verdict "$OUT" 'all must-rules hold: NO'
has tp-split-leaves "$OUT" 'leaves +2 used'     # named from the topology

# --baseline: the numbers of both side by side.
run baseline 0 "$RANKMAP" check --map map.json --topology topo.conf --baseline --nodes 'n[1-8]'
has baseline-header "$OUT" 'checked +baseline'
has baseline-row "$OUT" 'TP groups leaving NVLink domain +0 +[0-9]+'
run baseline-json 0 "$RANKMAP" check --map map.json --topology topo.conf --baseline --format json
if python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert set(j)=={"schema","source","map","baseline"}' "$OUT" 2>py.out; then
	pass baseline-json-shape; else fail baseline-json-shape "$(tail -3 py.out)"; fi
# The split assignment against plain block order over its own nodes: the
# exit code follows the checked map, the baseline column is Slurm's.
run assignment-vs-baseline 1 "$RANKMAP" check --assignment split.txt --layout 4x2x4 --order tp-pp-dp --gpus-per-node 4 --topology topo.conf --baseline
has baseline-both "$OUT" 'all must-rules hold +NO +yes'

# Rail-optimised units: maps carry "unit", and read back through check.
cat >topo-su.conf <<'CONF'
SwitchName=su1 Nodes=d[01-04]
SwitchName=su2 Nodes=d[05-08]
SwitchName=spine Switches=su[1-2]
CONF
{
	printf 'schema: rankmap-site/1\nname: rails\ngpus_per_node: 4\ntopology: topo-su.conf\n'
	units_yaml 4 'su1=d[01-04]' 'su2=d[05-08]'
} >su.yaml
run units-plan 0 "$RANKMAP" plan --layout 4x4x2 --site su.yaml --nodes 'd[01-08]' --format yaml -o su-map.yaml
run units-check 0 "$RANKMAP" check --map su-map.yaml --site su.yaml --format json
if python3 - su-map.yaml "$OUT" >py.out 2>&1 <<'PY'
import json, sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
assert all("unit" in n for n in m["nodes"]) and all("unit" in x for x in m["ranks"])
assert r["map"] == m["validation"], (r["map"], m["validation"])
assert m["validation"]["pp_same_rail"] > 0
print("ok")
PY
then pass units-roundtrip; else fail units-roundtrip "$(tail -5 py.out)"; fi

# Usage errors.
run map-and-layout 2 "$RANKMAP" check --map map.json --layout 4x2x4
has map-and-layout-msg "$ERR" '^rankmap check: --layout and --order go with --assignment'
run neither 2 "$RANKMAP" check --topology topo.conf
run csv-format 2 "$RANKMAP" check --map map.json --format csv
# Issue 11's minimal case: leaves of 2, 9, 3, 2, 3, 8 nodes, 8x5x5. The plan
# and a hand-made assignment both reach the bound of 24 pairs, and both are
# reported optimal; a worse hand-made one is not.
cat >six.conf <<'CONF'
SwitchName=l1 Nodes=n[1-2]
SwitchName=l2 Nodes=n[3-11]
SwitchName=l3 Nodes=n[12-14]
SwitchName=l4 Nodes=n[15-16]
SwitchName=l5 Nodes=n[17-19]
SwitchName=l6 Nodes=n[20-27]
SwitchName=s Switches=l[1-6]
CONF
run six-plan 0 "$RANKMAP" plan --layout 8x5x5 --nodes 'n[1-27]' --topology six.conf
has six-plan-24 "$OUT" 'BEST  PP crossings 24, lower bound 24: optimal'
assign() {	# replicas as node lists, one argument each
	local dp=0 r
	for rep in "$@"; do
		read -ra nodes <<<"$rep"
		for pp in 0 1 2 3 4; do
			for tp in 0 1 2 3 4 5 6 7; do
				r=$((dp * 40 + pp * 8 + tp))
				echo "$r ${nodes[$pp]} $tp"
			done
		done
		dp=$((dp + 1))
	done
}
assign "n3 n4 n5 n6 n7" "n20 n21 n22 n23 n24" "n8 n9 n10 n11 n1" \
	"n25 n26 n27 n15 n16" "n12 n13 n14 n17 n18" >six-best.txt
run six-hand 0 "$RANKMAP" check --assignment six-best.txt --layout 8x5x5 --topology six.conf
has six-hand-24 "$OUT" 'BEST  PP crossings 24, lower bound 24: optimal'
assign "n3 n4 n5 n6 n7" "n20 n21 n22 n23 n24" "n8 n9 n10 n11 n25" \
	"n26 n27 n12 n13 n14" "n1 n2 n15 n16 n17" >six-worse.txt
run six-worse 0 "$RANKMAP" check --assignment six-worse.txt --layout 8x5x5 --topology six.conf
has six-worse-32 "$OUT" 'MORE  PP crossings 32, lower bound 24: not proven optimal'
# A map whose keys a script sorted (json.dump(sort_keys=True), yaml's
# default): "groups" and "nodes" before "ranks", "world_size" last. It is
# the same map: the reader takes more passes, the report is the same.
python3 - map.json <<'PY'
import json, sys, yaml
m = json.load(open(sys.argv[1]))
json.dump(m, open("sorted.json", "w"), sort_keys=True, indent=1)
yaml.safe_dump(m, open("sorted.yaml", "w"), sort_keys=True)
PY
run sorted-json 0 "$RANKMAP" check --map sorted.json --topology topo.conf --format json
cp "$OUT" sorted-report.json
run sorted-yaml 0 "$RANKMAP" check --map sorted.yaml --topology topo.conf --format json
same() { sed 's/"source": "[^"]*"/"source": -/' "$1"; }
if [ "$(same sorted-report.json)" = "$(same report.json)" ] &&
	[ "$(same "$OUT")" = "$(same report.json)" ]; then
	pass sorted-same-report
else
	fail sorted-same-report "$(diff <(same report.json) <(same sorted-report.json) | head -5)"
fi

# ---- issue 37: a map of another allocation or fabric is not scored as if
# it were this one's: exit 1, naming what differs.
run foreign-same-nodes 0 "$RANKMAP" check --map map.json --topology topo.conf --nodes 'n[5-8],n[1-4]'
run foreign-nodes 1 "$RANKMAP" check --map map.json --topology topo.conf --nodes 'n[1-6],x[1-2]'
has foreign-nodes-names "$ERR" "map.json does not match the nodes and fabric"
has foreign-nodes-missing "$ERR" "2 of the map's 8 hosts are not in the node list: 'n7', 'n8'"
has foreign-nodes-extra "$ERR" "2 nodes of the node list are not in the map, as a host or a spare: 'x1', 'x2'"
run foreign-job-nodes 1 env SLURM_JOB_NODELIST='n[1-4]' "$RANKMAP" check --map map.json --topology topo.conf
has foreign-job-nodes-says "$ERR" "4 of the map's 8 hosts are not in the node list"
two_leaves 'n[1-2],n[5-6]' 'n[3-4],n[7-8]' >moved.conf
run foreign-moved 1 "$RANKMAP" check --map map.json --topology moved.conf
has foreign-moved-says "$ERR" "4 hosts sit elsewhere in this topology than in the map: 'n3' \(map: leaf1, topology: leaf2\), 'n4' \(map: leaf1, topology: leaf2\), 'n5' \(map: leaf2, topology: leaf1\)"
two_leaves 'm[1-4]' 'm[5-8]' >other.conf
run foreign-cluster 1 "$RANKMAP" check --map map.json --topology other.conf --allow-missing
has foreign-cluster-says "$ERR" "the topology knows none of the map's 8 hosts"
"$RANKMAP" plan "${P[@]:0:4}" --nodes 'n[1-8]' --format json -o flat.json 2>/dev/null
run foreign-flat 1 "$RANKMAP" check --map flat.json --topology topo.conf
has foreign-flat-says "$ERR" 'planned without a topology'
# an assignment lists the hosts it uses: more nodes are fine, unknown
# hosts are not
run foreign-assign-more 0 "$RANKMAP" check --assignment map.csv --layout 4x2x4 --gpus-per-node 4 --topology topo.conf --nodes 'n[1-9]'
run foreign-assign-out 1 "$RANKMAP" check --assignment map.csv --layout 4x2x4 --gpus-per-node 4 --topology topo.conf --nodes 'n[1-7]'
has foreign-assign-out-says "$ERR" "1 of the map's 8 hosts is not in the node list: 'n8'"

finish
