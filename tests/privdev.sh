# SPDX-License-Identifier: Apache-2.0
# tests/privdev.sh - private_dev ROOT: give the chroot at ROOT a /dev of its
# own, so that nothing run inside can change this machine's /dev. Sourced
# (POSIX sh) inside a private mount namespace, before the chroot, by
# roots/inroot.sh, roots/mkroot.sh and tests/pkg/deb_check.sh.
#
# A bind of the host's /dev (what these scripts did before) is the host's
# devtmpfs itself: `rm /dev/null; touch /dev/null` inside the chroot made the
# host's /dev/null a regular file. A devtmpfs mount is no better (every
# devtmpfs mount is the kernel's one instance), so ROOT/dev is a fresh,
# small tmpfs (1 MiB, 256 inodes: nothing large can be left in it) holding
# only what the root's programs open, made with mknod:
#   null zero full random urandom tty   (apt, dpkg, slurmd, slurmstepd,
#                                       srun and munged open /dev/null;
#                                       munged /dev/urandom)
#   fd stdin stdout stderr              links into /proc/self/fd
#   pts ptmx                            a new devpts instance of its own
#                                       (apt opens a pty for dpkg's log
#                                       when run from a terminal;
#                                       slurmstepd for srun --pty)
# No /dev/shm: nothing the root runs uses it (Slurm only in
# job_container/tmpfs, not configured). The mounts vanish with the
# namespace. The fake GPUs of tests/slurm/cluster.sh are not here but in
# the cluster's own directory (DIR/dev/nvidia0-7).
private_dev() {
	_pd=$1/dev
	[ -d "$_pd" ] || { echo "private_dev: no directory $_pd" >&2; return 1; }
	mount -t tmpfs -o mode=0755,nosuid,noexec,size=1m,nr_inodes=256 rankmap-dev "$_pd" ||
		return 1
	for _pn in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
		_pmaj=${_pn#*:}
		mknod -m 0666 "$_pd/${_pn%%:*}" c "${_pmaj%:*}" "${_pn##*:}" || return 1
	done
	ln -s /proc/self/fd "$_pd/fd" && ln -s /proc/self/fd/0 "$_pd/stdin" &&
		ln -s /proc/self/fd/1 "$_pd/stdout" && ln -s /proc/self/fd/2 "$_pd/stderr" &&
		mkdir -m 0755 "$_pd/pts" || return 1
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5,nosuid,noexec \
		rankmap-devpts "$_pd/pts" || return 1
	ln -s pts/ptmx "$_pd/ptmx"
}
