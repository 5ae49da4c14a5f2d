#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap reads a topology.conf as slurmctld does: the probe files in
# accept/ (re-typed from Slurm's docs, or the cases of issue 39), each with
# the verdict the real slurmctld of 22.05, 24.11 and 26.05 gave it
# (accept/verdicts.txt, measured by probe.sh on the local clusters). Every
# file that all three run with must be planned; every file that all three
# refuse must be refused with file:line; where the releases differ the
# table says what rankmap does and why. With RM_CHECK_ALL=1 (make
# check-all) the verdicts are measured again on each release present
# (about 2 minutes each) and must equal the table.
. "$(dirname "$0")/../lib.sh"
A="$RM_ROOT/tests/topology/accept"
while read -r name v22 v24 v26 want; do
	case $name in ''|'#'*) continue ;; esac
	f="$A/$name.conf"
	[ -f "$f" ] || { fail "$name/file" "no $f"; continue; }
	if [ "$want" = planned ]; then
		run "$name/planned" 0 "$RANKMAP" plan --layout tp=2,dp=auto --order megatron \
			--nodes 'node[1-6]' --gpus-per-node 2 --topology "$f" --format json
	else
		run "$name/refused" 2 "$RANKMAP" plan --layout tp=2,dp=auto --order megatron \
			--nodes 'node[1-6]' --gpus-per-node 2 --topology "$f" --format json
		has "$name/names-file" "$ERR" "$name\\.conf(:[0-9]+(:[0-9]+)?)?: "
	fi
	# A verdict all releases share is rankmap's.
	if [ "$v22" = "$v24" ] && [ "$v24" = "$v26" ]; then
		case $v22/$want in
		accepted/planned|refused/refused) pass "$name/as-slurm" ;;
		*) fail "$name/as-slurm" "slurmctld: $v22 in all three, rankmap: $want" ;;
		esac
	fi
done <"$A/verdicts.txt"

# The real slurmctld, again (make check-all).
if [ "${RM_CHECK_ALL:-0}" = 1 ]; then
	check_release() { # COLUMN OUTPUT
		while read -r name verdict; do
			want=$(awk -v n="$name" -v c="$1" '$1 == n { print $c }' "$A/verdicts.txt")
			[ "$verdict" = skip ] && { skip "live/$name" "no Slurm here"; continue; }
			if [ "$verdict" = "$want" ]; then pass "live-$1/$name"; else
				fail "live-$1/$name" "slurmctld said $verdict, the table $want"; fi
		done <<<"$2"
	}
	check_release 2 "$(RM_ROOT=$RM_ROOT bash "$RM_ROOT/tests/topology/probe.sh" "$A")"
	cd "$RM_ROOT" || exit 1
	. tests/roots/libroot.sh
	col=3
	for r in slurm24 slurm26; do
		root_use "$r"
		if root_ready quiet; then
			check_release $col "$($INROOT env RM_ROOT="$RM_ROOT" bash tests/topology/probe.sh tests/topology/accept)"
		fi
		col=$((col + 1))
	done
else
	skip live "slurmctld's verdicts are measured again by make check-all"
fi
finish
