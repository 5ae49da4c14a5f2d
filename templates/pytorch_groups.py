#!/usr/bin/env python3
"""A plain PyTorch job that takes everything from rankmap's SPANK plugin.

    srun --parallel-layout=2x2x2 python3 templates/pytorch_groups.py

init_process_group reads RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT
(env://). The TP, PP and DP groups come from the map file ($RANKMAP_MAP):
the members of a group are the ranks that agree on every coordinate but
that group's axis. Every rank creates every group, in the same order, as
torch.distributed requires. Then one all_reduce per group checks that the
group really holds the ranks the map says: each rank contributes its RANK
and the sum must be the sum of the members.

Exit status 0 when every check passed; 1 otherwise. Backend: gloo by
default (CPU); RANKMAP_BACKEND=nccl on GPU nodes.
"""
import hashlib
import json
import os
import sys
import time


def fail(msg):
    print("rank %s: FAILED: %s" % (os.environ.get("RANK", "?"), msg),
          flush=True)
    sys.exit(1)


def env_int(name):
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        fail("%s is missing or not a number; was the job started with "
             "--parallel-layout?" % name)


def main():
    rank, world = env_int("RANK"), env_int("WORLD_SIZE")
    local_rank = env_int("LOCAL_RANK")
    path = os.environ.get("RANKMAP_MAP", "")
    with open(path, "rb") as f:
        raw = f.read()
    if hashlib.sha256(raw).hexdigest() != os.environ.get("RANKMAP_MAP_SHA256"):
        fail("map file %s does not match RANKMAP_MAP_SHA256" % path)
    m = json.loads(raw)
    if m.get("schema") != "rankmap-map/1" or m["world_size"] != world:
        fail("map file %s is not a map of this world" % path)
    axes = [a for a in ("tp", "cp", "ep", "pp", "dp") if m["axes"].get(a, 1) > 1
            or a in ("tp", "pp", "dp")]
    me = m["ranks"][rank]
    if me["rank"] != rank or me["local_gpu"] != local_rank:
        fail("map says rank %d is local GPU %d, env says %d"
             % (rank, me["local_gpu"], local_rank))
    for a in axes:
        if int(os.environ.get("RANKMAP_%s_RANK" % a.upper(), -1)) != me.get(a, 0):
            fail("RANKMAP_%s_RANK disagrees with the map" % a.upper())

    import torch
    import torch.distributed as dist

    backend = os.environ.get("RANKMAP_BACKEND", "gloo")
    t0 = time.time()
    dist.init_process_group(backend=backend, init_method="env://")
    if dist.get_rank() != rank or dist.get_world_size() != world:
        fail("torch sees rank %d of %d" % (dist.get_rank(), dist.get_world_size()))

    # Members of each group along each axis, keyed by the other coordinates.
    def key(r, axis):
        return tuple(r.get(a, 0) for a in axes if a != axis)

    mine = {}
    for axis in axes:
        groups = {}
        for r in m["ranks"]:
            groups.setdefault(key(r, axis), []).append(r["rank"])
        for k in sorted(groups):
            members = sorted(groups[k])
            g = dist.new_group(ranks=members)
            if rank in members:
                mine[axis] = (g, members)

    for axis in axes:
        g, members = mine[axis]
        t = torch.tensor([float(rank)])
        dist.all_reduce(t, group=g)
        if int(t.item()) != sum(members):
            fail("%s group %s: all_reduce gave %d, expected %d"
                 % (axis, members, int(t.item()), sum(members)))
    t = torch.tensor([1.0])
    dist.all_reduce(t)
    if int(t.item()) != world:
        fail("world all_reduce gave %d" % int(t.item()))
    print("rank %d OK host %s %s (%.1fs)" % (
        rank, me["host"],
        " ".join("%s=%s" % (a, mine[a][1]) for a in axes), time.time() - t0),
        flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
