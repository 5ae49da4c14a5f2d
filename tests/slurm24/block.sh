#!/usr/bin/env bash
# block.sh - topology/block on the real slurmctld 24.11 (run inside the
# Debian 13 root by t_block.sh). Eight nodes of 8 GPUs in two NVLink blocks
# of four (GB200 NVL72's 18 nodes x 4 GPUs, scaled down), BlockSizes=4,8.
#  - topology.conf variants: slurmctld and rankmap accept and refuse the
#    same files, for the same reason;
#  - rankmap's blocks are the ones slurmctld reports (scontrol show
#    topology), and TP (and TPxEP where it fits) never leaves one;
#  - --segment: a job split over two blocks gets TP groups inside each, and
#    a TP that cannot fit the job's share of a block is refused under
#    strict, naming the blocks and their sizes;
#  - templates/lua/cli_filter.lua sizes --segment from the layout.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
cluster_suite block

D=$(cluster_tmpdir rankmap-block)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out" "$D/v"
printf '%s\n' "# two NVLink blocks of 4 nodes x 8 GPUs" "BlockName=nvl1 Nodes=node[1-4]" \
	"BlockName=nvl2 Nodes=node[5-8]" "BlockSizes=4,8" >"$D/blocks.conf"
cat >"$D/etc/site.yaml" <<EOF2
schema: rankmap-site/1
name: rmblock
gpus_per_node: 8
topology: topology.conf
nvlink:
  domain: block
  domain_gpus: 32
policy:
  enforce: strict
EOF2
# templates/lua shapes --parallel-layout jobs: this site's blocks
cp templates/lua/job_submit.lua templates/lua/cli_filter.lua "$D/etc/"
sed -e 's/^\(\ttopology = \).*/\1"block",/' -e 's/^\(\tblock_nodes = \).*/\14,/' \
	-e 's/^\(\tnvlink_gpus = \).*/\132,/' templates/lua/rankmap_shape.lua >"$D/etc/rankmap_shape.lua"
if ! CLUSTER_TOPOLOGY=$D/blocks.conf CLUSTER_CONF_EXTRA=$'JobSubmitPlugins=lua\nCliFilterPlugins=lua' \
	cluster_start "$D" 8 "$PLUGIN" "site=$D/etc/site.yaml" \
	"runtime_dir=$D/rt" >"$D/out/start.log" 2>&1; then
	fail cluster-start "$(tail -5 "$D/out/start.log"; tail -5 "$D/log/slurmctld.log" 2>/dev/null)"
	exit 1
fi
pass cluster-start
export SLURM_CONF=$D/etc/slurm.conf
has topology-block "$SLURM_CONF" '^TopologyPlugin=topology/block$'

# ---- the same files accepted and refused, for the same reason
# ctld_verdict FILE: ACCEPT, or REFUSE and slurmctld's last error lines; a
# second slurmctld on its own port and state reads FILE as topology.conf.
ctld_verdict() {
	local v port pid t
	v=$(mktemp -d "$D/v/c.XXXXXX")
	mkdir "$v/state"
	port=$(_cluster_ports 1)
	sed -e "s|^SlurmctldPort=.*|SlurmctldPort=$port|" \
		-e "s|^StateSaveLocation=.*|StateSaveLocation=$v/state|" \
		-e "s|^SlurmctldPidFile=.*|SlurmctldPidFile=$v/pid|" \
		-e "s|^SlurmctldLogFile=.*|SlurmctldLogFile=$v/log|" \
		-e "s|^PlugStackConfig=.*|PlugStackConfig=$v/plugstack.conf|" \
		-e '/^JobSubmitPlugins=/d' -e '/^CliFilterPlugins=/d' \
		"$SLURM_CONF" >"$v/slurm.conf"
	: >"$v/plugstack.conf"
	cp "$1" "$v/topology.conf"
	cp "$D/etc/gres.conf" "$v/"
	slurmctld -D -i -f "$v/slurm.conf" >"$v/out" 2>&1 &
	pid=$!
	for t in $(seq 1 150); do
		if grep -q 'Running as primary controller' "$v/log" 2>/dev/null; then
			kill "$pid"
			wait "$pid" 2>/dev/null
			echo ACCEPT
			return
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			# a port someone took meanwhile: not a verdict on FILE
			if grep -q '_open_ports' "$v/log" && [ "${2:-0}" -lt 3 ]; then
				ctld_verdict "$1" $((${2:-0} + 1))
				return
			fi
			echo "REFUSE $(grep -E 'fatal:|error: (block|Parse|_parse)' "$v/log" | tail -2 | tr '\n' ' ')"
			return
		fi
		sleep 0.1
	done
	kill "$pid"
	echo TIMEOUT
}
# variant NAME CTLD_REASON RANKMAP_REASON LINES...: both accept (reasons
# empty) or both refuse, slurmctld's log and rankmap's error saying why.
variant() {
	local name=$1 cr=$2 rr=$3 f verdict msg
	shift 3
	f=$D/v/$name.conf
	printf '%s\n' "$@" >"$f"
	# $(...) copies $RANDOM's state: advance it here, or every variant's
	# slurmctld draws the same port.
	: $RANDOM
	verdict=$(ctld_verdict "$f")
	msg=$("$CLI" plan --layout 8x1x1 --nodes node1 --gpus-per-node 8 --topology "$f" \
		--format json 2>&1 >/dev/null)
	if [ -z "$cr" ]; then
		if [ "$verdict" = ACCEPT ] && [ -z "$msg" ]; then pass "file-$name"; else
			fail "file-$name" "slurmctld: $verdict; rankmap: $msg"
		fi
		return
	fi
	if [[ $verdict == REFUSE* ]] && grep -qE -- "$cr" <<<"$verdict" &&
		grep -qE -- "$rr" <<<"$msg"; then
		pass "file-$name"
	else
		fail "file-$name" "slurmctld: $verdict; rankmap: ${msg:-accepted}"
	fi
}
B1="BlockName=b1 Nodes=node[1-4]"
B2="BlockName=b2 Nodes=node[5-8]"
variant sizes-ok "" "" "$B1" "$B2" "BlockSizes=2,4"
variant sizes-many "" "" "$B1" "$B2" "BlockSizes=4,8,16,32,64"
variant sizes-default "" "" "BlockName=b1 Nodes=node[1-2]" "BlockName=b2 Nodes=node[3-8]"
variant sizes-not-pow2 'Invalid BlockSizes value: 3' \
	":3:14: BlockSizes: '3' is not the base block size 2 times a power of two.*Invalid BlockSizes value" \
	"$B1" "$B2" "BlockSizes=2,3"
variant sizes-not-multiple 'Invalid BlockSizes value: 12' "'12' is not the base block size 4" \
	"$B1" "$B2" "BlockSizes=4,12"
variant sizes-word 'Invalid BlockSizes value: x' "BlockSizes: 'x' is not a block size" \
	"$B1" "$B2" "BlockSizes=x"
variant below-given-base 'Block configuration \(b1\) children count lower than bblock_node_cnt' \
	":1:1: block 'b1' has 4 nodes, fewer than the base block size of 8 .BlockSizes' first value" \
	"$B1" "$B2" "BlockSizes=8"
variant below-first-block 'Block configuration \(b2\) children count lower than bblock_node_cnt' \
	":2:1: block 'b2' has 3 nodes, fewer than the base block size of 4 .the first block's" \
	"$B1" "BlockName=b2 Nodes=node[5-7]"
variant no-nodes "block b1 hasn't got nodes" ":1:1: block 'b1' has no Nodes=" \
	"BlockName=b1" "$B2"
variant twice 'Block \(b1\) has already been defined' ":2:11: block 'b1' defined twice" \
	"$B1" "BlockName=b1 Nodes=node[5-8]"
variant unknown-key 'Parse error .* line 1: " Color=red"' ":1:30: unknown key 'Color'" \
	"$B1 Color=red" "$B2"
variant sizes-twice 'children count lower than bblock_node_cnt' ':4:1: BlockSizes given twice' \
	"$B1" "$B2" "BlockSizes=4" "BlockSizes=8"

# ---- rankmap's blocks are slurmctld's
scontrol show topology >"$D/out/topo.txt" 2>&1
: >"$D/out/node-block.txt"
while read -r blk nodes; do
	for n in $(scontrol show hostnames "$nodes"); do echo "$n $blk"; done
done < <(sed -n 's/^BlockName=\([^ ]*\) .*Nodes=\([^ ]*\).*/\1 \2/p' "$D/out/topo.txt") >"$D/out/node-block.txt"
[ "$(wc -l <"$D/out/node-block.txt")" -eq 8 ] && pass slurm-blocks ||
	fail slurm-blocks "$(cat "$D/out/topo.txt")"

S='echo "T $SLURMD_NODENAME tp=$RANKMAP_TP_RANK ep=${RANKMAP_EP_RANK:-0} pp=$RANKMAP_PP_RANK dp=$RANKMAP_DP_RANK edp=${RANKMAP_EDP_RANK:-0}"'
# inside NAME FILE KEYS TASKS [SIZE]: the tasks agreeing on every axis in
# KEYS (e.g. "pp dp ep": one TP group each; SIZE tasks each) sit in one of
# slurmctld's blocks.
inside() {
	local out
	out=$(awk -v keys="$3" -v want="$4" -v size="${5:-0}" '
		NR == FNR { blk[$1] = $2; next }
		$1 == "T" {
			n++
			split($0, f, " ")
			key = ""
			for (i = 3; i <= 7; i++) {
				split(f[i], kv, "=")
				if (index(" " keys " ", " " kv[1] " ")) key = key kv[1] kv[2] ","
			}
			b = blk[$2]
			members[key]++
			if (!(key in first)) { first[key] = b; groups++ }
			else if (first[key] != b) bad[key] = first[key] "+" b
		}
		END {
			for (k in bad) { printf "group %s spans %s\n", k, bad[k]; e = 1 }
			for (k in members) if (size && members[k] != size) {
				printf "group %s has %d tasks, not %d\n", k, members[k], size; e = 1
			}
			if (n != want) { printf "%d tasks, expected %d\n", n, want; e = 1 }
			if (groups < 2) { printf "only %d group(s)\n", groups; e = 1 }
			exit e
		}' "$D/out/node-block.txt" "$2")
	if [ $? -eq 0 ]; then pass "$1"; else fail "$1" "$out"; fi
}

run tp16 0 srun -N8 --ntasks-per-node=8 --parallel-layout=tp=16,pp=2,dp=2 sh -c "$S"
inside tp16-in-block "$OUT" "pp dp ep" 64 16
# EP is carved out of DP: one expert block (ETP x EP = 16 ranks) shares
# pp and edp
run tp8-ep2 0 srun -N8 --ntasks-per-node=8 --parallel-layout=tp=8,ep=2,pp=2,dp=4 sh -c "$S"
inside tp8-ep2-tpxep-in-block "$OUT" "pp edp" 64 16

# ---- --segment over two half-busy blocks: node1-2 and node5-6 are taken
sbatch -w 'node[1-2]' -N2 -o /dev/null --wrap 'sleep 300' >/dev/null
sbatch -w 'node[5-6]' -N2 -o /dev/null --wrap 'sleep 300' >/dev/null
for t in $(seq 1 100); do
	[ "$(squeue -h -t R | wc -l)" -eq 2 ] && break
	sleep 0.2
done
cat >"$D/out/seg.sh" <<EOF2
#!/bin/sh
scontrol show job \$SLURM_JOB_ID >"$D/out/seg.job"
srun --parallel-layout=tp=16,pp=1,dp=2 sh -c '$S'
EOF2
run segment 0 sbatch --wait -N4 --segment=2 --ntasks-per-node=8 -o "$D/out/seg.out" "$D/out/seg.sh"
has segment-job-nodes "$D/out/seg.job" 'NodeList=node\[3-4,7-8\]'
inside segment-tp16-in-block "$D/out/seg.out" "pp dp ep" 32
run segment-tp32 1 srun -N4 --segment=2 --ntasks-per-node=8 --parallel-layout=tp=32,pp=1,dp=1 true
has segment-tp32-msg "$ERR" "^srun: error: rankmap: layout tp=32,pp=1,dp=1 needs 32 GPUs in whole TP blocks of 4 nodes of one NVLink domain.*the allocation's NVLink domains: nvl1 2 nodes, nvl2 2 nodes"
# without --segment slurmctld itself finds no block for 4 nodes
run no-segment 1 srun -N4 --immediate=3 --ntasks-per-node=8 true
# ... but cli_filter.lua gives a layout job one pipeline (2 nodes) per
# segment, so the same 4 nodes serve it, each pipeline inside a block
cat >"$D/out/lua.sh" <<EOF2
#!/bin/sh
scontrol show job \$SLURM_JOB_ID >"$D/out/lua.job"
srun sh -c '$S'
EOF2
run lua-segment 0 timeout 60 sbatch --wait --parallel-layout=tp=8,pp=2,dp=2 -o "$D/out/lua.out" "$D/out/lua.sh"
has lua-segment-nodes "$D/out/lua.job" 'NodeList=node\[3-4,7-8\]'
has lua-segment-shaped "$D/out/lua.job" 'NumNodes=4 NumCPUs=[0-9]+ NumTasks=32 '
inside lua-segment-pipeline-in-block "$D/out/lua.out" "tp dp ep" 32
finish
