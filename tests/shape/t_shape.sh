#!/usr/bin/env bash
# t_shape.sh - templates/lua/job_submit.lua on the real slurmctld of both
# releases: the host's (22.05) and, when `make slurm24` made its root, 24.11.
. "$(dirname "$0")/../lib.sh"
SUITE=shape
cd "$RM_ROOT" || exit 1
rc=0
if [ ! -f "$RM_BUILD/rankmap.so" ] || ! why=$(. tests/slurm/cluster.sh && cluster_tools); then
	skip host "${why:-no rankmap.so built for the host Slurm}"
elif ! ls /usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_lua.so >/dev/null 2>&1; then
	skip host "Slurm's job_submit/lua is not installed (slurm-wlm-basic-plugins)"
else
	bash tests/shape/shape.sh host || rc=1
fi
. tests/slurm24/lib24.sh
# without the root t_slurm24.sh says so once
if slurm24_ready quiet; then
	slurm24/inroot.sh env RM_ROOT="$RM_ROOT" RM_BUILD="$B24" \
		bash tests/shape/shape.sh 24.11 || rc=1
fi
exit $rc
