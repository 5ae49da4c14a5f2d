#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# probe.sh DIR: start a cluster (tests/slurm/cluster.sh, 6 nodes) on each
# DIR/*.conf as its topology.conf and print one line per file:
#   NAME accepted|refused|ignored  (slurmctld's verdict)
# accepted: slurmctld runs and prints the topology; ignored: it runs but
# says "No topology information available" (it logged an error and went
# on without one); refused: it stopped (fatal) or never answered.
# Run on this machine and inside the slurm24/slurm26 roots by t_accept.sh.
. "$RM_ROOT/tests/slurm/cluster.sh"
for f in "$1"/*.conf; do
	name=$(basename "$f" .conf)
	D=$(cluster_tmpdir rankmap-probe)
	export CLUSTER_TOPOLOGY=$f
	unset CLUSTER_TOPOLOGY_PLUGIN
	[ -f "$1/$name.plugin" ] && export CLUSTER_TOPOLOGY_PLUGIN=$(cat "$1/$name.plugin")
	verdict=refused
	if cluster_start "$D" 6 >"$D.log" 2>&1; then
		out=$(. "$D/env"; timeout 10 scontrol show topology 2>&1)
		if grep -qs 'fatal' "$D"/log/slurmctld*; then verdict=refused
		elif printf '%s' "$out" | grep -qE '^(SwitchName|BlockName)='; then verdict=accepted
		elif printf '%s' "$out" | grep -q 'No topology information'; then verdict=ignored
		fi
	elif [ $? -eq 2 ]; then
		verdict=skip
	fi
	echo "$name $verdict"
	cluster_stop "$D" >/dev/null 2>&1
	rm -rf "$D" "$D.log"
done
