#!/usr/bin/env bash
# slurm24/mkroot.sh (`make slurm24`): create or refresh the Debian 13 root
# in which Slurm 24.11 runs for the tests and the 24.11 build of rankmap.so.
#
# The root lives at $RM_SLURM24_ROOT (default /var/cache/rankmap/slurm24/root),
# outside any checkout so that every clone and CI run reuses it. A fresh one
# is made with Debian's debootstrap from deb.debian.org (about a minute,
# ~760 MB); an existing one only gets its package list checked and refreshed.
# The root counts as usable once its stamp file is written (the last step),
# so a half-made root is never used by `make check`.
set -eu
ROOT=${RM_SLURM24_ROOT:-/var/cache/rankmap/slurm24/root}
MIRROR=${RM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
STAMP=.rankmap-slurm24
# debootstrap's own resolver misses alternatives (libhwloc-dev -> libltdl-dev
# -> automake-1.17 | automaken), so it gets only the base and apt the rest.
BASE=gcc,make,libc6-dev
PKGS="slurmd slurmctld slurm-client munge libslurm-dev libhwloc-dev libyaml-dev
pkgconf python3 hostname procps"

die() { echo "slurm24: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"

# in_root DIR CMD...: CMD chrooted into DIR with /proc and a private /dev
# (tests/privdev.sh: a fresh tmpfs with the few device nodes apt and dpkg
# open, never the host's /dev), in a mount namespace of its own so that
# nothing stays mounted afterwards.
PRIVDEV=$(cd "$(dirname "$0")/../tests" && pwd)/privdev.sh
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
	in_root "$1" apt-get update -qq &&
		in_root "$1" apt-get install -y -qq --no-install-recommends $PKGS
}

if [ -f "$ROOT/$STAMP" ]; then
	echo "slurm24: refreshing $ROOT"
	apt_in "$ROOT" >"$ROOT.log" 2>&1 || die "apt-get in $ROOT failed; see $ROOT.log"
else
	command -v debootstrap >/dev/null || die "debootstrap is not installed (make deps)"
	mkdir -p "$(dirname "$ROOT")"
	rm -rf "$ROOT.new"
	echo "slurm24: creating $ROOT (debootstrap trixie from $MIRROR; about a minute)"
	debootstrap --variant=minbase --include="$BASE" trixie "$ROOT.new" "$MIRROR" \
		>"$ROOT.log" 2>&1 || die "debootstrap failed; see $ROOT.log"
	apt_in "$ROOT.new" >>"$ROOT.log" 2>&1 || die "apt-get in $ROOT.new failed; see $ROOT.log"
	rm -rf "$ROOT"
	mv "$ROOT.new" "$ROOT"
fi
in_root "$ROOT" dpkg-query -W -f='${Version}' slurmd >"$ROOT/$STAMP.tmp" ||
	die "slurmd is not installed in $ROOT"
mv "$ROOT/$STAMP.tmp" "$ROOT/$STAMP"
echo "slurm24: $ROOT ready: Slurm $(cat "$ROOT/$STAMP")"
