#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_fresh.sh - the README's first command on a fresh machine (issue 37.5):
# a minimal Debian 12 (debootstrap --variant=minbase bookworm, kept as a
# tarball under RM_ROOT_DIR and unpacked afresh each run) with this
# checkout's committed tree in /src. `make demo` there fails with "make:
# not found" until the one prerequisite the README names is installed
# (apt-get install make); then `make demo` installs the rest itself (make
# deps-demo) and runs the demo job. Minutes of debootstrap and apt-get,
# so only `make check-all` runs it.
. "$(dirname "$0")/../lib.sh"
SUITE=fresh
if [ "${RM_CHECK_ALL:-0}" != 1 ]; then
	skip make-demo "make check-all runs it (debootstrap and apt-get: several minutes)"
	exit 0
fi
[ "$(id -u)" = 0 ] || { skip make-demo "needs root (debootstrap, chroot)"; exit 0; }
command -v debootstrap >/dev/null || { skip make-demo "no debootstrap (make deps)"; exit 0; }
CACHE=${RM_ROOT_DIR:-/var/cache/rankmap}/fresh12
MIRROR=${RM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$CACHE"
if [ ! -f "$CACHE/base.tar" ]; then
	rm -rf "$CACHE/base.new"
	if ! debootstrap --variant=minbase bookworm "$CACHE/base.new" "$MIRROR" >"$CACHE/base.log" 2>&1; then
		fail debootstrap "$(tail -3 "$CACHE/base.log")"
		exit 1
	fi
	tar -C "$CACHE/base.new" -cf "$CACHE/base.tar.new" . && mv "$CACHE/base.tar.new" "$CACHE/base.tar"
	rm -rf "$CACHE/base.new"
fi
T=$(mktemp -d /var/tmp/rankmap-fresh.XXXXXX)
trap 'rm -rf "$T"' EXIT
R=$T/fresh12/root
mkdir -p "$R"
tar -C "$R" -xf "$CACHE/base.tar" && : >"$R/.rankmap-fresh12"
# debootstrap writes no /etc/hosts; Debian's installer and cloud images do
# (the demo's cluster mounts its own over it)
[ -e "$R/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n' >"$R/etc/hosts"
mkdir "$R/src" && git -C "$RM_ROOT" archive HEAD | tar -x -C "$R/src"
in_fresh() { RM_ROOT_DIR=$T "$RM_ROOT/roots/inroot.sh" fresh12 sh -c "cd /src && $1"; }

in_fresh 'make demo' >"$T/nomake.log" 2>&1
rc=$?
[ "$rc" = 127 ] && grep -q 'make: not found' "$T/nomake.log" && pass "no-make-says-so" ||
	fail no-make-says-so "exit $rc: $(tail -2 "$T/nomake.log")"
grep -q 'apt-get install make' "$R/src/README.md" && pass readme-names-make ||
	fail readme-names-make "README.md does not say apt-get install make"
if ! in_fresh 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make' >"$T/make.log" 2>&1; then
	fail install-make "$(tail -3 "$T/make.log")"
	exit 1
fi
t0=$(date +%s)
in_fresh 'make demo' >"$T/demo.log" 2>&1
rc=$?
secs=$(($(date +%s) - t0))
if [ "$rc" = 0 ] && grep -q '^== stopping the cluster' "$T/demo.log" && grep -q 'deps: installing' "$T/demo.log"; then
	pass "make-demo (${secs} s, packages installed by make deps-demo)"
else
	fail make-demo "exit $rc after ${secs} s: $(grep -v '^ ' "$T/demo.log" | tail -8)"
fi
finish
