#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# roots/inroot.sh NAME CMD...: run CMD inside the Debian root NAME made by
# `make NAME` (roots/mkroot.sh), as root, in a mount namespace of its own:
# /proc and /sys of this machine, a private /dev (tests/privdev.sh: a fresh
# tmpfs with null, zero, full, random, urandom, tty and a devpts of its own,
# never the host's /dev), this checkout at the same path (so paths in logs
# and test output read the same inside and out), /work/shared read-only when
# it exists, /usr/local/cuda read-only where it exists (NCCL's headers for
# the id exchange's probe), and the root's own /tmp. Nothing stays mounted
# afterwards.
# Exit 3 (and a line saying so) when there is no usable root.
# roots/inroot.sh --path NAME: print where root NAME lives.
set -u
path_only=
if [ "${1:-}" = --path ]; then
	path_only=1
	shift
fi
NAME=${1:?usage: roots/inroot.sh [--path] NAME CMD...}
shift
case $NAME in
slurm24) ROOT=${RM_SLURM24_ROOT:-${RM_ROOT_DIR:-/var/cache/rankmap}/$NAME/root} ;;
slurm26) ROOT=${RM_SLURM26_ROOT:-${RM_ROOT_DIR:-/var/cache/rankmap}/$NAME/root} ;;
*) ROOT=${RM_ROOT_DIR:-/var/cache/rankmap}/$NAME/root ;;
esac
if [ -n "$path_only" ]; then
	echo "$ROOT"
	exit 0
fi
if [ ! -f "$ROOT/.rankmap-$NAME" ]; then
	echo "$NAME: no root at $ROOT: run 'make $NAME'"
	exit 3
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "$repo/../shared" 2>/dev/null && pwd)
exec unshare -m --propagation private bash -c '
	set -e
	root=$1 repo=$2 shared=$3
	shift 3
	# A mount point at the root, so that unshare --propagation inside works.
	mount --bind "$root" "$root"
	mount -t proc proc "$root/proc"
	. "$repo/tests/privdev.sh"
	private_dev "$root"
	mount --rbind -o ro /sys "$root/sys" 2>/dev/null || mount --rbind /sys "$root/sys"
	mkdir -p "$root$repo"
	mount --bind "$repo" "$root$repo"
	# the NCCL headers of CUDA, read-only, for the id exchange probe built
	# and run inside (its exchange needs no GPU and no libnccl)
	if [ -d /usr/local/cuda/include ]; then
		mkdir -p "$root/usr/local/cuda"
		mount --bind -o ro /usr/local/cuda "$root/usr/local/cuda"
	fi
	if [ -n "$shared" ]; then
		mkdir -p "$root$shared"
		mount --bind -o ro "$shared" "$root$shared"
	fi
	# pivot_root, not chroot: Apptainer (the container test, issue 23.3)
	# refuses to run in a chroot; the old root is detached, so nothing of
	# the host outside the binds above stays reachable.
	cd "$root"
	mkdir -p .oldroot
	pivot_root . .oldroot
	cd /
	umount -l /.oldroot
	exec /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$repo" "$@"
' inroot "$ROOT" "$repo" "$shared" "$@"
