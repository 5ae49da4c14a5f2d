#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The RPM packages, end to end: `make rpm` (rpmbuild: Debian's `rpm`
# package here), then tests/pkg/rpm_check.sh (file lists, Requires and
# Provides, scriptlets, licence, an install into a scratch root).
# RM_SKIP_RPM=1 skips it while iterating; without rpmbuild one SKIP line.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/pkglib.sh"
pkg_make rpm rpmbuild scdoc git
BUILD=$RM_BUILD "$RM_ROOT/tests/pkg/rpm_check.sh"
