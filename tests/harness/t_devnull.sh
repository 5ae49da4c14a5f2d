#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_devnull.sh - tests/run.sh's check that /dev/null is still a character
# device 1:3 after every suite, on a stand-in so the real /dev is never
# touched: a throw-away tree holding a copy of run.sh and a few tiny suites,
# with RM_DEVNULL_PATH at a node (c 1 3) made with mknod in a temp dir. One
# suite turns the stand-in into a regular file, as a chroot with a writable
# bind of the host's /dev did to /dev/null: its report must FAIL naming it
# and the suite that ran beside it, later suites must not start, and the
# stand-in must be left as it was found (nothing repaired).
SUITE=harness
source "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" -ne 0 ]; then
	skip devnull "needs root (mknod of the stand-in)"
	exit 0
fi
T=$(mktemp -d /tmp/rankmap-devnull.XXXXXX)
trap 'rm -rf "$T"' EXIT
N=$T/null
mkdir -p "$T/tree/tests/a" "$T/tree/tests/b" "$T/build"
cp "$RM_ROOT/tests/run.sh" "$T/tree/tests/run.sh"

# inner RM_JOBS: the copied run.sh on the tree's suites alone (no unit or
# fuzz binaries: RM_BUILD is empty), its output in $OUT and exit in $RC.
inner() {
	new_out
	env -u RM_ASAN -u RANKMAP -u TESTS RM_BUILD="$T/build" RM_JOBS="$1" \
		RM_DEVNULL_PATH="$N" bash "$T/tree/tests/run.sh" >"$OUT" 2>"$ERR"
	RC=$?
	# run.sh keeps its logs; the stand-in run's are of no use
	local l
	l=$(sed -n 's/^logs: \(\/tmp\/rankmap-tests\.[^ ]*\) .*/\1/p' "$OUT")
	[ -n "$l" ] && rm -rf "$l"
}
suite() { # DIR/NAME BODY
	printf '%s\n' "$2" >"$T/tree/tests/${1%/*}/t_${1#*/}.sh"
}
is_node() { [ "$(stat -c '%F %t:%T' "$N")" = "character special file 1:3" ]; }
fresh_node() { rm -f "$N" && mknod -m 666 "$N" c 1 3; }

# 1. Nothing breaks it: no extra line, exit 0.
suite a/ok 'echo "PASS: a/ok"'
fresh_node
inner 3
[ "$RC" -eq 0 ] && pass intact-exit-0 || fail intact-exit-0 "exit $RC: $(tail -5 "$OUT")"
has intact-totals "$OUT" '^1 passed, 0 failed, 0 skipped$'
hasnt intact-no-devnull-line "$OUT" "$N"
rm "$T/tree/tests/a/t_ok.sh"

# 2. a/break breaks it while a/slow runs beside it (2 at a time); b/later
# would start once a/break has ended and must not.
suite a/break 'sleep 1; rm -f "$RM_DEVNULL_PATH"; : >"$RM_DEVNULL_PATH"; echo "PASS: a/break"'
suite a/slow 'sleep 4; echo "PASS: a/slow"'
suite b/later 'echo "PASS: b/later"'
fresh_node
inner 2
[ "$RC" -ne 0 ] && pass broken-exit-nonzero || fail broken-exit-nonzero "exit 0"
has broken-names-suite "$OUT" "^    FAIL: a/break: $N is no longer a character device 1:3 \(now: regular empty file\) after this suite; running at the same time: a/slow \(any of these may have done it\)"
has broken-names-neighbour "$OUT" "^    FAIL: a/slow: $N is no longer a character device 1:3 .*running at the same time: a/break "
has broken-report-line "$OUT" '^a/break +1 passed +1 failed'
has later-not-started "$OUT" "^    SKIP: b/later: not started: $N is not a character device 1:3 \(now: regular empty file\)"
hasnt later-did-not-run "$OUT" '^b/later +1 passed'
has broken-totals "$OUT" '^2 passed, 2 failed, 1 skipped$'
hasnt broken-no-harness-line "$OUT" '^FAIL: harness'
if [ -f "$N" ] && ! is_node; then pass not-repaired; else
	fail not-repaired "$(stat -c %F "$N" 2>&1)"; fi

# 3. Alone (1 at a time): the report says it ran alone.
fresh_node
inner 1
has alone-names-suite "$OUT" "^    FAIL: a/break: $N is no longer a character device 1:3 \(now: regular empty file\) after this suite, which ran alone"
has alone-totals "$OUT" '^1 passed, 1 failed, 2 skipped$'

# 4. Already broken (a regular file, still from 3): no suite runs at all.
inner 3
[ "$RC" -ne 0 ] && pass before-exit-nonzero || fail before-exit-nonzero "exit 0"
has before-harness-line "$OUT" "^FAIL: harness: $N is not a character device 1:3 before any suite ran \(now: regular empty file\)"
has before-totals "$OUT" '^0 passed, 1 failed, 0 skipped$'
hasnt before-no-suite "$OUT" '^a/'

# 5. Another device in its place (say /dev/zero's 1:5) is no better.
rm -f "$N" && mknod -m 666 "$N" c 1 5
inner 3
has other-device "$OUT" "^FAIL: harness: $N is not a character device 1:3 before any suite ran \(now: character special file 1:5\)"
finish
