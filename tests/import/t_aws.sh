#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap site import --aws: `aws ec2 describe-instance-topology` output as
# AWS documents it (Instances[].NetworkNodes top-down, CapacityBlockId for
# UltraServers), written by the project in tests/import/data; bad input
# with file:line:col.
. "$(dirname "$0")/../lib.sh"
SUITE=import/aws
need_rankmap
DATA=$RM_ROOT/tests/import/data
in_tmp
mkdir -p out
run import 0 "$RANKMAP" site import --aws "$DATA/aws-topology.json" --out out
has found "$OUT" 'topology +5 nodes, 6 switches \(3 leaves, 3 levels, 1 top-level\)'
has blocks "$OUT" 'CapacityBlockId +2 nodes, 1 NVLink domain of up to 2 nodes'
has no-path "$OUT" 'instances without NetworkNodes +1$'
has leaf out/topology.conf '^SwitchName=nn-3333 Nodes=i-\[0001-0002\]$'
has middle out/topology.conf '^SwitchName=nn-4444 Switches=nn-\[5555,6666\]$'
has top out/topology.conf '^SwitchName=nn-1111 Switches=nn-\[2222,4444\]$'
has groups out/site.yaml '^  groups: \["i-\[0004-0005\]"\]$'
run validate 0 "$RANKMAP" site validate out/site.yaml
has validate-fabric "$OUT" '5 nodes .*6 switches: 3 leaves, 3 levels, 1 top-level'
run stdin 0 sh -c "\"$RANKMAP\" site import --aws - <\"$DATA/aws-topology.json\""

bad() { # NAME PATTERN JSON
	printf '%s\n' "$3" >bad.json
	run "bad/$1" 2 "$RANKMAP" site import --aws bad.json
	has "bad/$1-msg" "$ERR" "$2"
}
bad layers 'bad.json:3:.*network node nn-2 is 1 levels above one node and 0 above another' '{"Instances": [
 {"InstanceId": "i-1", "NetworkNodes": ["nn-1", "nn-2"]},
 {"InstanceId": "i-2", "NetworkNodes": ["nn-1", "nn-2", "nn-3"]}]}'
bad two-parents 'bad.json:3:.*network node nn-3 is under both nn-2 and nn-9' '{"Instances": [
 {"InstanceId": "i-1", "NetworkNodes": ["nn-1", "nn-2", "nn-3"]},
 {"InstanceId": "i-2", "NetworkNodes": ["nn-1", "nn-9", "nn-3"]}]}'
bad quote 'bad.json:1:31: InstanceId .*letters, digits' '{"Instances": [{"InstanceId": "i-\"1", "NetworkNodes": ["nn-1"]}]}'
bad twice 'bad.json:3:.*node i-1 is listed twice' '{"Instances": [
 {"InstanceId": "i-1", "NetworkNodes": ["nn-1", "nn-2"]},
 {"InstanceId": "i-1", "NetworkNodes": ["nn-1", "nn-3"]}]}'
bad too-deep 'bad.json:1:.*9 layers, at most 8' '{"Instances": [{"InstanceId": "i-1", "NetworkNodes": ["a","b","c","d","e","f","g","h","i"]}]}'
bad no-id 'bad.json:1:16: an instance without InstanceId' '{"Instances": [{"NetworkNodes": ["nn-1"]}]}'
bad not-json 'bad.json:[0-9]+:[0-9]+: ' '{"Instances": [ {'
bad no-instances 'no "Instances"' '{"Reservations": []}'
bad no-paths 'no instance has NetworkNodes' '{"Instances": [{"InstanceId": "i-1"}]}'
bad alias 'bad.json:.*alias' '{"Instances": [&a {"InstanceId": "i-1", "NetworkNodes": ["nn-1"]}, *a]}'
finish
