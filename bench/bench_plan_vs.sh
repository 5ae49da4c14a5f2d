#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# bench_plan_vs.sh [RUNS] - rm_plan at 1,048,576 GPUs, this tree's build
# against commit e45650b's (the last before packing both ways), in one
# run: each RUNS times (default 5), alternating, CPU ms of rm_plan and
# peak RSS from /usr/bin/time -v; median, min and max of each.
# Builds e45650b in a scratch worktree under /tmp (kept for reruns).
# BENCH_INSTR=1 also counts the instructions rm_plan executes in each
# (valgrind's callgrind): a figure a loaded machine does not move.
set -eu
RUNS=${1:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=${RM_BENCH_OLD:-/tmp/rankmap-e45650b}
# The libraries the tree's Makefile links with (make bench passes them:
# they change as librankmap does); this list only when run by hand.
LIBS=${RM_LIBS:-"$(pkg-config --libs yaml-0.1 hwloc 2>/dev/null || echo -lyaml -lhwloc) -lm"}
if [ ! -f "$OLD/build/librankmap.a" ]; then
	[ -d "$OLD" ] || git -C "$ROOT" worktree add --detach "$OLD" e45650b >/dev/null
	make -C "$OLD" -j2 build/librankmap.a >/dev/null
fi
make -C "$ROOT" -j2 build/librankmap.a >/dev/null
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for v in new old; do
	[ $v = new ] && D=$ROOT || D=$OLD
	cc -O2 -std=c11 -D_GNU_SOURCE -I"$D/mapper/include" -o "$T/$v" \
		"$ROOT/bench/bench_plan_1m.c" "$D/build/librankmap.a" $LIBS
done
i=0
while [ $i -lt "$RUNS" ]; do
	for v in old new; do
		/usr/bin/time -v "$T/$v" >"$T/out" 2>"$T/err"
		ms=$(sed -n 's/^plan_ms \([0-9.]*\).*/\1/p' "$T/out")
		kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/err")
		echo "$ms $kb" >>"$T/$v.runs"
		sed 's/^plan_ms [0-9.]* //' "$T/out" >"$T/$v.cross"
	done
	i=$((i + 1))
done
stat() { # column file -> "median min max"
	cut -d' ' -f"$1" "$2" | sort -n | awk '{v[NR]=$1} END {
		printf "%.0f %.0f %.0f", v[int((NR+1)/2)], v[1], v[NR] }'
}
echo "rm_plan, 1,048,576 GPUs (8x16x8192, megatron, 32 nodes/leaf, 16 leaves/pod), $RUNS runs each, alternating"
printf "%-10s %24s %28s  %s\n" build "plan CPU ms (med min max)" "peak RSS MB (med min max)" "crossings"
for v in old new; do
	set -- $(stat 1 "$T/$v.runs")
	pm="$1 $2 $3"
	set -- $(stat 2 "$T/$v.runs")
	printf "%-10s %24s %28s  %s\n" "$([ $v = old ] && echo e45650b || echo this)" "$pm" \
		"$(($1 / 1024)) $(($2 / 1024)) $(($3 / 1024))" "$(cat "$T/$v.cross")"
done
set -- $(stat 1 "$T/old.runs"); o=$1
set -- $(stat 1 "$T/new.runs"); n=$1
set -- $(stat 2 "$T/old.runs"); ro=$1
set -- $(stat 2 "$T/new.runs"); rn=$1
awk -v o="$o" -v n="$n" -v ro="$ro" -v rn="$rn" 'BEGIN {
	printf "this / e45650b: time %.2fx, peak memory %.2fx (%+.0f MB) -> %s\n",
	n / o, rn / ro, (rn - ro) / 1024,
	(n <= o * 1.05 && rn <= ro * 1.05) ? "ok" : "REGRESSION" }'
if [ "${BENCH_INSTR:-0}" = 1 ] && command -v valgrind >/dev/null; then
	for v in old new; do
		valgrind --tool=callgrind --toggle-collect=rm_plan \
			--callgrind-out-file="$T/cg.$v" "$T/$v" >/dev/null 2>"$T/cg.err"
		sed -n 's/.*I *refs: *//p' "$T/cg.err" | tr -d , >"$T/$v.ir"
	done
	awk -v o="$(cat "$T/old.ir")" -v n="$(cat "$T/new.ir")" 'BEGIN {
		printf "instructions in rm_plan: e45650b %.3fG, this %.3fG, %.2fx\n",
		o / 1e9, n / 1e9, n / o }'
fi
