#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap site import --ibnetdiscover: generated captures (tests/gen/gen_ibnd.py,
# both forms, with the messy cases real captures hold) and, where
# ../shared is there, the real DGX H100 capture checked against an
# independent count of its wiring (tests/import/count_ibnd.py).
. "$(dirname "$0")/../lib.sh"
SUITE=import/ibnd
need_rankmap
GEN=$RM_ROOT/tests/gen/gen_ibnd.py
COUNT=$RM_ROOT/tests/import/count_ibnd.py
in_tmp

# report_is NAME LABEL VALUE: the report line LABEL reads VALUE (first word)
report_is() {
	local got
	got=$(grep -E "^  $2 " "$OUT" | head -1 | sed -E "s/^  $2 +//" | awk '{sub(/:$/, "", $1); print $1}')
	if [ "$got" = "$3" ]; then pass "$1"; else
		fail "$1" "report '$2': got '$got', expected '$3'"; fi
}

for form in plain ports; do
	python3 "$GEN" --units 3 --hosts 4 --rails 4 --spines 2 --cables 2 \
		--messy --form "$form" >"cap-$form.txt"
	mkdir -p "out-$form"
	run "$form/import" 0 "$RANKMAP" site import --ibnetdiscover "cap-$form.txt" \
		--out "out-$form" --gpus-per-node 8 --hosts 'node*'
	report_is "$form/leaves" leaves 12
	report_is "$form/tiers" tiers 2
	report_is "$form/units" "rail units" 3
	has "$form/unit-hosts" "$OUT" 'su1 +4 rails, 4 hosts node\[0001-0004\]'
	report_is "$form/nohost" "HCAs whose description names no host" 1
	report_is "$form/sharp" "SHARP aggregation nodes" 14
	report_is "$form/localhost" "HCAs of hosts named localhost" 1
	report_is "$form/filtered" "HCAs of hosts left out by --hosts" 2
	report_is "$form/off-rail" "hosts cabled off their rails" 1
	report_is "$form/missing-hca" "hosts with fewer HCAs than rails" 2
	has "$form/double-cables" "$OUT" '24 pairs with 2'
	if [ "$form" = plain ]; then
		report_is "$form/partial" "nodes seen only as a remote end" 1
		report_is "$form/one-end" "links seen at one end only" 1
	fi
	run "$form/validate" 0 "$RANKMAP" site validate "out-$form/site.yaml"
	has "$form/validate-units" "$OUT" 'rail units +3 of up to 4 nodes, 4 rails'
	has "$form/validate-levels" "$OUT" '12 nodes .*4 switches: 3 leaves, 2 levels, 1 top-level'
	has "$form/topology" "out-$form/topology.conf" '^SwitchName=su2 Nodes=node\[0005-0008\]$'
done

# Without --hosts the fabric manager joins unit 1 (and is reported off-rail).
run nofilter 0 "$RANKMAP" site import --ibnetdiscover cap-plain.txt
has nofilter/ufm "$OUT" 'su1 +4 rails, 5 hosts node\[0001-0004\],ufm01'
# A hostlist works as the filter too.
run hostlist 0 "$RANKMAP" site import --ibnetdiscover cap-plain.txt --hosts 'node[0005-0012]'
report_is hostlist/units "rail units" 2

# PP neighbours stay on the rails of one unit: 4 nodes x 8 GPUs, pp=4.
python3 "$GEN" --units 4 --hosts 8 --rails 8 --spines 4 >big.txt
mkdir -p big
run big/import 0 "$RANKMAP" site import --ibnetdiscover big.txt --out big --gpus-per-node 8
run big/plan 0 "$RANKMAP" plan --site big/site.yaml --layout 8x8x4 --nodes 'node[0001-0032]'
has big/plan-rails "$OUT" 'pipeline +[0-9]+ neighbour pairs: .* 0 cross \(lower bound 0\)'

# --against: an admin's own topology.conf next to the fabric.
run against/same 0 "$RANKMAP" site import --ibnetdiscover cap-plain.txt --hosts 'node*' \
	--against out-plain/topology.conf
has against/same-msg "$OUT" 'no difference'
printf '%s\n' 'SwitchName=leafA Nodes=node[0001-0004],node0005' \
	'SwitchName=leafB Nodes=node[0006-0008]' 'SwitchName=leafC Nodes=node[0009-0011],ghost7' >hand.conf
run against/differs 1 "$RANKMAP" site import --ibnetdiscover cap-plain.txt --hosts 'node*' --against hand.conf
has against/moved "$OUT" '^  node0005: under leafA in hand.conf, with hosts the fabric puts under su1; the fabric puts it under su2$'
has against/missing "$OUT" '^  node0012: in the fabric \(under su3\), missing from hand.conf$'
has against/extra "$OUT" '^  ghost7: under leafC in hand.conf, not in the capture'
has against/levels "$OUT" '^  levels: hand.conf has 1 switch level, the fabric 2$'
printf 'SwitchName=a Nodes=n[1-2]\nSwitchName=b Switches=zz\n' >badhand.conf
run against/bad-file 2 "$RANKMAP" site import --ibnetdiscover cap-plain.txt --against badhand.conf
has against/bad-file-msg "$ERR" 'badhand.conf:2:[0-9]+: '

# Bad input: file:line:col, exit 2, nothing written.
bad() { # NAME PATTERN TEXT
	printf '%b' "$3" >bad.txt
	mkdir -p badout
	run "bad/$1" 2 "$RANKMAP" site import --ibnetdiscover bad.txt --out badout
	has "bad/$1-msg" "$ERR" "$2"
	if [ -e badout/topology.conf ]; then fail "bad/$1-nothing-written" "badout/topology.conf written"; else pass "bad/$1-nothing-written"; fi
}
SW='Switch\t3 "S-0000000000000001"\t\t# "MF0;L1:X" enhanced port 0 lid 1 lmc 0\n'
H='"H-00000000000000a1"[1](00000000000000a1) '
bad garbage 'bad.txt:1:1: not an ibnetdiscover line' 'hello world\n'
bad port-before 'bad.txt:1:1: a port line before' "[1]\t$H\t\t# \"h1 mlx5_0\" lid 2 4xNDR\n"
bad self-loop 'bad.txt:2:1: wiring loop' "$SW[1]\t\"S-0000000000000001\"[2]\t\t# \"MF0;L1:X\" lid 1 4xNDR\n"
bad twice 'bad.txt:3:1: .*port 1 is cabled to .*line 2' "$SW[1]\t$H\t\t# \"h1 mlx5_0\" lid 2 4xNDR\n[1]\t\"H-00000000000000a2\"[1](00000000000000a2) \t\t# \"h2 mlx5_0\" lid 3 4xNDR\n"
bad quote-in-name "bad.txt:3:.*not a host name" "$SW[1]\t$H\t\t# \"h1 mlx5_0\" lid 2 4xNDR\nCa\t1 \"H-00000000000000a1\"\t\t# \"h\\\"1 mlx5_0\"\n"
bad two-leaves 'bad.txt:.*HCA mlx5_0 is cabled to two switches' "$SW[1]\t$H\t\t# \"h1 mlx5_0\" lid 2 4xNDR\nSwitch\t3 \"S-0000000000000002\"\t\t# \"MF0;L2:X\" lid 4 lmc 0\n[1]\t\"H-00000000000000a1\"[2](00000000000000a1) \t\t# \"h1 mlx5_0\" lid 2 4xNDR\n"
bad same-hca-two-leaves 'two HCAs called mlx5_0 on two leaves' "$SW[1]\t$H\t\t# \"h1 mlx5_0\" lid 2 4xNDR\nSwitch\t3 \"S-0000000000000002\"\t\t# \"MF0;L2:X\" lid 4 lmc 0\n[1]\t\"H-00000000000000a2\"[1](00000000000000a2) \t\t# \"h1 mlx5_0\" lid 3 4xNDR\n"
bad long-desc 'bad.txt:1:.*an IB NodeDescription holds at most 64' "Switch\t3 \"S-0000000000000001\"\t\t# \"$(printf 'x%.0s' $(seq 70))\" lid 1\n"
bad control 'bad.txt:1:.*control byte 0x01' 'Switch\t3 "S-0000000000000001"\t\t# "a\001b" lid 1\n'
bad truncated 'bad.txt:2:.*expected a port number' "$SW[1\n"
bad bad-guid 'bad.txt:2:.*16 hex digits' "$SW[1]\t\"H-00000000000000a1zz\"[1]\t\t# \"h1 mlx5_0\" lid 2\n"
bad mixed-forms 'bad.txt:2:1: a ports-report' "$SW"'SW 1 1 0x0000000000000001 4x NDR - CA 2 1 0x00000000000000a1 ( '"'a' - 'h1 mlx5_0'"' )\n'
bad ports-ambiguous "bad.txt:1:.*more than one ' - '" "SW 1 1 0x0000000000000001 4x NDR - CA 2 1 0x00000000000000a1 ( 'a' - 'b' - 'h1 mlx5_0' )\n"
bad no-switch 'no switch in the capture' 'Ca\t1 "H-00000000000000a1"\t\t# "h1 HCA-1"\n'
bad empty 'not ibnetdiscover output' '# only a comment\n'
head -c 70000000 /dev/zero | tr '\0' '#' >huge.txt
run bad/oversized 2 "$RANKMAP" site import --ibnetdiscover huge.txt
has bad/oversized-msg "$ERR" 'huge.txt'

# The real capture (../shared), against an independent count.
CAP=${RM_SHARED:-$RM_ROOT/../shared}/fixtures/fabric
if [ -r "$CAP/dgx-h100-superpod.ibnetdiscover" ]; then
	mkdir -p dgx
	run real/import 0 "$RANKMAP" site import --ibnetdiscover "$CAP/dgx-h100-superpod.ibnetdiscover" \
		--hosts '*-dgx-*' --out dgx --gpus-per-node 8 --name dgx-h100
	awk '$1 ~ /^su[0-9]+$/ {print "unit", $2, $4}' "$OUT" | sort -k2,2n -k3,3n >got.txt
	python3 "$COUNT" "$CAP/dgx-h100-superpod.ibnetdiscover" '*-dgx-*' >want.txt
	if diff <(grep unit want.txt) got.txt >/dev/null; then pass real/units-match-wiring; else
		fail real/units-match-wiring "$(diff <(grep unit want.txt) got.txt | head -5)"; fi
	leaves=$(awk '$1=="leaves"{print $2}' want.txt) spines=$(awk '$1=="spines"{print $2}' want.txt)
	has real/tiers "$OUT" "tiers +2: tier 1 $leaves switches, tier 2 $spines switches"
	report_is real/leaves leaves "$leaves"
	run real/validate 0 "$RANKMAP" site validate dgx/site.yaml
	has real/validate-ok "$OUT" 'result: valid'
	# One unit's 18 hosts with pp=18: every PP pair (8 GPUs each) on one rail leaf.
	run real/plan 0 "$RANKMAP" plan --site dgx/site.yaml --layout 8x18x1 --nodes 'a07-p1-dgx-03-c[01-18]'
	has real/plan-rails "$OUT" 'pipeline +136 neighbour pairs: .* 136 same rail, 0 cross'
	# Two units: the crossings the bound forces, no more.
	run real/plan2 0 "$RANKMAP" plan --site dgx/site.yaml --layout 8x4x9 --nodes 'a07-p1-dgx-03-c[01-18],b05-p1-dgx-05-c[01-18]'
	has real/plan2-bound "$OUT" 'BEST +PP crossings ([0-9]+), lower bound \1: optimal'
	run real/one-hca 2 "$RANKMAP" site import --ibnetdiscover "$CAP/gb200-one-hca.ibnetdiscover"
	has real/one-hca-msg "$ERR" 'gb200-one-hca.ibnetdiscover: no switch in the capture \(1 CA, 0 links\)'
else
	skip real "no ../shared/fixtures/fabric (the real DGX H100 capture); generated captures only"
fi
finish
