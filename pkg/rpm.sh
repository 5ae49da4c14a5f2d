#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# pkg/rpm.sh (make rpm): RPM packages of this tree into $BUILD/rpm/RPMS
# with rpmbuild and pkg/rpm/rankmap.spec, from a tarball of the files git
# knows (tracked, and new ones not ignored), so neither build/ nor anything
# outside $BUILD/rpm is touched. On a system whose packages are not RPMs
# (Debian, building here) the spec's BuildRequires cannot be checked:
# rpmbuild runs with --nodeps there. Extra rpmbuild arguments pass through
# (e.g. --define 'slurm_prefix /opt/slurm', --without nccl).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
V=$(sed -n 's/^Version: *//p' pkg/rpm/rankmap.spec | head -1)
TOP=$BUILD/rpm
rm -rf "$TOP"
mkdir -p "$TOP"/{SOURCES,SPECS,BUILD,RPMS,SRPMS,tmp} "$TOP/src/rankmap-$V"
git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$TOP/src/rankmap-$V" 2>/dev/null ||
	{ echo "rpm: copying the sources failed" >&2; exit 1; }
tar -C "$TOP/src" -czf "$TOP/SOURCES/rankmap-$V.tar.gz" "rankmap-$V"
rm -rf "$TOP/src"
cp pkg/rpm/rankmap.spec "$TOP/SPECS/"
nodeps=
rpm -q glibc >/dev/null 2>&1 || nodeps=--nodeps
echo "rpm: rpmbuild in $TOP (log: $TOP/build.log)"
# Like deb.sh: none of this make's variables may reach the inner build.
if ! env -u BUILD -u RM_BUILD -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
	rpmbuild -bb $nodeps --define "_topdir $TOP" --define "_tmppath $TOP/tmp" \
	"$@" "$TOP/SPECS/rankmap.spec" >"$TOP/build.log" 2>&1; then
	tail -30 "$TOP/build.log" >&2
	echo "rpm: rpmbuild failed; see $TOP/build.log" >&2
	exit 1
fi
find "$TOP/RPMS" -name '*.rpm' | sort
