#!/usr/bin/env bash
# slurm24/inroot.sh CMD...: run CMD inside the Debian 13 root made by
# `make slurm24`, as root, in a mount namespace of its own: /proc and /sys
# of this machine, a private /dev (tests/privdev.sh: a fresh tmpfs with
# null, zero, full, random, urandom, tty and a devpts of its own, never the
# host's /dev), this checkout at the same path (so paths in logs and test
# output read the same inside and out), /work/shared read-only when it
# exists, and the root's own /tmp. Nothing stays mounted afterwards.
# Exit 3 (and a line saying so) when there is no usable root.
set -u
ROOT=${RM_SLURM24_ROOT:-/var/cache/rankmap/slurm24/root}
if [ ! -f "$ROOT/.rankmap-slurm24" ]; then
	echo "slurm24: no Slurm 24.11 root at $ROOT: run 'make slurm24'"
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
	if [ -n "$shared" ]; then
		mkdir -p "$root$shared"
		mount --bind -o ro "$shared" "$root$shared"
	fi
	cd "$root$repo"
	exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$repo" "$@"
' inroot "$ROOT" "$repo" "$shared" "$@"
