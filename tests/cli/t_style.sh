#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One CLI style (docs/cli.md): `rankmap help [CMD]`, -V, every error one
# stderr line "rankmap <cmd>: ..." naming the bad option, the usage text
# only with --help, a documented `schema` in every JSON output, and
# `rankmap site validate` (settings resolved, exit 0/2).
source "$(dirname "$0")/../lib.sh"
in_tmp
CMDS="plan check node explain suggest site"

run version 0 "$RANKMAP" -V
has version-text "$OUT" '^rankmap [0-9]+\.[0-9]+\.[0-9]+$'
run version-long 0 "$RANKMAP" --version
run help 0 "$RANKMAP" help
cp "$OUT" list.txt
for c in $CMDS; do
	has "help-lists-$c" list.txt "^  $c "
	run "help-$c" 0 "$RANKMAP" help "$c"
	has "help-$c-usage" "$OUT" "^usage: rankmap $c"
	has "help-$c-exit" "$OUT" '^exit: '
	cp "$OUT" help.txt
	run "dash-help-$c" 0 "$RANKMAP" "$c" --help
	if cmp -s "$OUT" help.txt; then pass "help-$c-same"; else
		fail "help-$c-same" "rankmap help $c differs from rankmap $c --help"
	fi
done

# one_line NAME RC CMD...: exit RC, exactly one stderr line with the
# command's prefix, no usage text.
one_line() {
	local name=$1 want=$2
	shift 2
	run "$name" "$want" "$@"
	if [ "$(wc -l <"$ERR")" -eq 1 ] && ! grep -q '^usage:' "$ERR" &&
		grep -q "^rankmap ${2:+$2: }" "$ERR"; then
		pass "$name-one-line"
	else
		fail "$name-one-line" "stderr: $(head -c 400 "$ERR")"
	fi
}
for c in $CMDS; do
	arg=--frobnicate
	[ "$c" = site ] && one_line "unknown-$c" 2 "$RANKMAP" site validate x.yaml --frobnicate ||
		one_line "unknown-$c" 2 "$RANKMAP" "$c" --frobnicate
	has "unknown-$c-names" "$ERR" "'--frobnicate'"
done
one_line explain-bad-gpus 2 "$RANKMAP" explain --model llama3-8b --layout 8x2x4 --gpus 0
has explain-bad-gpus-names "$ERR" "^rankmap explain: --gpus '0'"
one_line suggest-no-value 2 "$RANKMAP" suggest --model llama3-8b --gpus 64 --top
has suggest-no-value-names "$ERR" '^rankmap suggest: --top needs a value'
one_line node-bad-format 2 "$RANKMAP" node --format xml
has node-bad-format-names "$ERR" "xml"
run no-command 2 "$RANKMAP"
has no-command-line "$ERR" '^rankmap: no command \(see rankmap help\)$'
run unknown-command 2 "$RANKMAP" frob
has unknown-command-line "$ERR" "^rankmap: unknown command 'frob'"
hasnt unknown-command-no-usage "$ERR" '^usage:'
run help-unknown 2 "$RANKMAP" help frob

# An input error is one line even where plan would warn about the missing
# topology: the warning comes only with an output.
one_line plan-bad-layout 2 "$RANKMAP" plan --layout 8xx2 --nodes 'n[1-4]'
run plan-flat 0 "$RANKMAP" plan --layout 8x1x2 --nodes 'n[1-2]' --format json
has plan-flat-warns "$ERR" '^rankmap plan: warning: no topology'

# Exit 1 = done, but the answer is no (every subcommand that has one).
run explain-no-fit 1 "$RANKMAP" explain --model llama3-405b --layout 1x1x8
run suggest-none-fits 1 "$RANKMAP" suggest --model llama3-405b --gpus 8
run plan-rule-fails 1 "$RANKMAP" plan --layout 16x1x1 --nodes 'n[1-2]'

# Every JSON output names its schema.
python3 "$RM_ROOT/tests/gen/gen_hwloc.py" . >/dev/null
cat >topo.conf <<'CONF'
SwitchName=leaf1 Nodes=n[1-4]
SwitchName=spine Switches=leaf1
CONF
printf 'schema: rankmap-site/1\ngpus_per_node: 4\ntopology: topo.conf\n' >site.yaml
"$RANKMAP" plan --layout 4x2x2 --site site.yaml --nodes 'n[1-4]' -o map.json --format json
schema() {
	local name=$1 want=$2
	shift 2
	run "$name" 0 "$@"
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"] == sys.argv[2], d.get("schema")' "$OUT" "$want" 2>py.err; then
		pass "$name-schema"
	else
		fail "$name-schema" "$(tail -1 py.err)"
	fi
}
schema json-plan rankmap-map/1 "$RANKMAP" plan --layout 4x2x2 --site site.yaml --nodes 'n[1-4]' --format json
schema json-check rankmap-check/1 "$RANKMAP" check --map map.json --site site.yaml --format json
schema json-node rankmap-node/1 "$RANKMAP" node --hwloc-xml dgx-h100.xml --format json
schema json-explain rankmap-explain/1 "$RANKMAP" explain --model llama3-8b --layout 8x2x4 --format json
schema json-suggest rankmap-suggest/1 "$RANKMAP" suggest --model llama3-8b --gpus 64 --format json
schema json-site rankmap-site-validate/1 "$RANKMAP" site validate site.yaml --format json
schema json-compare rankmap-explain-compare/1 "$RANKMAP" explain --model llama3-8b --layout 8x2x4 --nodes 'n[1-8]' --baseline --format json
# and docs/cli.md documents each of them
for s in rankmap-map/1 rankmap-check/1 rankmap-node/1 rankmap-explain/1 \
	rankmap-explain-compare/1 rankmap-suggest/1 rankmap-site-validate/1 \
	rankmap-nccl-check/1; do
	has "schema-documented-${s%/1}" "$RM_ROOT/docs/cli.md" "\`$s\`"
done

# site validate: resolved settings, warnings keep exit 0, problems exit 2.
run site-ok 0 "$RANKMAP" site validate site.yaml
has site-ok-gpn "$OUT" '^  gpus_per_node +4$'
has site-ok-fabric "$OUT" '^  fabric +4 nodes \(16 GPUs\), 2 switches: 1 leaves, 2 levels'
has site-ok-order "$OUT" '^  defaults.order +\(none: the layout.s nesting order\)'
has site-ok-hw "$OUT" '^  defaults.hw +\(none: --hw, else h100-sxm-80gb\)$'
has site-ok-digest "$OUT" '^  fabric sha256 +[0-9a-f]{64}$'
has site-ok-result "$OUT" '^result: valid, 0 warnings, 0 problems$'
{
	printf 'schema: rankmap-site/1\ntopology: topo.conf\n'
	units_yaml 2 'a=n[1-2]' 'b=n[5-6]'
} >units.yaml
one_line site-problem 2 "$RANKMAP" site validate units.yaml
has site-problem-says "$OUT" '^  problem: 2 nodes named in the site file but under no switch of the topology \(first: n5\)'
has site-problem-warns "$OUT" '^  warning: gpus_per_node is not set: 8 is assumed'
has site-problem-result "$OUT" '^result: NOT valid, 2 warnings, 1 problem$'
printf 'policy:\n  missing_nodes: own-leaf\n' >>units.yaml
run site-own-leaf 0 "$RANKMAP" site validate units.yaml
has site-own-leaf-warns "$OUT" '^  warning: 2 nodes named in the site file .*each gets a leaf of its own'
printf 'schema: rankmap-site/1\ngpus_per_node: 0\n' >bad.yaml
one_line site-bad 2 "$RANKMAP" site validate bad.yaml
has site-bad-where "$ERR" '^rankmap site: bad.yaml:2:[0-9]+: '
one_line site-topology-override 2 "$RANKMAP" site validate site.yaml --topology /nonexistent.conf
has site-topology-names "$ERR" '/nonexistent.conf'
finish
