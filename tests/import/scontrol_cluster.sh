#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scontrol_cluster.sh - `rankmap site import --scontrol` on what a real
# slurmctld prints: a cluster of tests/slurm/cluster.sh (its tree, and where
# BLOCK=1 a topology/block file), `scontrol show topology` captured, imported
# and compared with the topology.conf the daemons read (--against: no
# difference). Run by t_scontrol.sh on this machine (Slurm 22.05) and inside
# the Debian 13 root (24.11). Prints PASS/FAIL/SKIP lines.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
SUITE=import/scontrol
CLI=${CLI:-$RANKMAP}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
tag=slurm
one() { # NAME [topology file for CLUSTER_TOPOLOGY]
	local name=$1 D
	D=$(cluster_tmpdir rankmap-scontrol)
	if [ -n "${2:-}" ]; then export CLUSTER_TOPOLOGY=$2; else unset CLUSTER_TOPOLOGY; fi
	if ! cluster_start "$D" 6 >"$D.start.log" 2>&1; then
		rc=$?
		if [ "$rc" -eq 2 ]; then skip "$tag/$name" "no Slurm/munge here: $(tail -1 "$D.start.log")"
		else fail "$tag/$name-start" "$(tail -3 "$D.start.log")"; fi
		cluster_stop "$D" >/dev/null 2>&1
		rm -rf "$D" "$D.start.log"
		return
	fi
	# cluster_stop removes D: what the checks read lives in W
	(. "$D/env"; scontrol show topology) >"$W/scontrol.txt" 2>&1
	tag=slurm-$(. "$D/env"; scontrol --version 2>/dev/null | awk '{print $2}')
	cp "$D/etc/topology.conf" "$W/hand.conf"
	cluster_stop "$D" >/dev/null 2>&1
	if grep -qE '^(SwitchName|BlockName)=' "$W/scontrol.txt"; then pass "$tag/$name-printed"; else
		fail "$tag/$name-printed" "$(head -3 "$W/scontrol.txt")"; fi
	run "$tag/$name-import" 0 "$CLI" site import --scontrol "$W/scontrol.txt" --against "$W/hand.conf"
	has "$tag/$name-agrees" "$OUT" 'no difference'
	run "$tag/$name-stdin" 0 sh -c "\"$CLI\" site import --scontrol - <\"$W/scontrol.txt\""
	rm -rf "$D" "$D.start.log"
}
one tree
if [ "${BLOCK:-0}" = 1 ]; then
	T=$(mktemp)
	printf 'BlockName=b1 Nodes=node[1-4]\nBlockName=b2 Nodes=node[5-6]\nBlockSizes=2\n' >"$T"
	one block "$T"
	rm -f "$T"
fi
finish
