# lib24.sh - sourced by the suites that need Slurm 24.11, after
# tests/lib.sh: the 24.11 build's directory, and slurm24_ready [quiet],
# which returns 1 without the Debian 13 root of `make slurm24` (with one SKIP
# line naming it, unless quiet: t_slurm24.sh says it for all) and FAILs
# when the root cannot be entered or the build made inside it is missing.
B24=$RM_BUILD/slurm24
slurm24_ready() {
	local why rc
	why=$(slurm24/inroot.sh true 2>&1)
	rc=$?
	if [ "$rc" -eq 3 ]; then
		[ "${1:-}" = quiet ] || skip slurm24 "${why#slurm24: }"
		return 1
	elif [ "$rc" -ne 0 ]; then
		# a root that is there but cannot be entered (its private /dev,
		# a mount) is a failure, not a missing root
		fail inroot "slurm24/inroot.sh true exited $rc: $why"
		exit 1
	fi
	if [ ! -f "$B24/rankmap.so" ] || [ ! -x "$B24/rankmap" ]; then
		fail build "$B24/rankmap.so or $B24/rankmap was not built (make)"
		exit 1
	fi
}
