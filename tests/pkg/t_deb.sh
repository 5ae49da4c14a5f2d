#!/usr/bin/env bash
# The Debian packages, end to end: `make deb`, then tests/pkg/deb_check.sh
# (lintian without errors; dpkg -i of every package in a private overlay of
# /, the installed CLI, man pages, pkg-config, and the installed plugin in
# a local Slurm cluster). About 45 s; RM_SKIP_DEB=1 skips it while iterating.
source "$(dirname "$0")/../lib.sh"
if [ -n "${RM_SKIP_DEB:-}" ]; then
	skip deb "RM_SKIP_DEB is set"
	exit 0
fi
for t in dpkg-buildpackage dh lintian scdoc git; do
	command -v "$t" >/dev/null || { skip deb "$t not installed (make deps)"; exit 0; }
done
if ! git -C "$RM_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	skip deb "not a git checkout: make deb copies the files git knows"
	exit 0
fi
if make --no-print-directory -s -C "$RM_ROOT" BUILD="$RM_BUILD" deb >"$RM_BUILD/deb.log" 2>&1; then
	pass make-deb
else
	fail make-deb "$(tail -15 "$RM_BUILD/deb.log")"
	exit 1
fi
BUILD=$RM_BUILD "$RM_ROOT/tests/pkg/deb_check.sh"
