#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# roots/mkroot.sh NAME (`make slurm24`, `make slurm26`): create or refresh
# the Debian root NAME (roots/NAME.conf: suite, Slurm release, extra
# packages) in which that Slurm release runs for the tests and the build of
# rankmap.so against it.
#
# The root lives at $RM_ROOT_DIR/NAME/root (default /var/cache/rankmap),
# outside any checkout so that every clone and CI run reuses it; the old
# RM_SLURM24_ROOT still names the 24.11 one. A fresh one is made with
# Debian's debootstrap from deb.debian.org (1-3 minutes; ~800 MB for
# trixie's, more where torch comes in); an existing one only gets
# `apt-get update` and an install of the package list (cheap when nothing
# changed). The root counts as usable once its stamp file NAME/root/.rankmap-NAME
# (the Slurm version) is written, the last step, so a half-made root is never
# used by `make check`.
set -eu
NAME=${1:?usage: roots/mkroot.sh NAME}
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "$NAME: $*" >&2; exit 1; }
[ -f "$here/$NAME.conf" ] || die "no $here/$NAME.conf"
SUITE= RELEASE= EXTRA_PKGS= APT_OPTS=
. "$here/$NAME.conf"
ROOT=$("$here/inroot.sh" --path "$NAME")
MIRROR=${RM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
STAMP=.rankmap-$NAME
# debootstrap's own resolver misses alternatives (libhwloc-dev -> libltdl-dev
# -> automake-1.17 | automaken), so it gets only the base and apt the rest.
BASE=gcc,make,libc6-dev
PKGS="slurmd slurmctld slurm-client munge libslurm-dev libhwloc-dev libyaml-dev libssl-dev libsodium-dev libmunge-dev
pkgconf python3 hostname procps $EXTRA_PKGS"

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"

# in_root DIR CMD...: CMD chrooted into DIR with /proc and a private /dev
# (tests/privdev.sh: a fresh tmpfs with the few device nodes apt and dpkg
# open, never the host's /dev), in a mount namespace of its own so that
# nothing stays mounted afterwards.
PRIVDEV=$here/../tests/privdev.sh
in_root() {
	local dir=$1
	shift
	unshare -m --propagation private sh -c '
		dir=$1 privdev=$2
		shift 2
		. "$privdev" && mount -t proc proc "$dir/proc" && private_dev "$dir" &&
		exec chroot "$dir" env DEBIAN_FRONTEND=noninteractive \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"' in_root "$dir" "$PRIVDEV" "$@"
}

apt_in() {
	in_root "$1" apt-get $APT_OPTS update -qq &&
		in_root "$1" apt-get $APT_OPTS install -y -qq --no-install-recommends $PKGS
}

if [ -f "$ROOT/$STAMP" ]; then
	echo "$NAME: refreshing $ROOT"
	apt_in "$ROOT" >"$ROOT.log" 2>&1 || die "apt-get in $ROOT failed; see $ROOT.log"
else
	command -v debootstrap >/dev/null || die "debootstrap is not installed (make deps)"
	mkdir -p "$(dirname "$ROOT")"
	# a base system debootstrap finished is kept when apt failed after it
	if [ ! -f "$ROOT.new/.rankmap-base" ]; then
		rm -rf "$ROOT.new"
		echo "$NAME: creating $ROOT (debootstrap $SUITE from $MIRROR; a few minutes)"
		debootstrap --variant=minbase --include="$BASE" "$SUITE" "$ROOT.new" "$MIRROR" \
			>"$ROOT.log" 2>&1 || die "debootstrap failed; see $ROOT.log"
		: >"$ROOT.new/.rankmap-base"
	fi
	apt_in "$ROOT.new" >>"$ROOT.log" 2>&1 || die "apt-get in $ROOT.new failed; see $ROOT.log"
	rm -rf "$ROOT"
	mv "$ROOT.new" "$ROOT"
fi
ver=$(in_root "$ROOT" dpkg-query -W -f='${Version}' slurmd) ||
	die "slurmd is not installed in $ROOT"
case $ver in
"$RELEASE".*) ;;
*) die "$ROOT has Slurm $ver, not $RELEASE ($SUITE moved on? see roots/$NAME.conf)" ;;
esac
printf '%s' "$ver" >"$ROOT/$STAMP.tmp"
mv "$ROOT/$STAMP.tmp" "$ROOT/$STAMP"
echo "$NAME: $ROOT ready: Slurm $ver"
