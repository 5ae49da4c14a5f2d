#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The layers hold: the CLI, the plugin and nccl/ use only librankmap's
# public headers, and each folder of mapper/src includes only the folders
# before it in the data flow (tests/layers/layers.py). The checker is also
# run on copies of the tree with one violation planted each, so a check
# that has stopped seeing violations fails here too.
source "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
CHECK=$RM_ROOT/tests/layers/layers.py

run tree 0 $PY "$CHECK" "$RM_ROOT"
has tree-summary "$OUT" '^layers: [0-9]+ files, every include within its layer$'

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# plant NAME FILE LINE-TO-ADD PATTERN-EXPECTED
plant() {
	local name=$1 file=$2 line=$3 want=$4
	rm -rf "$T/r"
	mkdir -p "$T/r"
	cp -r "$RM_ROOT/mapper" "$RM_ROOT/spank" "$RM_ROOT/nccl" "$T/r/"
	printf '%s\n' "$line" >>"$T/r/$file"
	run "$name" 1 $PY "$CHECK" "$T/r"
	has "$name-says" "$OUT" "$want"
}
plant cli-internal mapper/cli/cmd_check.c '#include "map/mapio.h"' \
	'^mapper/cli/cmd_check.c:[0-9]+: includes librankmap.s internal header mapper/src/map/mapio.h'
plant cli-umbrella mapper/cli/main.c '#include "internal.h"' \
	'^mapper/cli/main.c:[0-9]+: includes .*mapper/src/internal.h'
plant spank-relative spank/plan.c '#include "../mapper/src/place/place.h"' \
	'^spank/plan.c:[0-9]+: includes .*mapper/src/place/place.h'
plant nccl-internal nccl/comm.c '#include "fabric_int.h"' \
	'^nccl/comm.c:[0-9]+: includes .*mapper/src/fabric/fabric_int.h'
plant spank-name spank/env.c 'static void f(void) { rmi_err(0, 0, "x"); }' \
	'^spank/env.c:[0-9]+: uses librankmap.s internal name rmi_err'
plant util-upward mapper/src/util/buf.c '#include "place/place.h"' \
	'^mapper/src/util/buf.c:[0-9]+: util/ includes place/place.h \(place/\): util/ may use only util$'
plant layout-umbrella mapper/src/layout/order.c '#include "internal.h"' \
	'^mapper/src/layout/order.c:[0-9]+: layout/ includes internal.h \(fabric/\)'
plant place-map mapper/src/place/place.c '#include "map/mapio.h"' \
	'^mapper/src/place/place.c:[0-9]+: place/ includes map/mapio.h \(map/\)'
# A name in a comment or a string is not a use.
rm -rf "$T/r"; mkdir -p "$T/r"
cp -r "$RM_ROOT/mapper" "$RM_ROOT/spank" "$RM_ROOT/nccl" "$T/r/"
printf '/* rmi_err is internal */\nstatic const char *s = "rmi_err";\n' >>"$T/r/spank/env.c"
run comment-not-use 0 $PY "$CHECK" "$T/r"

# The shared library is the public API: it exports every function the
# public headers declare and nothing but rm_ names.
SO=$RM_BUILD/librankmap.so
if [ -f "$SO" ]; then
	grep -ohE '^[a-z][a-z0-9_ *]* [*]*rm_[a-z0-9_]+[(]' \
		"$RM_ROOT"/mapper/include/rankmap.h "$RM_ROOT"/mapper/include/rankmap_text.h |
		grep -oE 'rm_[a-z0-9_]+[(]$' | tr -d '(' | sort -u >"$T/declared"
	nm -D --defined-only "$SO" | awk '{print $3}' | sort -u >"$T/exported"
	missing=$(comm -23 "$T/declared" "$T/exported" | tr '\n' ' ')
	others=$(grep -v '^rm_' "$T/exported" | head -5 | tr '\n' ' ')
	if [ "$(wc -l <"$T/declared")" -gt 100 ] && [ -z "$missing" ]; then
		pass so-exports-public
	else
		fail so-exports-public "declared but not exported: ${missing:-none} ($(wc -l <"$T/declared") declared)"
	fi
	[ -z "$others" ] && pass so-exports-only-rm || fail so-exports-only-rm "$others"
else
	skip so-exports "no $SO (make first)"
fi

# docs/architecture.md and the tree say the same.
run doc 0 $PY "$CHECK" --doc "$RM_ROOT"
has doc-summary "$OUT" '^layers: docs/architecture.md matches the [0-9]+ folders of mapper/src$'
# doc_plant NAME EXPECTED: run the doc check on the copy in $T/r
doc_plant() {
	run "$1" 1 $PY "$CHECK" --doc "$T/r"
	has "$1-says" "$OUT" "$2"
}
fresh() {
	rm -rf "$T/r"
	mkdir -p "$T/r"
	cp -r "$RM_ROOT/mapper" "$RM_ROOT/docs" "$T/r/"
}
fresh
mkdir "$T/r/mapper/src/cloud"
doc_plant doc-new-folder '^docs/architecture.md: no row for the folder mapper/src/cloud/$'
has doc-new-folder-readme "$OUT" '^mapper/src/cloud/: no README.md'
has doc-new-folder-allowed "$OUT" '^mapper/src/cloud/: not in ALLOWED'
fresh
rm "$T/r/mapper/src/node/README.md"
doc_plant doc-no-readme '^mapper/src/node/: no README.md'
fresh
sed -i 's/^| `mapper\/src\/place\/` \(.*\) | util, layout, fabric |$/| `mapper\/src\/place\/` \1 | util, layout, fabric, map |/' "$T/r/docs/architecture.md"
doc_plant doc-wrong-row '^docs/architecture.md:[0-9]+: place/ may include fabric, layout, map, util by the page, fabric, layout, util by the check$'
finish
