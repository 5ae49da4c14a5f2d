#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian packages, end to end: `make deb`, then tests/pkg/deb_check.sh
# (lintian without errors; dpkg -i of every package in a private overlay of
# /, the installed CLI, man pages, pkg-config, and the installed plugin in
# a local Slurm cluster). About 45 s; RM_SKIP_DEB=1 skips it while iterating.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/pkglib.sh"
pkg_make deb dpkg-buildpackage dh lintian scdoc git
BUILD=$RM_BUILD "$RM_ROOT/tests/pkg/deb_check.sh"
