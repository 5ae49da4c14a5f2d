#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plan quality against the baselines, priced: 20 seeded three-tier trees
(leaf -> pod -> spine, a bare topology.conf, so explain assumes its 7:1
spine), 40-90 % of the nodes allocated, host names following the wiring in
odd seeds and shuffled in even ones; tp=8, pp 2-16, megatron order,
llama3-70b. Prints every fabric's step time for the plan beside Slurm's
order, a sorted hostfile and Slurm's switch ranks, and how many baselines
are priced faster than the plan beyond the model's 1 % resolution.

    bench/bench_baselines.py BUILD/rankmap [N [FIRST_SEED]]
"""
import json
import os
import random
import subprocess
import sys
import tempfile

KINDS = ["slurm", "sorted", "switch-rank"]


def fabric(seed, d):
    r = random.Random(seed)
    pods, leaves, per = r.randint(2, 6), r.randint(3, 12), r.choice([2, 4, 6, 8, 16])
    names = ["gpu%04d" % i for i in range(1, pods * leaves * per + 1)]
    wire = names[:]
    if seed % 2 == 0:
        r.shuffle(wire)
    lines, k = [], 0
    for p in range(1, pods + 1):
        for l in range(1, leaves + 1):
            lines.append("SwitchName=p%dl%d Nodes=%s" % (p, l, ",".join(wire[k:k + per])))
            k += per
        lines.append("SwitchName=pod%d Switches=p%dl[1-%d]" % (p, p, leaves))
    lines.append("SwitchName=spine Switches=pod[1-%d]" % pods)
    topo = os.path.join(d, "t%d.conf" % seed)
    with open(topo, "w") as f:
        f.write("\n".join(lines) + "\n")
    alloc = sorted(r.sample(names, int(len(names) * r.uniform(0.4, 0.9))))
    nodes = os.path.join(d, "n%d.txt" % seed)
    with open(nodes, "w") as f:
        f.write("\n".join(alloc) + "\n")
    pp = r.choice([2, 4, 8, 16])
    return topo, nodes, "wire" if seed % 2 else "shuffled", pp, len(alloc) // pp


def main():
    rankmap = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    beaten, total, sums = 0, 0, [0.0] * (1 + len(KINDS))
    print("%4s %-9s %-8s %9s %9s %9s %11s" % ("seed", "layout", "names", "plan s", *KINDS))
    with tempfile.TemporaryDirectory() as d:
        for seed in range(first, first + n):
            topo, nodes, how, pp, dp = fabric(seed, d)
            lay = "8x%dx%d" % (pp, dp)
            p = subprocess.run([rankmap, "explain", "--model", "llama3-70b",
                                "--batch", str(dp * 32 * 8192), "--layout", lay,
                                "--order", "megatron", "--topology", topo,
                                "--gpus-per-node", "8", "--nodes-file", nodes,
                                "--baseline", ",".join(KINDS), "--format", "json"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                print("%4d %-9s %s" % (seed, lay, p.stderr.strip()))
                continue
            steps = [m["step_s"] for m in json.loads(p.stdout)["maps"]]
            total += 1
            beaten += sum(1 for s in steps[1:] if s < 0.99 * steps[0])
            sums = [a + b for a, b in zip(sums, steps)]
            print("%4d %-9s %-8s %9.3f %+8.2f%% %+8.2f%% %+10.2f%%" % (
                seed, lay, how, steps[0], *(100 * (s / steps[0] - 1) for s in steps[1:])))
    if total:
        print("summed over %d fabrics: plan %.3f s, %s" % (total, sums[0], ", ".join(
            "%s %+.2f %%" % (k, 100 * (s / sums[0] - 1)) for k, s in zip(KINDS, sums[1:]))))
    print("baselines priced faster than the plan beyond 1 %%: %d of %d" % (beaten, total * len(KINDS)))


if __name__ == "__main__":
    main()
