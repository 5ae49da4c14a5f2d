#!/usr/bin/env bash
# Runs every test suite (unit binaries, fuzz regressions, shell suites) and
# ends with the line "N passed, N failed, N skipped".
# TESTS=regex restricts the suites by name (e.g. TESTS=layout make check).
set -u
cd "$(dirname "$0")/.."
export RM_ROOT=$PWD
export RM_BUILD=${RM_BUILD:-$PWD/build}
export RM_ASAN=${RM_ASAN:-$RM_BUILD/asan}
export RANKMAP=${RANKMAP:-$RM_ASAN/rankmap}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
logs=$(mktemp -d /tmp/rankmap-tests.XXXXXX)
pass=0 fail=0 skip=0
filter=${TESTS:-.}

# Suites run RM_JOBS at a time (default 3): most of the wall time is spent
# waiting on Slurm daemons and timeouts, not on the CPU. Results are printed
# in the fixed suite order once all have finished.
jobs=${RM_JOBS:-3}
order=()

run_suite() {
	local name=$1
	shift
	[[ $name =~ $filter ]] || return 0
	local base=$logs/${name//\//_}
	order+=("$name")
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n 2>/dev/null || true
	done
	(
		t0=$SECONDS
		"$@" >"$base.log" 2>&1 </dev/null
		echo $? >"$base.rc"
		echo $((SECONDS - t0)) >"$base.time"
	) &
}

report_suite() {
	local name=$1
	local base=$logs/${name//\//_}
	local log=$base.log rc p f s
	rc=$(cat "$base.rc" 2>/dev/null || echo 255)
	p=$(grep -c '^PASS:' "$log")
	f=$(grep -c '^FAIL:' "$log")
	s=$(grep -c '^SKIP:' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $name: exited $rc" >>"$log"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	printf '%-28s %4d passed %3d failed %3d skipped  (%ss)\n' "$name" "$p" "$f" "$s" "$(cat "$base.time" 2>/dev/null || echo ?)"
	grep -E '^SKIP:' "$log" | sed 's/^/    /'
	if [ "$f" -gt 0 ]; then
		echo "    --- $name log (last 60 lines) ---"
		tail -n 60 "$log" | sed 's/^/    /'
	fi
}

# The long suites (real Slurm clusters, packages) start first so that the
# short ones run beside them.
slow='^tests/(slurm|slurm24|shape|pkg)/'
shell_suites() {
	local t
	for t in tests/*/t_*.sh; do
		[ -f "$t" ] || continue
		if [[ $t =~ $slow ]]; then [ "$1" = slow ] && echo "$t"
		else [ "$1" = fast ] && echo "$t"; fi
	done
}
run_shell() {
	local t d n
	for t in $(shell_suites "$1"); do
		d=${t%/*}
		n=${t##*/t_}
		run_suite "${d#tests/}/${n%.sh}" bash "$t"
	done
}

run_shell slow
for t in "$RM_ASAN"/tests/test_*; do
	[ -x "$t" ] && run_suite "unit/${t##*/test_}" "$t"
done
for t in "$RM_ASAN"/fuzz/fuzz_*; do
	[ -x "$t" ] && run_suite "fuzz/${t##*/fuzz_}" "$t" "$RM_ROOT/mapper/fuzz/seeds/${t##*/fuzz_}"
done
run_shell fast

wait
for name in "${order[@]}"; do
	report_suite "$name"
done
echo "logs: $logs (wall ${SECONDS}s, $jobs suites at a time)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
