#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A corpus of map files both readers must judge alike (issue 37.5): the
C reader (rm_map_read, through `rankmap check --map`) and the Python
package's (rankmap.Map). Each case is a map `rankmap plan` wrote, or that
map with one thing changed; a case either reader accepts and the other
refuses is a mismatch.

usage: map_corpus.py RANKMAP OUTDIR   (prints PASS:/FAIL: lines)
"""
import copy
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import rankmap  # noqa: E402

BASES = [  # layout, order, nodes, gpus per node
    ("tp=2,pp=2,dp=2", "megatron", "n[1-2]", 4),
    ("tp=2,ep=2,pp=2,dp=2", "megatron", "n[1-2]", 4),
    ("tp=2,cp=2,dp=2", "llama3", "n[1-4]", 2),
    ("tp=2,dp=4", "tp-dp", "n[1-2]", 4),
]


VALID = ("as-written", "order-name-other", "ranks-in-other-order")


def mutations(d):
    """(name, doc) pairs: d with one thing changed."""
    def m(name, f):
        x = copy.deepcopy(d)
        f(x)
        return name, x
    r0 = lambda x: x["ranks"][0]  # noqa: E731
    yield "as-written", copy.deepcopy(d)
    yield m("extra-top-key", lambda x: x.update(extra=1))
    yield m("extra-rank-key", lambda x: r0(x).update(extra=1))
    yield m("extra-node-key", lambda x: x["nodes"][0].update(extra=1))
    yield m("extra-order-key", lambda x: x["order"].update(extra=1))
    yield m("schema-other", lambda x: x.update(schema="rankmap-map/2"))
    yield m("no-layout", lambda x: x.pop("layout"))
    yield m("layout-garbage", lambda x: x.update(layout="8y2"))
    yield m("world-size-off", lambda x: x.update(world_size=x["world_size"] + 1))
    yield m("world-size-string", lambda x: x.update(world_size=str(x["world_size"])))
    yield m("gpus-per-node-0", lambda x: x.update(gpus_per_node=0))
    yield m("gpus-per-node-negative", lambda x: x.update(gpus_per_node=-4))
    yield m("axes-wrong-size", lambda x: x["axes"].update(tp=x["axes"]["tp"] * 2))
    yield m("axes-unknown", lambda x: x["axes"].update(zz=1))
    yield m("nesting-reversed", lambda x: x["nesting"].reverse())
    # the order's name is a label: its permutation numbers the ranks
    yield m("order-name-other", lambda x: x["order"].update(name="mine"))
    yield m("permutation-unknown-axis", lambda x: x["order"].update(permutation="tp-zz"))
    yield m("permutation-twice", lambda x: x["order"].update(permutation="tp-tp"))
    yield m("rank-missing", lambda x: x["ranks"].pop())
    yield m("rank-duplicated", lambda x: x["ranks"].append(copy.deepcopy(x["ranks"][0])))
    # rank records in any order
    yield m("ranks-in-other-order", lambda x: x["ranks"].insert(0, x["ranks"].pop(1)))
    yield m("rank-number-negative", lambda x: r0(x).update(rank=-1))
    yield m("rank-host-unknown", lambda x: r0(x).update(host="zz9"))
    yield m("rank-host-other-node", lambda x: r0(x).update(host=x["nodes"][-1]["host"]))
    yield m("rank-node-out-of-range", lambda x: r0(x).update(node=len(x["nodes"])))
    yield m("rank-gpu-out-of-range", lambda x: r0(x).update(local_gpu=x["gpus_per_node"]))
    yield m("rank-gpu-shared", lambda x: r0(x).update(local_gpu=x["ranks"][1]["local_gpu"], node=x["ranks"][1]["node"], host=x["ranks"][1]["host"]))
    yield m("rank-coordinate-wrong", lambda x: r0(x).update(tp=1 - r0(x)["tp"]))
    yield m("rank-coordinate-missing", lambda x: r0(x).pop("tp"))
    yield m("rank-coordinate-string", lambda x: r0(x).update(tp="0"))
    yield m("rank-coordinate-float", lambda x: r0(x).update(tp=0.5))
    yield m("rank-leaf-differs", lambda x: r0(x).update(leaf="other"))
    yield m("node-listed-twice", lambda x: x["nodes"].append(copy.deepcopy(x["nodes"][0])))
    yield m("node-host-empty", lambda x: x["nodes"][0].update(host=""))
    yield m("ranks-not-a-list", lambda x: x.update(ranks={}))
    yield m("nodes-not-a-list", lambda x: x.update(nodes="n1"))
    if "groups" in d:
        k = sorted(d["groups"])[0]
        yield m("group-member-wrong", lambda x: x["groups"][k][0].__setitem__(0, x["world_size"] - 1))
        yield m("group-missing", lambda x: x["groups"][k].pop())
        yield m("group-kind-unknown", lambda x: x["groups"].update(zz=[[0]]))
    yield m("sha-not-hex", lambda x: x.update(inputs_sha256="XYZ"))


def c_verdict(cli, path):
    r = subprocess.run([cli, "check", "--map", path, "--no-site-config"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    # 2: the map was refused; 0 or 1: read, then scored
    return r.returncode != 2, r.stderr.strip().splitlines()[-1:] if r.returncode == 2 else ""


def py_verdict(path):
    try:
        rankmap.Map.load(path)
        return True, ""
    except rankmap.MapError as e:
        return False, str(e)


def main():
    cli, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    fails = n = 0
    for layout, order, nodes, gpn in BASES:
        base = os.path.join(out, "base.json")
        subprocess.run([cli, "plan", "--layout", layout, "--order", order,
                        "--nodes", nodes, "--gpus-per-node", str(gpn),
                        "--no-site-config", "--format", "json", "-o", base],
                       check=True, stderr=subprocess.DEVNULL)
        d = json.load(open(base))
        for name, doc in mutations(d):
            n += 1
            path = os.path.join(out, "%s.%s.json" % (layout.replace(",", "_").replace("=", ""), name))
            with open(path, "w") as f:
                json.dump(doc, f, indent=1)
            c_ok, c_why = c_verdict(cli, path)
            p_ok, p_why = py_verdict(path)
            want = name in VALID
            tag = "%s/%s" % (layout, name)
            if c_ok != p_ok:
                fails += 1
                print("FAIL: python/corpus/%s: C %s, Python %s (%s)" % (
                    tag, "accepts" if c_ok else "refuses",
                    "accepts" if p_ok else "refuses", c_why or p_why))
            elif c_ok != want:
                fails += 1
                print("FAIL: python/corpus/%s: both %s" % (tag, "accept" if c_ok else "refuse"))
    print("# map corpus: %d cases, %d where the readers disagree or both are wrong" % (n, fails))
    if not fails:
        print("PASS: python/corpus (%d cases)" % n)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
