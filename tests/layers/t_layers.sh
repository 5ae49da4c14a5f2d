#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The layers hold: the CLI, the plugin and nccl/ use only librankmap's
# public headers, and each folder of mapper/src includes and calls only
# the folders before it in the data flow (tests/layers/layers.py). The
# checker is also run on copies of the tree with one violation planted
# each, so a check that has stopped seeing violations fails here too.
source "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
CHECK=$RM_ROOT/tests/layers/layers.py

run tree 0 $PY "$CHECK" "$RM_ROOT"
has tree-summary "$OUT" '^layers: [0-9]+ files, every include within its layer$'
has tree-calls "$OUT" '^layers: [0-9]+ uses of rm_/rmi_ functions in mapper/src, every call within its layer$'

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# copy: a fresh copy of the checked parts of the tree in $T/r
copy() {
	rm -rf "$T/r"
	mkdir -p "$T/r"
	cp -r "$RM_ROOT/mapper" "$RM_ROOT/spank" "$RM_ROOT/nccl" "$T/r/"
}
# plant NAME FILE LINE-TO-ADD PATTERN-EXPECTED
plant() {
	local name=$1 file=$2 line=$3 want=$4
	copy
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
# Calls follow the same order: each plant names a function of a later
# folder on the line it adds (the file's last), which the checker must
# give as file:line with the folder and file that define the function.
# util/util.h includes rankmap.h, so no include check would see these.
# plant_call NAME FILE LINE-TO-ADD MESSAGE-AFTER-FILE:LINE
plant_call() {
	local n=$(($(wc -l <"$RM_ROOT/$2") + 1))
	plant "$1" "$2" "$3" "^$2:$n: $4"
}
# the cycle issue 34 found: the planner scoring its map with map/'s check
plant_call place-calls-map mapper/src/place/place_fill.c \
	'static rm_status lay_f(rm_map *m) { return rm_check(m, NULL, NULL); }' \
	'place/ calls rm_check \(map/check.c\): place/ may use only fabric, layout, place, util$'
# an internal function, from a static inline function in a header
plant_call fabric-inline-calls-place mapper/src/fabric/fabric_int.h \
	'static inline void lay_g(rmi_where *w) { rmi_where_free(w); }' \
	'fabric/ calls rmi_where_free \(place/place_where.c\): fabric/ may use only fabric, layout, util$'
# a function taken as a pointer is checked where its name is taken: the
# call through the pointer names nothing
plant_call util-pointer-to-layout mapper/src/util/buf.c \
	'static bool (*const lay_p)(rm_group_kind) = rmi_kind_expert;' \
	'util/ uses rmi_kind_expert \(layout/groups.c\): util/ may use only util$'
# a function-like macro belongs to its header's folder
copy
printf '#define rmi_lay_check(m) rm_check(m, NULL, NULL)\n' \
	>>"$T/r/mapper/src/map/mapio.h"
n=$(($(wc -l <"$T/r/mapper/src/place/place_cand.c") + 1))
printf 'static void lay_h(rm_map *m) { rmi_lay_check(m); }\n' \
	>>"$T/r/mapper/src/place/place_cand.c"
run macro-call 1 $PY "$CHECK" "$T/r"
has macro-call-says "$OUT" "^mapper/src/place/place_cand.c:$n: place/ calls rmi_lay_check \(map/mapio.h\)"
hasnt macro-call-once "$OUT" 'mapio.h:[0-9]+: map/ calls rm_check'

# A name in a comment or a string is not a use, nor is a file's own
# static function that shares a later folder's name.
copy
printf '/* rmi_err is internal */\nstatic const char *s = "rmi_err";\n' >>"$T/r/spank/env.c"
printf '/* rm_check(m) is map/s */\nstatic const char *lay_s = "rm_check(";\n' \
	>>"$T/r/mapper/src/place/place_fill.c"
printf 'static void rm_map_sort(int *m) { (void)m; }\nstatic void lay_k(int *m) { rm_map_sort(m); }\n' \
	>>"$T/r/mapper/src/place/place_exact.c"
printf 'void rm_map_sort(rm_map *m) { (void)m; }\n' >>"$T/r/mapper/src/map/map.c"
run comment-not-use 0 $PY "$CHECK" "$T/r"

# The call check reads definitions from the sources; the compiler's view
# (global text symbols of the library's objects) must agree, or calls to
# what the reader missed would go unjudged.
OBJ=$RM_BUILD/obj/mapper/src
if compgen -G "$OBJ/*/*.o" >/dev/null; then
	: >"$T/built"
	for o in "$OBJ"/*/*.o; do
		c=mapper/src/${o#"$OBJ"/}
		c=${c%.o}.c
		# a source removed or changed since says nothing about the object
		[ -f "$RM_ROOT/$c" ] && [ ! "$RM_ROOT/$c" -nt "$o" ] || continue
		echo "$c" >>"$T/built"
		nm --defined-only "$o" |
			awk -v c="$c" '$2 == "T" && $3 ~ /^rmi?_/ { print $3, c }'
	done | sort >"$T/nm"
	# sources with an object only: a partial build judges what it built
	$PY "$CHECK" --index "$RM_ROOT" |
		awk 'NR == FNR { b[$1]; next } $2 in b' "$T/built" - | sort >"$T/index"
	d=$(diff "$T/nm" "$T/index" | grep '^[<>]' | head -5 | tr '\n' ' ')
	if [ ! -s "$T/built" ]; then
		skip index-matches-objects "no object as new as its source (make first)"
	elif [ -s "$T/index" ] && [ -z "$d" ]; then
		pass index-matches-objects
	else
		fail index-matches-objects "objects (<) and layers.py --index (>) differ: $d"
	fi
else
	skip index-matches-objects "no $OBJ (make first)"
fi

# The shared library is the public API: it exports every function the
# public headers declare and nothing but rm_ names.
SO=$RM_BUILD/librankmap.so
if [ -f "$SO" ]; then
	grep -ohE '^[a-z][a-z0-9_ *]* [*]*rm_[a-z0-9_]+[(]' \
		"$RM_ROOT"/mapper/include/*.h |
		grep -oE 'rm_[a-z0-9_]+[(]$' | tr -d '(' | sort -u >"$T/declared"
	# names without their version (rm_plan@@RANKMAP_1); the version
	# node itself is an absolute symbol, not a name
	nm -D --defined-only "$SO" |
		awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$T/exported"
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
