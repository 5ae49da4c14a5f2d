#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# t_node.sh - `rankmap node` over the generated fixtures (tests/gen/gen_hwloc.py),
# the real captures in ../shared/fixtures/hwloc when they exist, the live
# machine, and bad input.
. "$(dirname "$0")/../lib.sh"

if ! command -v python3 >/dev/null; then
	skip all "python3 is needed to generate the hwloc fixtures"
	exit 0
fi
FX=$(mktemp -d)
trap 'rm -rf "$FX"' EXIT
python3 "$RM_ROOT/tests/gen/gen_hwloc.py" "$FX" || { fail generate "gen_hwloc.py failed"; exit 1; }

# Debian's hwloc pci plugin (libpciaccess) leaks ~1 KiB per live scan from a
# dlclose'd module; only live runs need this.
printf 'leak:hwloc_topology_load\n' >"$FX/lsan.supp"
LIVE_LSAN="suppressions=$FX/lsan.supp:fast_unwind_on_malloc=0"

DGX_HCA='=mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1,mlx5_11:1'

# --- DGX H100: the table, env and JSON ---
run dgx_text 0 "$RANKMAP" node --hwloc-xml "$FX/dgx-h100.xml"
has dgx_gpu0_row "$OUT" '^0 +0000:1b:00\.0 +10de:2330 +0 +0-55,112-167 +mlx5_0:1 +PXB$'
has dgx_gpu7_row "$OUT" '^7 +0000:df:00\.0 +10de:2330 +1 +56-111,168-223 +mlx5_11:1 +PXB$'
has dgx_storage "$OUT" '^mlx5_7:1 .*no: serves no GPU at PHB'
has dgx_counts "$OUT" 'GPUs: 8 +NVSwitches: 4'
has dgx_hca_text "$OUT" "NCCL_IB_HCA=$DGX_HCA\$"

run dgx_env 0 "$RANKMAP" node --hwloc-xml "$FX/dgx-h100.xml" --format env
has dgx_env_hca "$OUT" "^NCCL_IB_HCA=$DGX_HCA\$"
has dgx_env_order "$OUT" '^CUDA_DEVICE_ORDER=PCI_BUS_ID$'
has dgx_env_rank0 "$OUT" '^RANKMAP_CPUS=0-13,112-125$'
hasnt dgx_env_no_cvd "$OUT" 'CUDA_VISIBLE_DEVICES'
got=$(set -a; . "$OUT"; echo "$NCCL_IB_HCA|$RANKMAP_GPU")
if [ "$got" = "$DGX_HCA|7" ]; then pass dgx_env_sources; else fail dgx_env_sources "got $got"; fi

run dgx_json 0 "$RANKMAP" node --hwloc-xml "$FX/dgx-h100.xml" --format json --ranks 4
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(len(d["gpus"]), d["gpus"][5]["busid"], d["gpus"][5]["nics"][0], len(d["ranks"]),
      d["nccl_env"]["NCCL_IB_HCA"], sum(1 for n in d["nics"] if n["compute"]))' "$OUT" 2>&1)
if [ "$got" = "8 0000:c3:00.0 mlx5_9:1 4 $DGX_HCA 8" ]; then pass dgx_json_fields; else
	fail dgx_json_fields "got $got"; fi

run dgx_ranks2 0 "$RANKMAP" node --hwloc-xml "$FX/dgx-h100.xml" --format env --ranks 2
has dgx_ranks2_cpus "$OUT" '^RANKMAP_CPUS=28-55,140-167$'
hasnt dgx_ranks2_only2 "$OUT" '^# local rank 2$'

run dgx_too_many_ranks 2 "$RANKMAP" node --hwloc-xml "$FX/dgx-h100.xml" --ranks 9
has dgx_too_many_msg "$ERR" '9 local ranks .* 8 GPUs'

# --- NCCL topology file ---
run dgx_topo 0 "$RANKMAP" node --hwloc-xml "$FX/dgx-h100.xml" --nccl-topo "$FX/topo.xml"
got=$(python3 -c 'import sys, xml.etree.ElementTree as E
r=E.parse(sys.argv[1]).getroot()
g=[p.get("busid") for p in r.iter("pci") if p.get("class")=="0x030200"]
n=[x.get("name") for x in r.iter("net")]
print(r.tag, r.get("version"), len(r.findall("cpu")), ",".join(g), ",".join(n))' "$FX/topo.xml" 2>&1)
want="system 1 2 0000:1b:00.0,0000:43:00.0,0000:52:00.0,0000:61:00.0,0000:9d:00.0,0000:c3:00.0,0000:d1:00.0,0000:df:00.0 mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11"
if [ "$got" = "$want" ]; then pass dgx_topo_content; else fail dgx_topo_content "got $got"; fi
run topo_unwritable 2 "$RANKMAP" node --hwloc-xml "$FX/dgx-h100.xml" --nccl-topo "$FX/no/such/dir/t.xml"
has topo_unwritable_msg "$ERR" 'cannot write'

# --- the other generated machines ---
run p5en 0 "$RANKMAP" node --hwloc-xml "$FX/p5en.xml" --format env
has p5en_rank0 "$OUT" '^RANKMAP_NIC=rdmap34s0:1,rdmap35s0:1$'
has p5en_rank7 "$OUT" '^RANKMAP_NIC=rdmap196s0:1,rdmap197s0:1$'
run half 0 "$RANKMAP" node --hwloc-xml "$FX/half-nic.xml" --format env
has half_hca "$OUT" '^NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1$'
run mixed 0 "$RANKMAP" node --hwloc-xml "$FX/mixed.xml"
has mixed_down "$OUT" '^mlx5_0:1 .*DOWN .*no: port DOWN'
has mixed_vf "$OUT" '^mlx5_4:1 .*no: SR-IOV virtual function'
has mixed_hca "$OUT" 'NCCL_IB_HCA==mlx5_1:1,mlx5_2:1,mlx5_2:2,mlx5_3:1$'

# --- a site file: exclusion, rail-optimised, extra NCCL variables ---
cat >"$FX/site.yaml" <<EOF
schema: rankmap-site/1
name: t-node
units:
  rails: 4
  list:
    - {name: su1, nodes: "n[1-4]"}
nccl:
  exclude_nics: [mlx5_3]
  env: {NCCL_IB_GID_INDEX: "3"}
hwloc_xml: $FX/%n-not-exported.xml
EOF
run site 0 "$RANKMAP" node --hwloc-xml "$FX/mixed.xml" --site "$FX/site.yaml" --format env
has site_hca "$OUT" '^NCCL_IB_HCA==mlx5_1:1,mlx5_2:1,mlx5_2:2$'
has site_cross_nic "$OUT" '^NCCL_CROSS_NIC=0$'
has site_extra "$OUT" '^NCCL_IB_GID_INDEX=3$'

# --- a doctored XML: an RDMA name that would break NCCL_IB_HCA's syntax ---
sed 's/name="mlx5_11"/name="mlx5_11,mlx5_99:7"/' "$FX/dgx-h100.xml" >"$FX/evil.xml"
run evil_name 0 "$RANKMAP" node --hwloc-xml "$FX/evil.xml" --format env
has evil_hca "$OUT" '^NCCL_IB_HCA==mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1$'
run evil_text 0 "$RANKMAP" node --hwloc-xml "$FX/evil.xml"
has evil_reason "$OUT" 'name not usable in NCCL_IB_HCA'

# --- CPU-only node: not an error ---
run cpu_only 0 "$RANKMAP" node --hwloc-xml "$FX/cpu-only.xml" --format env --ranks 4
has cpu_only_msg "$ERR" 'no GPUs'
hasnt cpu_only_no_hca "$OUT" 'NCCL_IB_HCA'
hasnt cpu_only_no_rank "$OUT" 'RANKMAP_'

# --- bad input ---
run missing 2 "$RANKMAP" node --hwloc-xml "$FX/missing.xml"
has missing_msg "$ERR" 'missing\.xml'
run v3 2 "$RANKMAP" node --hwloc-xml "$FX/dgx-h100-v3.xml"
has v3_msg "$ERR" "dgx-h100-v3\.xml.*version '3\.0' cannot be read"
run truncated 2 "$RANKMAP" node --hwloc-xml "$FX/truncated.xml"
has truncated_msg "$ERR" 'truncated\.xml'
run garbage 2 "$RANKMAP" node --hwloc-xml "$FX/garbage.xml"
has garbage_msg "$ERR" 'garbage\.xml.*not an hwloc XML'
run bad_format 2 "$RANKMAP" node --hwloc-xml "$FX/dgx-h100.xml" --format yaml
run bad_ranks 2 "$RANKMAP" node --hwloc-xml "$FX/dgx-h100.xml" --ranks 0
run bad_ranks_text 2 "$RANKMAP" node --hwloc-xml "$FX/dgx-h100.xml" --ranks 4x
run bad_option 2 "$RANKMAP" node --frobnicate
run help 0 "$RANKMAP" node --help

# --- the live machine (whatever this host is) and the site's cached XML ---
LSAN_OPTIONS=$LIVE_LSAN run live 0 "$RANKMAP" node --timing
has live_source "$OUT" '^node: live$'
has live_timing "$ERR" 'read live in [0-9.]+ ms'
LSAN_OPTIONS=$LIVE_LSAN run site_cache_missing 0 "$RANKMAP" node --site "$FX/site.yaml"
has site_cache_missing_live "$OUT" '^node: live$'
host=$(hostname); host=${host%%.*}
cp "$FX/half-nic.xml" "$FX/$host-not-exported.xml"
run site_cache 0 "$RANKMAP" node --site "$FX/site.yaml" --format env
has site_cache_used "$OUT" '^NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1$'  # mlx5_3 excluded by the site

# --- real captures: load or fail cleanly, with the GPU counts SOURCES.md gives ---
REAL=$RM_ROOT/../shared/fixtures/hwloc
if [ ! -d "$REAL" ]; then
	skip real_captures "no $REAL (the shared fixtures are not on this machine)"
else
	declare -A gpus=(
		[hwloc-nvidiaDGX2.v2x.xml]=16 [hwloc-32em64t-2n8c2t-pci-normalio.xml]=3
		[hwloc-power8gpudistances.xml]=4 [psmgmt-topo.jwb0004.xml]=4
		[psmgmt-topo.jwb0001.xml]=4 [psmgmt-topo.jrc0323.xml]=4
		[psmgmt-topo.jrc0386.xml]=4 [psmgmt-topo.jwc09n003.xml]=4
		[psmgmt-topo.mel2001.xml]=4 [mpibind-coral-lassen.xml]=4
		[mpibind-coral-lassen-hwloc1.xml]=4 [mpibind-g4dnmetal.xml]=8
		[mpibind-cts1-pascal.xml]=2 [model-dgx-h100.xml]=8
		[aws-p5en-h200.reconstructed.xml]=8 [h200-vm-lstopo.xml]=1
	)
	for f in "$REAL"/*.xml; do
		b=${f##*/}
		if [[ $b == *v3* ]]; then
			run "real_$b" 2 "$RANKMAP" node --hwloc-xml "$f"
			has "real_${b}_msg" "$ERR" "version '3\.0'"
			continue
		fi
		run "real_$b" 0 "$RANKMAP" node --hwloc-xml "$f"
		n=$(sed -n 's/^GPUs: \([0-9]*\) .*/\1/p' "$OUT")
		if [ -n "${gpus[$b]:-}" ] && [ "$n" = "${gpus[$b]}" ]; then pass "real_${b}_gpus"; else
			fail "real_${b}_gpus" "$n GPUs, SOURCES.md says ${gpus[$b]:-?}"; fi
	done
	run real_dgx2 0 "$RANKMAP" node --hwloc-xml "$REAL/hwloc-nvidiaDGX2.v2x.xml"
	has real_dgx2_nvswitches "$OUT" 'GPUs: 16 +NVSwitches: 12 '
	run real_model_dgx 0 "$RANKMAP" node --hwloc-xml "$REAL/model-dgx-h100.xml" --format env
	has real_model_dgx_hca "$OUT" "^NCCL_IB_HCA=$DGX_HCA\$"
	# jrc0386: two ports were not ACTIVE at capture; only two remain.
	run real_jrc0386 0 "$RANKMAP" node --hwloc-xml "$REAL/psmgmt-topo.jrc0386.xml" --format env
	has real_jrc0386_hca "$OUT" '^NCCL_IB_HCA==mlx5_[0-9]:1,mlx5_[0-9]:1$'
	run real_p5en 0 "$RANKMAP" node --hwloc-xml "$REAL/aws-p5en-h200.reconstructed.xml" --format env
	has real_p5en_pairs "$OUT" '^RANKMAP_NIC=rdmap[0-9]+s0:1,rdmap[0-9]+s0:1$'
	run real_lassen 0 "$RANKMAP" node --hwloc-xml "$REAL/mpibind-coral-lassen.xml"
	has real_lassen_fallback "$OUT" "NUMA nodes are used"
	has real_lassen_hca "$OUT" 'NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1$'
fi
# --- the real H200 capture, kept in the project (tests/node/data/README.md):
# what rankmap node printed live on that machine (reference/gpu-h200.md).
H200="$RM_ROOT/tests/node/data/h200-vm-lstopo.xml"
run h200_text 0 "$RANKMAP" node --hwloc-xml "$H200"
has h200_counts "$OUT" '^GPUs: 1 +NVSwitches: 0 +NIC ports: 0 \(0 compute\)$'
has h200_gpu_row "$OUT" '^0 +0000:00:06\.0 +10de:2335 +0 +0-15 +- +-$'
run h200_env 0 "$RANKMAP" node --hwloc-xml "$H200" --format env
got=$(grep -v '^#' "$OUT" | tr '\n' ' ')
want='CUDA_DEVICE_ORDER=PCI_BUS_ID RANKMAP_GPU=0 RANKMAP_GPU_BUSID=0000:00:06.0 RANKMAP_CPUS=0-15 RANKMAP_NUMA=0 '
if [ "$got" = "$want" ]; then pass h200_env_exact; else fail h200_env_exact "got $got"; fi
hasnt h200_no_hca "$OUT" 'NCCL_IB_HCA'
run h200_json 0 "$RANKMAP" node --hwloc-xml "$H200" --format json
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["nvswitches"], d["numa_fallback"], len(d["gpus"]), d["gpus"][0]["pci_id"], d["gpus"][0]["numa"], d["gpus"][0]["cpus"], len(d["nics"]), sorted(d["nccl_env"]))' "$OUT" 2>&1)
if [ "$got" = "0 False 1 10de:2335 0 0-15 0 ['CUDA_DEVICE_ORDER']" ]; then pass h200_json_fields; else
	fail h200_json_fields "got $got"; fi
run h200_two_ranks 2 "$RANKMAP" node --hwloc-xml "$H200" --ranks 2

finish
