#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_shape.sh - templates/lua/job_submit.lua on the real slurmctld of both
# releases: the host's (22.05) and, where `make slurm24` / `make slurm26`
# made their roots, 24.11 and 26.05.
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
. tests/roots/libroot.sh
# without a root its t_NAME.sh says so once
for r in slurm24 slurm26; do
	root_use "$r"
	if root_ready quiet; then
		$INROOT env RM_ROOT="$RM_ROOT" RM_BUILD="$RB" \
			bash tests/shape/shape.sh "$RREL" || rc=1
	fi
done
exit $rc
