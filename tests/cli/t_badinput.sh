#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every class of bad input exits 2 with one "rankmap <cmd>: " line naming the
# file:line:col or the offending value - never a crash, never exit 0/1.
source "$(dirname "$0")/../lib.sh"
in_tmp
two_leaves 'n[1-4]' 'n[5-8]' >topo.conf
P=(--gpus-per-node 4 --topology topo.conf)

# bad NAME PATTERN CMD... : exit 2, exactly one stderr line, prefixed
# "rankmap <cmd>: " and matching PATTERN, no usage text, no sanitizer report.
bad() {
	local name=$1 pat=$2
	shift 2
	run "$name" 2 "$@"
	if [ "$(wc -l <"$ERR")" -eq 1 ] && grep -qE "^rankmap [a-z]+: " "$ERR" &&
		grep -qE -- "$pat" "$ERR" &&
		! grep -qE 'Sanitizer|runtime error' "$ERR"; then
		pass "$name-msg"
	else
		fail "$name-msg" "want /$pat/ in: $(head -c 400 "$ERR")"
	fi
}

# Layout syntax.
bad layout-zero "layout.*0" "$RANKMAP" plan "${P[@]}" --layout 8x0x2 --nodes 'n[1-8]'
bad layout-junk "layout.*'?8xx2" "$RANKMAP" plan "${P[@]}" --layout 8xx2 --nodes 'n[1-8]'
bad layout-axis "zz" "$RANKMAP" plan "${P[@]}" --layout tp=4,zz=2 --nodes 'n[1-8]'
bad layout-huge "2\^24|16777216|too large|absurd" "$RANKMAP" plan "${P[@]}" --layout 4096x4096x4096 --nodes 'n[1-8]'
bad order-bad "order" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --order tp-tp-dp --nodes 'n[1-8]'
bad layout-missing "--layout is required" "$RANKMAP" plan "${P[@]}" --nodes 'n[1-8]'

# Hostlists, on the command line and in a nodes file.
bad hostlist-open "n\[1-" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-'
printf 'n[1-4]\n\nn[5-\n' >nodes.txt
bad nodes-file-line "nodes.txt:3:1:" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes-file nodes.txt
bad no-nodes "no nodes" env -u SLURM_JOB_NODELIST -u SLURM_STEP_NODELIST "$RANKMAP" plan "${P[@]}" --layout 4x2x2
bad unknown-node "n99" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-3],n99'

# topology.conf.
printf 'SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Nodes=n[5-\n' >badtopo.conf
bad topology-line "badtopo.conf:2" "$RANKMAP" plan --gpus-per-node 4 --topology badtopo.conf --layout 4x2x2 --nodes 'n[1-8]'
printf 'SwitchName=s1 Nodez=n[1-4]\n' >badtopo2.conf
bad topology-key "badtopo2.conf:1" "$RANKMAP" plan --gpus-per-node 4 --topology badtopo2.conf --layout 4x2x2 --nodes 'n[1-4]'

# Site YAML.
printf 'schema: rankmap-site/1\ngpus_per_node: 4\ncolour: blue\n' >site.yaml
bad site-key "site.yaml:3:1" "$RANKMAP" plan --site site.yaml --layout 4x2x2 --nodes 'n[1-8]'
printf 'schema: rankmap-site/1\ngpus_per_node: [4\n' >site2.yaml
bad site-syntax "site2.yaml:[0-9]+:[0-9]+" "$RANKMAP" plan --site site2.yaml --layout 4x2x2 --nodes 'n[1-8]'
# defaults.hw: a preset name only (the plugin may read the file as root),
# refused at load by every command that reads the site, presets listed.
hw_site() { printf 'schema: rankmap-site/1\ngpus_per_node: 4\ndefaults:\n  hw: %s\n' "$1" >"$2"; }
hw_site b300 hw1.yaml
bad site-hw-unknown "hw1.yaml:4:7: defaults.hw must be a hardware preset \(a100-sxm-80gb, h100-sxm-80gb, h200, gb200-nvl72, gb200-nvl36x2 or gb300-nvl72\), got 'b300'$" \
	"$RANKMAP" explain --model llama3-8b --site hw1.yaml --topology topo.conf --layout 4x2x1 --nodes 'n[1-2]'
bad site-hw-unknown-plan "hw1.yaml:4:7: defaults.hw" "$RANKMAP" plan --site hw1.yaml --topology topo.conf --layout 4x2x1 --nodes 'n[1-2]'
bad site-hw-unknown-validate "hw1.yaml:4:7: defaults.hw" "$RANKMAP" site validate hw1.yaml
hw_site /etc/passwd hw2.yaml
bad site-hw-path "hw2.yaml:4:7: .*got '/etc/passwd': a hardware file is given with --hw, not in a site file" \
	"$RANKMAP" explain --model llama3-8b --site hw2.yaml --topology topo.conf --layout 4x2x1 --nodes 'n[1-2]'
hw_site '[gb200-nvl72]' hw3.yaml
bad site-hw-list "hw3.yaml:4:7: defaults.hw must be a single value" \
	"$RANKMAP" explain --model llama3-8b --site hw3.yaml --topology topo.conf --layout 4x2x1 --nodes 'n[1-2]'
hw_site "{name: gb200-nvl72}" hw4.yaml
bad site-hw-map "hw4.yaml:4:7: defaults.hw must be a single value" \
	"$RANKMAP" check --assignment /dev/null --model llama3-8b --site hw4.yaml --topology topo.conf --layout 4x2x1 --nodes 'n[1-2]'
hw_site "$(printf 'gb200-nvl72%.0s' {1..20})" hw5.yaml
bad site-hw-long "hw5.yaml:4:7: defaults.hw must be 1 to 128 characters long, got 220" \
	"$RANKMAP" explain --model llama3-8b --site hw5.yaml --topology topo.conf --layout 4x2x1 --nodes 'n[1-2]'

# Map files.
"$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-8]' --format json -o map.json
head -c 700 map.json >trunc.json
bad map-truncated "trunc.json:[0-9]+:[0-9]+" "$RANKMAP" check --map trunc.json --topology topo.conf
sed 's/"rank":3,/"rank":2,/' map.json >dup.json
bad map-dup-rank "dup.json:[0-9]+:[0-9]+: rank 2 appears twice" "$RANKMAP" check --map dup.json --topology topo.conf
sed 's/rankmap-map\/1/rankmap-map\/9/' map.json >schema.json
bad map-schema "schema.json:2:[0-9]+: schema 'rankmap-map/9'" "$RANKMAP" check --map schema.json --topology topo.conf

# Assignment files.
printf '0 n1 0\n1 n1 1\n1 n1 2\n' >dup.txt
bad assign-dup "dup.txt:3:1: rank 1 again" "$RANKMAP" check --assignment dup.txt --layout 2x1x2 --gpus-per-node 4
printf '0 n1 0\n1 n1 7\n' >gpu.txt
bad assign-gpu "gpu.txt:2:6: local_gpu 7" "$RANKMAP" check --assignment gpu.txt --layout 2x1x1 --gpus-per-node 4
printf '0 n1 0\n1 n1 0\n' >same.txt
bad assign-same-gpu "same.txt:2:1: .*both on GPU 0 of n1" "$RANKMAP" check --assignment same.txt --layout 2x1x1 --gpus-per-node 4
printf '0 n1 0\nl n1 1\n' >num.txt
bad assign-number "num.txt:2:1: rank 'l'" "$RANKMAP" check --assignment num.txt --layout 2x1x1 --gpus-per-node 4
printf '0 n1 0\n' >short.txt
bad assign-missing "short.txt: .*rank 1 is missing" "$RANKMAP" check --assignment short.txt --layout 2x1x1 --gpus-per-node 4

# Missing, oversized and binary files, wherever a file is read.
bad missing-topology "/nonexistent/topo.conf" "$RANKMAP" plan --topology /nonexistent/topo.conf --layout 4x2x2 --nodes 'n[1-8]'
bad missing-map "/nonexistent/map.json" "$RANKMAP" check --map /nonexistent/map.json
bad missing-site "/nonexistent/site.yaml" "$RANKMAP" plan --site /nonexistent/site.yaml --layout 4x2x2 --nodes 'n[1-8]'
bad directory-map "not a regular file" "$RANKMAP" check --map "$T"
truncate -s 70M huge.json
# past 64 MiB a map is streamed (a million GPUs is 145 MB): still checked
bad oversized-map "huge.json:1:1: NUL byte" "$RANKMAP" check --map huge.json
bad oversized-topology "huge.json.*more than" "$RANKMAP" plan --topology huge.json --layout 4x2x2 --nodes 'n[1-8]'
bad oversized-nodes "huge.json.*more than" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes-file huge.json
rm -f huge.json
head -c 4096 /dev/urandom >garbage.bin
printf '\x7fELF\x02\x01\x01\x00\x00' >>garbage.bin
bad garbage-map "garbage.bin" "$RANKMAP" check --map garbage.bin
bad garbage-topology "garbage.bin" "$RANKMAP" plan --topology garbage.bin --layout 4x2x2 --nodes 'n[1-8]'
bad garbage-site "garbage.bin" "$RANKMAP" plan --site garbage.bin --layout 4x2x2 --nodes 'n[1-8]'
bad garbage-assignment "garbage.bin" "$RANKMAP" check --assignment garbage.bin --layout 2x1x1
bad garbage-nodes "garbage.bin" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes-file garbage.bin

# Options.
bad unknown-option "--frobnicate" "$RANKMAP" plan --frobnicate
bad format "unknown format 'xml'" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-8]' --format xml
bad rank-without-env "--rank goes with --format env" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-8]' --rank 3
bad rank-outside "rank 99" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-8]' --format env --rank 99
bad port-zero "--master-port '0': expected a TCP port from 1 to 65535" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-8]' --format env --master-port 0
bad port-big "--master-port '65536'" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-8]' --format env --master-port 65536
bad port-junk "--master-port '29500x'" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-8]' --format env --master-port=29500x
bad port-without-env "--master-port goes with --format env" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-8]' --format json --master-port 29500
bad port-job-id "SLURM_JOB_ID='12a'" env SLURM_JOB_ID=12a "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-8]' --format env
bad port-step-id "SLURM_STEP_ID='-1'" env -u SLURM_JOB_ID SLURM_STEP_ID=-1 "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-8]' --format env
bad gpn-zero "--gpus-per-node '0'" "$RANKMAP" plan --gpus-per-node 0 --layout 4x2x2 --nodes 'n[1-8]'
bad value-missing "--layout needs a value" "$RANKMAP" plan --layout
bad twice "--layout given twice" "$RANKMAP" plan --layout 4x2x2 --layout 4x2x2
bad output-dir "/nonexistent/dir/m.json" "$RANKMAP" plan "${P[@]}" --layout 4x2x2 --nodes 'n[1-8]' -o /nonexistent/dir/m.json
finish
