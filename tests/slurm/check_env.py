#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Check the env lines of every task of a step (task_env.sh) against the map
`rankmap plan` computes from the same inputs, and against the rules a user
relies on. Prints PASS:/FAIL: lines for tests/run.sh.

usage: check_env.py NAME DUMP CLI_JSON TOPOLOGY ORDER PP_CROSS
  ORDER     the numbering the framework expects, fastest axis first
            (tp-pp-dp, tp-dp-pp ...): RANK must follow it
  PP_CROSS  pipeline neighbour pairs (per GPU) expected to cross leaves,
            derived by hand from the test topology; - to skip
"""
import hashlib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import port_rule  # noqa: E402


def expand(expr):
    out = []
    for m in re.finditer(r"([A-Za-z_-]+)(?:\[([^\]]+)\]|(\d+))", expr):
        prefix, rng, single = m.groups()
        if single is not None:
            out.append(prefix + single)
            continue
        for part in rng.split(","):
            a, _, b = part.partition("-")
            for i in range(int(a), int(b or a) + 1):
                out.append("%s%0*d" % (prefix, len(a), i))
    return out


def leaves(path):
    leaf = {}
    for line in open(path):
        m = re.match(r"\s*SwitchName=(\S+)\s+Nodes=(\S+)", line)
        if m:
            for h in expand(m.group(2)):
                leaf[h] = m.group(1)
    return leaf


def main():
    name, dump, cli, topo, order, pp_cross = sys.argv[1:7]
    suite = "slurm"
    fails = []

    def check(what, ok, why=""):
        if ok:
            print("PASS: %s/%s/%s" % (suite, name, what))
        else:
            print("FAIL: %s/%s/%s: %s" % (suite, name, what, why))
            fails.append(what)

    import json
    raw = open(cli, "rb").read()
    m = json.loads(raw)
    tasks = []
    for line in open(dump):
        if line.startswith("TASK "):
            tasks.append(dict(kv.split("=", 1) for kv in line.split()[1:]))
    world = m["world_size"]
    check("task-count", len(tasks) == world, "%d tasks, map world %d" % (len(tasks), world))
    ranks = sorted(int(t["rank"]) for t in tasks if t["rank"].isdigit())
    check("rank-bijection", ranks == list(range(world)), "ranks %s" % ranks[:40])
    if fails:
        return 1
    axes = m["axes"]
    bad = []
    for t in tasks:
        r = m["ranks"][int(t["rank"])]
        want = {"node": r["host"], "localid": str(r["local_gpu"]),
                "lr": str(r["local_gpu"]), "world": str(world),
                "lws": str(m["gpus_per_node"]),
                "tp": str(r.get("tp", 0)), "pp": str(r.get("pp", 0)),
                "dp": str(r.get("dp", 0)), "tps": str(axes.get("tp", 1)),
                "pps": str(axes.get("pp", 1)), "dps": str(axes.get("dp", 1)),
                "layout": m["layout"], "order": m["order"]["permutation"],
                "stamp": "none"}
        for k, v in want.items():
            if t.get(k) != v:
                bad.append("rank %s %s=%s, map says %s" % (t["rank"], k, t.get(k), v))
    check("agrees-with-rankmap-plan", not bad, "; ".join(bad[:5]))

    # RANK must follow the numbering the framework derives its groups from.
    size = {a: int(axes.get(a, 1)) for a in ("tp", "cp", "ep", "pp", "dp")}
    wrong = []
    for t in tasks:
        stride, want = 1, 0
        for a in order.split("-"):
            want += int(t.get(a, 0) or 0) * stride
            stride *= size[a]
        if want != int(t["rank"]):
            wrong.append("rank %s has coords giving %d" % (t["rank"], want))
    check("numbering-" + order, not wrong, "; ".join(wrong[:5]))

    tp_nodes = {}
    for t in tasks:
        tp_nodes.setdefault((t["pp"], t["dp"]), set()).add(t["node"])
    split = [k for k, v in tp_nodes.items() if len(v) != 1]
    check("tp-inside-node", not split, "TP groups over several nodes: %s" % split)

    if pp_cross != "-":
        leaf = leaves(topo)
        by = {(t["tp"], t["dp"], int(t["pp"])): t["node"] for t in tasks}
        cross = sum(1 for (tp, dp, pp), node in by.items()
                    if (tp, dp, pp + 1) in by and leaf[node] != leaf[by[(tp, dp, pp + 1)]])
        check("pp-crossings", cross == int(pp_cross),
              "%d PP neighbour pairs cross leaves, expected %s" % (cross, pp_cross))

    r0 = [t for t in tasks if t["rank"] == "0"][0]
    check("master-addr", all(t["maddr"] == r0["node"] for t in tasks),
          "MASTER_ADDR %s, rank 0 is on %s" % ({t["maddr"] for t in tasks}, r0["node"]))
    # docs/plugin.md: without ports reserved by Slurm (MpiParams=ports),
    # derived from the step's ids outside the nodes' ephemeral range (the
    # local cluster's nodes share this machine's).
    port = str(port_rule.master_port(int(r0["jobid"]), int(r0["step"])))
    lo, hi = port_rule.ephemeral()
    check("master-port-not-ephemeral",
          not lo <= int(port) <= hi and int(port) >= 1024,
          "MASTER_PORT %s is in the ephemeral range %d-%d" % (port, lo, hi))
    check("master-port", all(t["mport"] == port for t in tasks),
          "MASTER_PORT %s, expected %s" % ({t["mport"] for t in tasks}, port))
    cli_sha = hashlib.sha256(raw).hexdigest()
    shas = {t["sha"] for t in tasks} | {t["filesha"] for t in tasks}
    check("map-sha-equal", shas == {cli_sha},
          "RANKMAP_MAP_SHA256 / file hashes %s, rankmap plan %s" % (shas, cli_sha))
    modes = {t["mode"] for t in tasks}
    # root's, readable by the job's group only; nothing the job may write
    check("map-file-private", modes == {"440:0,750:0,"},
          "file,dir modes %s" % modes)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
