#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rankmap site import --nvidia-smi DIR: NVLink domains from each node's
# `nvidia-smi -q` (its GPUs' Fabric sections, written here as nvidia-smi
# prints them: State, Status, CliqueId, ClusterUUID), alone and with a
# topology; bad input with file:line:col.
. "$(dirname "$0")/../lib.sh"
SUITE=import/nvsmi
need_rankmap
in_tmp

gpu() { # N STATE CLIQUE UUID
	printf 'GPU 0000000%d:00:00.0\n    Product Name                          : NVIDIA GB200\n    Fabric\n        State                             : %s\n        Status                            : Success\n        CliqueId                          : %s\n        ClusterUUID                       : %s\n        Health\n            Bandwidth                     : Full\n    Processes                             : None\n\n' "$@"
}
node() { # FILE STATE CLIQUE UUID [CLIQUE-OF-GPU-4]
	{
		printf '\n==============NVSMI LOG==============\n\nAttached GPUs                             : 4\n'
		for g in 1 2 3; do gpu $g "$2" "$3" "$4"; done
		gpu 4 "$2" "${5:-$3}" "$4"
	} >"$1"
}
U=7f2f4d1e-1c0a-4b1e-9d55-0123456789ab
mkdir -p smi out
for i in 01 02 03 04; do node smi/nvl01n$i Completed 32766 $U; done
for i in 01 02 03; do node smi/nvl02n$i Completed 32767 $U; done
node smi/nvl03n01 'In Progress' N/A N/A
node smi/nvl03n02 Completed 1 $U 2

run alone 0 "$RANKMAP" site import --nvidia-smi smi --out out
has alone/found "$OUT" 'nvidia-smi -q \(ClusterUUID/CliqueId\) +9 nodes, 2 NVLink domains of up to 4 nodes'
has alone/not-complete "$OUT" 'nodes whose fabric is not Completed +1$'
has alone/mixed "$OUT" 'nodes whose GPUs name two domains +1$'
has alone/groups out/site.yaml '^  groups: \["nvl01n\[01-04\]", "nvl02n\[01-03\]"\]$'
has alone/gpn out/site.yaml '^gpus_per_node: 4$'
if [ -e out/topology.conf ]; then fail alone/no-topology "topology.conf written without switches"; else pass alone/no-topology; fi
run alone/validate 0 "$RANKMAP" site validate out/site.yaml
has alone/validate-domains "$OUT" 'nvlink domains +2 of up to 4 nodes \(16 GPUs\)'

printf 'SwitchName=s0 Level=0 Nodes=nvl01n[01-04],nvl03n01\nSwitchName=s1 Level=0 Nodes=nvl02n[01-03],nvl03n02\nSwitchName=t Level=1 Switches=s[0-1]\n' >topo.txt
mkdir -p both
run with-topology 0 "$RANKMAP" site import --scontrol topo.txt --nvidia-smi smi --out both
has with-topology/site both/site.yaml '^topology: "topology.conf"$'
run with-topology/validate 0 "$RANKMAP" site validate both/site.yaml
has with-topology/fabric "$OUT" '9 nodes \(36 GPUs\), 3 switches: 2 leaves, 2 levels'

mkdir -p bad
node bad/n1 Completed 5 $U
sed -i 's/ClusterUUID                       : .*/ClusterUUID                       : 7f2f"x/' bad/n1
run bad/uuid 2 "$RANKMAP" site import --nvidia-smi bad
has bad/uuid-msg "$ERR" 'bad/n1:11:49: ClusterUUID: a UUID or N/A expected'
rm bad/n1; node bad/n1 Completed x5 $U
run bad/clique 2 "$RANKMAP" site import --nvidia-smi bad
has bad/clique-msg "$ERR" 'bad/n1:10:45: CliqueId: a number or N/A expected'
rm bad/n1; printf 'GPU 0\n    Product Name : x\n' >bad/n1
run bad/no-fabric 2 "$RANKMAP" site import --nvidia-smi bad
has bad/no-fabric-msg "$ERR" 'bad/n1: no Fabric section'
rm bad/n1; node "bad/n'1" Completed 5 $U
run bad/hostname 2 "$RANKMAP" site import --nvidia-smi bad
has bad/hostname-msg "$ERR" 'is not a host name'
rm -f bad/*
run bad/empty-dir 2 "$RANKMAP" site import --nvidia-smi bad
has bad/empty-dir-msg "$ERR" 'no files'
finish
