#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench_stepd.sh [RUNS] - what the SPANK plugin costs inside real
# slurmstepds, against the same step without the option, in one run
# (issue 26.6). A local 4-node cluster (tests/slurm/cluster.sh) whose
# slurmds run under bench/subreaper.py, which reaps every slurmstepd and
# logs its CPU time (user + system, its tasks included); each step is
# srun -N4 -n32 of `true`, RUNS times (default 15) without and with
# --parallel-layout=8x2x2, alternating. On the shared 2-core machine 5
# runs moved the difference between 13.6 and 17.5 ms from run to run; 15
# gave 11.8 ms twice. Per node per step: the median
# (min-max) of the 4 x RUNS slurmstepds; the plugin's cost is the
# difference of the medians and their ratio. The first step with the
# option on fresh nodes (no topology cache yet: a live hwloc scan, the
# cache written) is shown on its own. Needs root and Slurm (make deps);
# otherwise says why and exits 0.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-15}
export RM_ROOT=$ROOT
. "$ROOT/tests/slurm/cluster.sh"
PLUGIN=${RM_BUILD:-$ROOT/build}/rankmap.so
if ! why=$(cluster_tools); then
	echo "plugin in slurmstepd: skipped ($why)"
	exit 0
fi
[ -f "$PLUGIN" ] || { echo "plugin in slurmstepd: skipped ($PLUGIN not built)"; exit 0; }
D=$(cluster_tmpdir rankmap-bench-stepd)
trap 'cluster_stop "$D"' EXIT
LOG=$D/reap.log
: >"$LOG"
if ! CLUSTER_CONF_EXTRA="SlurmdDebug=debug" \
	CLUSTER_SLURMD_WRAP="python3 $ROOT/bench/subreaper.py $LOG" \
	cluster_start "$D" 4 "$PLUGIN" "runtime_dir=$D/rt" >"$D/start.out" 2>&1; then
	echo "plugin in slurmstepd: the local cluster did not start: $(tail -3 "$D/start.out")" >&2
	exit 1
fi
export SLURM_CONF=$D/etc/slurm.conf

# step KIND OPTS...: one step; appends "KIND MS" for each of its 4
# slurmstepds once all four are reaped
step() {
	local kind=$1 before end
	shift
	before=$(grep -c ' slurmstepd ' "$LOG")
	srun -N4 -n32 --ntasks-per-node=8 "$@" true >/dev/null 2>"$D/srun.err.$kind" || {
		echo "plugin in slurmstepd: srun $* failed: $(head -3 "$D/srun.err.$kind")" >&2
		exit 1
	}
	end=$(($(date +%s) + 30))
	while [ "$(grep -c ' slurmstepd ' "$LOG")" -lt $((before + 4)) ]; do
		[ "$(date +%s)" -ge "$end" ] && { echo "plugin in slurmstepd: slurmstepds not reaped" >&2; exit 1; }
		sleep 0.1
	done
	grep ' slurmstepd ' "$LOG" | tail -n +$((before + 1)) | head -4 |
		awk -v k="$kind" '{ print k, $2, $4, $5 }' >>"$D/steps"
}
: >"$D/steps"
step first --parallel-layout=8x2x2
step warm-none
for i in $(seq 1 "$RUNS"); do
	step none
	step rankmap --parallel-layout=8x2x2
done
# median, min, max of kind K's figures
stat() { awk -v k="$1" '$1 == k { print $2 }' "$D/steps" | sort -n | awk '{ v[NR] = $1 }
	END { printf "%.2f %.2f %.2f", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
read -r n_med n_min n_max <<<"$(stat none)"
read -r r_med r_min r_max <<<"$(stat rankmap)"
read -r f_med f_min f_max <<<"$(stat first)"
echo "plugin in slurmstepd, 4 nodes x 8 tasks of true, CPU ms per node per step (user+system, the tasks' included); median (min-max) of 4 x $RUNS slurmstepds"
printf '  without --parallel-layout  %6.2f (%.2f-%.2f) ms\n' "$n_med" "$n_min" "$n_max"
printf '  with    --parallel-layout  %6.2f (%.2f-%.2f) ms\n' "$r_med" "$r_min" "$r_max"
printf '  first step on fresh nodes  %6.2f (%.2f-%.2f) ms  (live hwloc scan, topology cache written)\n' "$f_med" "$f_min" "$f_max"
# the plugin's own callbacks, timed inside slurmstepd (SlurmdDebug=debug
# lines), warm steps only: each node's first line is the fresh step
own() {
	for f in "$D"/log/slurmd-node*.log; do
		sed -n "s/.*rankmap: $1 \([0-9.]*\) ms CPU.*/\1/p" "$f" | tail -n +2
	done | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.2f (%.2f-%.2f)", v[int((NR + 1) / 2)], v[1], v[NR]; else printf "-" }'
}
printf '  of which the plugin'"'"'s own callbacks, timed inside slurmstepd: init_post_opt %s ms, exit %s ms\n' \
	"$(own 'node side')" "$(own exit)"
awk -v n="$n_med" -v r="$r_med" 'BEGIN {
	printf "  slurmstepd with the plugin: %+.2f ms per node per step, %.2fx the step without it; target under 10 ms -> %s\n",
		r - n, r / n, (r - n < 10) ? "ok" : "MISSED (docs/plugin.md, Cost)" }'
