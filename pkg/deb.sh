#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# pkg/deb.sh (make deb): Debian packages of this tree into $BUILD/deb with
# dpkg-buildpackage, from a copy of the files git knows (tracked, and new
# ones not ignored), so neither build/ nor anything outside $BUILD/deb is
# touched. rankmap-nccl is built only where CUDA's NCCL is found.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
V=$(dpkg-parsechangelog -S Version)
OUT=$BUILD/deb
SRC=$OUT/src/rankmap-$V
rm -rf "$OUT"
mkdir -p "$SRC"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$SRC" 2>/dev/null ||
	{ echo "deb: copying the sources failed" >&2; exit 1; }
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
profile=
if [ ! -e "$CUDA_HOME/include/nccl.h" ] || ! ls "$CUDA_HOME"/lib*/libnccl.so* >/dev/null 2>&1; then
	profile=-Ppkg.rankmap.nocuda
	echo "deb: no NCCL under $CUDA_HOME: rankmap-nccl is not built"
fi
echo "deb: dpkg-buildpackage in $SRC (log: $OUT/build.log)"
# The copy builds into its own build/: none of this make's variables
# (BUILD, MAKEFLAGS with command-line settings) may reach it.
if ! (cd "$SRC" && env -u BUILD -u RM_BUILD -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
	dpkg-buildpackage -b -us -uc $profile) >"$OUT/build.log" 2>&1; then
	tail -30 "$OUT/build.log" >&2
	echo "deb: dpkg-buildpackage failed; see $OUT/build.log" >&2
	exit 1
fi
mv "$OUT"/src/*.deb "$OUT"/src/*.changes "$OUT"/src/*.buildinfo "$OUT"/
rm -rf "$OUT/src"
ls "$OUT"/*.deb
