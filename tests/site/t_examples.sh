#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The shipped fabrics under site/: every site.yaml is valid for rankmap and
# for Python's yaml.safe_load, every topology.conf is what the generator
# writes, and `rankmap plan` works on each of them.
. "$(dirname "$0")/../lib.sh"
SUITE=site/examples
cd "$RM_ROOT" || exit 1

sites=(llama3-roce dgx-superpod-h100 gb200-nvl72 lab)

for s in "${sites[@]}"; do
	for f in site.yaml topology.conf; do
		if [ -s "site/$s/$f" ]; then pass "$s/$f-present"; else
			fail "$s/$f-present" "site/$s/$f missing or empty"; fi
	done
done

# Documented for every shipped fabric.
for s in "${sites[@]}"; do
	has "$s/documented" docs/site.md "site/$s"
done

if python3 -c 'import yaml' 2>/dev/null; then
	for s in "${sites[@]}"; do
		run "$s/safe_load" 0 python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["schema"] == "rankmap-site/1", d.get("schema")
assert d["name"] == sys.argv[2], d.get("name")
assert isinstance(d["gpus_per_node"], int)
' "site/$s/site.yaml" "$s"
	done
else
	skip safe_load "python3 with PyYAML not installed"
fi

if command -v python3 >/dev/null; then
	run generated-files-current 0 python3 site/gen-topology.py --check
else
	skip generated-files-current "python3 not installed"
fi

if [ ! -x "$RANKMAP" ]; then
	skip plan "no rankmap binary at $RANKMAP (build first)"
	finish
	exit
fi

# rankmap reads each site with its topology and plans a job on it.
# layout, nodes per fabric; the products match the allocations.
plan_on() {
	local s=$1 layout=$2 nodes=$3
	run "$s/plan" 0 "$RANKMAP" plan --site "site/$s/site.yaml" \
		--layout "$layout" --nodes "$nodes" --format json \
		-o "$TMPD/$s.json"
}
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
plan_on llama3-roce 8x16x128 'gpu[0001-2048]'
plan_on dgx-superpod-h100 8x4x4 'dgx[001-016]'
plan_on gb200-nvl72 8x2x9 'nvl[01-02]n[01-18]'
plan_on lab 8x4x4 'node[1-16]'

# The GPU each site prices without --hw (defaults.hw): set where the
# site's own comments name the GPU, unset in the lab, which names none.
hw_of() {
	run "$1/hw" 0 "$RANKMAP" site validate "site/$1/site.yaml"
	has "$1/hw-says" "$OUT" "^  defaults.hw +$2\$"
}
hw_of llama3-roce h100-sxm-80gb
hw_of dgx-superpod-h100 h100-sxm-80gb
hw_of gb200-nvl72 gb200-nvl72
hw_of lab '\(none: --hw, else h100-sxm-80gb\)'

# A site file's mistakes come back as file:line:col through the CLI.
cat >"$TMPD/bad.yaml" <<'YAML'
schema: rankmap-site/1
gpus_per_node: 8
units:
  rails: 8
  list:
    - {name: su1, nodes: "dgx[001-032]"}
    - {name: su2, nodes: "dgx[032-064]"}
YAML
run bad-site 2 "$RANKMAP" plan --site "$TMPD/bad.yaml" --layout 8x1x1 \
	--nodes dgx001
has bad-site-where "$ERR" "bad.yaml:7:26: node 'dgx032' is in unit 'su1' and in unit 'su2'"
finish
