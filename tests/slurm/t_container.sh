#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_container.sh - each task's rank survives a container's environment
# import (issue 37.4). pyxis, in every task's task_init, sets the
# variables of the container's process - started from the node's first
# task - with overwrite; a test plugin does the same
# (pyxis_sim_spank.c, named so that rankmap's plugstack check takes it
# for pyxis). Listed before rankmap, the tasks keep their own ranks;
# after rankmap, every task gets the first task's and rankmap warns with
# the fix.
. "$(dirname "$0")/../lib.sh"
. "$RM_ROOT/tests/slurm/cluster.sh"
cluster_suite container
[ -x "$CLI" ] || CLI=$RANKMAP
cluster_preflight
[ -f "$PLUGIN" ] || { fail plugin "$PLUGIN was not built"; exit 1; }
PYXIS=$RM_BUILD/rankmap-test-pyxis.so
[ -f "$PYXIS" ] || { fail pyxis-plugin "$PYXIS was not built"; exit 1; }
D=$(cluster_tmpdir rankmap-container)
trap 'cluster_stop "$D"' EXIT
mkdir -p "$D/etc" "$D/out" "$D/pyx"
chmod 1777 "$D/pyx"
printf '%s\n' "schema: rankmap-site/1" "name: rmcontainer" "gpus_per_node: 8" >"$D/etc/site.yaml"
ARGS="site=$D/etc/site.yaml runtime_dir=$D/rt"
cluster_up "$D" 1 "$PLUGIN" $ARGS
export SLURM_CONF=$D/etc/slurm.conf RM_TEST_PYXIS_DIR=$D/pyx

# the map's ranks for local tasks 0-3, from the CLI
want=
for i in 0 1 2 3; do
	r=$("$CLI" plan --layout tp=2,dp=2 --nodes node1 --gpus-per-node 4 --site "$D/etc/site.yaml" \
		--format env --task "node1:$i" 2>/dev/null | sed -n 's/^RANK=//p')
	want="$want$i:$r "
done
ranks() { # the tasks' "LOCALID:RANK" in local id order
	sed -n 's/^T \([0-3]\) \([0-9]*\) .*/\1:\2/p' "$OUT" | sort | tr '\n' ' '
}
step() {
	run "$1" 0 srun -N1 -n4 --gres=gpu:4 --parallel-layout=tp=2,dp=2 \
		sh -c 'echo "T $SLURM_LOCALID $RANK $RANKMAP_TP_RANK $RANKMAP_DP_RANK"'
}

# pyxis first, rankmap after it: what docs/plugin.md asks for
printf 'required %s\nrequired %s %s\n' "$PYXIS" "$PLUGIN" "$ARGS" >"$D/etc/plugstack.conf"
step pyxis-first
got=$(ranks)
[ "$got" = "$want" ] && pass "pyxis-first-ranks-survive ($got)" || fail pyxis-first-ranks-survive "got $got, map $want"
[ "$(ls "$D/pyx" | wc -l)" -ge 1 ] && pass pyxis-first-imported || fail pyxis-first-imported "the test plugin wrote nothing"
hasnt pyxis-first-no-warning "$ERR" 'comes after rankmap'

# rankmap first: the import gives every task the first task's values,
# and rankmap says so with the fix
printf 'required %s %s\nrequired %s\n' "$PLUGIN" "$ARGS" "$PYXIS" >"$D/etc/plugstack.conf"
step pyxis-after
got=$(ranks)
first=${want%% *}
[ "$got" = "0:${first#0:} 1:${first#0:} 2:${first#0:} 3:${first#0:} " ] &&
	pass "pyxis-after-ranks-collapse ($got)" || fail pyxis-after-ranks-collapse "got $got"
has pyxis-after-warning "$ERR" "rankmap: warning: pyxis \\($D/etc/plugstack.conf:2\\) comes after rankmap \\($D/etc/plugstack.conf:1\\).*put rankmap's line after pyxis's"
finish
