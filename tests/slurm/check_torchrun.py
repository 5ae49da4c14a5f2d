#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hold the W lines of torchrun_worker.py against the map `rankmap plan`
computes from the same inputs: every worker's RANK, LOCAL_RANK, WORLD_SIZE
and visible device must be the map's. Prints PASS:/FAIL: lines.

usage: check_torchrun.py NAME OUTPUT CLI_JSON
"""
import json
import re
import sys

name, out, cli = sys.argv[1:4]
m = json.load(open(cli))
ranks = m["ranks"]
world = len(ranks)
gpn = m["gpus_per_node"]
fails = []
seen = {}
for line in open(out, errors="replace"):
    mo = re.search(r"W rank=(\d+) local=(\d+) world=(\d+) node=(\S+) "
                   r"cvd=(\S+) slurm=(\S+) group=(\S+)", line)
    if not mo:
        continue
    r, local, w = (int(x) for x in mo.group(1, 2, 3))
    node, cvd, slurm, group = mo.group(4, 5, 6, 7)
    seen[r] = seen.get(r, 0) + 1
    want = ranks[r] if r < world else None
    if w != world:
        fails.append("rank %d: WORLD_SIZE=%d, map %d" % (r, w, world))
    if group != "ok":
        fails.append("rank %d: gloo group %s" % (r, group))
    if want is None:
        fails.append("rank %d outside the map" % r)
        continue
    if node != want["host"]:
        fails.append("rank %d ran on %s, map %s" % (r, node, want["host"]))
    if local != r % gpn:
        fails.append("rank %d: LOCAL_RANK=%d" % (r, local))
    vis = cvd.split(",")
    phys = slurm.split(",") if slurm != "-" else [str(i) for i in range(gpn)]
    g = want["local_gpu"]
    if local >= len(vis) or g >= len(phys) or vis[local] != phys[g]:
        fails.append("rank %d: cuda:%d is %s (CUDA_VISIBLE_DEVICES=%s), "
                     "map GPU %d is %s" % (r, local, vis[local] if local <
                                           len(vis) else "none", cvd, g,
                                           phys[g] if g < len(phys) else "?"))
if sorted(seen) != list(range(world)) or any(v != 1 for v in seen.values()):
    fails.append("ranks seen %s, want each of 0..%d once" %
                 (sorted(seen.items()), world - 1))
if fails:
    print("FAIL: %s: %s" % (name, "; ".join(fails[:6])))
    sys.exit(1)
print("PASS: %s (%d workers)" % (name, world))
