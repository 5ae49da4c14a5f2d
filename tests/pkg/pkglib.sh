# SPDX-License-Identifier: Apache-2.0
# tests/pkg/pkglib.sh - sourced by t_deb.sh and t_rpm.sh after lib.sh.
# pkg_make KIND TOOLS...: skip the suite (one SKIP line, exit 0) when
# RM_SKIP_<KIND>=1, a tool is missing or this is no git checkout; else run
# `make KIND` and pass or fail make-KIND (exit 1 on failure).
pkg_make() {
	local kind=$1 skipvar t
	shift
	skipvar=RM_SKIP_$(echo "$kind" | tr a-z A-Z)
	if [ -n "${!skipvar:-}" ]; then
		skip "$kind" "$skipvar is set"
		exit 0
	fi
	for t in "$@"; do
		command -v "$t" >/dev/null || { skip "$kind" "$t not installed (make deps)"; exit 0; }
	done
	if ! git -C "$RM_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		skip "$kind" "not a git checkout: make $kind copies the files git knows"
		exit 0
	fi
	if make --no-print-directory -s -C "$RM_ROOT" BUILD="$RM_BUILD" "$kind" >"$RM_BUILD/$kind.log" 2>&1; then
		pass "make-$kind"
	else
		fail "make-$kind" "$(tail -15 "$RM_BUILD/$kind.log")"
		exit 1
	fi
}
