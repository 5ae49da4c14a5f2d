#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Lightning's SLURMEnvironment against the map, under a real step.

    check_lightning.py task             (in every task: one L line)
    check_lightning.py check NAME OUTPUT CLI_JSON

The task side reads every variable Lightning's
lightning/fabric/plugins/environments/slurm.py reads, the way it reads
them: MASTER_ADDR (else the first of SLURM_NODELIST), MASTER_PORT (else
one from SLURM_JOB_ID), SLURM_JOB_NAME (detect()), SLURM_NTASKS
(world_size), SLURM_PROCID (global_rank), SLURM_LOCALID (local_rank),
SLURM_NODEID (node_rank), SLURM_NTASKS_PER_NODE and SLURM_NNODES
(validate_settings). The check side holds them against the map `rankmap
plan` computes from the same inputs.
"""
import json
import os
import re
import sys


def task():
    e = os.environ
    job = e.get("SLURM_JOB_ID")
    port = e.get("MASTER_PORT") or str(15000 + int(job[-4:]) if job else 12910)
    print("L global=%s local=%s node_rank=%s world=%s addr=%s port=%s "
          "tpn=%s nnodes=%s detect=%s host=%s" % (
              e.get("SLURM_PROCID"), e.get("SLURM_LOCALID"),
              e.get("SLURM_NODEID"), e.get("SLURM_NTASKS"),
              e.get("MASTER_ADDR") or e.get("SLURM_NODELIST", "127.0.0.1"),
              port, e.get("SLURM_NTASKS_PER_NODE"), e.get("SLURM_NNODES"),
              int("SLURM_NTASKS" in e and
                  e.get("SLURM_JOB_NAME") not in ("bash", "interactive")),
              e.get("SLURMD_NODENAME")), flush=True)


def check(name, out, cli):
    m = json.load(open(cli))
    ranks, gpn, nhost = m["ranks"], m["gpus_per_node"], len(m["nodes"])
    rows = [dict(kv.split("=", 1) for kv in line.split()[1:])
            for line in open(out) if line.startswith("L ")]
    fails = []
    if len(rows) != len(ranks):
        fails.append("%d tasks, map %d ranks" % (len(rows), len(ranks)))
    node_of = {}
    for r in rows:
        g, loc = int(r["global"]), int(r["local"])
        if g >= len(ranks) or ranks[g]["host"] != r["host"] or \
                ranks[g]["local_gpu"] != loc:
            fails.append("global_rank %d on %s:%d is not the map's" %
                         (g, r["host"], loc))
        if int(r["world"]) != len(ranks):
            fails.append("world_size %s" % r["world"])
        if r["addr"] != ranks[0]["host"]:
            fails.append("main_address %s, rank 0 is on %s" %
                         (r["addr"], ranks[0]["host"]))
        if int(r["tpn"]) != gpn or int(r["nnodes"]) != nhost:
            fails.append("validate_settings: %s tasks per node, %s nodes" %
                         (r["tpn"], r["nnodes"]))
        if r["detect"] != "1":
            fails.append("detect() is false")
        nr = int(r["node_rank"])
        node_of.setdefault(r["host"], set()).add(nr)
        # Lightning's own arithmetic (set_world_ranks) where the map
        # numbers a node's GPUs together
        if nr * gpn + loc != g:
            fails.append("node_rank %d x %d + local_rank %d != global_rank %d"
                         % (nr, gpn, loc, g))
    if len({r["port"] for r in rows}) != 1:
        fails.append("main_port differs between tasks")
    if sorted(int(r["global"]) for r in rows) != list(range(len(ranks))):
        fails.append("global ranks are not 0..%d once each" % (len(ranks) - 1))
    if sorted(min(v) for v in node_of.values()) != list(range(nhost)) or \
            any(len(v) != 1 for v in node_of.values()):
        fails.append("node_rank per node %s" % node_of)
    if fails:
        print("FAIL: %s: %s" % (name, "; ".join(sorted(set(fails))[:5])))
        return 1
    print("PASS: %s (%d tasks)" % (name, len(rows)))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "task":
        task()
    else:
        sys.exit(check(*sys.argv[2:5]))
