#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap plan/check --format svg|html: the SVG is valid XML (xmllint) with
# a title, a description and a spoken title per GPU; it draws one square
# per GPU, one line per pipeline pair that leaves its leaf (as many as the
# report counts) and red outlines exactly on split TP groups; the HTML page
# is self-contained. The browser checks are in t_browser.sh.
source "$(dirname "$0")/../lib.sh"
in_tmp
two_leaves 'n[1-3]' 'n[4-6]' >topo.conf
# Slurm's list interleaves the leaves, so the baseline crosses them.
P=(--layout 4x3x2 --gpus-per-node 4 --topology topo.conf --nodes 'n1,n4,n2,n5,n3,n6')
# Count XPath matches in an SVG.
xcount() { xmllint --xpath "count($2)" "$1" 2>/dev/null; }

run svg 0 "$RANKMAP" plan "${P[@]}" --baseline --format svg -o pic.svg
run json 0 "$RANKMAP" plan "${P[@]}" --format json -o map.json
run base-json 0 "$RANKMAP" plan "${P[@]}" --baseline --format json -o base.json
if ! command -v xmllint >/dev/null; then
	skip xmllint "xmllint (libxml2-utils) is not installed"
else
	if xmllint --noout pic.svg 2>err.txt; then pass svg-valid-xml; else fail svg-valid-xml "$(head -c 300 err.txt)"; fi
	S="//*[local-name()='svg']"
	[ "$(xcount pic.svg "$S/*[local-name()='title']")" = 1 ] &&
		[ "$(xcount pic.svg "$S/*[local-name()='desc']")" = 1 ] &&
		[ "$(xmllint --xpath "string($S/@role)" pic.svg)" = img ] &&
		pass svg-title-desc || fail svg-title-desc "no root title/desc/role"
	# 6 nodes x 4 GPUs, in each of the two views; every GPU has a title.
	gpus=$(xcount pic.svg "//*[local-name()='rect'][starts-with(@class,'gpu')]")
	titled=$(xcount pic.svg "//*[local-name()='rect'][starts-with(@class,'gpu')][*[local-name()='title']]")
	[ "$gpus" = 48 ] && [ "$titled" = 48 ] && pass svg-gpu-count || fail svg-gpu-count "$gpus GPU squares, $titled with titles; want 48"
	want=$(python3 -c 'import json,sys; print(sum(json.load(open(f))["validation"]["pp_cross"] for f in sys.argv[1:]))' map.json base.json)
	lines=$(xcount pic.svg "//*[local-name()='line'][@class='cross']")
	[ "$lines" = "$want" ] && [ "$want" -gt 0 ] && pass svg-crossings || fail svg-crossings "$lines lines, reports say $want"
	# The spoken title names the rank's coordinates, host and GPU.
	r5=$(python3 -c 'import json; r=json.load(open("map.json"))["ranks"][5]; print("rank 5: tp=%d pp=%d dp=%d, %s GPU %d" % (r["tp"], r["pp"], r["dp"], r["host"], r["local_gpu"]))')
	xmllint --xpath "//*[local-name()='title']/text()" pic.svg | grep -qxF "$r5" &&
		pass svg-rank-title || fail svg-rank-title "no title '$r5'"
fi

# TP=8 on nodes of 4 GPUs leaves the NVLink domain: the baseline draws it
# (the plan refuses), with every GPU of the 4 split groups outlined red.
run split-refused 1 "$RANKMAP" plan --layout 8x1x4 --gpus-per-node 4 --topology topo.conf --nodes 'n[1-6]' --format svg
printf '%s\n' 'rank host local_gpu' >a.txt
for r in $(seq 0 15); do echo "$r n$((r / 4 + 1)) $((r % 4))"; done >>a.txt
run split-svg 1 "$RANKMAP" check --assignment a.txt --layout 8x1x2 --gpus-per-node 4 --topology topo.conf --format svg -o split.svg
red=$(xcount split.svg "//*[local-name()='rect'][@class='gpu split']")
[ "$red" = 16 ] && pass svg-split-red || fail svg-split-red "$red red GPUs, want 16 (2 split TP groups of 8)"
has svg-split-fail split.svg 'FAIL  TP groups inside one NVLink domain \(2 of 2 split\)'

# check --map draws too, beside its baseline, into -o.
run check-html 0 "$RANKMAP" check --map map.json --topology topo.conf --baseline --format html -o check.html
has html-views check.html '"name":"rankmap".*|"name":"baseline \(Slurm block order\)"'
# Self-contained: a CSP that forbids fetching anything, no external URL.
has html-csp check.html "Content-Security-Policy\" content=\"default-src 'none'"
hasnt html-no-network check.html '(src|href)="?(https?:)?//|@import|fetch\('

# Multi-node NVLink domains are drawn inside their leaf: GB200's 8 racks
# of 18 trays in one rail unit. A block that is itself the leaf (topology/
# block, no units) gets no second box.
run gb200-svg 0 "$RANKMAP" plan --layout tp=8,pp=4,dp=auto --site "$RM_ROOT/site/gb200-nvl72/site.yaml" \
	--nodes 'nvl[01-08]n[01-18]' --format svg -o gb.svg
n=$(grep -c '<rect class="dom"' gb.svg)
[ "$n" = 8 ] && grep -q '>rack8</text>' gb.svg && pass gb200-racks || fail gb200-racks "$n domain boxes, want 8"
printf 'BlockName=b1 Nodes=m[1-4]\nBlockName=b2 Nodes=m[5-8]\nBlockSizes=4\n' >block.conf
run block-svg 0 "$RANKMAP" plan --layout 4x2x4 --gpus-per-node 4 --topology block.conf --nodes 'm[1-8]' --format svg -o block.svg
[ "$(grep -c '<rect class="dom"' block.svg)" = 0 ] && [ "$(grep -c '<rect class="leaf"' block.svg)" = 2 ] &&
	pass block-is-leaf || fail block-is-leaf "$(grep -c '<rect class="dom"' block.svg) domain boxes, $(grep -c '<rect class="leaf"' block.svg) leaves"

# Host names are data, never markup: a map whose hosts contain '<', '&'
# and quotes still gives a page with only its own two </script> and an SVG
# that is valid XML.
cat >odd.json <<'JSON'
{"schema":"rankmap-map/1","layout":"tp=2,pp=2,dp=1","order":{"name":"nest","permutation":"tp-pp-dp"},
"world_size":4,"gpus_per_node":2,"nodes":[{"host":"a<script>x"},{"host":"b&amp;\"'</script>"}],
"ranks":[
{"rank":0,"host":"a<script>x","node":0,"local_gpu":0,"tp":0,"pp":0,"dp":0},
{"rank":1,"host":"a<script>x","node":0,"local_gpu":1,"tp":1,"pp":0,"dp":0},
{"rank":2,"host":"b&amp;\"'</script>","node":1,"local_gpu":0,"tp":0,"pp":1,"dp":0},
{"rank":3,"host":"b&amp;\"'</script>","node":1,"local_gpu":1,"tp":1,"pp":1,"dp":0}]}
JSON
run odd-html 0 "$RANKMAP" check --map odd.json --format html -o odd.html
n=$(grep -o '</script' odd.html | wc -l)
[ "$n" = 2 ] && grep -qF '"a\u003cscript>x"' odd.html && pass odd-html-escaped || fail odd-html-escaped "$n </script in the page"
run odd-svg 0 "$RANKMAP" check --map odd.json --format svg -o odd.svg
if command -v xmllint >/dev/null && xmllint --noout odd.svg 2>/dev/null &&
	grep -qF 'aria-label="b&amp;amp;&quot;&#39;&lt;/script&gt;"' odd.svg; then
	pass odd-svg-escaped
else
	fail odd-svg-escaped "not valid XML or the name is not escaped"
fi

# Colour by offers every axis the map file shows, expert axes included,
# each as the digits of RANK it is made of (the page decodes coordinates).
run axes 0 "$RANKMAP" plan --layout tp=2,cp=2,ep=2,pp=2,dp=auto --order megatron \
	--gpus-per-node 8 --topology topo.conf --nodes 'n[1-6]' --format html -o axes.html
has axes-listed axes.html '"axes":\[\["tp",2,\[\[1,2,1\]\]\],\["cp",2,[^]]*\]\]\],\["ep",2,[^]]*\]\]\],\["etp",2,[^]]*\]\]\],\["edp",6,[^]]*\]\]\],\["pp",2,\[\[24,2,1\]\]\],\["dp",6,'

# Bad requests say what is wrong.
run rank-with-picture 2 "$RANKMAP" plan "${P[@]}" --format html --rank 3
run check-csv 2 "$RANKMAP" check --map map.json --format csv
has check-csv-msg "$ERR" 'text, json, html or svg'
run unknown-format 2 "$RANKMAP" plan "${P[@]}" --format png
has unknown-format-msg "$ERR" "unknown format 'png'.*html, svg"

# Where NVLink domains cannot hold every EP group, the header says how
# many are cut, as `check` does (docs/placement.md's racks of 17, 17 and
# 9 trays: 1 of 21), in the "cut" style, and a fabric where every group
# fits has no such line.
G="$RM_ROOT/site/gb200-nvl72/site.yaml"
run ep-cut-svg 0 "$RANKMAP" plan --layout tp=1,ep=8,dp=auto --site "$G" \
	--nodes 'nvl0[1-2]n[01-17],nvl03n[01-09]' --format svg -o epcut.svg
has ep-cut-line epcut.svg 'class="cut"[^>]*>CUT +EP groups cut across NVLink domains: 1 of 21<'
run ep-whole-svg 0 "$RANKMAP" plan --layout tp=1,ep=8,dp=auto --site "$G" \
	--nodes 'nvl0[1-2]n[01-18]' --format svg -o epwhole.svg
hasnt ep-whole-no-line epwhole.svg 'EP groups cut across'

# docs/picture.md's size table is a test: its 16,384-GPU row is what this
# version writes for that case, within 3 % (the 131,072-GPU row takes a
# minute of a 2-core machine and is left to `make bench`).
S="$RM_ROOT/site/llama3-roce/site.yaml"
Q=(--site "$S" --layout 8x16x128 --nodes 'gpu[0001-2048]')
"$RANKMAP" plan "${Q[@]}" --format html -o p16.html &&
	"$RANKMAP" plan "${Q[@]}" --format html --baseline -o b16.html &&
	"$RANKMAP" plan "${Q[@]}" --format svg -o p16.svg &&
	"$RANKMAP" plan "${Q[@]}" --format svg --baseline -o b16.svg &&
	"$RANKMAP" plan "${Q[@]}" --format json -o m16.json || fail doc-sizes-write "plan failed"
if out=$(python3 - "$RM_ROOT/docs/picture.md" p16.html b16.html p16.svg b16.svg m16.json <<'PY'
import os, re, sys
row = next(l for l in open(sys.argv[1]) if l.startswith("| 16,384 |"))
cells = [c.strip() for c in row.strip().strip("|").split("|")][1:]
unit = {"KB": 1e3, "MB": 1e6}
bad = []
for cell, f in zip(cells, sys.argv[2:]):
    v, u = cell.split()
    doc, got = float(v) * unit[u], os.path.getsize(f)
    if abs(got - doc) > 0.03 * doc:
        bad.append("%s: docs say %s, this version writes %d bytes" % (f, cell, got))
print("; ".join(bad) or "%d sizes as documented" % len(cells))
sys.exit(1 if bad or len(cells) != 5 else 0)
PY
); then pass doc-sizes-16k; else fail doc-sizes-16k "$out"; fi
finish
