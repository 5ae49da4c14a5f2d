# SPDX-License-Identifier: Apache-2.0
# blocklib.sh - sourced by the topology/block suites (tests/slurm24/block.sh,
# tests/slurm26/segments.sh), after tests/slurm/cluster.sh:
#   block_cluster GPUS NODES [SED...]   start 8 nodes under $D/blocks.conf
#                 with a strict site of NVLink domains of GPUS GPUs and the
#                 lua templates (rankmap_shape.lua: blocks of NODES nodes,
#                 edited further by the SED expressions); exits on failure
# and once their cluster is up ($D, SLURM_CONF):
#   block_map N   DIR/out/node-block.txt: "node block" for each of the N
#                 nodes, as slurmctld reports them (scontrol show topology);
#                 one check that all N are in a block
#   BLOCK_TASK    a task command printing "T node tp= ep= pp= dp= edp="
#   inside NAME FILE KEYS TASKS [SIZE]   the tasks of FILE agreeing on
#                 every axis in KEYS (e.g. "pp dp ep": one TP group each;
#                 SIZE tasks each) sit in one of slurmctld's blocks
#   blocks_of NODELIST   prints the blocks of a node list, sorted, on one
#                 line ("b1 b3")
#   ctld_verdict FILE [NAME]   ACCEPT, or REFUSE and slurmctld's last error
#                 lines: a second slurmctld on its own port and state reads
#                 FILE as NAME (topology.conf; topology.yaml) beside a copy
#                 of $SLURM_CONF (with $D/v for its scratch folders);
#                 CTLD_ERRORS: the log lines (grep -E) that say why
block_map() {
	scontrol show topology >"$D/out/topo.txt" 2>&1
	while read -r blk nodes; do
		for n in $(scontrol show hostnames "$nodes"); do echo "$n $blk"; done
	done < <(sed -n 's/^BlockName=\([^ ]*\) .*Nodes=\([^ ]*\).*/\1 \2/p' "$D/out/topo.txt") \
		>"$D/out/node-block.txt"
	[ "$(wc -l <"$D/out/node-block.txt")" -eq "$1" ] && pass slurm-blocks ||
		fail slurm-blocks "$(cat "$D/out/topo.txt")"
}
BLOCK_TASK='echo "T $SLURMD_NODENAME tp=$RANKMAP_TP_RANK ep=${RANKMAP_EP_RANK:-0} pp=$RANKMAP_PP_RANK dp=$RANKMAP_DP_RANK edp=${RANKMAP_EDP_RANK:-0}"'
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
blocks_of() {
	local n
	for n in $(scontrol show hostnames "$1"); do
		awk -v n="$n" '$1 == n { print $2 }' "$D/out/node-block.txt"
	done | sort -u | paste -sd' ' -
}
block_cluster() {
	local gpus=$1 nodes=$2 e=()
	shift 2
	for x in "$@"; do e+=(-e "$x"); done
	printf '%s\n' "schema: rankmap-site/1" "name: rmblock" "gpus_per_node: 8" \
		"topology: topology.conf" "nvlink:" "  domain: block" "  domain_gpus: $gpus" \
		"policy:" "  enforce: strict" >"$D/etc/site.yaml"
	cp templates/lua/job_submit.lua templates/lua/cli_filter.lua "$D/etc/"
	sed -e 's/^\(\ttopology = \).*/\1"block",/' -e "s/^\(\tblock_nodes = \).*/\1$nodes,/" \
		-e "s/^\(\tnvlink_gpus = \).*/\1$gpus,/" "${e[@]}" \
		templates/lua/rankmap_shape.lua >"$D/etc/rankmap_shape.lua"
	if ! CLUSTER_TOPOLOGY=$D/blocks.conf CLUSTER_CONF_EXTRA=$'JobSubmitPlugins=lua\nCliFilterPlugins=lua' \
		cluster_start "$D" 8 "$PLUGIN" "site=$D/etc/site.yaml" \
		"runtime_dir=$D/rt" >"$D/out/start.log" 2>&1; then
		fail cluster-start "$(tail -5 "$D/out/start.log"; tail -5 "$D/log/slurmctld.log" 2>/dev/null)"
		exit 1
	fi
	pass cluster-start
	export SLURM_CONF=$D/etc/slurm.conf
}
ctld_verdict() {
	local v port pid t target=${2:-topology.conf}
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
	cp "$1" "$v/$target"
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
			if grep -q '_open_ports' "$v/log" && [ "${3:-0}" -lt 3 ]; then
				ctld_verdict "$1" "$target" $((${3:-0} + 1))
				return
			fi
			echo "REFUSE $(grep -E "${CTLD_ERRORS:-fatal:|error: (block|Parse|_parse)}" "$v/log" | tail -2 | tr '\n' ' ')"
			return
		fi
		sleep 0.1
	done
	kill "$pid"
	echo TIMEOUT
}
