#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_abort.sh - issue 21: a step starts whole or not at all, and nothing a
# job leaves behind can hurt the next one. One local cluster (4 nodes; the
# last one reads its own plugstack.conf, CLUSTER_ODD) on which node4 is
# made to fail in each way a node can (site file missing or broken, a
# plugstack typo, a job directory it cannot use, a map it cannot write, an
# MpiParams=ports it cannot use),
# under a rendezvous stand-in that would wait 60 s for the missing ranks,
# with node4 held (a test SPANK plugin) until the other nodes' ranks wait
# in it when node4 refuses, and KillWait=30 as Slurm ships it.
# Then the runtime directory: nothing of the user's in it, any depth
# removed, an earlier job's leftovers replaced, nobody else can list it.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
# ABORT_PROCTRACK=pgid|cgroup (t_abort_pgid.sh, t_abort_cgroup.sh): the
# refusals with every kind of rank under that process tracker, then stop.
cluster_suite abort${ABORT_PROCTRACK:+-$ABORT_PROCTRACK}
cluster_preflight
[ -f "$PLUGIN" ] || { fail plugin "$PLUGIN was not built"; exit 1; }
RDV=$RM_ROOT/tests/slurm/rendezvous.sh

D=$(cluster_tmpdir rankmap-abort)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out"
printf 'schema: rankmap-site/1\nname: rmabort\ngpus_per_node: 8\ntopology: topology.conf\n' >"$D/etc/site.yaml"
RT=$D/rt
# KillWait as Slurm ships it (30 s): srun used to wait that long, plus 2 s,
# for tasks a refusing node's cancel did not reach (issue 21.2).
CLUSTER_PROCTRACK=${ABORT_PROCTRACK:-} CLUSTER_KILLWAIT=30 CLUSTER_ODD=1 cluster_up "$D" 4 "$PLUGIN" "site=$D/etc/site.yaml" "runtime_dir=$RT"
export CLUSTER_ODD=1 SLURM_CONF=$D/etc/slurm.conf
# odd ARGS...: node4's plugstack.conf. A test SPANK plugin listed first
# holds node4's slurmstepd before rankmap runs there (2 s, then until the
# other nodes' 24 ranks have left a heartbeat, 30 s at most: a fixed hold
# alone lost that race under CI's load), so those ranks wait in their
# rendezvous when node4 refuses: the case where cancelling the whole step
# matters.
# odd_plain ARGS...: the same without the delay.
DELAY=$RM_BUILD/rankmap-test-delay.so
# HOLD_MAX=MS: hold node4 longer for its ranks to start (24 python
# launchers on a loaded 2-core machine took over 30 s)
odd() {
	printf 'required %s 2000 wait=beat.:24 max=%s\nrequired %s %s\n' "$DELAY" "${HOLD_MAX:-30000}" "$PLUGIN" "$*" >"$D/etc/plugstack-odd.conf"
}
odd_plain() { echo "required $PLUGIN $*" >"$D/etc/plugstack-odd.conf"; }
[ -f "$DELAY" ] || { fail delay-plugin "$DELAY was not built"; exit 1; }
# in_cluster CMD: CMD in the daemons' mount namespace (and root, should
# the cluster run in a chroot), where slurmstepd sees the files
in_cluster() { nsenter -m -r -w -t "$(cat "$D/run/slurmctld.pid")" sh -c "$1"; }
ms() { date +%s%3N; }

# rdv NAME: the stand-in on 4 nodes x 8; sets RC, WALL_MS, B (its folder)
rdv() {
	B=$D/out/rdv-$1
	mkdir -p "$B"
	new_out
	local t0
	t0=$(ms)
	# WRAP=shell: each rank a child of a shell that outlives it (a job
	# script's `sh -c 'python train.py; ...'`); WRAP=fork: a launcher
	# that forks the rank and dies at once on SIGTERM (torchrun's
	# workers, a rank's helpers): under proctrack/linuxproc Slurm's kill
	# walks the tree from slurmstepd, and a rank whose parent died
	# first used to leave it (issue 38.1).
	local cmd
	case ${WRAP:-} in
	shell) cmd=(sh -c '"$0" "$1" 60; echo "wrapper: rank exited $?"' "$RDV" "$B") ;;
	fork) cmd=(python3 -c 'import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))' "$RDV" "$B" 60) ;;
	# the rank's parent is gone before the cancel: a helper daemonised
	# by a double fork, the task waiting on its own
	orphan) cmd=(sh -c '("$0" "$1" 60 &); sleep 70' "$RDV" "$B") ;;
	*) cmd=("$RDV" "$B" 60) ;;
	esac
	RM_TEST_RDV_DIR=$B srun -N4 -n32 --ntasks-per-node=8 --parallel-layout=8x2x2 "${cmd[@]}" >"$OUT" 2>"$ERR"
	RC=$?
	T_END=$(ms)
	WALL_MS=$((T_END - t0))
}

# ---- a healthy step: every rank meets the others
rdv healthy
[ "$RC" -eq 0 ] && [ "$(grep -c ' got 32/32$' "$OUT")" -eq 32 ] && pass "healthy-rendezvous (${WALL_MS} ms)" ||
	fail healthy-rendezvous "exit $RC, $(grep -c ' got 32/32$' "$OUT") of 32 met; $(head -c 300 "$ERR")"

# refused NAME CAUSE_REGEX: node4 refused, so the whole step ended at once:
# srun failed within a few seconds with node4's reason on the last line,
# one message naming node4, no rank of the healthy nodes lived 5 s past
# node4's refusal (its time from node4's log), nothing of the step left.
refused() {
	local name=$1 cause=$2 log=$D/log/slurmd-node4.log lines
	lines=$(wc -l <"$log")
	rdv "$name"
	[ "$RC" -ne 0 ] && pass "$name-fails" || fail "$name-fails" "srun exited 0"
	local msg="rankmap: node node4: $cause.*; step cancelled"
	has "$name-msg" "$ERR" "error: $msg"
	[ "$(grep -c 'rankmap: node node4' "$ERR")" -eq 1 ] && pass "$name-one-msg" ||
		fail "$name-one-msg" "$(grep -c 'rankmap: node node4' "$ERR") lines: $(grep 'rankmap:' "$ERR" | head -3)"
	tail -n 1 "$ERR" | grep -qE -- "$msg" && pass "$name-reason-last" ||
		fail "$name-reason-last" "last line: $(tail -n 1 "$ERR")"
	hasnt "$name-no-rank-met" "$OUT" '^RDV '
	# when node4 refused (slurmd's log: local time, milliseconds)
	local at t
	at=$(tail -n +"$((lines + 1))" "$log" | grep -m1 "rankmap: node node4" | sed -n 's/^\[\([^]]*\)\].*/\1/p')
	t=
	[ -n "$at" ] && t=$(date -d "$at" +%s.%N 2>/dev/null)
	# srun returns within 10 s of node4's refusal (the hold before it is
	# the test's own, and grows with the machine's load)
	local back
	back=$([ -n "$t" ] && awk -v a="$t" -v b="$T_END" 'BEGIN { printf "%d", b - a * 1000 }')
	if [ -z "$back" ]; then
		fail "$name-srun-returns" "no refusal in node4's log (srun took $WALL_MS ms, exit $RC)"
	elif [ "$back" -lt 10000 ]; then
		pass "$name-srun-returns (${back} ms after the refusal, ${WALL_MS} ms in all, exit $RC)"
	else
		fail "$name-srun-returns" "srun returned $back ms after node4 refused (exit $RC)"
	fi
	# Every healthy rank (24: nodes 1-3) started and beat before node4
	# refused, and none beat 5 s past the refusal.
	local nbeat last
	nbeat=$(find "$B" -name 'beat.*' | wc -l)
	last=$(cat "$B"/beat.* 2>/dev/null | sort -n | tail -1)
	if [ -z "$t" ]; then
		fail "$name-healthy-end-within-5s" "no refusal in node4's log"
	elif [ "${NOW:-0}" = 1 ]; then
		[ -z "$last" ] || awk -v a="$t" -v b="$last" 'BEGIN { exit !(b - a < 5) }' &&
			pass "$name-healthy-end-within-5s ($nbeat ranks had started)" ||
			fail "$name-healthy-end-within-5s" "a rank beat at $last, node4 refused at $t"
	elif [ "$nbeat" -lt 24 ]; then
		fail "$name-healthy-end-within-5s" "only $nbeat of the 24 healthy ranks started before node4 refused: nothing to end"
	elif awk -v a="$t" -v b="$last" 'BEGIN { exit !(b - a < 5) }'; then
		pass "$name-healthy-end-within-5s ($nbeat ranks waiting, last heartbeat $(awk -v a="$t" -v b="$last" 'BEGIN { printf "%.2f", b - a }') s after the refusal)"
	else
		fail "$name-healthy-end-within-5s" "a rank beat at $last, node4 refused at $t"
	fi
	# no process of the step left anywhere 5 s after the refusal (the
	# rendezvous' folder is on every rank's command line)
	if [ -n "$t" ]; then
		local wait_ms
		wait_ms=$(awk -v a="$t" -v b="$(ms)" 'BEGIN { w = a * 1000 + 5000 - b; printf "%d", (w > 0 ? w : 0) }')
		sleep "$((wait_ms / 1000)).$(printf '%03d' $((wait_ms % 1000)))"
		local left
		left=$(pgrep -af -- "$B" | grep -v pgrep)
		[ -z "$left" ] && pass "$name-nothing-left-5s" ||
			fail "$name-nothing-left-5s" "$(echo "$left" | wc -l) processes: $(echo "$left" | head -3 | tr '\n' ';')"
	fi
	if cluster_wait 30 eval '[ -z "$(squeue -h -s -o %i 2>/dev/null)" ]'; then pass "$name-no-step-left"; else
		fail "$name-no-step-left" "$(squeue -h -s -o '%i %T' 2>&1)"; fi
	odd_plain "site=$D/etc/site.yaml" "runtime_dir=$RT"
}

# The other way round: node4 refuses at once while the other nodes are
# held (2 s, before rankmap runs there): their slurmstepds exist but have
# no tasks when the cancel comes. srun must still return at once under
# KillWait=30, and a task that starts after the cancel must not live on
# (the refusing node cancels again 1 s and 3 s later for such tasks).
cp "$D/etc/plugstack.conf" "$D/etc/plugstack.conf.orig"
printf 'required %s 2000\n' "$DELAY" | cat - "$D/etc/plugstack.conf.orig" >"$D/etc/plugstack.conf"
odd_plain "site=$D/etc/nosuch.yaml" "runtime_dir=$RT"
NOW=1 refused others-held "site file: $D/etc/nosuch\\.yaml: cannot open: No such file or directory"
cp "$D/etc/plugstack.conf.orig" "$D/etc/plugstack.conf"
odd "site=$D/etc/nosuch.yaml" "runtime_dir=$RT"
refused site-missing "site file: $D/etc/nosuch\\.yaml: cannot open: No such file or directory"
odd "site=$D/etc/nosuch.yaml" "runtime_dir=$RT"
WRAP=shell refused shell-rank "site file: $D/etc/nosuch\\.yaml: cannot open: No such file or directory"
HOLD_MAX=120000 odd "site=$D/etc/nosuch.yaml" "runtime_dir=$RT"
WRAP=fork refused forked-rank "site file: $D/etc/nosuch\\.yaml: cannot open: No such file or directory"
odd "site=$D/etc/nosuch.yaml" "runtime_dir=$RT"
WRAP=orphan refused orphaned-rank "site file: $D/etc/nosuch\\.yaml: cannot open: No such file or directory"
if [ -n "${ABORT_PROCTRACK:-}" ]; then finish; exit; fi
printf 'schema: rankmap-site/1\nname: [broken\n' >"$D/etc/site-bad.yaml"
odd "site=$D/etc/site-bad.yaml" "runtime_dir=$RT"
refused site-broken ".*site-bad\\.yaml"
# no site file, only a topology.conf of its own, and that one broken
printf 'SwitchName=leaf1 Nodes=node[1-3\n' >"$D/etc/topo-bad.conf"
odd "topology=$D/etc/topo-bad.conf" "runtime_dir=$RT"
refused topology-broken ".*topo-bad\\.conf"
odd "site=$D/etc/site.yaml" "enforse=strict" "runtime_dir=$RT"
refused plugstack-typo "plugstack.conf: 'enforse=strict': unknown argument"
# node4's hardware cannot be read: its site names a cached hwloc XML that
# is broken (a missing one is scanned live instead); the others scan theirs
printf '<?xml version="1.0"?>\n<topology version="2.0">\n<object type=' >"$D/etc/broken-hw.xml"
{ cat "$D/etc/site.yaml"; echo "hwloc_xml: $D/etc/broken-hw.xml"; } >"$D/etc/site-hw.yaml"
odd "site=$D/etc/site-hw.yaml" "runtime_dir=$RT"
refused hardware "hardware: .*broken-hw\\.xml"
mkdir "$D/squat" && chown 65534 "$D/squat"
odd "site=$D/etc/site.yaml" "runtime_dir=$D/squat"
refused job-dir "map file: runtime directory $D/squat belongs to uid 65534 with mode 0755; it must be root's"
# A full file system under node4's runtime directory: its directories can
# be made, its map cannot be written.
if in_cluster "mkdir -p '$D/full' && mount -t tmpfs -o size=4k,mode=755 rmfull '$D/full' &&
	mkdir -m 755 '$D/full/rt' && { dd if=/dev/zero of='$D/full/fill' bs=4k count=2 2>/dev/null; true; }"; then
	odd "site=$D/etc/site.yaml" "runtime_dir=$D/full/rt"
	refused map-write "map file: cannot write $D/full/rt/[0-9]+/0\\.node4/map\\.json: No space left on device"
else
	fail map-write "cannot mount a full tmpfs in the cluster's namespace"
fi

# node4's slurm.conf (the one its slurmstepd reads) with a ports= value
# the plugin cannot use for MASTER_PORT; slurmd keeps the one it started with
cp "$D/etc/slurm-odd.conf" "$D/etc/slurm-odd.conf.orig"
echo "MpiParams=ports=30199-30100" >>"$D/etc/slurm-odd.conf"
odd "site=$D/etc/site.yaml" "runtime_dir=$RT"
refused mpi-ports "$D/etc/slurm-odd\\.conf: MpiParams='ports=30199-30100': ports= expects LOW-HIGH"
cp "$D/etc/slurm-odd.conf.orig" "$D/etc/slurm-odd.conf"

# ---- the runtime directory: root's all the way down, the map readable by
# the job's user, nothing of the user's can be stored in it
if ! id nobody >/dev/null 2>&1; then
	skip user-cannot-store "no user nobody"
elif ! runuser -u nobody -- test -r "$PLUGIN" -a -x "$RDV"; then
	skip user-cannot-store "nobody cannot read $PLUGIN: clone where other users can read"
else
	cat >"$D/out/store.sh" <<'EOS'
#!/bin/sh
m=$RANKMAP_MAP
dir=$(dirname "$m")
job=$(dirname "$dir")
touch "$dir/x" 2>/dev/null && echo "STORED step-dir"
mkdir "$job/x" 2>/dev/null && echo "STORED job-dir"
touch "$(dirname "$job")/x" 2>/dev/null && echo "STORED runtime-dir"
chmod u+w "$m" 2>/dev/null && echo "STORED chmod"
(echo junk >>"$m") 2>/dev/null && echo "STORED map"
ls "$(dirname "$job")" >/dev/null 2>&1 && echo "LISTED runtime-dir"
echo "SHA $(sha256sum <"$m" | cut -c1-64) $RANKMAP_MAP_SHA256"
python3 -c 'import json, os; m = json.load(open(os.environ["RANKMAP_MAP"])); print("JSON", len(m["ranks"]) if "ranks" in m else "ok")'
stat -c 'MODE %a %u' "$m" "$dir" "$job" "$(dirname "$job")"
EOS
	chmod 755 "$D/out/store.sh"
	run user-step 0 runuser -u nobody -- srun -N1 -n8 --parallel-layout=8x1x1 "$D/out/store.sh"
	hasnt user-cannot-store "$OUT" '^STORED'
	hasnt user-cannot-list-runtime "$OUT" '^LISTED'
	[ "$(grep -c '^SHA \([0-9a-f]\{64\}\) \1$' "$OUT")" -eq 8 ] && pass user-reads-map ||
		fail user-reads-map "$(grep '^SHA' "$OUT" | head -2; head -c 300 "$ERR")"
	has user-map-parses "$OUT" '^JSON '
	has user-map-modes "$OUT" "^MODE 440 0$"
	[ "$(grep -c "^MODE 750 0$" "$OUT")" -eq 16 ] && pass user-dir-modes || fail user-dir-modes "$(grep "^MODE" "$OUT" | sort | uniq -c)"
fi
[ "$(stat -c %a "$RT")" = 711 ] && pass runtime-not-listable || fail runtime-not-listable "mode $(stat -c %a "$RT")"

# ---- an earlier job's leftovers (another owner, deep, a link out) under
# this job's id: replaced by root, the link never followed
mkdir -p "$D/keep" && echo keep >"$D/keep/file"
job=$(sbatch --parsable --hold -N1 --ntasks-per-node=8 --parallel-layout=8x1x1 -o "$D/out/stale.out" \
	--wrap "srun sh -c 'cat \"\$RANKMAP_MAP\" >/dev/null && echo MAP-OK \$SLURM_PROCID'")
deep=$RT/$job
for i in $(seq 1 40); do deep=$deep/d; done
mkdir -p "$deep" && head -c 1048576 /dev/zero >"$deep/big" && ln -s "$D/keep" "$RT/$job/link" &&
	chown -R -h 65534 "$RT/$job"
scontrol release "$job"
if cluster_wait 60 eval '[ -z "$(squeue -h -j "$job" 2>/dev/null)" ]'; then
	[ "$(grep -c '^MAP-OK' "$D/out/stale.out" 2>/dev/null)" -eq 8 ] && pass stale-replaced ||
		fail stale-replaced "$(head -c 400 "$D/out/stale.out")"
else
	fail stale-replaced "job $job did not end"
fi
gone() { cluster_wait 30 eval "[ ! -e '$1' ]"; }
gone "$RT/$job" && pass stale-removed || fail stale-removed "$(find "$RT/$job" | head -3)"
[ -f "$D/keep/file" ] && pass stale-link-not-followed || fail stale-link-not-followed "$D/keep/file is gone"

# ---- the epilog removes any depth (what root's own steps leave is
# shallow, but a killed slurmstepd or an older plugin may leave more)
job=$(sbatch --parsable -o /dev/null -N1 --ntasks-per-node=8 --parallel-layout=8x1x1 --wrap 'srun sleep 30')
if cluster_wait 30 eval 'ls -d "$RT/$job"/0.* >/dev/null 2>&1'; then
	deep=$RT/$job/0.node1
	for i in $(seq 1 60); do deep=$deep/e; done
	mkdir -p "$deep" && head -c 1048576 /dev/zero >"$deep/big" && ln -s "$D/keep" "$deep/link"
	scancel "$job"
	gone "$RT/$job" && pass epilog-any-depth || fail epilog-any-depth "$(find "$RT/$job" | wc -l) entries left"
	[ -f "$D/keep/file" ] && pass epilog-link-not-followed || fail epilog-link-not-followed "$D/keep/file is gone"
else
	fail epilog-any-depth "no step directory for job $job"
fi
finish
