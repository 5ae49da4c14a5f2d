# SPDX-License-Identifier: Apache-2.0
# privdev_suite.sh - sourced by tests/slurmNN/t_privdev.sh with
# PRIVDEV_ROOT set to the root's name: the chroot of roots/inroot.sh
# cannot change this
# machine's /dev (issue 21): its /dev is a tmpfs of its own
# (tests/privdev.sh), so `rm -f /dev/null; touch /dev/null` inside leaves
# the host's /dev/null a character device 1:3, nothing made inside shows up
# outside or outlives the call, and no script of the project binds the
# host's /dev anywhere.
#
# Before any destructive step, the chroot's /dev must be another filesystem
# than the host's: with the old writable bind of the host's /dev that check
# fails and the rm is not tried, so running this on a broken harness does
# not itself break /dev/null.
SUITE=privdev
cd "$RM_ROOT" || exit 1
. tests/roots/libroot.sh
root_use "$PRIVDEV_ROOT"
root_ready quiet || exit 0 # t_$PRIVDEV_ROOT.sh says why
state() { stat -c '%F %t:%T %a' "$1" 2>&1; }
NULL='character special file 1:3 666'
host_before=$(state /dev/null)
[ "$host_before" = "$NULL" ] || { fail host-dev-null "$host_before before this suite"; exit 1; }

# 1. Another filesystem: the host's /dev is devtmpfs, which every mount of
# devtmpfs (and every bind of it) shares; compared by device number.
host_dev=$(echo $(stat -c '%d' /dev /dev/null))
run inside-dev-id 0 $INROOT stat -c '%d' /dev /dev/null
in_dev=$(echo $(cat "$OUT"))
if [ -n "$in_dev" ] && ! grep -qwF -f <(tr ' ' '\n' <<<"$host_dev") <<<"$in_dev"; then
	pass "private-dev (/dev and /dev/null on device $in_dev inside, $host_dev on the host)"
else
	fail private-dev "the chroot's /dev and /dev/null (device $in_dev) are the host's (device $host_dev): a bind of the host's /dev; not trying rm -f /dev/null inside"
	finish
	exit 1
fi
run inside-dev-tmpfs 0 $INROOT awk '$5 == "/dev" { print $(NF - 2) }' /proc/self/mountinfo
has inside-dev-tmpfs-type "$OUT" '^tmpfs$'

# 2. The nodes the root's programs open, with their numbers and modes.
run inside-nodes 0 $INROOT stat -c '%n %F %t:%T %a' \
	/dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty
for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
	m=${n#*:}
	has "node-${n%%:*}" "$OUT" "^/dev/${n%%:*} character special file ${m%:*}:${n##*:} 666$"
done
run inside-pty 0 $INROOT python3 -c 'import os; m, s = os.openpty(); print(os.ttyname(s))'
has inside-pty-own-devpts "$OUT" '^/dev/pts/[0-9]+$'

# 3. The damage seen in issue 21, done inside: real there, not outside.
run inside-rm-touch 0 $INROOT sh -c 'rm -f /dev/null && touch /dev/null && stat -c %F /dev/null'
has inside-null-now-a-file "$OUT" '^regular empty file$'
host_after=$(state /dev/null)
if [ "$host_after" = "$NULL" ]; then pass "host-dev-null-intact ($host_after)"; else
	fail host-dev-null-intact "THE HOST'S /dev/null IS NOW: $host_after (was: $host_before); repair: rm -f /dev/null && mknod -m 666 /dev/null c 1 3"
fi
run next-call-fresh-null 0 $INROOT stat -c '%F %t:%T %a' /dev/null
has next-call-fresh-null-node "$OUT" "^$NULL$"

# 4. Nodes and files made inside do not appear outside; /dev is small.
probe=rankmap-privdev-probe.$$
run inside-mknod 0 $INROOT mknod "/dev/$probe" c 1 3
[ ! -e "/dev/$probe" ] && pass mknod-not-on-host || {
	fail mknod-not-on-host "/dev/$probe exists on the host"
}
run inside-fill 1 $INROOT sh -c 'head -c 4194304 /dev/zero >/dev/big'
[ ! -e /dev/big ] && pass fill-not-on-host || fail fill-not-on-host "/dev/big exists on the host"

# 5. No script of the project mounts the host's /dev (a bind, or a
# devtmpfs, which is the same filesystem): every chroot gets private_dev.
binds=$(git grep -nE 'mount[^#]*(--r?bind|-o *r?bind)[^#]*[" ]/dev([" /]|$)|-t +devtmpfs' \
	-- '*.sh' '*.mk' Makefile ':!tests/roots/privdev_suite.sh' 2>&1)
[ -z "$binds" ] && pass no-host-dev-binds || fail no-host-dev-binds "$binds"
for f in roots/inroot.sh roots/mkroot.sh tests/pkg/deb_check.sh; do
	grep -q 'private_dev ' "$f" && pass "private-dev-in-${f##*/}" ||
		fail "private-dev-in-${f##*/}" "$f does not call private_dev"
done
finish
