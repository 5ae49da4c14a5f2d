#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap site import --scontrol: `scontrol show topology` text as the
# project writes it from Slurm's format (tree and block), bad input with
# file:line:col, then what the real slurmctld prints: 22.05 on this
# machine, 24.11 in the Debian 13 root (tests/import/scontrol_cluster.sh).
. "$(dirname "$0")/../lib.sh"
SUITE=import/scontrol
need_rankmap
in_tmp

# topology/tree: upper switches list every node below them in Nodes=.
cat >tree.txt <<'X'
SwitchName=s0 Level=0 LinkSpeed=1 Nodes=node[1-4]
SwitchName=s1 Level=0 LinkSpeed=1 Nodes=node[5-6]
SwitchName=s2 Level=0 LinkSpeed=1 Nodes=node[7-8]
SwitchName=p1 Level=1 LinkSpeed=1 Nodes=node[1-6] Switches=s[0-1]
SwitchName=top Level=2 LinkSpeed=1 Nodes=node[1-8] Switches=p1,s2
X
mkdir -p out
run tree 0 "$RANKMAP" site import --scontrol tree.txt --out out
has tree/found "$OUT" 'topology +8 nodes, 5 switches \(3 leaves, 3 levels, 1 top-level\)'
has tree/leaf "out/topology.conf" '^SwitchName=s0 Nodes=node\[1-4\]$'
has tree/upper "out/topology.conf" '^SwitchName=p1 Switches=s\[0-1\]$'
hasnt tree/no-upper-nodes "out/topology.conf" '^SwitchName=(p1|top) .*Nodes='
run tree/validate 0 "$RANKMAP" site validate out/site.yaml
printf 'SwitchName=s0 Nodes=node[1-4]\nSwitchName=s1 Nodes=node[5-6]\nSwitchName=s2 Nodes=node[7-8]\nSwitchName=p1 Switches=s[0-1]\nSwitchName=top Switches=p1,s2\n' >tree.conf
run tree/against 0 "$RANKMAP" site import --scontrol tree.txt --against tree.conf
has tree/against-same "$OUT" 'no difference'

# topology/block (23.02+)
printf 'BlockName=b1 BlockIndex=0 Nodes=n[01-18] BlockSize=18\nBlockName=b2 BlockIndex=1 Nodes=n[19-36] BlockSize=18\n' >block.txt
run block 0 "$RANKMAP" site import --scontrol block.txt --out out
has block/lines out/topology.conf '^BlockName=b2 Nodes=n\[19-36\]$'
has block/sizes out/topology.conf '^BlockSizes=18$'
has block/found "$OUT" '36 nodes, .*topology/block blocks'
run block/validate 0 "$RANKMAP" site validate out/site.yaml
printf 'BlockName=x1 Nodes=n[01-17]\nBlockName=x2 Nodes=n[18-36]\nBlockSizes=17\n' >block.conf
run block/against 1 "$RANKMAP" site import --scontrol block.txt --against block.conf
has block/against-moved "$OUT" '^  n18: under x2 in block.conf, with hosts the fabric puts under b2; the fabric puts it under b1$'

bad() { # NAME PATTERN TEXT
	printf '%b' "$3" >bad.txt
	run "bad/$1" 2 "$RANKMAP" site import --scontrol bad.txt
	has "bad/$1-msg" "$ERR" "$2"
}
bad unknown-key 'bad.txt:1:28: Colour= is not a key' 'SwitchName=s0 Nodes=n[1-2] Colour=red\n'
bad not-first "bad.txt:1:9: SwitchName= must be the line's first key" 'Level=0 SwitchName=s0\n'
bad no-kv 'bad.txt:2:1: expected Key=Value' 'SwitchName=s0 Nodes=n1\nhello\n'
bad unknown-child 'bad.txt:2:1: Switches= names s9' 'SwitchName=s0 Level=0 Nodes=n1\nSwitchName=t Level=1 Switches=s[0,9]\n'
bad two-parents 'bad.txt:3:1: switch s0 has two parents' 'SwitchName=s0 Level=0 Nodes=n1\nSwitchName=a Level=1 Switches=s0\nSwitchName=b Level=1 Switches=s0\n'
bad twice 'bad.txt:2:1: switch s0 is printed twice' 'SwitchName=s0 Nodes=n1\nSwitchName=s0 Nodes=n2\n'
bad quote 'bad.txt:1:23: Nodes: quote' 'SwitchName=s0 Nodes=n1"x\n'
bad bad-hostlist 'bad.txt:1:.*Nodes=:' 'SwitchName=s0 Nodes=n[1-\n'
bad level 'bad.txt:1:21: Level=x' 'SwitchName=s0 Level=x Nodes=n1\n'
bad cycle 'no topology rankmap reads: .*cycle' 'SwitchName=a Level=1 Switches=b\nSwitchName=b Level=1 Switches=a\nSwitchName=s Level=0 Nodes=n1\n'
# A node under two leaves: slurmctld warns and goes on, and so does rankmap.
printf 'SwitchName=a Level=0 Nodes=n1\nSwitchName=b Level=0 Nodes=n1\n' >twice.txt
mkdir -p twice-out
run node-twice-warned 0 "$RANKMAP" site import --scontrol twice.txt --out twice-out
bad empty 'not `scontrol show topology` output' '\n# nothing\n'

# The real slurmctld: 22.05 here, 24.11 and 26.05 (tree and block) in their roots.
if command -v slurmctld >/dev/null; then
	CLI=$RANKMAP bash "$RM_ROOT/tests/import/scontrol_cluster.sh"
else
	skip slurm-22.05 "no slurmctld on this machine"
fi
cd "$RM_ROOT" || exit 1
. tests/roots/libroot.sh
for r in slurm24 slurm26; do
	root_use "$r"
	if root_ready quiet; then
		$INROOT env RM_ROOT="$RM_ROOT" RM_BUILD="$RB" CLI="$RB/rankmap" \
			RANKMAP="$RB/rankmap" BLOCK=1 bash tests/import/scontrol_cluster.sh
	fi
	# no root: t_slurm24.sh / t_slurm26.sh print the one SKIP line naming
	# `make $r` (issue 22); this suite says nothing more
done
finish
