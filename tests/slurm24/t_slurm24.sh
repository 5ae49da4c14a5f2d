#!/usr/bin/env bash
# t_slurm24.sh - the Slurm integration suite (tests/slurm/t_slurm.sh, as it
# is in this checkout) once more against Slurm 24.11: a cluster started
# inside the Debian 13 root of `make slurm24` (slurm24/inroot.sh: own mount
# namespace; the cluster picks its own ports and munge key as usual), with
# the rankmap.so and CLI built inside that root. Its lines are renamed
# slurm/... -> slurm24/... so both releases' results read apart.
. "$(dirname "$0")/../lib.sh"
SUITE=slurm24
cd "$RM_ROOT" || exit 1
. tests/slurm24/lib24.sh
slurm24_ready || exit 0
slurm24/inroot.sh env RM_ROOT="$RM_ROOT" RM_BUILD="$B24" RANKMAP="$B24/rankmap" \
	bash tests/slurm/t_slurm.sh 2>&1 |
	sed -E 's#^(PASS|FAIL|SKIP): slurm/#\1: slurm24/#'
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || fail suite "t_slurm.sh exited $rc"
# ... and tests/slurm/t_inputs.sh (issue 21: MASTER_PORT, option values)
slurm24/inroot.sh env RM_ROOT="$RM_ROOT" RM_BUILD="$B24" RANKMAP="$B24/rankmap" \
	bash tests/slurm/t_inputs.sh 2>&1 |
	sed -E 's#^(PASS|FAIL|SKIP): inputs/#\1: slurm24/inputs/#'
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || fail suite "t_inputs.sh exited $rc"

# ---- a plugin built for the other release: our line names both releases
# and the file to install; Slurm's loader refuses it. srun loads plugstack
# before it talks to any daemon, so no cluster is needed.
release_srun() { # WHERE PLUGIN: srun -N1 true under a plugstack with PLUGIN
	local d rc
	d=$(mktemp -d "$RM_BUILD/slurm24/release.XXXXXX")
	printf '%s\n' "ClusterName=rel" "SlurmctldHost=localhost" "SlurmctldPort=1" \
		"PlugStackConfig=$d/plugstack.conf" "NodeName=n1 CPUs=1" \
		"PartitionName=p Nodes=n1 Default=YES" >"$d/slurm.conf"
	echo "required $2" >"$d/plugstack.conf"
	$1 env SLURM_CONF="$d/slurm.conf" timeout 20 srun -N1 true
	rc=$?
	rm -rf "$d"
	return "$rc"
}
if [ -f "$RM_BUILD/rankmap-slurm22.05.so" ]; then
	run release-22.05-in-24.11 1 release_srun slurm24/inroot.sh "$RM_BUILD/rankmap-slurm22.05.so"
	has release-22.05-in-24.11-msg "$ERR" '^srun: error: rankmap: this rankmap.so was built for Slurm 22\.05 \(libslurm API 38\) but is loaded by Slurm 24\.11: install rankmap-slurm24\.11\.so'
	has release-22.05-in-24.11-refused "$ERR" 'Incompatible Slurm plugin .*rankmap-slurm22\.05\.so'
	run release-24.11-in-24.11 1 release_srun slurm24/inroot.sh "$B24/rankmap-slurm24.11.so"
	hasnt release-24.11-in-24.11-quiet "$ERR" 'rankmap: this rankmap.so was built'
	# ... and the host (whose headers made the 22.05 build) runs Slurm 22.05,
	# where a Debian 13 build does not even load (glibc 2.38 symbols).
	run release-24.11-in-22.05 1 release_srun "" "$B24/rankmap-slurm24.11.so"
	has release-24.11-in-22.05-refused "$ERR" 'rankmap-slurm24\.11\.so.*(GLIBC_2\.[0-9]+. not found|Incompatible)'
fi
finish
