#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
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

# The host's /dev/null must stay a character device 1:3 (issue 21: a chroot
# given a writable bind of the host's /dev once turned it into a regular
# file). It is checked before the run, before and after every suite (the
# result is part of that suite's report) and at the end; nothing is
# repaired. RM_DEVNULL_PATH points the check at another path, for the
# harness's own test (tests/harness/t_devnull.sh).
devnull=${RM_DEVNULL_PATH:-/dev/null}
devnull_state() { # prints "ok" (exit 0) or what the path is now (exit 1)
	local s
	if ! s=$(stat -c '%F %t:%T' -- "$devnull" 2>/dev/null); then
		echo "missing"
		return 1
	fi
	[ "$s" = "character special file 1:3" ] && { echo ok; return 0; }
	case $s in
	*special*) echo "$s" ;;   # a device, but another one
	*) echo "${s% *}" ;;      # regular (empty) file, directory, link...
	esac
	return 1
}
devnull_repair="as root: rm -f $devnull && mknod -m 666 $devnull c 1 3"
# devnull_after NAME: after suite NAME, one FAIL line when the path is
# broken, naming NAME and every suite that ran at the same time as it.
devnull_after() {
	local name=$1 me=$logs/${1//\//_} now b others=()
	now=$(devnull_state) && return 0
	for b in "$logs"/*.start; do
		[ "$b" = "$me.start" ] && continue
		# overlapped: still running, or ended after this one started
		if [ ! -e "${b%.start}.end" ] || [ "${b%.start}.end" -nt "$me.start" ]; then
			others+=("$(cat "$b")")
		fi
	done
	if [ "${#others[@]}" -gt 0 ]; then
		echo "FAIL: $name: $devnull is no longer a character device 1:3 (now: $now) after this suite; running at the same time: ${others[*]} (any of these may have done it); nothing was repaired ($devnull_repair)"
	else
		echo "FAIL: $name: $devnull is no longer a character device 1:3 (now: $now) after this suite, which ran alone; nothing was repaired ($devnull_repair)"
	fi
}
if ! st=$(devnull_state); then
	echo "FAIL: harness: $devnull is not a character device 1:3 before any suite ran (now: $st); repair it ($devnull_repair) and run again"
	echo "0 passed, 1 failed, 0 skipped"
	rmdir "$logs"
	exit 1
fi

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
		if st=$(devnull_state); then
			echo "$name" >"$base.start"
			"$@" >"$base.log" 2>&1 </dev/null
			echo $? >"$base.rc"
			devnull_after "$name" >>"$base.log"
			: >"$base.end"
		else # broken by an earlier suite, which says so: do not run on it
			echo "SKIP: $name: not started: $devnull is not a character device 1:3 (now: $st)" >"$base.log"
			echo 0 >"$base.rc"
		fi
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
slow='^tests/(slurm|slurm24|slurm26|shape|pkg)/'
# Within them, the longest known ones first (longest-first keeps the run's
# wall time near its longest suite, not the sum of a slot's queue).
longest='tests/slurm/t_slurm.sh tests/pkg/t_deb.sh tests/pkg/t_rpm.sh tests/slurm/t_launchers.sh'
shell_suites() {
	local t
	if [ "$1" = slow ]; then
		for t in $longest; do [ -f "$t" ] && echo "$t"; done
	fi
	for t in tests/*/t_*.sh; do
		[[ " $longest " == *" $t "* ]] && continue
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
if ! st=$(devnull_state) && ! grep -qs "^FAIL: .*$devnull is no longer a character device" "$logs"/*.log; then
	echo "FAIL: harness: $devnull is no longer a character device 1:3 (now: $st) after the last suite ended; nothing was repaired ($devnull_repair)"
	fail=$((fail + 1))
fi
echo "logs: $logs (wall ${SECONDS}s, $jobs suites at a time)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
