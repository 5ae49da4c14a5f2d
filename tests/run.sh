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

run_suite() {
	local name=$1
	shift
	[[ $name =~ $filter ]] || return 0
	local log=$logs/${name//\//_}.log
	local t0=$SECONDS
	"$@" >"$log" 2>&1 </dev/null
	local rc=$?
	local p f s
	p=$(grep -c '^PASS:' "$log")
	f=$(grep -c '^FAIL:' "$log")
	s=$(grep -c '^SKIP:' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $name: exited $rc" >>"$log"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	printf '%-28s %4d passed %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
	grep -E '^SKIP:' "$log" | sed 's/^/    /'
	if [ "$f" -gt 0 ]; then
		echo "    --- $name log (last 60 lines) ---"
		tail -n 60 "$log" | sed 's/^/    /'
	fi
}

for t in "$RM_ASAN"/tests/test_*; do
	[ -x "$t" ] && run_suite "unit/${t##*/test_}" "$t"
done
for t in "$RM_ASAN"/fuzz/fuzz_*; do
	[ -x "$t" ] && run_suite "fuzz/${t##*/fuzz_}" "$t" "$RM_ROOT/mapper/fuzz/seeds/${t##*/fuzz_}"
done
for t in tests/*/t_*.sh; do
	[ -f "$t" ] || continue
	d=${t%/*}
	n=${t##*/t_}
	run_suite "${d#tests/}/${n%.sh}" bash "$t"
done

echo "logs: $logs"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
