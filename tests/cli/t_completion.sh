#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bash completion (pkg/rankmap.bash) offers only what each command accepts:
# every --format value it completes for a command is one the command takes,
# and --order offers every named order (issue 37).
. "$(dirname "$0")/../lib.sh"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
. "$RM_ROOT/pkg/rankmap.bash"
complete_of() { # WORDS...: what completing after the words offers
	COMP_WORDS=("$@" "") COMP_CWORD=$#
	COMPREPLY=()
	_rankmap
	echo "${COMPREPLY[*]}"
}
"$RANKMAP" plan --layout 1x1x1 --nodes n1 --gpus-per-node 1 --format json -o "$T/m.json" 2>/dev/null
for cmd in plan check node; do
	vals=$(complete_of rankmap "$cmd" --format)
	[ -n "$vals" ] && pass "$cmd-offers" || fail "$cmd-offers" "nothing offered"
	for v in $vals; do
		case $cmd in
		plan) "$RANKMAP" plan --layout 1x1x1 --nodes n1 --gpus-per-node 1 --format "$v" -o "$T/out" 2>"$T/err" ;;
		check) "$RANKMAP" check --map "$T/m.json" --nodes n1 --format "$v" >"$T/out" 2>"$T/err" ;;
		node) "$RANKMAP" node --hwloc-xml "$RM_ROOT/tests/node/data/h200-vm-lstopo.xml" --format "$v" >"$T/out" 2>"$T/err" ;;
		esac
		if grep -qi "format" "$T/err"; then fail "$cmd-format-$v" "$(head -1 "$T/err")"; else pass "$cmd-format-$v"; fi
	done
done
orders=$(complete_of rankmap plan --order)
for o in megatron llama3 torchtitan nest; do
	case " $orders " in *" $o "*) pass "order-$o" ;; *) fail "order-$o" "offered: $orders" ;; esac
done
# --baseline offers its kinds, each one explain takes; a bare --baseline
# still lets the next option complete (issue 36)
kinds=$(complete_of rankmap explain --baseline)
[ "$kinds" = "slurm sorted switch-rank" ] && pass baseline-kinds || fail baseline-kinds "offered: $kinds"
for k in $kinds; do
	"$RANKMAP" plan --layout 8x1x1 --nodes n1 --baseline "$k" --format json -o "$T/out" 2>"$T/err" &&
		pass "baseline-$k" || fail "baseline-$k" "$(head -1 "$T/err")"
done
COMP_WORDS=(rankmap check --baseline --for) COMP_CWORD=3 COMPREPLY=()
_rankmap
[ "${COMPREPLY[*]}" = --format ] && pass baseline-then-option || fail baseline-then-option "offered: ${COMPREPLY[*]}"
finish
