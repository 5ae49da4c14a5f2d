#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# librankmap's contract holds: rankmap.h, the version script and
# librankmap.so name the same functions under one version node
# (tests/api/exports.py), the checker still sees a name planted on either
# side, and a program built against ABI 1's header runs against this
# tree's library (tests/api/abi_caller.c, under ASan).
source "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
CHECK=$RM_ROOT/tests/api/exports.py
HDR=$RM_ROOT/mapper/include/rankmap.h
MAP=$RM_ROOT/mapper/librankmap.map
SO=$RM_BUILD/librankmap.so

if [ -f "$SO" ]; then
	run agree 0 $PY "$CHECK" "$HDR" "$MAP" "$SO"
	has agree-summary "$OUT" '^exports: [0-9]+ names in .* \(RANKMAP_1\) and .* agree$'
else
	skip agree "no $SO (make first)"
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# A function declared but not in the map, and the other way round.
cp "$HDR" "$T/rankmap.h"
sed -i 's|^void rm_map_free(rm_map \*map);|&\nint rm_planted_public(void);|' "$T/rankmap.h"
run header-only 1 $PY "$CHECK" "$T/rankmap.h" "$MAP"
has header-only-says "$OUT" 'rm_planted_public is declared but not in'
sed 's|^\t\trm_map_free;|&\n\t\trm_planted_listed;|' "$MAP" >"$T/map"
run map-only 1 $PY "$CHECK" "$HDR" "$T/map"
has map-only-says "$OUT" 'rm_planted_listed is listed but not declared'
# Data and functions the programs may not see stay out of the header.
run glue-private 0 bash -c "! grep -qE '\b(rm_buf_[a-z_]*|rm_master_port[a-z_]*|rm_quote|rm_sha256_[a-z_]*) *[(]' '$HDR'"

ABI=$RM_ASAN/api/abi_caller
if [ -x "$ABI" ]; then
	run abi-1 0 "$ABI"
	has abi-1-checks "$OUT" '^ok import-v99-refused$'
	hasnt abi-1-clean "$OUT" '^not ok'
	# The frozen header is ABI 1's: the current one may only add to it.
	run abi-frozen-prefix 0 $PY - "$RM_ROOT/tests/api/v1/rankmap.h" "$HDR" <<'PYEOF'
import re, sys
def names(p):
    return set(re.findall(r"\b(rm_\w+)\s*\(", open(p).read()))
gone = names(sys.argv[1]) - names(sys.argv[2])
if gone:
    sys.exit("removed since ABI 1: " + " ".join(sorted(gone)))
PYEOF
else
	skip abi-1 "no $ABI (make build-check first)"
fi
finish
