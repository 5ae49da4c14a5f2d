#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The doc-test runner itself: it passes a page whose shown output matches
# (with `...` and `[...]` elisions), and fails - naming the doc line and the
# real output line - on a wrong number, a hidden failure, a command shown
# without `$ `, and an unknown marker.
source "$(dirname "$0")/../lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DT=$RM_ROOT/tests/doc/doctest.py
F='```'
cat >"$T/good.md" <<EOF
$F
\$ rankmap plan --layout 8x1x2 --nodes 'n[1-2]' --format env
WORLD_SIZE=16
MASTER_ADDR=n1
...
RANKMAP_MAP_SHA256=[...]
...
\$ rankmap plan --layout 8xx2 --nodes n1; echo "exit \$?"
rankmap plan: layout '8xx2': [...]
exit 2
$F

<!-- doctest: skip needs a real job -->
$F
rankmap plan --layout 8x1x2 --format env --slurm-task
$F
EOF
run good 0 python3 "$DT" "$T/good.md"
has good-counts "$OUT" '^doctest: 2 passed, 0 failed'

sed 's/^WORLD_SIZE=16$/WORLD_SIZE=17/' "$T/good.md" >"$T/number.md"
run wrong-number 1 python3 "$DT" "$T/number.md"
has wrong-number-where "$OUT" 'doc  .*number.md:3: WORLD_SIZE=17$'
has wrong-number-real "$OUT" 'real output line 1: WORLD_SIZE=16$'

sed 's/; echo "exit \$?"$//; /^exit 2$/d' "$T/good.md" >"$T/hidden.md"
run hidden-failure 1 python3 "$DT" "$T/hidden.md"
has hidden-failure-says "$OUT" 'exited 2'

sed 's/^<!-- doctest: skip needs a real job -->$//' "$T/good.md" >"$T/unrun.md"
run unrun 1 python3 "$DT" "$T/unrun.md"
has unrun-says "$OUT" 'unrun.md:15: a command shown but not run'

sed 's/doctest: skip/doctest: skipp/' "$T/good.md" >"$T/marker.md"
run bad-marker 1 python3 "$DT" "$T/marker.md"
has bad-marker-says "$OUT" "unknown doctest marker 'skipp'"
# An input file made in plain sight, then read by the next command (the
# README's frag.txt): the helper lines run, in the same directory.
cat >"$T/made.md" <<EOF
$F
\$ python3 -c 'print("n2"); print("n1")' >nodes.txt
\$ sort nodes.txt >sorted.txt
\$ rankmap plan --layout 8x1x2 --nodes-file sorted.txt --format env
...
MASTER_ADDR=n1
...
$F
EOF
run made-input 0 python3 "$DT" "$T/made.md"
has made-input-ran "$OUT" 'PASS: .*python3 -c'
cat >"$T/made-bad.md" <<EOF
$F
\$ python3 -c 'import sys; sys.exit(3)'
$F
EOF
run made-input-fails 1 python3 "$DT" "$T/made-bad.md"
has made-input-fails-says "$OUT" 'exited 3'
finish
