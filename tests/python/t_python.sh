#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The rankmap Python package with Debian's python3 and python3-torch.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
if ! $PY -c 'import torch' 2>/dev/null; then
	skip python "no python3-torch (make deps installs it)"
	exit 0
fi
# unittest's verbose lines ("name ... ok") become PASS/FAIL lines.
$PY "$RM_ROOT/tests/python/test_package.py" 2>&1 |
	sed -E -e 's/^test_[a-z_]+ \(__main__\.([A-Za-z_.]+)\)( \(.*\))? \.\.\. ok$/PASS: python\/\1/' \
		-e 's/^test_[a-z_]+ \(__main__\.([A-Za-z_.]+)\)( \(.*\))? \.\.\. (FAIL|ERROR)$/FAIL: python\/\1/' \
		-e 's/^test_[a-z_]+ \(__main__\.([A-Za-z_.]+)\)( \(.*\))? \.\.\. skipped (.*)$/SKIP: python\/\1: \3/'
rc=${PIPESTATUS[0]}
# make install puts the package where the prefix's python3 finds it.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if make -s -C "$RM_ROOT" install-python DESTDIR="$T" PREFIX=/usr >/dev/null 2>&1 &&
	PYTHONPATH="$T/usr/lib/python3/dist-packages" $PY -c 'import rankmap.torch' 2>/dev/null &&
	[ -f "$T/usr/lib/python3/dist-packages/rankmap/_verify.py" ]; then
	pass make-install-python
else
	fail make-install-python "$(ls -R "$T" | head -20)"
fi
rm -rf "$T"
# pip install into a venv, offline, from python/pyproject.toml, and
# rankmap.load() with no argument reads $RANKMAP_MAP (issue 37).
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp -r "$RM_ROOT/python" "$T/src"
rm -rf "$T/src/build" "$T/src/rankmap.egg-info"
if $PY -m venv --system-site-packages "$T/v" >"$T/log" 2>&1 &&
	"$T/v/bin/pip" install -q --no-build-isolation --no-index "$T/src" >>"$T/log" 2>&1; then
	pass venv-install
	"$RANKMAP" plan --layout 2x1x2 --nodes n1 --gpus-per-node 4 --order megatron --format json -o "$T/m.json" 2>/dev/null
	got=$(cd "$T" && RANKMAP_MAP="$T/m.json" "$T/v/bin/python" -c \
		'import rankmap; m = rankmap.load(); print(rankmap.__file__.startswith("'"$T"'/v/"), m.world_size)' 2>&1)
	[ "$got" = "True 4" ] && pass load-default-env || fail load-default-env "$got"
	got=$(cd "$T" && env -u RANKMAP_MAP "$T/v/bin/python" -c 'import rankmap; rankmap.load()' 2>&1 | tail -1)
	case $got in *"RANKMAP_MAP is not set"*) pass load-no-env ;; *) fail load-no-env "$got" ;; esac
else
	fail venv-install "$(tail -5 "$T/log")"
fi
# Python and C accept and refuse the same maps: 160 files, each a map the
# CLI wrote or that map with one thing changed (issue 37.5)
T2=$(mktemp -d)
$PY "$RM_ROOT/tests/python/map_corpus.py" "$RANKMAP" "$T2" || rc=1
rm -rf "$T2"
exit "$rc"
