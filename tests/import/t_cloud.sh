#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap site import --gcp and --oci: Google Cloud's instance list
# (resourceStatus.physicalHostTopology, and the older physicalHost path)
# and Oracle Cloud's per-node rdmaTopologyData, in documents the project
# wrote in those documented formats (tests/import/data); the tree, the
# NVLink groups, what was left out, and bad input with file:line:col.
. "$(dirname "$0")/../lib.sh"
SUITE=import/cloud
need_rankmap
DATA=$RM_ROOT/tests/import/data
in_tmp
mkdir -p g o

run gcp 0 "$RANKMAP" site import --gcp "$DATA/gcp-instances.json" --out g
has gcp-found "$OUT" 'topology +5 nodes, 6 switches \(3 leaves, 3 levels, 1 top-level\)'
has gcp-unplaced "$OUT" 'instances without a physical topology +1$'
has gcp-subblock g/topology.conf '^SwitchName=subblock0 Nodes=a3-\[0001-0002\]$'
has gcp-path-form g/topology.conf '^SwitchName=subblock2 Nodes=a3-\[0004-0005\]$'
has gcp-block g/topology.conf '^SwitchName=block0 Switches=subblock\[0-1\]$'
has gcp-top g/topology.conf '^SwitchName=cluster0 Switches=block\[0-1\]$'
has gcp-stands-for g/topology.conf '^# block1: 77bb01$'
run gcp-validate 0 "$RANKMAP" site validate g/site.yaml
run gcp-plan 0 "$RANKMAP" plan --topology g/topology.conf --layout 8x2x1 \
	--nodes 'a3-[0001-0004]' --gpus-per-node 8
has gcp-plan-pp "$OUT" 'pipeline +8 neighbour pairs: 0 same node, 8 same leaf, 0 same rail, 0 cross'

# the same tree as Slurm 25.05+'s topology.yaml, planned the same way
has gcp-yaml g/topology.yaml '^- topology: default$'
has gcp-yaml-leaf g/topology.yaml '^      nodes: "a3-\[0001-0002\]"$'
run gcp-plan-yaml 0 "$RANKMAP" plan --topology g/topology.yaml --layout 8x2x1 \
	--nodes 'a3-[0001-0004]' --gpus-per-node 8
has gcp-plan-yaml-pp "$OUT" 'pipeline +8 neighbour pairs: 0 same node, 8 same leaf, 0 same rail, 0 cross'

run oci 0 "$RANKMAP" site import --oci "$DATA/oci-rdma-topology.yaml" --out o
has oci-found "$OUT" 'topology +4 nodes, 6 switches \(3 leaves, 3 levels, 1 top-level\)'
has oci-fabric "$OUT" 'customerGpuMemoryFabric +2 nodes, 1 NVLink domain of up to 2 nodes'
has oci-unplaced "$OUT" 'nodes without RDMA topology data +1$'
has oci-leaf o/topology.conf '^SwitchName=localblock0 Nodes=gpu-\[001-002\]$'
has oci-whole-doc o/topology.conf '^SwitchName=localblock2 Nodes=gpu-004$'
has oci-top o/topology.conf '^SwitchName=island0 Switches=netblock\[0-1\]$'
has oci-ocid o/topology.conf '^# localblock0: ocid1\.computelocalblock\.oc1\.iad\.lb1$'
has oci-groups o/site.yaml '^  groups: \["gpu-\[001-002\]"\]$'
run oci-validate 0 "$RANKMAP" site validate o/site.yaml
run oci-stdin 0 sh -c "\"$RANKMAP\" site import --oci - <\"$DATA/oci-rdma-topology.yaml\""

bad() { # NAME FLAG PATTERN TEXT
	printf '%s\n' "$4" >bad.txt
	run "bad/$1" 2 "$RANKMAP" site import "$2" bad.txt
	has "bad/$1-msg" "$ERR" "$3"
}
T='"cluster": "c1", "block": "b1", "subblock"'
bad gcp-two-parents --gcp 'bad.txt:2:.*subblock s1 is under both b1 and b2' "[{\"name\": \"n1\", \"resourceStatus\": {\"physicalHostTopology\": {$T: \"s1\"}}},
 {\"name\": \"n2\", \"resourceStatus\": {\"physicalHostTopology\": {\"cluster\": \"c1\", \"block\": \"b2\", \"subblock\": \"s1\"}}}]"
bad gcp-levels --gcp 'bad.txt:2:.*block b1 is 0 levels above one node and 1 above another' "[{\"name\": \"n1\", \"resourceStatus\": {\"physicalHostTopology\": {$T: \"s1\"}}},
 {\"name\": \"n2\", \"resourceStatus\": {\"physicalHostTopology\": {\"cluster\": \"c2\", \"block\": \"b1\"}}}]"
bad gcp-twice --gcp 'bad.txt:2:.*node n1 is listed twice' "[{\"name\": \"n1\", \"resourceStatus\": {\"physicalHostTopology\": {$T: \"s1\"}}},
 {\"name\": \"n1\", \"resourceStatus\": {\"physicalHostTopology\": {$T: \"s2\"}}}]"
bad gcp-name --gcp 'bad.txt:1:11: instance name .*letters, digits' '[{"name": "n\"1;rm", "resourceStatus": {}}]'
bad gcp-newline-id --gcp 'bad.txt:1:.*block .*printable, no blanks' '[{"name": "n1", "resourceStatus": {"physicalHostTopology": {"cluster": "c", "block": "b\nSwitchName=x"}}}]'
bad gcp-path --gcp 'bad.txt:1:.*physicalHost .*not /CLUSTER/BLOCK' '[{"name": "n1", "resourceStatus": {"physicalHost": "c1-b1-h1"}}]'
bad gcp-not-list --gcp 'not `gcloud compute instances list' '{"items": []}'
bad gcp-none --gcp 'no instance has a resourceStatus.physicalHostTopology' '[{"name": "n1"}]'
bad gcp-truncated --gcp 'bad.txt:[0-9]+:[0-9]+: ' '[{"name": "n1", "resourceStatus": {'
bad oci-half --oci 'bad.txt:1:.*n1: customerNetworkBlock without customerLocalBlock' 'n1: {"customerHPCIslandId": "i", "customerNetworkBlock": "nb"}'
bad oci-not-map --oci 'not a mapping of node name' '- n1'
bad oci-alias --oci 'bad.txt:.*alias' 'n1: &a {"customerHPCIslandId": "i", "customerNetworkBlock": "nb", "customerLocalBlock": "lb"}
n2: *a'
bad oci-none --oci 'no node has customerLocalBlock' 'n1: {"rackId": "r"}'
finish
