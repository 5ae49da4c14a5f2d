#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The RPM packages, end to end: `make rpm` (rpmbuild: Debian's `rpm`
# package here), then tests/pkg/rpm_check.sh (file lists, Requires and
# Provides, scriptlets, licence, an install into a scratch root).
# RM_SKIP_RPM=1 skips it while iterating; without rpmbuild one SKIP line.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/pkglib.sh"
# A second compile of the whole tree: left to `make check-all` and
# `make rpm-check`, so that `make check` stays near 3 minutes on 2 cores.
if [ -z "${RM_CHECK_ALL:-}" ]; then
	skip rpm "the RPM build is not part of make check (one more full compile): make check-all or make rpm-check runs it"
	exit 0
fi
pkg_make rpm rpmbuild scdoc git
BUILD=$RM_BUILD "$RM_ROOT/tests/pkg/rpm_check.sh"
