# SPDX-License-Identifier: Apache-2.0
# tests/lib.sh - sourced by the shell test suites (tests/*/t_*.sh).
# Each check prints "PASS: suite/name" or "FAIL: suite/name: why";
# tests/run.sh counts them.
RM_ROOT=${RM_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
RM_BUILD=${RM_BUILD:-$RM_ROOT/build}
RM_ASAN=${RM_ASAN:-$RM_BUILD/asan}
RANKMAP=${RANKMAP:-$RM_ASAN/rankmap}
SUITE=${SUITE:-$(basename "$0" .sh)}
T_FAILS=0

pass() { echo "PASS: $SUITE/$1"; }
fail() { echo "FAIL: $SUITE/$1: ${2:-}"; T_FAILS=$((T_FAILS + 1)); }
skip() { echo "SKIP: $SUITE/$1: ${2:-}"; }

# new_out: fresh $OUT and $ERR files for the next command. The previous
# command's pair is removed (and finish removes the last), so a suite leaves
# no temp files behind however many checks it runs.
new_out() {
	rm -f "${OUT:-}" "${ERR:-}"
	OUT=$(mktemp) ERR=$(mktemp)
}
# run NAME EXPECTED_RC CMD... : runs CMD, keeps stdout in $OUT, stderr in $ERR
run() {
	local name=$1 want=$2
	shift 2
	new_out
	"$@" >"$OUT" 2>"$ERR"
	RC=$?
	if [ "$RC" -eq "$want" ]; then pass "$name"; else
		fail "$name" "exit $RC, expected $want; stderr: $(head -c 400 "$ERR")"
	fi
}
# has NAME FILE PATTERN : grep -E in FILE
has() {
	if grep -qE -- "$3" "$2"; then pass "$1"; else
		fail "$1" "no /$3/ in: $(head -c 400 "$2")"
	fi
}
hasnt() {
	if grep -qE -- "$3" "$2"; then fail "$1" "unexpected /$3/ in: $(head -c 400 "$2")"; else
		pass "$1"
	fi
}
finish() { rm -f "${OUT:-}" "${ERR:-}"; [ "$T_FAILS" -eq 0 ]; }

# need_rankmap: skip the whole suite when the CLI is not built.
need_rankmap() {
	if [ ! -x "$RANKMAP" ]; then
		skip all "no $RANKMAP (build first)"
		exit 0
	fi
}

# Fixtures several suites share.
# in_tmp: cd into a fresh folder $T, removed when the suite exits.
in_tmp() {
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
	cd "$T" || exit 1
}
# two_leaves NODES1 NODES2: prints a topology.conf of leaf1 (NODES1) and
# leaf2 (NODES2) under one spine, the smallest fabric with a leaf to cross.
two_leaves() {
	printf 'SwitchName=leaf1 Nodes=%s\nSwitchName=leaf2 Nodes=%s\nSwitchName=spine Switches=leaf[1-2]\n' "$1" "$2"
}
# units_yaml RAILS NAME=NODES... : prints a site file's units: block, one
# scalable unit per NAME=NODES, each with RAILS rails.
units_yaml() {
	local u
	printf 'units:\n  rails: %s\n  list:\n' "$1"
	shift
	for u in "$@"; do
		printf '    - {name: %s, nodes: "%s"}\n' "${u%%=*}" "${u#*=}"
	done
}
# frag_nodes: prints 2,088 of the llama3-roce fabric's 3,072 nodes, drawn
# at random (seeded) and shuffled: what a busy cluster hands a job.
frag_nodes() {
	python3 -c '
import random
r = random.Random(7)
n = r.sample(range(1, 3073), 2088)
print("\n".join("gpu%04d" % i for i in n))'
}
# json_holds NAME ASSERTION: $OUT parses as JSON (d) and the Python
# ASSERTION on it holds.
json_holds() {
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert $2" "$OUT"; then
		pass "$1"
	else
		fail "$1" "$(head -c 300 "$OUT")"
	fi
}
