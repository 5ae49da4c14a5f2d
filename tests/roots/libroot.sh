# SPDX-License-Identifier: Apache-2.0
# libroot.sh - sourced by the suites that run a Slurm release of a Debian
# root (roots/, `make slurm24`, `make slurm26`), after tests/lib.sh.
#   root_use NAME      RNAME, RREL (its Slurm major.minor, roots/NAME.conf),
#                      RB (the build made inside it), INROOT (the command
#                      that enters it)
#   root_ready [quiet] returns 1 without the root (one SKIP line naming
#                      `make NAME`, unless quiet: t_NAME.sh says it for all)
#                      and FAILs when the root cannot be entered or the
#                      build made inside it is missing
#   root_exec NAME SCRIPT  the whole suite: SCRIPT run inside root NAME
#                      (nothing without the root: t_NAME.sh says why)
#   root_release_suite NAME  t_NAME.sh: root_slurm_suite and
#                      root_release_checks in root NAME, or its SKIP line
#   root_slurm_suite   tests/slurm/t_slurm.sh inside the root, its lines
#                      renamed slurm/... -> NAME/...
#   root_abort_suite   tests/slurm/t_abort.sh the same way (NAME/abort/...)
#   root_inputs_suite  tests/slurm/t_inputs.sh the same way (NAME/inputs/...)
#   root_launchers_suite tests/slurm/t_launchers.sh (NAME/launchers/...)
#   root_release_checks the plugin of every other release refused in this
#                      one with our message, this one's quiet, and this
#                      one refused by the host's Slurm
root_use() {
	RNAME=$1
	RREL=$(. "$RM_ROOT/roots/$1.conf" && echo "$RELEASE")
	RB=$RM_BUILD/$1
	INROOT="roots/inroot.sh $1"
}
root_ready() {
	local why rc
	why=$($INROOT true 2>&1)
	rc=$?
	if [ "$rc" -eq 3 ]; then
		[ "${1:-}" = quiet ] || skip "$RNAME" "${why#"$RNAME": }"
		return 1
	elif [ "$rc" -ne 0 ]; then
		# a root that is there but cannot be entered (its private /dev,
		# a mount) is a failure, not a missing root
		fail inroot "$INROOT true exited $rc: $why"
		exit 1
	fi
	if [ ! -f "$RB/rankmap.so" ] || [ ! -x "$RB/rankmap" ]; then
		fail build "$RB/rankmap.so or $RB/rankmap was not built (make)"
		exit 1
	fi
}
root_exec() {
	cd "$RM_ROOT" || exit 1
	root_use "$1"
	root_ready quiet || exit 0
	exec $INROOT env RM_ROOT="$RM_ROOT" RM_BUILD="$RB" bash "$2"
}
root_release_suite() {
	SUITE=$1
	cd "$RM_ROOT" || exit 1
	root_use "$1"
	root_ready || exit 0
	root_slurm_suite
	root_abort_suite
	root_inputs_suite
	root_launchers_suite
	root_release_checks
	finish
}
# root_cluster_suite T PREFIX: tests/slurm/t_T.sh inside the root, its
# lines PREFIX/... renamed NAME/... (PREFIX slurm) or NAME/PREFIX/...
root_cluster_suite() {
	local rc to=$RNAME/$2/
	[ "$2" = slurm ] && to=$RNAME/
	$INROOT env RM_ROOT="$RM_ROOT" RM_BUILD="$RB" RANKMAP="$RB/rankmap" \
		bash "tests/slurm/t_$1.sh" 2>&1 |
		sed -E "s#^(PASS|FAIL|SKIP): $2/#\\1: $to#"
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] || fail suite "t_$1.sh exited $rc"
}
# the integration suite; issue 21's refusals and runtime directory, its
# MASTER_PORT, option values and sealed id exchange; issue 23's launchers
# (torchrun with the root's own torch, Lightning's variables, GPU binding)
root_slurm_suite() { root_cluster_suite slurm slurm; }
root_abort_suite() { root_cluster_suite abort abort; }
root_inputs_suite() { root_cluster_suite inputs inputs; }
root_launchers_suite() { root_cluster_suite launchers launchers; }

# release_srun WHERE PLUGIN: srun -N1 true under a plugstack with PLUGIN,
# WHERE the command prefix that enters a root ("" for the host). srun
# loads plugstack before it talks to any daemon, so no cluster is needed.
release_srun() {
	local d rc
	d=$(mktemp -d "$RM_BUILD/$RNAME/release.XXXXXX")
	printf '%s\n' "ClusterName=rel" "SlurmctldHost=localhost" "SlurmctldPort=1" \
		"PlugStackConfig=$d/plugstack.conf" "NodeName=n1 CPUs=1" \
		"PartitionName=p Nodes=n1 Default=YES" >"$d/slurm.conf"
	echo "required $2" >"$d/plugstack.conf"
	$1 env SLURM_CONF="$d/slurm.conf" timeout 20 srun -N1 true
	rc=$?
	rm -rf "$d"
	return "$rc"
}
root_release_checks() {
	local so other r
	r=${RREL//./\\.}
	for so in "$RM_BUILD"/rankmap-slurm*.so; do
		[ -f "$so" ] || continue
		other=${so##*/rankmap-slurm}
		other=${other%.so}
		[ "$other" = "$RREL" ] && continue
		run "release-$other-in-$RREL" 1 release_srun "$INROOT" "$so"
		has "release-$other-in-$RREL-msg" "$ERR" "^srun: error: rankmap: this rankmap.so was built for Slurm ${other//./\\.} \\(libslurm API [0-9]+\\) but is loaded by Slurm $r: install rankmap-slurm$r\\.so"
		has "release-$other-in-$RREL-refused" "$ERR" "Incompatible Slurm plugin .*rankmap-slurm${other//./\\.}\\.so"
	done
	run "release-$RREL-in-$RREL" 1 release_srun "$INROOT" "$RB/rankmap-slurm$RREL.so"
	hasnt "release-$RREL-in-$RREL-quiet" "$ERR" 'rankmap: this rankmap.so was built'
	# ... and the host (whose headers made the 22.05 build) runs Slurm
	# 22.05, where a build of a newer Debian does not even load (newer
	# glibc symbols).
	if command -v srun >/dev/null; then
		run "release-$RREL-on-host" 1 release_srun "" "$RB/rankmap-slurm$RREL.so"
		has "release-$RREL-on-host-refused" "$ERR" "rankmap-slurm$r\\.so.*(GLIBC_2\\.[0-9]+. not found|Incompatible)"
	fi
}
