#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# demo.sh - `make demo`: a local 4-node Slurm cluster (8 fake GPUs a node)
# wired as a small multi-node NVLink system: two NVLink racks of two trays
# (16 GPUs a domain, an NVL72 in miniature) whose trays are cabled and
# named by ToR, so each ToR holds one tray of each rack. One
# `sbatch --parallel-layout=16x2x1 --parallel-order=megatron` job: every TP
# group needs a whole rack. The map's report as `rankmap plan` prints it
# for the job's nodes, its picture (build/demo/rankmap-demo.html and .svg,
# plan beside Slurm's block order and a sorted hostfile), a table of what
# every rank got from the plugin, and what both baselines would have cost
# this job: its own map file read back and priced by `rankmap explain
# --baseline slurm,sorted`. Needs root and Slurm 22.05.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
LAYOUT=${LAYOUT:-16x2x1}
ORDER=${ORDER:-megatron}
. "$ROOT/tests/slurm/cluster.sh"

if [ ! -f "$BUILD/rankmap.so" ]; then
	echo "demo: $BUILD/rankmap.so is missing: run make (it needs Slurm's spank.h, libslurm-dev)" >&2
	exit 1
fi
if ! why=$(cluster_tools); then
	echo "demo: $why" >&2
	exit 1
fi
D=$(cluster_tmpdir rankmap-demo)
trap 'echo "== stopping the cluster"; cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out"
# Hostnames follow the ToRs, the NVLink racks cut across them (tray k of
# every rack on ToR k, as rails are cabled): Slurm's block order, a hostfile
# sorted by switch and Slurm's switch ranks all put node1 and node2 in one
# TP group, two racks apart, and its all-reduces leave NVLink.
cat >"$D/topology.conf" <<EOF
SwitchName=tor1 Nodes=node[1-2]
SwitchName=tor2 Nodes=node[3-4]
SwitchName=spine Switches=tor[1-2]
EOF
export CLUSTER_TOPOLOGY=$D/topology.conf
cat >"$D/etc/site.yaml" <<EOF
schema: rankmap-site/1
name: demo
gpus_per_node: 8
topology: topology.conf
nvlink:
  domain: groups
  groups: ["node[1,3]", "node[2,4]"]
tiers:
  - {name: nvlink, bandwidth_gbs: 900}
  - {name: tor, bandwidth_gbs: 50}
  - {name: spine, bandwidth_gbs: 50, oversubscription: 4}
EOF
echo "== starting 4 slurmd + slurmctld in $D"
if ! cluster_start "$D" 4 "$BUILD/rankmap.so" "site=$D/etc/site.yaml" enforce=warn; then
	echo "demo: the cluster did not start; logs:" >&2
	tail -n 20 "$D"/log/*.log >&2
	exit 1
fi
export SLURM_CONF=$D/etc/slurm.conf
echo "   plugstack.conf: $(cat "$D/etc/plugstack.conf")"
echo "   topology.conf:"
sed 's/^/     /' "$D/etc/topology.conf"

cat >"$D/out/job.sh" <<EOF
#!/bin/sh
srun sh -c 'echo "\$RANK \$SLURMD_NODENAME \$LOCAL_RANK \$RANKMAP_TP_RANK \$RANKMAP_PP_RANK \$RANKMAP_DP_RANK \$MASTER_ADDR:\$MASTER_PORT \$RANKMAP_MAP_SHA256";
	[ "\$RANK" != 0 ] || cp "\$RANKMAP_MAP" "$D/out/job-map.json"'
EOF
echo "== sbatch -N4 --ntasks-per-node=8 --parallel-layout=$LAYOUT --parallel-order=$ORDER job.sh"
t0=$SECONDS
if ! sbatch --wait -N4 --ntasks-per-node=8 --parallel-layout="$LAYOUT" \
	--parallel-order="$ORDER" -o "$D/out/job.out" "$D/out/job.sh"; then
	echo "demo: the job failed:" >&2
	cat "$D/out/job.out" >&2
	exit 1
fi
echo "   job finished in $((SECONDS - t0)) s"

nodes=$(awk '/^[0-9]/ { print $2 }' "$D/out/job.out" | sort -u | paste -sd, -)
echo
echo "== the job's report: rankmap plan --layout $LAYOUT --order $ORDER --nodes $nodes --gpus-per-node 8 --site site.yaml"
"$BUILD/rankmap" plan --layout "$LAYOUT" --order "$ORDER" --nodes "$nodes" \
	--gpus-per-node 8 --site "$D/etc/site.yaml"
pic=$BUILD/demo/rankmap-demo.html
mkdir -p "$BUILD/demo"
if "$BUILD/rankmap" plan --layout "$LAYOUT" --order "$ORDER" --nodes "$nodes" \
	--gpus-per-node 8 --site "$D/etc/site.yaml" --baseline slurm,sorted --format html -o "$pic" &&
	"$BUILD/rankmap" plan --layout "$LAYOUT" --order "$ORDER" --nodes "$nodes" \
		--gpus-per-node 8 --site "$D/etc/site.yaml" --baseline slurm,sorted --format svg -o "${pic%.html}.svg"; then
	echo "== the picture of this job, beside Slurm's block order and a sorted hostfile: $pic (static: ${pic%.html}.svg)"
else
	echo "demo: could not draw the picture" >&2
fi
echo
echo "== what every rank got (from the tasks' environment)"
printf '%5s  %-6s %5s  %3s %3s %3s  %-13s %s\n' RANK HOST LOCAL TP PP DP MASTER "MAP SHA256"
grep -E '^[0-9]' "$D/out/job.out" | sort -n |
	while read -r rank host lr tp pp dp master sha; do
		printf '%5s  %-6s %5s  %3s %3s %3s  %-13s %.16s...\n' \
			"$rank" "$host" "$lr" "$tp" "$pp" "$dp" "$master" "$sha"
	done
n=$(grep -cE '^[0-9]' "$D/out/job.out")
shas=$(awk '/^[0-9]/ { print $8 }' "$D/out/job.out" | sort -u | wc -l)
echo "   $n ranks, $shas distinct map digest(s)"
grep -vE '^[0-9]' "$D/out/job.out" | sed 's/^/   job output: /'

echo
echo "== what Slurm's order and a sorted hostfile would have cost this job: its map file, priced against both"
echo "   rankmap explain --model llama3-8b --layout $LAYOUT --order $ORDER --site site.yaml --map job-map.json --baseline slurm,sorted"
if [ -f "$D/out/job-map.json" ]; then
	"$BUILD/rankmap" explain --model llama3-8b --layout "$LAYOUT" --order "$ORDER" \
		--site "$D/etc/site.yaml" --map "$D/out/job-map.json" --baseline slurm,sorted | sed 's/^/   /'
else
	echo "demo: rank 0 left no copy of its map file" >&2
fi
